/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BISECT_H
#define ABLAB_BISECT_H

/* Performance bisection (`ablab bisect`, bisect.c): the first commit of a git tree's
 * first-parent history between a good and a bad commit whose kernel a board measures
 * differently from the good commit's.  Each step builds a commit through the board's
 * recipe (build.sh's git source) and runs one sequential A/B campaign of it (patched)
 * against the good commit (control) through the campaign engine; its verdict (the
 * comparison rule of the report) moves the search.  A commit that does not build, or
 * stays undecided in two campaigns, is skipped (as `git bisect skip` does).  Every step
 * is stored (tables bisects, bisect_steps), so an interrupted bisect continues after its
 * last finished step (bisect_resume). */

#include "campaign.h"
#include "store/store.h"

#include <stdint.h>
#include <stdio.h>

struct bisect_opts {
	const char *tree; /* the kernel git tree */
	const char *good, *bad; /* refs: good is an ancestor of bad on its first parents */
	const char *board; /* name or board file (with a kernel.recipe) */
	const char *scenario; /* the row that decides; NULL: any timing row */
	int budget, first; /* sequential design: boots per variant at most, first look */
	int batches;
	double margin_pct; /* "same": within +-margin_pct % (steps: at least half the
					 * change of bad against good) */
	double alpha; /* false-alarm rate of each campaign (0: 0.05) */
	enum order_kind order; /* abab or abba */
	const char *params; /* module parameters of every boot */
	const char *results; /* transcripts: RESULTS/campaign-N */
	const char *db;
	/* the step design could not decide and runs anyway (--undecidable-ok): why, stored in
	 * the bisect's settings and every step campaign's run record; NULL: it can */
	const char *undecidable;
};

/* Starts a bisect and runs it to its end.  *id (if not NULL) gets its id as soon as it is
 * stored.  0 when it ended with a result (found, no change, ambiguous),
 * -EINTR when a signal stopped it (resume it), else -errno (printed). */
int bisect_run(const struct bisect_opts *o, int64_t *id);

/* Continues bisect id after its last finished step: an interrupted step's campaign is
 * resumed, not run again.  Return values as bisect_run's. */
int bisect_resume(const char *db, int64_t id);

/* The step table and the result of bisect id (`ablab report --bisect ID`).  0, -ENOENT
 * (no such bisect, printed) or -EIO. */
int bisect_report(struct store *st, int64_t id, FILE *out);

#endif
