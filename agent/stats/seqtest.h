/* SPDX-License-Identifier: GPL-2.0 */
/*
 * seqtest.h - group-sequential A/B design on the exact rank test: boot in rounds, look after
 * each round, stop a row as soon as it is decided (see docs/STATISTICS.md).
 *
 * The design is a list of looks (na_k, nb_k boots per variant, non-decreasing) within a boot
 * budget. At look k the row is
 *
 *   DIFFERENT  if the Mann-Whitney U of the boots so far is in the rejection region of look k:
 *              U <= u_diff[k] or U >= na_k nb_k - u_diff[k] (equivalently: the exact
 *              two-sided p <= p_size[k] = 2 P(U <= u_diff[k]));
 *   SAME       if the equivalence interval of look k, the Hodges-Lehmann interval of the log
 *              ratio of rank c = u_eq[k] + 1, lies inside (-margin, +margin);
 *   CONTINUE   otherwise, before the last look; UNDECIDED at the last look.
 *
 * Boundaries (Pocock-type: one nominal threshold at every look, on the exact p of that look):
 * under no change the ranks of all boots are exchangeable, so the joint law of (U_1, .., U_K)
 * depends only on the schedule, not on the noise. seq_design_init() simulates it once
 * (seeded; uniform values, sims replications) and takes the largest two-sided threshold
 * p_diff among the achievable exact p-values with P(DIFFERENT at any look) <= alpha, and the
 * largest one-sided threshold p_eq with P(one equivalence bound crossed at any look) <= beta.
 * Under a shift model on the log scale (the patch scales the times) the latter is the chance,
 * when the true change is exactly +-margin, that the interval excludes it at some look:
 * P(SAME | |change| >= margin) <= beta, whatever the noise's shape.
 *
 * The interval printed at a look is the repeated confidence interval (Jennison & Turnbull
 * 1989) of rank c = u_diff[k] + 1: the intervals of every look cover the true change at once
 * with probability >= 1 - fpr (the simulated overall false-positive rate), so the one at the
 * stopping look keeps its promise although the stop depended on the data.
 *
 * Pure code: no I/O, no globals. Negative errno on failure.
 */
#ifndef ABLAB_SEQTEST_H
#define ABLAB_SEQTEST_H

#include "stats/stats.h"

#include <stddef.h>
#include <stdint.h>

#define SEQ_MAX_LOOKS 48
/* replications of the null simulation when seq_design_init() gets sims == 0 */
#define SEQ_DEFAULT_SIMS 200000ul
#define SEQ_DEFAULT_SEED 20131021ull

struct seq_look {
	size_t na, nb;
	/* DIFFERENT iff U <= u_diff or U >= na nb - u_diff; -1: this look cannot reject */
	long u_diff;
	/* two-sided null size of that region at this look alone: 2 P(U <= u_diff) (0 if -1) */
	double p_size;
	/* SAME uses the interval of rank u_eq + 1; -1: this look cannot say same */
	long u_eq;
	/* one-sided null size of each equivalence bound: P(U <= u_eq) */
	double p_eq_size;
};

struct seq_design {
	size_t nlooks;
	struct seq_look look[SEQ_MAX_LOOKS];
	double alpha, beta, margin;
	/* nominal thresholds on the exact p of a look (two-sided / one-sided) */
	double p_diff, p_eq;
	/* simulated P(DIFFERENT at some look | no change) and its Monte-Carlo standard error */
	double fpr, fpr_se;
	/* simulated P(an equivalence bound crossed at some look | change = margin): >= P(SAME) */
	double same_err, same_err_se;
	unsigned long sims;
	uint64_t seed;
};

/*
 * Looks n+n for n = first, first + 1, ..., budget / 2 (budget = boots of both variants):
 * writes them to na[], nb[] (room for max) and returns how many, or -EINVAL (first < 1,
 * budget / 2 < first, NULL arrays, more than max looks).
 */
int seq_schedule_balanced(size_t first, size_t budget, size_t *na, size_t *nb, size_t max);

/*
 * Boundaries for the looks na[k], nb[k] (k < nlooks <= SEQ_MAX_LOOKS, both non-decreasing,
 * at least one growing at every look, na + nb <= STATS_MWU_EXACT_MAX, na, nb >= 1), for an
 * overall false-positive rate alpha and a "same" error beta (0 < alpha, beta < 0.5) with the
 * margin (a fraction, 0 < margin < 1). sims == 0: SEQ_DEFAULT_SIMS. Deterministic for a
 * seed. Runs in about 50 ms per 100,000 replications of a 3+3..10+10 schedule.
 * -EINVAL on bad input, -ENOMEM.
 */
