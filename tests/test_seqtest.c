// SPDX-License-Identifier: GPL-2.0
/*
 * test_seqtest.c - the sequential design (agent/stats/seqtest.c) against exact enumeration: the
 * joint null law of the looks' U statistics over every ordering of the boots.
 */
#include "stats/seqtest.h"
#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define CHECK_NEAR(got, want, tol) CHECK(fabs((got) - (want)) <= (tol))

/* exact U distribution CDF by enumeration of placements (independent of stats_mwu_dist) */
static void brute_cdf(int na, int nb, double *cdf)
{
	int n = na + nb;
	double tot = 0;

	for (int u = 0; u <= na * nb; u++)
		cdf[u] = 0;
	for (unsigned int m = 0; m < (1u << n); m++) {
		int u = 0, below = 0;

		if (__builtin_popcount(m) != na)
			continue;
		for (int i = 0; i < n; i++) {
			if (m & (1u << i))
				below++;
			else
				u += below;
		}
		cdf[u]++;
		tot++;
	}
	for (int u = 1; u <= na * nb; u++)
		cdf[u] += cdf[u - 1];
	for (int u = 0; u <= na * nb; u++)
		cdf[u] /= tot;
}

/*
 * Two looks, 4+4 then 5+5: every one of the 10! orderings of the boots (values a0..a4 =
 * positions 0..4, b0..b4 = 5..9, rank = perm[i]) is equally likely under no change. For each
 * ordering: min over the looks of the two-sided exact p and of the lower one-sided p.
 */
static int perm[10], used[10];
static double cdf4[17], cdf5[26], hist2[4096], hist1[4096];
static double vals2[4096], vals1[4096];
static int nv2, nv1;

static int slot(double *vals, int *nv, double v)
{
	for (int i = 0; i < *nv; i++)
		if (fabs(vals[i] - v) < 1e-12)
			return i;
	vals[*nv] = v;
	return (*nv)++;
}

static void visit(void)
{
	int u4 = 0, u5 = 0, lo;
	double p2, p1, q;

	for (int i = 0; i < 5; i++)
		for (int j = 5; j < 10; j++) {
			int gt = perm[j] > perm[i];

			u5 += gt;
			if (i < 4 && j < 9)
				u4 += gt;
		}
	lo = u4 < 16 - u4 ? u4 : 16 - u4;
	p2 = fmin(1, 2 * cdf4[lo]);
	lo = u5 < 25 - u5 ? u5 : 25 - u5;
	q = fmin(1, 2 * cdf5[lo]);
	p2 = fmin(p2, q);
	p1 = fmin(cdf4[u4], cdf5[u5]);
	hist2[slot(vals2, &nv2, p2)]++;
	hist1[slot(vals1, &nv1, p1)]++;
}

static void enumerate(int pos)
{
	if (pos == 10) {
		visit();
		return;
	}
	for (int r = 0; r < 10; r++) {
		if (used[r])
			continue;
		used[r] = 1;
		perm[pos] = r;
		enumerate(pos + 1);
		used[r] = 0;
	}
}

/* exact P(min p <= t) from the histogram */
static double exact_le(const double *vals, const double *hist, int nv, double t)
{
	double s = 0;

	for (int i = 0; i < nv; i++)
		if (vals[i] <= t * (1 + 1e-12))
			s += hist[i];
	return s / 3628800.0;
}

