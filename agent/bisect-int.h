/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BISECT_INT_H
#define ABLAB_BISECT_INT_H

/* Inside bisect*.c only: the state of one bisect and the helpers its files share. */

#include "bisect.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { C_UNKNOWN = -1, C_SAME = 0, C_DIFFERENT = 1, C_SKIPPED = 2 };
/* the check of bad against good, before the search */
enum { CHECK_TODO = -1, CHECK_SAME, CHECK_DIFFERENT, CHECK_UNDECIDED, CHECK_NOBUILD };

struct bcommit {
	char id[41];
	char *subject;
	int state; /* C_* */
	int undecided; /* campaigns that ended undecided */
};

struct bisect {
	int64_t id;
	struct store *st;
	const char *db;
	char *board, *board_file, *scenario, *tree, *good, *bad;
	struct bcommit *c; /* good..bad on bad's first parents, oldest first; c[n - 1] is bad */
	size_t n;
	int budget, first, batches;
	double margin_pct;
	enum order_kind order;
	char *params, *results;
	char *undecidable; /* bisect_opts.undecidable, as stored */
	double alpha;
	int nsteps; /* rows stored */
	int check, check_undecided;
	double effect; /* bad against good: the check's change on the deciding row */
};

struct step_result {
	enum verdict verdict;
	char scenario[64];
	double change, ci_lo, ci_hi, ci_conf;
};

/* The comparison rule's equivalence margin is below 100 %: a step's at most this. */
#define STEP_MARGIN_MAX_PCT 90.0

/* bisect.c */
double step_margin_pct(double margin_pct, double effect, bool check);

/* bisect-git.c */
int git_capture(const char *tree, struct buf *out, char *const args[]);
char *git_commit(const char *tree, const char *ref);
int build_commit(const struct bisect *b, const char *commit, char **dir, char **state, char **log,
		 char **why);

#endif
