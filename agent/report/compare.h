/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compare.h - one rule for comparing campaigns: a campaign against another (`ablab compare`)
 * and a nightly campaign against the previous night and against its job's nightly history
 * (`ablab nightly`).  Boot means per variant, the exact Mann-Whitney p and the
 * Hodges-Lehmann change of stats_row(); a night's p-values are adjusted together (Holm)
 * over every job that ran that night.
 */
#ifndef ABLAB_COMPARE_H
#define ABLAB_COMPARE_H

#include "report/report.h"
#include "stats/stats.h"
#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The boot means of the variant at position pa of row a's campaign (before) against those of
 * position pb of row b's (after): stats_row() at alpha and margin, over the finite means
 * (report_boot_means() by position; for an A/B campaign 0 is control, 1 patched).  0,
 * -ENODATA when a side has no boot mean, or a negative errno; r->na and r->nb (the boots of
 * each side) are set in every case. */
int cmp_rows(const struct rep_row *a, int pa, const struct rep_row *b, int pb, double alpha,
	     double margin, struct stats_row_result *r);

/* The comparisons of two campaigns' variants: every variant of b whose label a has too, in
 * b's order (control, patched; or control, +1, +1-2, ... of a series), with its position in
 * each.  Returns their number (at most VARIANTS_MAX). */
int cmp_variant_pairs(const struct report *a, const struct report *b, int pa[], int pb[]);

/* One row of a night: tonight against the previous night, or tonight as a new change point
 * of the job's nightly history. */
struct night_row {
	int job; /* index of the job in the night */
	char board[64], scenario[64];
	int variant; /* its side: 0 control, 1 patched (a series: the last variant), 2 between */
	char label[VARIANT_LABEL_MAX]; /* the variant's label: control, patched, +1, ... */
	bool cp; /* a change-point row */
	bool pres; /* lost bytes: any change is one, no test */
	bool baseline; /* the null-call baseline: shown, not tested */
	double prev, now; /* previous night's (cp: the segment's) mean, tonight's */
	size_t nx, ny; /* boots (cp: nights before, 1) */
	double rel, p, p_min, p_adj;
	double alpha, threshold; /* the job's */
	bool change;
	const char *verdict;
};

struct night_family {
	struct night_row *rows;
	size_t n;
	size_t family; /* p-values adjusted together */
	int njobs;
};

/* Appends to night the rows of job's campaign cid (job index ji, its alpha and relative
 * threshold): against campaign prev (none when prev is 0), and every new change point of
 * the job's nightly history.  0 or a negative errno (printed). */
int night_add_job(struct night_family *night, struct store *st, int ji, const char *job,
		  double alpha, double threshold, int64_t prev, int64_t cid);

/* Holm over every p-value of the night, then each row's verdict with its job's alpha and
 * threshold: a change needs the adjusted p <= alpha and |change| >= the threshold (lost
 * bytes: any change).  The null-call baseline is not in the family (as in the report).  Returns the number of changes. */
int night_decide(struct night_family *night);

/* Writes DIR/compare.txt and DIR/compare.json for the rows of job ji and prints the text to
 * stderr; env: what changed in the boards' environment since the previous night besides the
 * kernel, a line each (report_env_since(); NULL: nothing).  Returns the job's number of
 * changes, or -EIO. */
int night_write_job(const struct night_family *night, int ji, const char *job, double alpha,
		    double threshold, int64_t prev, int64_t cid, const char *dir, const char *env);

void night_free(struct night_family *night);

#endif /* ABLAB_COMPARE_H */