static void test_two_looks_exact(void)
{
	const size_t na[] = { 4, 5 }, nb[] = { 4, 5 };
	const double cands2[] = { 2.0 / 70, 4.0 / 70, 2.0 / 252, 4.0 / 252, 8.0 / 252, 14.0 / 252 };
	struct seq_design d;
	double best = 0;

	brute_cdf(4, 4, cdf4);
	brute_cdf(5, 5, cdf5);
	enumerate(0);
	CHECK(seq_design_init(&d, na, nb, 2, 0.05, 0.05, 0.01, 100000, 7) == 0);
	/* the largest achievable threshold whose exact overall size is <= alpha */
	for (size_t i = 0; i < sizeof(cands2) / sizeof(cands2[0]); i++)
		if (exact_le(vals2, hist2, nv2, cands2[i]) <= 0.05 && cands2[i] > best)
			best = cands2[i];
	CHECK_NEAR(d.p_diff, best, 1e-12);
	if (getenv("SEQ_VERBOSE"))
		fprintf(stderr, "p_diff %g exact %g sim %g; p_eq %g exact %g sim %g\n", d.p_diff,
			exact_le(vals2, hist2, nv2, d.p_diff), d.fpr, d.p_eq,
			exact_le(vals1, hist1, nv1, d.p_eq), d.same_err);
	/* the simulated size agrees with the exact one within 4 Monte-Carlo SE */
	CHECK(fabs(d.fpr - exact_le(vals2, hist2, nv2, d.p_diff)) <= 4 * d.fpr_se + 1e-12);
	CHECK(d.fpr <= 0.05);
	/* same for the one-sided equivalence threshold */
	CHECK(fabs(d.same_err - exact_le(vals1, hist1, nv1, d.p_eq)) <= 4 * d.same_err_se + 1e-12);
	CHECK(d.same_err <= 0.05 && d.p_eq > 0);
	/* boundaries: the look's own critical values for that threshold */
	CHECK(d.look[0].na == 4 && d.look[1].nb == 5);
	for (int k = 0; k < 2; k++) {
		const double *c = k ? cdf5 : cdf4;
		long u = -1;

		for (int v = 0; v <= (k ? 25 : 16); v++)
			if (2 * c[v] <= d.p_diff * (1 + 1e-12) && c[v] < 0.5)
				u = v;
		CHECK(d.look[k].u_diff == u);
		CHECK_NEAR(d.look[k].p_size, u >= 0 ? 2 * c[u] : 0, 1e-12);
	}
}

static void test_one_look_is_fixed(void)
{
	const size_t na[] = { 5 }, nb[] = { 5 };
	struct seq_design d;

	/* a single look is the fixed design: U <= 2 or >= 23, size 8/252 */
	CHECK(seq_design_init(&d, na, nb, 1, 0.05, 0.05, 0.01, 50000, 1) == 0);
	CHECK(d.look[0].u_diff == 2);
	CHECK_NEAR(d.p_diff, 8.0 / 252, 1e-12);
	CHECK(fabs(d.fpr - 8.0 / 252) <= 4 * d.fpr_se);
	/* one-sided 0.05: P(U <= 4) = 12/252 */
	CHECK(d.look[0].u_eq == 4);
	CHECK(fabs(d.same_err - 12.0 / 252) <= 4 * d.same_err_se);
}

