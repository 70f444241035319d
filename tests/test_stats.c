// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - standalone tests for agent/stats/stats.c.
 *
 * gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsanitize=address,undefined -g -Iagent \
 *	agent/stats/stats.c tests/test_stats.c -lm -o /tmp/test_stats && /tmp/test_stats
 *
 * Reference values: R's wilcox.test / t.test conventions; exact MWU p-values were checked by
 * brute-force enumeration of all rank assignments, Welch's p by numerical integration of the
 * t density, t quantiles with mpmath.
 */
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (cond) {                                                                      \
			passed++;                                                                \
		} else {                                                                         \
			failed++;                                                                \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

/* |got - want| <= tol, reporting both values on failure */
#define CHECK_NEAR(got, want, tol)                                                            \
	do {                                                                                  \
		double g_ = (got), w_ = (want);                                               \
		if (fabs(g_ - w_) <= (tol)) {                                                 \
			passed++;                                                             \
		} else {                                                                      \
			failed++;                                                             \
			fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.10g, want %.10g\n", \
				__FILE__, __LINE__, #got, g_, w_);                            \
		}                                                                             \
	} while (0)

#define N_OF(arr) (sizeof(arr) / sizeof((arr)[0]))

static void test_summary(void)
{
	const double x[] = { 4, 1, 3, 2 };
	const double odd[] = { 5, -1, 7 };
	const double one[] = { 42 };
	double copy[4];
	struct summary s;

	memcpy(copy, x, sizeof(x));
	CHECK(stats_summary(copy, 4, &s) == 0);
	CHECK(s.n == 4);
	CHECK_NEAR(s.mean, 2.5, 1e-12);
	CHECK_NEAR(s.median, 2.5, 1e-12);
	CHECK_NEAR(s.sd, 1.2909944487358056, 1e-9);
	CHECK_NEAR(s.min, 1, 0);
	CHECK_NEAR(s.max, 4, 0);
	CHECK(memcmp(copy, x, sizeof(x)) == 0); /* caller's array untouched */

	CHECK(stats_summary(odd, 3, &s) == 0);
	CHECK_NEAR(s.median, 5, 0);
	CHECK_NEAR(s.mean, 11.0 / 3.0, 1e-12);

	CHECK(stats_summary(one, 1, &s) == 0);
	CHECK_NEAR(s.sd, 0, 0);
	CHECK_NEAR(s.median, 42, 0);
}

static void test_mwu_exact(void)
{
	const double lo5[] = { 1, 2, 3, 4, 5 }, hi5[] = { 6, 7, 8, 9, 10 };
	const double lo3[] = { 1, 2, 3 }, hi3[] = { 4, 5, 6 };
	const double odd[] = { 1, 3, 5, 7, 9 }, even[] = { 2, 4, 6, 8, 10 };
	const double x7[] = { 1.5, 2.5, 3.1, 0.2, 9, 4.4, 7 }, y6[] = { 5, 6, 8, 10, 11, 12 };
	const double one_a[] = { 1 }, one_b[] = { 2 };
	struct ab_result r;

	/* 5 vs 5 completely separated: p = 2 / C(10, 5) = 2/252 */
	CHECK(stats_ab(lo5, 5, hi5, 5, 1, 1000, &r) == 0);
	CHECK(r.p_exact == 1);
	CHECK_NEAR(r.u, 25, 0);
	CHECK_NEAR(r.p_mwu, 2.0 / 252.0, 1e-12);
	CHECK_NEAR(r.p_mwu, 0.0079365, 1e-7);
	CHECK_NEAR(r.p_min, 2.0 / 252.0, 1e-12);
	CHECK(r.sep == SEP_B_ABOVE);
	CHECK(stats_verdict(&r, 0.05) == 1);
	CHECK(stats_verdict(&r, 0.005) == -1); /* 2/252 > 0.005: unreachable */

	/* and the other direction: b entirely below a */
	CHECK(stats_ab(hi5, 5, lo5, 5, 1, 1000, &r) == 0);
	CHECK_NEAR(r.u, 0, 0);
	CHECK_NEAR(r.p_mwu, 2.0 / 252.0, 1e-12);
	CHECK(r.sep == SEP_B_BELOW);

	/* 3 vs 3 separated: 2/20 = 0.1, never significant at 0.05 */
	CHECK(stats_ab(lo3, 3, hi3, 3, 1, 1000, &r) == 0);
	CHECK_NEAR(r.p_mwu, 0.1, 1e-12);
	CHECK_NEAR(r.p_min, 0.1, 1e-12);
	CHECK(stats_verdict(&r, 0.05) == -1);
	CHECK(stats_verdict(&r, 0.1) == 1);

	/* interleaved: R wilcox.test(odd, even) W = 10, p = 0.6905; U for b = 25 - 10 = 15 */
	CHECK(stats_ab(odd, 5, even, 5, 1, 1000, &r) == 0);
	CHECK(r.p_exact == 1);
	CHECK_NEAR(r.u, 15, 0);
	CHECK_NEAR(r.p_mwu, 0.6904761904761905, 1e-12);
	CHECK(r.sep == SEP_OVERLAP);
	CHECK(stats_verdict(&r, 0.05) == 0);

	/* unequal sizes 7 vs 6, U = 37, brute-force enumeration p = 0.022144522 */
	CHECK(stats_ab(x7, 7, y6, 6, 1, 1000, &r) == 0);
	CHECK(r.p_exact == 1);
	CHECK_NEAR(r.u, 37, 0);
	CHECK_NEAR(r.p_mwu, 0.022144522144522144, 1e-12);
	CHECK_NEAR(r.p_min, 2.0 / 1716.0, 1e-15);

	/* 1 vs 1: p = 1, p_min = 1 */
	CHECK(stats_ab(one_a, 1, one_b, 1, 1, 1000, &r) == 0);
	CHECK_NEAR(r.p_mwu, 1.0, 0);
	CHECK_NEAR(r.p_min, 1.0, 0);
	CHECK(isnan(r.ci_lo) && isnan(r.ci_hi)); /* n < 2 a side */
	CHECK(isnan(r.welch_t) && isnan(r.welch_p));
	CHECK(stats_verdict(&r, 0.05) == -1);
}

static void test_mwu_large_and_ties(void)
{
	const double a[] = { 1, 2, 2, 3, 4 }, b[] = { 3, 4, 5, 5, 6 };
	const double same[] = { 7, 7, 7 };
	double x[30], y[30];
	struct ab_result r;

	/*
	 * ties -> still exact (permutation distribution given the midranks): 10 of the 252
	 * splits are at least as far from the mean as U = 23 (Python brute force: 5/126;
	 * the normal approximation would say 0.0345)
	 */
	CHECK(stats_ab(a, 5, b, 5, 1, 1000, &r) == 0);
	CHECK(r.p_exact == 1);
	CHECK_NEAR(r.u, 23, 0);
	CHECK_NEAR(r.p_mwu, 5.0 / 126.0, 1e-12);
	CHECK_NEAR(r.p_min, 2.0 / 252.0, 1e-12); /* still defined from n alone */
	CHECK(r.sep == SEP_OVERLAP);

	/* all values identical: zero variance, p = 1 */
	CHECK(stats_ab(same, 3, same, 3, 1, 1000, &r) == 0);
	CHECK_NEAR(r.p_mwu, 1.0, 0);
	CHECK_NEAR(r.rel_change, 0.0, 0);
	CHECK(isnan(r.welch_t) && isnan(r.welch_df) && isnan(r.welch_p));

	/* exact at the limit (25 + 25): separated -> 2 / C(50, 25) */
	for (int i = 0; i < 25; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	CHECK(stats_ab(x, 25, y, 25, 1, 100, &r) == 0);
	CHECK(r.p_exact == 1);
	CHECK_NEAR(r.p_mwu / (2.0 / 126410606437752.0), 1.0, 1e-9);

	/* above the limit (30 + 30): normal approx., z = (900 - 450 - 0.5) / sqrt(900 / 12 * 61) */
	for (int i = 0; i < 30; i++) {
		x[i] = i;
		y[i] = 100 + i;
	}
	CHECK(stats_ab(x, 30, y, 30, 1, 100, &r) == 0);
	CHECK(r.p_exact == 0);
	CHECK_NEAR(r.p_mwu / erfc(449.5 / sqrt(4575.0) / sqrt(2.0)), 1.0, 1e-9);
	CHECK(stats_verdict(&r, 0.05) == 1);
}

/*
 * Independent reference for the exact two-sided p: enumerate every way of choosing which nb
 * of the pooled values are "b" (bitmasks), count U directly from pairs (1 per b > a, 0.5 per
 * tie; no ranks involved), and count the splits with |U - na nb / 2| >= the observed one.
 */
static double brute_p(const double *a, int na, const double *b, int nb)
{
	double pool[16], u_obs = 0.0, mu = na * nb / 2.0;
	long ext = 0, tot = 0;
	int n = na + nb;

	for (int i = 0; i < na; i++)
		pool[i] = a[i];
	for (int j = 0; j < nb; j++)
		pool[na + j] = b[j];
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			u_obs += (b[j] > a[i]) + 0.5 * (b[j] == a[i]);
	for (unsigned int m = 0; m < (1u << n); m++) {
		double u = 0.0;

		if (__builtin_popcount(m) != nb)
			continue;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (!(m >> i & 1) && (m >> j & 1))
					u += (pool[j] > pool[i]) + 0.5 * (pool[j] == pool[i]);
		tot++;
		/* U is a multiple of 0.5: compare doubled values exactly */
		if (fabs(2 * u - 2 * mu) >= fabs(2 * u_obs - 2 * mu) - 0.25)
			ext++;
	}
	return (double)ext / (double)tot;
}

static void test_mwu_enumeration(void)
{
	unsigned long long st = 99;
	int cases = 0, worst_bad = 0;

	/* n = 2..8 per side; per size: tie-free data, heavy ties (values 0..2), light ties */
	for (int na = 2; na <= 8; na++) {
		for (int nb = 2; nb <= 8; nb++) {
			for (int kind = 0; kind < 4; kind++) {
				double a[8], b[8], want;
				struct ab_result r;

				for (int i = 0; i < na + nb; i++) {
					double v;

					st = st * 6364136223846793005ULL + 1442695040888963407ULL;
					if (kind == 0) /* distinct values */
						v = (double)(st >> 11) / 9007199254740992.0;
					else if (kind == 1) /* three levels: many ties */
						v = (double)((st >> 33) % 3);
					else if (kind == 2) /* a few ties */
						v = (double)((st >> 33) % 6);
					else /* shifted b, ties: small p */
						v = (double)((st >> 33) % 4) + (i >= na ? 3 : 0);
					if (i < na)
						a[i] = v;
					else
						b[i - na] = v;
				}
				want = brute_p(a, na, b, nb);
				if (stats_ab(a, (size_t)na, b, (size_t)nb, 1, 10, &r) ||
				    !r.p_exact || fabs(r.p_mwu - want) > 1e-12) {
					failed++;
					if (worst_bad++ < 5)
						fprintf(stderr,
							"MWU %d+%d kind %d: p %.15g, "
							"enumeration %.15g\n",
							na, nb, kind, r.p_mwu, want);
				} else {
					passed++;
				}
				cases++;
			}
		}
	}
	CHECK(cases == 7 * 7 * 4);
	/* hand cases: all tied -> p = 1; {1,1,2} vs {2,3,3}: 4 of 20 splits as extreme */
	{
		const double s7[] = { 7, 7, 7 }, x[] = { 1, 1, 2 }, y[] = { 2, 3, 3 };
		struct ab_result r;

		CHECK(stats_ab(s7, 3, s7, 3, 1, 10, &r) == 0 && r.p_mwu == 1.0);
		CHECK(stats_ab(x, 3, y, 3, 1, 10, &r) == 0);
		CHECK_NEAR(r.p_mwu, 0.2, 1e-12);
		CHECK_NEAR(r.u, 8.5, 0);
	}
}

static void test_separation(void)
{
	const double c[] = { 10, 11, 12 }, below[] = { 7, 8, 9 }, touch[] = { 8, 9, 10 },
		     above[] = { 13, 14, 20 }, mixed[] = { 9, 11.5, 13 }, eq[] = { 10, 11, 12 };
	struct ab_result r;

	CHECK(stats_ab(c, 3, below, 3, 1, 10, &r) == 0 && r.sep == SEP_B_BELOW);
	/* a shared value is not "every patched boot below every control boot" */
	CHECK(stats_ab(c, 3, touch, 3, 1, 10, &r) == 0 && r.sep == SEP_OVERLAP);
	CHECK(stats_ab(c, 3, above, 3, 1, 10, &r) == 0 && r.sep == SEP_B_ABOVE);
	CHECK(stats_ab(c, 3, mixed, 3, 1, 10, &r) == 0 && r.sep == SEP_OVERLAP);
	CHECK(stats_ab(c, 3, eq, 3, 1, 10, &r) == 0 && r.sep == SEP_OVERLAP);
	/* one boot a side still separates (and still cannot be significant) */
	CHECK(stats_ab(c, 1, below, 1, 1, 10, &r) == 0 && r.sep == SEP_B_BELOW);
	CHECK(stats_verdict(&r, 0.05) == -1);
	/* 2 + 2: smallest p = 2 / 6, "too few boots" at any alpha below it */
	CHECK(stats_ab(c, 2, below, 2, 1, 10, &r) == 0);
	CHECK_NEAR(r.p_min, 1.0 / 3.0, 1e-12);
	CHECK(stats_verdict(&r, 0.05) == -1 && stats_verdict(&r, 0.5) == 1);
}

static void test_design_boots(void)
{
	/* matches stats_design's own figure (19/3 between, 4/3 within, m 4, 1% of 100: 29) */
	CHECK(stats_design_boots(4.0 / 3.0, 19.0 / 3.0, 100, 4, 0.01) == 29);
	/* more batches never need more boots */
	CHECK(stats_design_boots(4.0 / 3.0, 19.0 / 3.0, 100, 40, 0.01) <= 29);
	CHECK(stats_design_boots(0, 0, 100, 1, 0.01) == 2);
	CHECK(stats_design_boots(1, 1, 0, 1, 0.01) == STATS_DESIGN_MAX_BOOTS);
}

static void test_seed_scenario(void)
{
	/* the seed's figures: control boots vs patched boots */
	const double ctl[] = { 353, 351, 355 }, pat[] = { 376, 375, 377 };
	struct ab_result r, r2, r3;

	CHECK(stats_ab(ctl, 3, pat, 3, 42, 10000, &r) == 0);
	CHECK_NEAR(r.a.mean, 353, 1e-12);
	CHECK_NEAR(r.b.mean, 376, 1e-12);
	CHECK_NEAR(r.rel_change, 23.0 / 353.0, 1e-12);
	CHECK(r.rel_change > 0.064 && r.rel_change < 0.066);
	CHECK(r.sep == SEP_B_ABOVE);
	CHECK_NEAR(r.p_mwu, 0.1, 1e-12);
	CHECK(stats_verdict(&r, 0.05) == -1); /* 3+3 can never reach 0.05 */
	CHECK(r.seed == 42 && r.resamples == 10000 && r.resamples_used == 10000);

	/* bootstrap: CI contains the point estimate, lies within the resample range */
	CHECK(r.ci_lo <= r.rel_change && r.rel_change <= r.ci_hi);
	CHECK(r.ci_lo < r.ci_hi);
	CHECK(r.ci_lo >= (375.0 - 355.0) / 355.0 - 1e-12); /* most extreme resamples */
	CHECK(r.ci_hi <= (377.0 - 351.0) / 351.0 + 1e-12);

	/* determinism: same seed -> identical CI; another seed -> (almost surely) different */
	CHECK(stats_ab(ctl, 3, pat, 3, 42, 10000, &r2) == 0);
	CHECK(r2.ci_lo == r.ci_lo && r2.ci_hi == r.ci_hi);
	CHECK(stats_ab(ctl, 3, pat, 3, 43, 10000, &r3) == 0);
	CHECK(r3.ci_lo <= r3.rel_change && r3.rel_change <= r3.ci_hi);

	/* resamples == 0 selects the default */
	CHECK(stats_ab(ctl, 3, pat, 3, 42, 0, &r2) == 0);
	CHECK(r2.resamples == STATS_DEFAULT_RESAMPLES);
	CHECK(r2.ci_lo == r.ci_lo && r2.ci_hi == r.ci_hi);

	/* Welch on the scenario: t = -23 / sqrt(4/3 + 1/3), df = (5/3)^2 / ((16/9 + 1/9) / 2) */
	CHECK_NEAR(r.welch_t, -23.0 / sqrt(5.0 / 3.0), 1e-9);
	CHECK_NEAR(r.welch_df, (25.0 / 9.0) / (17.0 / 18.0), 1e-9);
	CHECK(r.welch_p > 0 && r.welch_p < 0.001);
}

static void test_bootstrap_zero_control(void)
{
	/* control resamples of {0, 0} have mean 0 and are skipped */
	const double a[] = { 0, 0, 1 }, b[] = { 1, 2, 3 };
	const double z[] = { 0, 0 };
	struct ab_result r;

	CHECK(stats_ab(a, 3, b, 3, 7, 2000, &r) == 0);
	CHECK(r.resamples_used > 1200 && r.resamples_used < 1600); /* ~19/27 kept */
	CHECK(isfinite(r.ci_lo) && isfinite(r.ci_hi));

	/* control mean 0: rel_change NAN and every resample skipped */
	CHECK(stats_ab(z, 2, b, 3, 7, 500, &r) == 0);
	CHECK(isnan(r.rel_change));
	CHECK(r.resamples_used == 0);
	CHECK(isnan(r.ci_lo) && isnan(r.ci_hi));
}

static void test_welch(void)
{
	const double a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1,
			     21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	const double b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0,
			     24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	struct ab_result r;

	CHECK(stats_ab(a, N_OF(a), b, N_OF(b), 1, 1000, &r) == 0);
	CHECK_NEAR(r.welch_t, -2.455356398286006, 1e-9);
	CHECK_NEAR(r.welch_df, 24.98852929023142, 1e-9);
	CHECK_NEAR(r.welch_p, 0.02137800146286173, 1e-8);
	CHECK(r.ci_lo <= r.rel_change && r.rel_change <= r.ci_hi);
	CHECK(r.ci_lo > 0); /* clearly slower, like Welch says */
}

/* 4 boots x 4 batches: boot offsets {-3,-1,1,3} around 100, batch deviations +-k summing to 0 */
static void make_design(double *x, double k, const double off[4])
{
	const double dev[4] = { -1, 1, -1, 1 };

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			x[i * 4 + j] = 100 + off[i] + k * dev[j];
}

/* deterministic normal variates for the synthetic design test (test-local PRNG) */
static double lcg_uniform(unsigned long long *st)
{
	*st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(*st >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(unsigned long long *st)
{
	double u1 = lcg_uniform(st), u2 = lcg_uniform(st);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void test_design(void)
{
	const double off[4] = { -3, -1, 1, 3 }, flat[4] = { 0, 0, 0, 0 };
	static double big[200 * 50];
	unsigned long long st = 12345;
	struct design_advice d;
	double x[16];

	/*
	 * S1^2 = 4 * k^2 / 3 per boot (k = 1: 4/3); S2^2 = (9 + 1 + 1 + 9) / 3 = 20/3;
	 * T2^2 = 20/3 - (4/3) / 4 = 19/3. m_opt = ceil(sqrt(60 * (4/3) / (1 * 19/3))) =
	 * ceil(3.554) = 4; V = 19/3 + (4/3)/4 = 20/3; half-width 1% of 100 = 1:
	 * smallest n with t_{.975,n-1}^2 * V / n <= 1 is n = 29 (n = 28 gives 1.0024).
	 */
	make_design(x, 1.0, off);
	CHECK(stats_design(x, 4, 4, 60.0, 1.0, 0.01, &d) == 0);
	CHECK_NEAR(d.grand_mean, 100, 1e-12);
	CHECK_NEAR(d.var_within, 4.0 / 3.0, 1e-12);
	CHECK_NEAR(d.var_between, 19.0 / 3.0, 1e-12);
	CHECK(d.batches_opt == 4);
	CHECK(d.boots_needed == 29);
	CHECK_NEAR(d.est_seconds, 29 * (60 + 4), 1e-9);

	/* noisy batches, expensive boots -> many batches: ceil(sqrt(600 * 12 / (11/3))) = 45 */
	make_design(x, 3.0, off);
	CHECK(stats_design(x, 4, 4, 600.0, 1.0, 0.01, &d) == 0);
	CHECK_NEAR(d.var_within, 12.0, 1e-12);
	CHECK_NEAR(d.var_between, 11.0 / 3.0, 1e-12);
	CHECK(d.batches_opt == 45);

	/* loose target: t_{.975,1}^2 * V / 2 = 161.4 * (20/3) / 2 <= (0.4 * 100)^2 -> 2 boots */
	make_design(x, 1.0, off);
	CHECK(stats_design(x, 4, 4, 60.0, 1.0, 0.4, &d) == 0);
	CHECK(d.boots_needed == 2);

	/* cheap boots -> one batch per boot */
	CHECK(stats_design(x, 4, 4, 0.0, 1.0, 0.01, &d) == 0);
	CHECK(d.batches_opt == 1);

	/* no between-boot variance: batches_opt hits the clamp */
	make_design(x, 1.0, flat);
	CHECK(stats_design(x, 4, 4, 60.0, 1.0, 0.01, &d) == 0);
	CHECK_NEAR(d.var_between, 0, 0);
	CHECK(d.batches_opt == STATS_DESIGN_MAX_BATCHES);

	/* random two-level data: sigma_between = 2, sigma_within = 5 */
	for (int i = 0; i < 200; i++) {
		double bo = 2.0 * gauss(&st);

		for (int j = 0; j < 50; j++)
			big[i * 50 + j] = 1000.0 + bo + 5.0 * gauss(&st);
	}
	CHECK(stats_design(big, 200, 50, 30.0, 1.0, 0.001, &d) == 0);
	CHECK(fabs(d.var_within / 25.0 - 1.0) < 0.05);
	CHECK(fabs(d.var_between / 4.0 - 1.0) < 0.35);
	/* true optimum sqrt(30 * 25 / 4) = 13.7 */
	CHECK(d.batches_opt >= 10 && d.batches_opt <= 18);

	/* mean 0: relative target meaningless */
	for (int i = 0; i < 16; i++)
		x[i] = (i % 2) ? 1.0 : -1.0;
	CHECK(stats_design(x, 4, 4, 60.0, 1.0, 0.01, &d) == -EDOM);
}

static void test_bad_input(void)
{
	const double v[] = { 1, 2, 3 }, w[] = { 1, NAN, 3 };
	struct ab_result r;
	struct summary s;
	struct design_advice d;
	double x[16] = { 0 };

	CHECK(stats_summary(NULL, 3, &s) == -EINVAL);
	CHECK(stats_summary(v, 0, &s) == -EINVAL);
	CHECK(stats_summary(v, 3, NULL) == -EINVAL);
	CHECK(stats_summary(w, 3, &s) == -EINVAL);

	CHECK(stats_ab(v, 3, v, 3, 1, 100, NULL) == -EINVAL);
	CHECK(stats_ab(NULL, 0, NULL, 0, 1, 100, &r) == -EINVAL);
	CHECK(stats_ab(NULL, 3, v, 3, 1, 100, &r) == -EINVAL);
	CHECK(stats_ab(v, 3, NULL, 3, 1, 100, &r) == -EINVAL);
	CHECK(stats_ab(v, 3, w, 3, 1, 100, &r) == -EINVAL);

	/* one side empty: summaries filled, comparison NAN, verdict -1 */
	CHECK(stats_ab(v, 3, NULL, 0, 1, 100, &r) == 0);
	CHECK(r.a.n == 3 && r.b.n == 0 && isnan(r.b.mean));
	CHECK(isnan(r.p_mwu) && isnan(r.rel_change) && isnan(r.ci_lo));
	CHECK(stats_verdict(&r, 0.05) == -1);

	CHECK(stats_verdict(NULL, 0.05) == -EINVAL);
	CHECK(stats_verdict(&r, 0.0) == -EINVAL);
	CHECK(stats_verdict(&r, NAN) == -EINVAL);

	CHECK(stats_design(NULL, 4, 4, 1, 1, 0.01, &d) == -EINVAL);
	CHECK(stats_design(x, 4, 4, 1, 1, 0.01, NULL) == -EINVAL);
	CHECK(stats_design(x, 1, 4, 1, 1, 0.01, &d) == -EINVAL);
	CHECK(stats_design(x, 4, 1, 1, 1, 0.01, &d) == -EINVAL);
	CHECK(stats_design(x, 4, 4, -1, 1, 0.01, &d) == -EINVAL);
	CHECK(stats_design(x, 4, 4, 1, 0, 0.01, &d) == -EINVAL);
	CHECK(stats_design(x, 4, 4, 1, 1, 0, &d) == -EINVAL);
	x[5] = INFINITY;
	CHECK(stats_design(x, 4, 4, 1, 1, 0.01, &d) == -EINVAL);
}

/* ---------------------------------------------------------------- rank effect sizes */

/*
 * Independent reference: the U distribution by enumerating every placement of the na control
 * values among the na + nb ranks (bit i set = rank i is a control value).
 */
static void brute_dist(int na, int nb, double *cnt)
{
	int n = na + nb;

	for (int u = 0; u <= na * nb; u++)
		cnt[u] = 0;
	for (unsigned int m = 0; m < (1u << n); m++) {
		int u = 0, below = 0;

		if (__builtin_popcount(m) != na)
			continue;
		for (int i = 0; i < n; i++) {
			if (m & (1u << i))
				below++; /* a control value */
			else
				u += below; /* a patched value above 'below' control values */
		}
		cnt[u]++;
	}
}

static void test_mwu_dist(void)
{
	double got[200], want[200], ach;

	for (int na = 1; na <= 7; na++)
		for (int nb = 1; nb <= 7; nb++) {
			int bad = 0;

			CHECK(stats_mwu_dist((size_t)na, (size_t)nb, got) == 0);
			brute_dist(na, nb, want);
			for (int u = 0; u <= na * nb; u++)
				bad += got[u] != want[u];
			CHECK(bad == 0);
		}
	/* 25 + 25: the total is C(50, 25) = 126410606437752, every count an integer */
	{
		static double c[626];
		double tot = 0;
		int nonint = 0;

		CHECK(stats_mwu_dist(25, 25, c) == 0);
		for (int u = 0; u <= 625; u++) {
			tot += c[u];
			nonint += c[u] != floor(c[u]) || c[u] < 0;
		}
		CHECK(nonint == 0);
		CHECK_NEAR(tot, 126410606437752.0, 0.5);
		CHECK(c[0] == 1 && c[1] == 1 && c[2] == 2 && c[3] == 3 && c[312] == c[313]);
	}
	CHECK(stats_mwu_dist(26, 25, got) == -EINVAL);
	CHECK(stats_mwu_dist(2, 2, NULL) == -EINVAL);

	/* 5+5: P(U <= 2) = (1 + 1 + 2) / 252, P(U <= 3) = 7 / 252 > 0.025 */
	CHECK(stats_mwu_crit(5, 5, 0.025, &ach) == 2);
	CHECK_NEAR(ach, 4.0 / 252.0, 1e-15);
	/* 3+3: P(U <= 0) = 1 / 20 > 0.025: no critical value */
	CHECK(stats_mwu_crit(3, 3, 0.025, &ach) == -1);
	CHECK(ach == 0);
	CHECK(stats_mwu_crit(3, 3, 0.05, &ach) == 0); /* exactly reachable */
	CHECK_NEAR(ach, 0.05, 1e-15);
	CHECK(stats_mwu_crit(0, 3, 0.05, &ach) == -2);
	CHECK(stats_mwu_crit(3, 3, 0.0, &ach) == -2);
	/* normal approximation above 50 values: 30+30, R qwilcox(0.025, 30, 30) - 1 = 317 */
	{
		long u = stats_mwu_crit(30, 30, 0.025, &ach);

		CHECK(u >= 315 && u <= 318);
		CHECK(ach <= 0.025 && ach > 0.02);
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_hodges_lehmann(void)
{
	unsigned long long st = 12345;
	struct hl_result h;

	/* brute force: all pairwise differences, c from the enumerated distribution */
	for (int trial = 0; trial < 40; trial++) {
		int na = 2 + trial % 6, nb = 2 + (trial / 6) % 6, mn = na * nb, c = 0;
		double a[8], b[8], d[64], cnt[64], tot = 0, cum = 0;

		for (int i = 0; i < na; i++)
			a[i] = 100 + 3 * gauss(&st);
		for (int j = 0; j < nb; j++)
			b[j] = 102 + 3 * gauss(&st);
		for (int i = 0, k = 0; i < na; i++)
			for (int j = 0; j < nb; j++)
				d[k++] = b[j] - a[i];
		qsort(d, (size_t)mn, sizeof(double), cmp_d);
		brute_dist(na, nb, cnt);
		for (int u = 0; u <= mn; u++)
			tot += cnt[u];
		for (int u = 0; u <= mn; u++) {
			cum += cnt[u];
			if (cum / tot > 0.025)
				break;
			c = u + 1;
		}
		CHECK(stats_hl(a, (size_t)na, b, (size_t)nb, 0.95, &h) == 0);
		CHECK_NEAR(h.shift, mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2, 1e-12);
		if (c >= 1) {
			double tail = 0;

			for (int u = 0; u < c; u++)
				tail += cnt[u] / tot;
			CHECK((int)h.c == c && h.nominal_met);
			CHECK_NEAR(h.lo, d[c - 1], 1e-12);
			CHECK_NEAR(h.hi, d[mn - c], 1e-12);
			CHECK_NEAR(h.conf, 1 - 2 * tail, 1e-12);
		} else {
			CHECK(h.c == 1 && !h.nominal_met);
			CHECK_NEAR(h.lo, d[0], 1e-12);
			CHECK_NEAR(h.hi, d[mn - 1], 1e-12);
			CHECK_NEAR(h.conf, 1 - 2 / tot, 1e-12);
		}
		CHECK(h.exact == 1);
	}
	/* hand-computed achieved confidences */
	{
		const double a[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
		const double b[] = { 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5 };

		/* 5+5: 1 - 2 * 4/252 = 0.968254 */
		CHECK(stats_hl(a, 5, b, 5, 0.95, &h) == 0);
		CHECK_NEAR(h.conf, 1 - 8.0 / 252.0, 1e-12);
		CHECK(h.c == 3);
		CHECK_NEAR(h.shift, 0.5, 1e-12);
		{
			struct hl_result g;

			/* the interval of a given rank: the same at c = 3, conf from the law */
			CHECK(stats_hl_at(a, 5, b, 5, 3, 0, &g) == 0);
			CHECK(g.lo == h.lo && g.hi == h.hi && fabs(g.conf - h.conf) < 1e-12);
			CHECK(stats_hl_at(a, 5, b, 5, 1, 0, &g) == 0);
			CHECK_NEAR(g.conf, 1 - 2.0 / 252, 1e-12);
			CHECK_NEAR(g.lo, 1.5 - 5, 1e-12);
			CHECK(stats_hl_at(a, 5, b, 5, 14, 0, &g) == -EINVAL);
			CHECK(stats_hl_at(a, 5, b, 5, 0, 0, &g) == -EINVAL);
			CHECK(stats_hl_at(a, 5, b, 5, 2, 1, &g) == 0);
			/* the second smallest ratio b/a is 1.5 / 4 */
			CHECK_NEAR(g.lo, 1.5 / 4 - 1, 1e-12);
		}
		/* 3+3: the widest interval, 1 - 2/20 = 0.90 < 0.95 */
		CHECK(stats_hl(a, 3, b, 3, 0.95, &h) == 0);
		CHECK_NEAR(h.conf, 0.90, 1e-12);
		CHECK(!h.nominal_met && h.c == 1);
		CHECK_NEAR(h.lo, 1.5 - 3, 1e-12);
		CHECK_NEAR(h.hi, 3.5 - 1, 1e-12);
		/* 10+10: P(U <= 23) = 0.0216 (R: pwilcox(23, 10, 10)), conf 0.9567 */
		CHECK(stats_hl(a, 10, b, 10, 0.95, &h) == 0);
		CHECK(h.c == 24);
		CHECK_NEAR(h.conf, 1 - 2 * 0.02164, 5e-5);
	}
	CHECK(stats_hl(NULL, 3, NULL, 3, 0.95, &h) == -EINVAL);
	{
		const double a[] = { 1, 2 }, w[] = { 1, INFINITY };

		CHECK(stats_hl(a, 2, w, 2, 0.95, &h) == -EINVAL);
		CHECK(stats_hl(a, 2, a, 2, 1.0, &h) == -EINVAL);
		CHECK(stats_hl(a, 0, a, 2, 0.95, &h) == -EINVAL);
	}
}

static void test_cliff(void)
{
	const double a[] = { 1, 2, 3 }, b[] = { 2, 3, 4 }, c[] = { 10, 11 };

	/* b > a in 6 pairs, b < a in 1 (2 < 3), 2 ties: (6 - 1) / 9 */
	CHECK_NEAR(stats_cliff_delta(a, 3, b, 3), 5.0 / 9.0, 1e-15);
	CHECK_NEAR(stats_cliff_delta(a, 3, c, 2), 1.0, 0);
	CHECK_NEAR(stats_cliff_delta(c, 2, a, 3), -1.0, 0);
	CHECK(isnan(stats_cliff_delta(a, 0, c, 2)));
}

static void test_adjust(void)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 }, q[] = { 0.01, NAN, 0.04 };
	double adj[4], v[4];

	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02 */
	CHECK(stats_holm(p, 4, adj) == 0);
	CHECK_NEAR(adj[0], 0.03, 1e-15);
	CHECK_NEAR(adj[1], 0.06, 1e-15);
	CHECK_NEAR(adj[2], 0.06, 1e-15);
	CHECK_NEAR(adj[3], 0.02, 1e-15);
	/* "BH": 0.02 0.04 0.04 0.02 */
	CHECK(stats_bh(p, 4, adj) == 0);
	CHECK_NEAR(adj[0], 0.02, 1e-15);
	CHECK_NEAR(adj[1], 0.04, 1e-15);
	CHECK_NEAR(adj[2], 0.04, 1e-15);
	CHECK_NEAR(adj[3], 0.02, 1e-15);
	/* NAN is not counted: m = 2 */
	CHECK(stats_holm(q, 3, adj) == 0);
	CHECK_NEAR(adj[0], 0.02, 1e-15);
	CHECK(isnan(adj[1]));
	CHECK_NEAR(adj[2], 0.04, 1e-15);
	/* clamped at 1, in place */
	memcpy(v, (double[]){ 0.5, 0.9, 0.2, 0.7 }, sizeof(v));
	CHECK(stats_holm(v, 4, v) == 0);
	CHECK_NEAR(v[0], 1.0, 0);
	CHECK_NEAR(v[2], 0.8, 1e-15);
	CHECK(stats_holm(NULL, 4, adj) == -EINVAL);
	CHECK(stats_bh(p, 0, adj) == 0);
}

static void test_row(void)
{
	const double a[] = { 100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3 };
	double b[10], la[10], lb[10], d[100];
	struct stats_row_result r;
	struct hl_result h;

	/* +5 %, complete separation at 5+5: p = 2/252 */
	for (int i = 0; i < 10; i++)
		b[i] = a[i] * 1.05;
	CHECK(stats_row(a, 5, b, 5, 0.05, 0.01, &r) == 0);
	CHECK(r.verdict == VERDICT_DIFFERENT);
	CHECK_NEAR(r.p, 2.0 / 252.0, 1e-12);
	CHECK_NEAR(r.rel.shift, 0.05, 1e-12); /* b = 1.05 a exactly: every log ratio pairs up */
	CHECK(r.rel.lo > 0.0 && r.rel.hi > r.rel.lo);
	CHECK_NEAR(r.rel.conf, 1 - 8.0 / 252.0, 1e-12);
	CHECK_NEAR(r.cliff, 1.0, 0);
	CHECK(r.have_rel && !r.within_margin);
	CHECK_NEAR(r.shift_pct, r.shift.shift / 100.0, 1e-12);
	/* the relative interval is the HL interval of the logs, mapped by exp() - 1 */
	for (int i = 0; i < 5; i++) {
		la[i] = log(a[i]);
		lb[i] = log(b[i]);
	}
	CHECK(stats_hl(la, 5, lb, 5, 0.95, &h) == 0);
	CHECK_NEAR(r.rel.lo, expm1(h.lo), 1e-12);
	CHECK_NEAR(r.rel.hi, expm1(h.hi), 1e-12);
	CHECK(stats_hl(la, 5, lb, 5, 0.90, &h) == 0);
	CHECK_NEAR(r.eq.lo, expm1(h.lo), 1e-12);
	CHECK_NEAR(r.eq.conf, h.conf, 1e-15);
	/* brute force: the 90 % interval of the log differences, 5+5: P(U <= 4) = 12/252 */
	for (int i = 0, k = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			d[k++] = lb[j] - la[i];
	qsort(d, 25, sizeof(double), cmp_d);
	CHECK_NEAR(r.eq.lo, expm1(d[4]), 1e-12);
	CHECK_NEAR(r.eq.hi, expm1(d[20]), 1e-12);
	CHECK_NEAR(r.eq.conf, 1 - 24.0 / 252.0, 1e-12);

	/* no change, tight: 10+10, +0.01 %: same within +-1 % */
	for (int i = 0; i < 10; i++)
		b[i] = a[(i + 3) % 10] * 1.0001;
	CHECK(stats_row(a, 10, b, 10, 0.05, 0.01, &r) == 0);
	CHECK(r.verdict == VERDICT_SAME && r.within_margin);
	CHECK(r.eq.lo > -0.01 && r.eq.hi < 0.01);
	CHECK(r.p > 0.05);
	/* the same data with a margin of 0.1 %: undecided */
	CHECK(stats_row(a, 10, b, 10, 0.05, 0.001, &r) == 0);
	CHECK(r.verdict == VERDICT_UNDECIDED);
	/* 2+2: the 90 % interval cannot be formed (2/6 per tail): never "same" */
	CHECK(stats_row(a, 2, b, 2, 0.05, 0.5, &r) == 0);
	CHECK(r.verdict == VERDICT_UNDECIDED && !r.eq.nominal_met);
	/* a value <= 0: no relative interval, never "same" */
	{
		const double z[] = { -1, 0, 2 }, y[] = { 0.5, 1, 2 };

		CHECK(stats_row(z, 3, y, 3, 0.05, 0.01, &r) == 0);
		CHECK(!r.have_rel && isnan(r.rel.lo) && r.verdict == VERDICT_UNDECIDED);
		CHECK(isnan(r.shift_pct));
	}
	CHECK(stats_row(a, 3, b, 3, 0.5, 0.01, &r) == -EINVAL);
	CHECK(stats_row(a, 3, b, 3, 0.05, 0, &r) == -EINVAL);
	CHECK(stats_row(a, 0, b, 3, 0.05, 0.01, &r) == -EINVAL);
	CHECK(!strcmp(stats_verdict_name(VERDICT_SAME), "same"));
}

static void test_rng(void)
{
	struct stats_rng g, h;
	double s = 0, ss = 0, mn = 1, mx = 0;

	stats_rng_seed(&g, 7);
	stats_rng_seed(&h, 7);
	CHECK(stats_rng_next(&g) == stats_rng_next(&h));
	for (int i = 0; i < 100000; i++) {
		double u = stats_rng_uniform(&g), z = stats_rng_gauss(&h);

		mn = fmin(mn, u);
		mx = fmax(mx, u);
		s += z;
		ss += z * z;
	}
	CHECK(mn > 0 && mx < 1);
	CHECK(fabs(s / 100000) < 0.02); /* 5 sigma */
	CHECK(fabs(ss / 100000 - 1) < 0.03);
}

/* MDE: the quantiles against their tabulated values, and one case by hand:
 * vb = 1, vw = 4, m = 4, n = 5, mean 100: se = sqrt(2 (1 + 1) / 5) = 0.8944,
 * (1.959964 + 0.841621) * 0.8944 * sqrt(pi / 3) / 100 = 0.025637 */
static void test_mde(void)
{
	CHECK(fabs(stats_norm_quantile(0.975) - 1.959963985) < 1e-8);
	CHECK(fabs(stats_norm_quantile(0.8) - 0.841621234) < 1e-8);
	CHECK(fabs(stats_norm_quantile(0.001) + 3.090232306) < 1e-7);
	CHECK(isnan(stats_norm_quantile(0)) && isnan(stats_norm_quantile(1)));
	/* the one normal quantile of the rank tests too (stats_mwu_crit() above 50 values):
	 * to 1e-12, where Acklam alone is 1e-9; up to x = 3, as p near 1 has fewer digits */
	for (double x = -8.0; x <= 3.0; x += 0.125) {
		double p = 0.5 * erfc(-x / sqrt(2.0));

		CHECK(fabs(stats_norm_quantile(p) - x) < 1e-12 * fmax(1.0, fabs(x)));
	}
	CHECK(fabs(stats_mde(1, 4, 4, 5, 100, 0.05, 0.8) - 0.025637) < 1e-5);
	/* 3+3: no p below 0.1, nothing is detectable at 0.05 */
	CHECK(isinf(stats_mde(1, 4, 4, 3, 100, 0.05, 0.8)));
	/* 4+4: 2 / 70 = 0.029 reaches 0.05 */
	CHECK(isfinite(stats_mde(1, 4, 4, 4, 100, 0.05, 0.8)));
	/* four times the boots halve it */
	CHECK(fabs(stats_mde(1, 4, 4, 20, 100, 0.05, 0.8) * 2 -
		   stats_mde(1, 4, 4, 5, 100, 0.05, 0.8)) < 1e-12);
	CHECK(isnan(stats_mde(-1, 4, 4, 5, 100, 0.05, 0.8)));
	CHECK(isnan(stats_mde(1, 4, 4, 5, 0, 0.05, 0.8)));
	/* the power at the MDE is the power the MDE was asked for */
	CHECK(fabs(stats_power(1, 4, 4, 5, 100, 0.05, stats_mde(1, 4, 4, 5, 100, 0.05, 0.8)) -
		   0.8) < 1e-9);
	CHECK(fabs(stats_power(1, 4, 4, 6, 100, 0.05 / 9,
			       stats_mde(1, 4, 4, 6, 100, 0.05 / 9, 0.9)) -
		   0.9) < 1e-9);
	/* 5+5 cannot reach the 0.0056 of 9 rows: no power at any change */
	CHECK(stats_power(1, 4, 4, 5, 100, 0.05 / 9, 0.5) == 0.0);
	CHECK(stats_power(1, 4, 4, 3, 100, 0.05, 0.5) == 0.0);
	/* exact measurements (no noise): any change is found */
	CHECK(stats_power(0, 0, 4, 6, 100, 0.05 / 9, 0.001) == 1.0);
	CHECK(isnan(stats_power(1, 4, 4, 5, 0, 0.05, 0.01)));
}

int main(void)
{
	test_summary();
	test_mde();
	test_mwu_exact();
	test_mwu_large_and_ties();
	test_mwu_enumeration();
	test_separation();
	test_design_boots();
	test_seed_scenario();
	test_bootstrap_zero_control();
	test_welch();
	test_design();
	test_bad_input();
	test_mwu_dist();
	test_hodges_lehmann();
	test_cliff();
	test_adjust();
	test_row();
	test_rng();

	printf("test_stats: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
