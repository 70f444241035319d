/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats-cost.h - what an answer will cost (`ablab plan`, issue 29 item 4): from a board's A/A
 * calibration (per scenario the mean, the within-boot and the between-boot variance) and its
 * time per boot and per batch, the boots per kernel and batches per boot a fixed n+n design
 * needs to say "different" for a change of a given size, or "same within +-margin" when
 * nothing changed, and the wall time.
 *
 * The noise part is the inverse of the minimum detectable effect the reports print
 * (stats_mde(), stats_power(): the normal approximation of the exact rank test on boot means,
 * with its efficiency 3/pi); the design part is plan_decidable() (seqtest.h), the one
 * computation that also refuses designs that cannot decide before a campaign's first boot.
 * The plan is the larger of the two.
 *
 * Pure code: no I/O, no globals. Negative errno on failure.
 */
#ifndef ABLAB_STATS_COST_H
#define ABLAB_STATS_COST_H

#include <stddef.h>

/* the largest boots per kernel and batches per boot a plan considers */
#define COST_MAX_BOOTS 1000u
#define COST_MAX_BATCHES 100u

/* one scenario's calibration on a board */
struct cost_row {
	const char *scenario;
	double mean, var_within, var_between; /* as stored by `ablab calibrate` (ns, ns^2) */
};

struct cost_query {
	/* what to answer: effect > 0: "different" for a change of effect (a fraction, 0.01 =
	 * 1 %); else "same within +-margin" (0 < margin < 1) when nothing changed */
	double effect, margin;
	double alpha; /* the family's false-alarm rate (0 < alpha < 0.5) */
	double power; /* the chance of the answer the plan aims at (0 < power < 1) */
	size_t rows; /* tests in the family (Holm over them, as the report does) >= 1 */
	/* batches per boot; 0: the cheapest in SCREEN_MIN_OUTLIER_N..COST_MAX_BATCHES (fewer
	 * batches leave a boot's outlier batch unscreened, stats-screen.h rule (c), a cost
	 * the variances do not show) */
	unsigned int batches;
	unsigned int kernels; /* kernels booted n times each: 2 (0 too) for A/B, a series' variants */
	/* seconds of one boot without its batches (power, boot, module load, off) and of one
	 * batch of every scenario: a boot of m batches costs boot_s + m * batch_s */
	double boot_s, batch_s;
};

struct cost_result {
	unsigned int batches; /* per boot */
	/* boots per kernel: the plan, what the noise needs for the power (0: more than
	 * COST_MAX_BOOTS; for "different" never fewer than the smallest p allows: the power
	 * is 0 below), the smallest n+n design that can decide at all (plan_decidable(); 0:
	 * none up to PLAN_MAX_N) */
	size_t boots, noise_boots, decide_boots;
	size_t limit; /* index of the row that needs the most boots */
	double row_alpha; /* the level one row is held to: alpha / rows for "different" (the
			   * first Holm step), alpha for "same" (each bound of the interval) */
	double power; /* the limiting row's power at the plan */
	double seconds; /* wall time of the plan's kernels x boots boots; INFINITY when none */
	int reachable; /* 1: boots <= COST_MAX_BOOTS and a design can decide */
};

/*
 * Boots per kernel for rows[0..n-1] at m batches per boot (the largest any row needs), 0 if
 * more than COST_MAX_BOOTS; *limit the row. The power of "different" against effect at level
 * alpha / rows (two-sided) is stats_power(); of "same" when nothing changed, both bounds of the
 * 1 - 2 alpha interval inside +-margin: 2 Phi(margin / se - z_{1-alpha}) - 1, with se as in
 * stats_power(). -EINVAL on bad input (a row with mean 0 or a negative or non-finite value).
 */
int cost_noise_boots(const struct cost_query *q, const struct cost_row *rows, size_t n,
		     unsigned int m, size_t *boots, size_t *limit);

/*
 * The plan: the batches per boot (q->batches, or the m of 3..COST_MAX_BATCHES with the
 * least wall time, fewer batches on a tie), the boots per kernel (the larger of the noise's
 * and plan_decidable()'s), the wall time kernels x boots (boot_s + batches batch_s).
 * -EINVAL on bad input (n == 0, invalid fields), -ENOMEM.
 */
int cost_plan(const struct cost_query *q, const struct cost_row *rows, size_t n,
	      struct cost_result *r);

/* The power of one row at n+n boots of m batches, as cost_noise_boots() computes it. */
double cost_power(const struct cost_query *q, const struct cost_row *row, unsigned int m, size_t n);

#endif /* ABLAB_STATS_COST_H */