static void test_schedule_and_decide(void)
{
	size_t na[SEQ_MAX_LOOKS], nb[SEQ_MAX_LOOKS];
	const double a[] = { 100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3 };
	double b[10], tight_a[10], tight_b[10];
	struct seq_design d, d2;
	struct seq_result r;
	int n = seq_schedule_balanced(3, 20, na, nb, SEQ_MAX_LOOKS);

	CHECK(n == 8);
	CHECK(na[0] == 3 && nb[7] == 10);
	CHECK(seq_schedule_balanced(3, 5, na, nb, SEQ_MAX_LOOKS) == -EINVAL);
	CHECK(seq_schedule_balanced(3, 20, na, nb, 4) == -EINVAL);
	CHECK(seq_design_init(&d, na, nb, (size_t)n, 0.05, 0.05, 0.01, 0, SEQ_DEFAULT_SEED) == 0);
	CHECK(d.fpr <= 0.05 && d.fpr > 0.03);
	CHECK(d.same_err <= 0.05);
	/* deterministic for a seed */
	CHECK(seq_design_init(&d2, na, nb, (size_t)n, 0.05, 0.05, 0.01, 0, SEQ_DEFAULT_SEED) == 0);
	CHECK(d2.p_diff == d.p_diff && d2.fpr == d.fpr && d2.look[7].u_eq == d.look[7].u_eq);
	/* 3+3 can neither reject nor say same (its smallest p is 0.1) */
	CHECK(d.look[0].u_diff == -1 && d.look[0].u_eq == -1);

	/* +5 %: continue at 3+3 and 4+4, different at 5+5 (complete separation, p = 2/252) */
	for (int i = 0; i < 10; i++)
		b[i] = a[i] * 1.05;
	CHECK(seq_decide(&d, 0, a, 3, b, 3, &r) == 0);
	CHECK(r.decision == SEQ_CONTINUE && isnan(r.rci_rel.lo));
	CHECK(seq_decide(&d, 2, a, 5, b, 5, &r) == 0);
	CHECK(r.decision == SEQ_DIFFERENT);
	CHECK(r.rci_rel.lo > 0.0 && r.rci_rel.hi > 0.05 && r.rci_rel.lo < 0.05);
	CHECK_NEAR(r.rci_rel.conf, 1 - d.fpr, 1e-12);
	CHECK_NEAR(r.u, 25, 0);
	/* its interval is that of rank u_diff + 1 */
	{
		struct hl_result h;

		CHECK(stats_hl_at(a, 5, b, 5, (size_t)d.look[2].u_diff + 1, 1, &h) == 0);
		CHECK_NEAR(r.rci_rel.lo, h.lo, 1e-15);
		CHECK_NEAR(r.rci_rel.hi, h.hi, 1e-15);
	}
	/* no change, 0.05 % noise: same within 1 % as soon as a look can say it (4+4) */
	for (int i = 0; i < 10; i++) {
		tight_a[i] = 1000 + (a[i] - 100) * 0.5;
		tight_b[i] = 1000 + (a[(i + 5) % 10] - 100) * 0.5;
	}
	CHECK(seq_decide(&d, 1, tight_a, 4, tight_b, 4, &r) == 0);
	CHECK(r.decision == SEQ_SAME);
	CHECK(r.eq_lo > -0.01 && r.eq_hi < 0.01);
	/* overlapping, 1 % noise at the last look with margin 1 %: undecided */
	for (int i = 0; i < 10; i++)
		b[i] = a[(i + 5) % 10] * 1.003;
	for (int i = 0; i < 10; i++)
		tight_b[i] = 100 + (b[i] - 100) * 10;
	for (int i = 0; i < 10; i++)
		tight_a[i] = 100 + (a[i] - 100) * 10;
	CHECK(seq_decide(&d, 7, tight_a, 10, tight_b, 10, &r) == 0);
	CHECK(r.decision == SEQ_UNDECIDED);
	/* the samples must match the look */
	CHECK(seq_decide(&d, 2, a, 4, b, 5, &r) == -EINVAL);
	CHECK(seq_decide(&d, 8, a, 10, b, 10, &r) == -EINVAL);
	/* bad schedules */
	{
		const size_t x[] = { 3, 3 }, y[] = { 3, 3 }, big[] = { 26 };

		CHECK(seq_design_init(&d2, x, y, 2, 0.05, 0.05, 0.01, 1000, 1) == -EINVAL);
		CHECK(seq_design_init(&d2, big, big, 1, 0.05, 0.05, 0.01, 1000, 1) == -EINVAL);
		CHECK(seq_design_init(&d2, x, y, 1, 0.5, 0.05, 0.01, 1000, 1) == -EINVAL);
		CHECK(seq_design_init(&d2, x, y, 1, 0.05, 0.05, 0.0, 1000, 1) == -EINVAL);
	}
	CHECK(!strcmp(seq_decision_name(SEQ_CONTINUE), "continue"));
}

static int plan(size_t n, size_t first, size_t budget, size_t rows, struct plan_result *r)
{
	struct plan_design p = { .n = n,
				 .first = first,
				 .budget = budget,
				 .rows = rows,
				 .alpha = 0.05,
				 .beta = 0.05,
				 .margin = 0.01 };

	return plan_decidable(&p, r);
}

