/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - statistics for ablab: per-variant summaries, A/B comparison of boot means
 * (exact Mann-Whitney U, bootstrap CI, Welch's t) and Kalibera & Jones design advice.
 *
 * The boot is the unit of replication: callers pass one value per boot (the mean over that
 * boot's batches) to stats_ab(); stats_design() takes the raw boots x batches matrix.
 *
 * All functions return 0 (or a documented non-negative result) on success and a negative
 * errno on failure: -EINVAL for bad input (NULL pointers, n == 0, non-finite values, ...),
 * -ENOMEM if a scratch allocation fails. No global state, no output; callers' arrays are
 * never modified.
 */
#ifndef ABLAB_STATS_H
#define ABLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Largest na + nb for which the Mann-Whitney p-value is exact (the permutation distribution
 * of the rank sum, ties included); above it the normal approximation with tie correction.
 */
#define STATS_MWU_EXACT_MAX 50
/* Bootstrap resamples used when stats_ab() is called with resamples == 0. */
#define STATS_DEFAULT_RESAMPLES 10000u
/* Upper clamp for design_advice.batches_opt (reached when no between-boot variance is seen). */
#define STATS_DESIGN_MAX_BATCHES 1000u
/* Upper clamp for design_advice.boots_needed. */
#define STATS_DESIGN_MAX_BOOTS 100000u

/* sd: sample standard deviation (n - 1 denominator), 0 if n < 2 */
struct summary {
	size_t n;
	double mean, median, sd, min, max;
};

/* Summary of x[0..n-1]. -EINVAL if x or s is NULL, n == 0 or a value is not finite. */
int stats_summary(const double *x, size_t n, struct summary *s);

/* B below = every B value < every A value; B above = every B value > every A value. */
enum separation { SEP_OVERLAP = 0, SEP_B_BELOW = -1, SEP_B_ABOVE = 1 };

struct ab_result {
	/* a = control boot means, b = patched boot means */
	struct summary a, b;
	/* (mean_b - mean_a) / mean_a; NAN if mean_a == 0 or a side is empty */
	double rel_change;
	/*
	 * two-sided Mann-Whitney U p-value on the values, P(|T - E T| >= |t - E T|) under the
	 * permutation distribution (conditional on ties); NAN if na or nb == 0
	 */
	double p_mwu;
	/* 1: exact enumeration; 0: normal approx. (na + nb > STATS_MWU_EXACT_MAX) */
	int p_exact;
	/* smallest achievable two-sided p for these n: min(1, 2 / C(na + nb, na)) */
	double p_min;
	/* U for b: number of pairs (a_i, b_j) with b_j > a_i, plus 0.5 per tie */
	double u;
	enum separation sep;
	/*
	 * Bootstrap 95% percentile CI of rel_change, resampling boots within each group;
	 * NAN if n < 2 on a side or every resample had a control mean of 0.
	 */
	double ci_lo, ci_hi;
	uint64_t seed; /* seed used */
	unsigned int resamples; /* requested (0 -> STATS_DEFAULT_RESAMPLES) */
	unsigned int resamples_used; /* entered the CI (control mean != 0) */
	/*
	 * Welch's t-test, two-sided. Sign as R's t.test(a, b): t = (mean_a - mean_b) / se,
	 * so a slower patched variant (b > a) gives t < 0. NAN when undefined (n < 2 on a
	 * side, or both sides with zero variance).
	 */
	double welch_t, welch_df, welch_p;
};

/*
 * Compare control a[0..na-1] with patched b[0..nb-1] (one value per boot). One side may be
 * empty (its pointer may then be NULL): its summary gets n = 0 and NAN fields, and the
 * comparison fields are NAN. -EINVAL if r is NULL, both sides are empty, a pointer is NULL
 * with n > 0, or a value is not finite; -ENOMEM on allocation failure.
 */
int stats_ab(const double *a, size_t na, const double *b, size_t nb,
	     uint64_t seed, unsigned int resamples, struct ab_result *r);

/*
 * Significance verdict at level alpha (0 < alpha < 1), from the Mann-Whitney p-value:
 * 1 significant (p_mwu <= alpha), 0 not significant (print "~"), -1 can never reach alpha
 * with these n (p_min > alpha, or p_mwu is NAN). -EINVAL if r is NULL or alpha is invalid.
 */
int stats_verdict(const struct ab_result *r, double alpha);

/*
 * Kalibera & Jones (2013) two-level design advice. x[i * m_batches + j] = batch j of boot i.
 * See stats.c for the formulas. Requires n_boots >= 2, m_batches >= 2, c_boot >= 0,
 * c_batch > 0, target_rel > 0 (all finite); -EINVAL otherwise, -EDOM if the grand mean is 0
 * (a relative target is then meaningless). boots_needed and est_seconds are per variant.
 */
struct design_advice {
	/* T1^2 = S1^2: within-boot (batch-to-batch) variance */
	double var_within;
	/* T2^2 = S2^2 - S1^2 / m, clamped >= 0: between-boot variance component */
	double var_between;
	double grand_mean;
	/* ceil(sqrt(c_boot * var_within / (c_batch * var_between))), in [1, MAX] */
	unsigned int batches_opt;
	/* boots per variant for a 95% CI half-width <= target_rel * |grand_mean| */
	unsigned int boots_needed;
	/* boots_needed * (c_boot + batches_opt * c_batch): seconds per variant */
	double est_seconds;
};

int stats_design(const double *x, size_t n_boots, size_t m_batches,
		 double c_boot, double c_batch, double target_rel,
		 struct design_advice *d);

/*
 * Boots per variant for a 95% CI half-width <= target_rel * |grand_mean| when every boot runs
 * m batches, from the variance components of stats_design(): the smallest n >= 2 with
 * t_{0.975, n-1} sqrt((var_between + var_within / m) / n) <= target_rel |grand_mean|,
 * clamped to STATS_DESIGN_MAX_BOOTS (also returned for a zero or invalid target).
 */
unsigned int stats_design_boots(double var_within, double var_between, double grand_mean,
				unsigned int m, double target_rel);

#endif /* ABLAB_STATS_H */
