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
 * The statistical defaults, in one place: what a campaign, report or command uses when the
 * job, the option or the stored campaign does not say (docs/DESIGN.md section 5).  Each is a
 * plain literal (no arithmetic), so SQL can quote it with ABLAB_SQL_NUM().
 */
/* false-alarm rate of one comparison (significance level): reports, compare, trend, bisect */
#define ABLAB_ALPHA 0.05
/* miss rate of the sequential design (seqtest.h) */
#define ABLAB_BETA 0.05
/* power at which calibrate and the report's design paragraph give the smallest change seen */
#define ABLAB_POWER 0.8
/* equivalence margin: a relative change of the boot means inside +-1% is "the same" */
#define ABLAB_MARGIN 0.01
/* design advice: the 95% CI half-width wanted, as a fraction of the mean */
#define ABLAB_TARGET 0.01
/* two-sided tail of the 95% intervals (t_{0.975}) */
#define ABLAB_CI95_TAIL 0.05
/* nightly jobs: the relative change that matters (threshold.change_pct 5) */
#define ABLAB_NIGHTLY_THRESHOLD 0.05
/* `ablab ab` and `ablab calibrate`: boots per variant and batches per boot */
#define ABLAB_BOOTS 5
#define ABLAB_BATCHES 5
/* sequential design: boots per variant at the first look (ab --budget, jobs, bisect) */
#define ABLAB_FIRST_LOOK 4
/* a job without "boots": at least this many per kernel (job-run.c) */
#define ABLAB_JOB_MIN_BOOTS 3
/* bisect: the sequential budget (boots of both variants) and batches per boot of a step */
#define ABLAB_BISECT_BUDGET 8
#define ABLAB_BISECT_BATCHES 3
/* a default above as SQL text: ABLAB_SQL_NUM(ABLAB_ALPHA) is "0.05" */
#define ABLAB_SQL_NUM(x) ABLAB_SQL_NUM_(x)
#define ABLAB_SQL_NUM_(x) #x

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
int stats_ab(const double *a, size_t na, const double *b, size_t nb, uint64_t seed,
	     unsigned int resamples, struct ab_result *r);

/*
 * The verdict on a comparison, the one encoding of the whole agent (statistics, report,
 * bisect, trend): strings only at the database and output edges, through
 * stats_verdict_name() and stats_verdict_parse().  The values order the verdicts
 * (undecided < same < different).
 */
enum verdict { VERDICT_UNDECIDED = -1, VERDICT_SAME = 0, VERDICT_DIFFERENT = 1 };

/* "different", "same", "undecided" */
const char *stats_verdict_name(enum verdict v);
/* the verdict named s (one of stats_verdict_name()'s): 0, or -EINVAL with *v unchanged */
int stats_verdict_parse(const char *s, enum verdict *v);

/*
 * Significance verdict at level alpha (0 < alpha < 1), from the Mann-Whitney p-value:
 * VERDICT_DIFFERENT significant (p_mwu <= alpha), VERDICT_SAME not significant (print "~"),
 * VERDICT_UNDECIDED can never reach alpha with these n (p_min > alpha, or p_mwu is NAN).
 * -EINVAL if r is NULL or alpha is invalid.
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

int stats_design(const double *x, size_t n_boots, size_t m_batches, double c_boot, double c_batch,
		 double target_rel, struct design_advice *d);

/*
 * Boots per variant for a 95% CI half-width <= target_rel * |grand_mean| when every boot runs
 * m batches, from the variance components of stats_design(): the smallest n >= 2 with
 * t_{0.975, n-1} sqrt((var_between + var_within / m) / n) <= target_rel |grand_mean|,
 * clamped to STATS_DESIGN_MAX_BOOTS (also returned for a zero or invalid target).
 */
unsigned int stats_design_boots(double var_within, double var_between, double grand_mean,
				unsigned int m, double target_rel);

/* ---------------------------------------------------------------- rank-based effect sizes */

/*
 * Exact null distribution of the Mann-Whitney U = #{(i, j): b_j > a_i} for continuous data
 * (no ties) with na and nb values: cnt[u], u = 0..na*nb, is the number of the C(na+nb, na)
 * equally likely arrangements with that U (the coefficients of the Gaussian binomial
 * [na+nb choose na]_q). cnt must hold na * nb + 1 doubles; the counts are exact integers.
 * -EINVAL if cnt is NULL or na + nb > STATS_MWU_EXACT_MAX.
 */
int stats_mwu_dist(size_t na, size_t nb, double *cnt);