/* can a design decide: the exact figures of docs/STATISTICS.md */
static void test_plan(void)
{
	struct plan_design bad = { .n = 3, .rows = 0, .alpha = 0.05, .beta = 0.05, .margin = 0.01 };
	struct plan_result r;

	/* the demo's family: 3 boards x 3 timing rows, fixed designs (Holm over 9) */
	CHECK(plan(3, 0, 0, 9, &r) == 0);
	CHECK(!r.can_diff && r.can_same);
	CHECK_NEAR(r.p_min, 0.1, 1e-12);
	CHECK_NEAR(r.row_alpha, 0.05 / 9, 1e-12);
	CHECK(r.diff_n == 6 && r.same_n == 3 && !r.diff_budget && !r.same_budget);
	CHECK(isnan(r.fpr));
	CHECK(plan(5, 0, 0, 9, &r) == 0);
	CHECK(!r.can_diff && r.can_same); /* 2/252 = 0.0079 > 0.0056 */
	CHECK_NEAR(r.p_min, 2.0 / 252, 1e-12);
	CHECK(plan(6, 0, 0, 9, &r) == 0);
	CHECK(r.can_diff && r.can_same); /* 2/924 = 0.0022 */
	CHECK_NEAR(r.p_min, 2.0 / 924, 1e-12);
	/* one board's 3 rows: 5+5 can, 4+4 (0.029 > 0.0167) cannot */
	CHECK(plan(5, 0, 0, 3, &r) == 0 && r.can_diff && r.diff_n == 5);
	CHECK(plan(4, 0, 0, 3, &r) == 0 && !r.can_diff);
	/* one row: 3+3 never (0.1), 4+4 can (0.029); 2+2 cannot say "same" either
	 * (P(U <= 0) = 1/6 above alpha), 3+3 can (1/20 = alpha exactly) */
	CHECK(plan(3, 0, 0, 1, &r) == 0 && !r.can_diff && r.can_same && r.diff_n == 4);
	CHECK(plan(2, 0, 0, 1, &r) == 0 && !r.can_diff && !r.can_same && r.same_n == 3);
	/* the series: 3 boards x 3 rows x 3 comparisons = 27: 7+7 (0.00058 <= 0.00185) */
	CHECK(plan(6, 0, 0, 27, &r) == 0 && !r.can_diff && r.diff_n == 7);
	CHECK(plan(7, 0, 0, 27, &r) == 0 && r.can_diff);
	/* nightly, night against night: 3 boards x 3 rows x 2 variants = 18 under Holm */
	CHECK(plan(5, 0, 0, 18, &r) == 0 && !r.can_diff);
	CHECK(plan(6, 0, 0, 18, &r) == 0 && r.can_diff);
	/* a large fixed design is fine (normal approximation beyond 25+25) */
	CHECK(plan(100, 0, 0, 1000, &r) == 0 && r.can_diff && r.can_same);

	/* sequential: today's demo, 3+3 .. 5+5 at 0.05/9, can only say "same" */
	CHECK(plan(0, 3, 5, 9, &r) == 0);
	CHECK(!r.can_diff && r.can_same);
	CHECK(r.fpr == 0.0);
	CHECK(r.diff_budget == 6 && r.same_budget == 3);
	CHECK(plan(0, 3, 6, 9, &r) == 0 && r.can_diff && r.can_same);
	CHECK(r.fpr > 0.0 && r.fpr <= 0.05 / 9);
	/* `ablab ab`'s one board: 4+4 .. 8+8 at 0.05/3 */
	CHECK(plan(0, 4, 8, 3, &r) == 0 && r.can_diff && r.can_same);
	CHECK(r.diff_budget == 5 && r.same_budget == 4);
	CHECK(plan(0, 4, 4, 3, &r) == 0 && !r.can_diff && r.can_same);
	/* the series, sequential: 7+7 again */
	CHECK(plan(0, 3, 5, 27, &r) == 0 && !r.can_diff && r.diff_budget == 7);

	CHECK(plan_decidable(&bad, &r) == -EINVAL);
	CHECK(plan(0, 3, 2, 9, &r) == -EINVAL);
	CHECK(plan(0, 3, PLAN_MAX_N + 1, 9, &r) == -EINVAL);
	CHECK(plan(0, 0, 0, 9, &r) == -EINVAL);
	CHECK(plan_decidable(NULL, &r) == -EINVAL);
}

int main(void)
{
	test_plan();
	test_one_look_is_fixed();
	test_two_looks_exact();
	test_schedule_and_decide();
	CHECK_DONE("test_seqtest");
}