int seq_design_init(struct seq_design *d, const size_t *na, const size_t *nb, size_t nlooks,
		    double alpha, double beta, double margin, unsigned long sims, uint64_t seed);

enum seq_decision { SEQ_DIFFERENT, SEQ_SAME, SEQ_CONTINUE, SEQ_UNDECIDED };

/* "different", "same", "continue", "undecided" */
const char *seq_decision_name(enum seq_decision s);

struct seq_result {
	enum seq_decision decision;
	size_t look; /* k */
	double u; /* U of b against a (ties count 1/2) */
	double p; /* exact two-sided p of this look alone (not the design's level) */
	/*
	 * repeated CI at look k, simultaneous coverage >= 1 - fpr: of the relative change
	 * (ratio - 1, log scale; NAN if a value is <= 0) and of the shift in the values' unit;
	 * NAN endpoints (c == 0) when u_diff[k] == -1
	 */
	struct hl_result rci_rel, rci_shift;
	/* the equivalence interval of the relative change at rank u_eq + 1 (NAN if u_eq == -1) */
	double eq_lo, eq_hi;
	double cliff;
};

/*
 * Decision at look k (0-based) from the boot values so far: a[0..na-1] control, b[0..nb-1]
 * patched, with na == d->look[k].na and nb == d->look[k].nb (-EINVAL otherwise, or on NULL
 * or non-finite input). With ties the exact p is the conditional permutation p of stats_ab()
 * and "different" is p <= p_size[k].
 */
int seq_decide(const struct seq_design *d, size_t k, const double *a, size_t na, const double *b,
	       size_t nb, struct seq_result *r);

/*
 * Can a design decide? (stats-plan.c; docs/STATISTICS.md "Designs that can decide")
 *
 * A row of a campaign's family is tested as the report tests it:
 *   fixed n+n (first == 0): "different" when its Holm-adjusted p <= alpha over rows tests,
 *     so the first rejection needs rows x p <= alpha: possible iff rows x 2 / C(2n, n) <=
 *     alpha; "same" when the 1 - 2 alpha interval (at its nominal level) lies inside the
 *     margin: possible iff the widest interval reaches it, P(U <= 0) = 1 / C(2n, n) <= alpha;
 *   sequential looks first+first .. budget+budget (first > 0): seq_design_init() at
 *     alpha / rows per row (Bonferroni) and beta; "different" is possible iff some look has
 *     u_diff >= 0, "same" iff some look has u_eq >= 0.
 * With data that leave no doubt (boots that do not overlap, an interval of width ~0) a
 * design that can decide does; one that cannot never will, whatever the boots show.
 */
#define PLAN_MAX_N 24 /* the largest boots per variant a sequential budget may have */

struct plan_design {
	size_t n; /* fixed design: boots per variant */
	size_t first, budget; /* sequential (first > 0): looks first+first .. budget+budget */
	size_t rows; /* tests in the family: boards x timing rows x comparisons per row */
	double alpha, beta, margin; /* overall false-alarm rate, "same" error, margin (fraction) */
};

struct plan_result {
	int can_diff, can_same; /* some look can end the row "different" / "same" */
	double row_alpha; /* alpha / rows: the level one row is held to */
	double p_min; /* the smallest exact p of the largest look: 2 / C(2n, n) */
	double fpr; /* sequential: the simulated P(some look says different | no change), at
		     * the per-row level; NAN for a fixed design */
	/* the smallest fixed n (boots per variant) that can end a row each way, up to
	 * PLAN_MAX_N (0: none) */
	size_t diff_n, same_n;
	/* sequential: the smallest budget from the same first that can, up to PLAN_MAX_N
	 * (0: none, or a fixed design) */
	size_t diff_budget, same_budget;
};

/*
 * Fills r for the design p (rows >= 1, 0 < alpha, beta < 0.5, 0 < margin < 1; fixed: n >= 1;
 * sequential: 1 <= first <= budget <= PLAN_MAX_N). Deterministic (the sequential designs are
 * simulated with SEQ_DEFAULT_SEED, as the report does: ~0.1 s each). -EINVAL, -ENOMEM.
 */
int plan_decidable(const struct plan_design *p, struct plan_result *r);

#endif /* ABLAB_SEQTEST_H */