/*
 * Lower critical value of U for a one-sided tail probability tail (0 < tail < 1): the largest
 * u with P(U <= u) <= tail under no change, or -1 if even P(U <= 0) = 1 / C(na+nb, na)
 * exceeds it. *achieved (may be NULL) gets P(U <= u) (0 when -1 is returned). Exact for
 * na + nb <= STATS_MWU_EXACT_MAX, else the normal approximation (no continuity correction
 * beyond rounding down). Returns -2 (and *achieved = NAN) on bad input (na or nb == 0, tail
 * outside (0, 1)) and -3 if an allocation fails.
 */
long stats_mwu_crit(size_t na, size_t nb, double tail, double *achieved);

/*
 * Hodges-Lehmann shift of b against a: the median of the na * nb differences b_j - a_i,
 * with the distribution-free confidence interval obtained by inverting the Mann-Whitney test
 * (Hollander & Wolfe, Nonparametric Statistical Methods, ch. 4.3; R's
 * wilcox.test(b, a, conf.int = TRUE, exact = TRUE)): with D(1) <= ... <= D(na nb) the sorted
 * differences and c = 1 + stats_mwu_crit(na, nb, (1 - level) / 2), the interval is
 * [D(c), D(na nb + 1 - c)] and its exact coverage under a pure shift model is
 * conf = 1 - 2 P(U <= c - 1), the ACHIEVED confidence, >= level (e.g. 0.968 at 5+5 for a
 * nominal 0.95). When no c >= 1 reaches level (3+3 at 0.95: 1 - 2/20 = 0.90 at most), the
 * widest interval [D(1), D(na nb)] is returned with its conf < level and nominal_met = 0:
 * print conf, never the nominal level. Ties between a and b values make the interval
 * conservative (the coverage statement assumes continuous data).
 */
struct hl_result {
	double shift; /* HL estimate: median of the pairwise differences b_j - a_i */
	double lo, hi; /* CI endpoints; NAN if na or nb == 0 */
	double conf; /* achieved confidence of [lo, hi] */
	size_t c; /* lo = D(c), hi = D(na nb + 1 - c), 1-based ranks */
	int exact; /* 1: conf from the exact distribution; 0: normal approximation */
	int nominal_met; /* conf >= the requested level */
};

/* -EINVAL: hl NULL, na or nb == 0, a NULL pointer, non-finite values, level outside (0, 1). */
int stats_hl(const double *a, size_t na, const double *b, size_t nb, double level,
	     struct hl_result *hl);

/*
 * The HL interval of a given rank c (1 <= c <= (na nb + 1) / 2): [D(c), D(na nb + 1 - c)],
 * its exact confidence 1 - 2 P(U <= c - 1) in hl->conf (normal approximation above
 * STATS_MWU_EXACT_MAX values, hl->exact = 0), nominal_met = 1. log_scale != 0: the
 * differences are of log values (every value must be > 0, else -EDOM) and shift, lo and hi
 * are mapped by exp(x) - 1 (a relative change). -EINVAL on bad input or c out of range.
 */
int stats_hl_at(const double *a, size_t na, const double *b, size_t nb, size_t c, int log_scale,
		struct hl_result *hl);

/*
 * Cliff's delta (Cliff 1993): (#{b_j > a_i} - #{b_j < a_i}) / (na nb), in [-1, 1]; > 0 when
 * the patched values tend to be larger (slower). NAN if a side is empty or a pointer is NULL.
 * Equal to 2 U / (na nb) - 1 with U counting ties as 1/2.
 */
double stats_cliff_delta(const double *a, size_t na, const double *b, size_t nb);

/* ---------------------------------------------------------------- multiple comparisons */

/*
 * Holm (1979) step-down adjusted p-values, controlling the family-wise error rate (the chance
 * of at least one false "significant" row) at alpha under any dependence between the rows:
 * with the m finite p-values sorted p_(1) <= ... <= p_(m),
 *   adj_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)).
 * NAN entries are not counted in m and stay NAN. adj may be p (in place).
 * -EINVAL on NULL pointers, -ENOMEM if the scratch allocation fails; n == 0 is a no-op.
 */
int stats_holm(const double *p, size_t n, double *adj);

/*
 * Benjamini & Hochberg (1995) step-up adjusted p-values (R's p.adjust(method = "BH")),
 * controlling the false discovery rate under independence or positive dependence:
 *   adj_(i) = min_{j >= i} min(1, m p_(j) / j).  Same conventions as stats_holm().
 */
int stats_bh(const double *p, size_t n, double *adj);

/* ---------------------------------------------------------------- one row's verdict */

/*
 * Everything the report prints for one row of a fixed-size campaign, from the boot means
 * a (control) and b (patched):
 *
 *  p          exact two-sided Mann-Whitney p (ties: conditional permutation p, see stats_ab)
 *  shift      Hodges-Lehmann shift in the values' unit (ns) with its exact CI at level
 *             1 - alpha, achieved confidence in shift.conf
 *  rel        relative change as a ratio: exp(HL shift of log values) - 1, i.e. the HL
 *             estimate of patched / control - 1 with the exact CI at level 1 - alpha
 *             (valid when the patch scales the times: a shift on the log scale); only when
 *             every value is > 0 (have_rel), else NAN fields. For small changes
 *             rel ~= shift / control median.
 *  eq         the same interval at level 1 - 2 alpha (the TOST interval of equivalence)
 *  shift_pct  shift / control median (NAN if the median is 0): the HL shift "as % of the
 *             control median"
 *  cliff      Cliff's delta
 *
 * verdict:
 *  VERDICT_DIFFERENT  p <= alpha (two-sided, exact; impossible when p_min > alpha)
 *  VERDICT_SAME       not different, and eq lies inside (-margin, +margin): "no change beyond
 *                     +-margin". Two one-sided tests at alpha each: when the true relative
 *                     change is >= margin in size, the chance of VERDICT_SAME is <= alpha
 *                     (exactly: <= (1 - eq.conf) / 2 <= alpha), whatever the noise's shape.
 *  VERDICT_UNDECIDED  neither (too few boots, or the interval straddles the margin)
 * within_margin is 1 when eq lies inside (-margin, +margin) whatever the verdict (a
 * significant but tiny change is DIFFERENT with within_margin = 1).
 *
 * alpha in (0, 0.5), margin > 0 (a fraction: 0.01 = 1 %). -EINVAL on bad input (a side empty,
 * NULL pointers, non-finite values), -ENOMEM on allocation failure.
 */
struct stats_row_result {
	size_t na, nb;
	double median_a, median_b, mean_a, mean_b;
	double p, p_min;
	int p_exact;
	struct hl_result shift;
	int have_rel;
	struct hl_result rel, eq;
	double shift_pct;
	double cliff;
	double alpha, margin;
	int within_margin;
	enum verdict verdict;
};

int stats_row(const double *a, size_t na, const double *b, size_t nb, double alpha, double margin,
	      struct stats_row_result *r);

/* Two-sided p of Student's t with df > 0 degrees of freedom (regularized incomplete beta). */
double stats_t_p2(double t, double df);

/* The standard normal quantile (Acklam's approximation refined by one Halley step on erfc:
 * |error| ~ 1e-15); NAN outside (0, 1). */
double stats_norm_quantile(double p);

/*
 * Minimum detectable effect of a two-sided rank test on boot means, as a fraction of
 * |mean|: with n boots per variant of m batches, between-boot variance var_between and
 * within-boot (batch) variance var_within, the change detected with probability power at
 * level alpha, by the normal approximation (z_{1-alpha/2} + z_power) * sqrt(2 (vb + vw/m)
 * / n) scaled by sqrt(pi/3) (the Mann-Whitney test's efficiency 3/pi relative to the t
 * test). INFINITY when no exact p these n allow reaches alpha (2 / C(2n, n) > alpha); NAN
 * on bad input.
 */
double stats_mde(double var_between, double var_within, size_t m, size_t n, double mean,
		 double alpha, double power);

/*
 * Power of the same test against a change of delta (a fraction of |mean|), the inverse of
 * stats_mde(): Phi(|delta| / (sqrt(2 (vb + vw/m) / n) sqrt(pi/3) / |mean|) - z_{1-alpha/2}),
 * so stats_power(.., stats_mde(.., power), ..) = power. 0 when no exact p these n allow
 * reaches alpha (the design cannot say "different"), 1 without noise and a change; NAN on
 * bad input.
 */
double stats_power(double var_between, double var_within, size_t m, size_t n, double mean,
		   double alpha, double delta);

/* ---------------------------------------------------------------- seeded PRNG */

/* xoshiro256** seeded by splitmix64: deterministic, for simulations (seqtest, validation). */
struct stats_rng {
	uint64_t s[4];
};

void stats_rng_seed(struct stats_rng *g, uint64_t seed);
uint64_t stats_rng_next(struct stats_rng *g);
/* uniform in (0, 1), never 0 or 1 */
double stats_rng_uniform(struct stats_rng *g);
/* standard normal (Box-Muller, one value per call) */
double stats_rng_gauss(struct stats_rng *g);

#endif /* ABLAB_STATS_H */
