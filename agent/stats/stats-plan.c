// SPDX-License-Identifier: GPL-2.0
/*
 * stats-plan.c - can a design decide? Before the first boot: whether a row of a campaign's
 * family can ever end "different" or "same within the margin", and the smallest design that
 * can (seqtest.h, docs/STATISTICS.md "Designs that can decide").
 *
 * Pure code: no I/O, no globals. Negative errno on failure.
 */
#include "stats/seqtest.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* 2 / C(2n, n) as the rank test computes its most extreme p (stats-rank.c) */
static double p_min_nn(size_t n)
{
	double c = 1.0;

	for (size_t i = 1; i <= n; i++)
		c = c * (double)(n + i) / (double)i;
	return fmin(1.0, 2.0 / c);
}

/* fixed n+n: Holm over rows reaches its first rejection only with rows p <= alpha */
static int fixed_diff(size_t n, size_t rows, double alpha)
{
	return (double)rows * p_min_nn(n) <= alpha * (1.0 + 1e-9);
}

/* fixed n+n: "same" needs the 1 - 2 alpha interval at its nominal level (stats_row()) */
static int fixed_same(size_t n, double alpha)
{
	long u = stats_mwu_crit(n, n, alpha, NULL);

	return u < -1 ? (u == -3 ? -ENOMEM : -EINVAL) : u >= 0;
}

/* the looks first+first .. budget+budget at alpha / rows, as the report builds them */
static int seq_can(size_t first, size_t budget, const struct plan_design *p, int *diff, int *same,
		   double *fpr)
{
	size_t na[SEQ_MAX_LOOKS], nb[SEQ_MAX_LOOKS];
	struct seq_design d;
	int nl = seq_schedule_balanced(first, 2 * budget, na, nb, SEQ_MAX_LOOKS);
	int ret;

	if (nl <= 0)
		return -EINVAL;
	ret = seq_design_init(&d, na, nb, (size_t)nl, p->alpha / (double)p->rows, p->beta,
			      p->margin, 0, SEQ_DEFAULT_SEED);
	if (ret)
		return ret;
	*diff = *same = 0;
	for (size_t k = 0; k < d.nlooks; k++) {
		*diff |= d.look[k].u_diff >= 0;
		*same |= d.look[k].u_eq >= 0;
	}
	if (fpr)
		*fpr = d.fpr;
	return 0;
}

int plan_decidable(const struct plan_design *p, struct plan_result *r)
{
	size_t top;
	int ret, s;

	if (!p || !r || !p->rows || !(p->alpha > 0.0 && p->alpha < 0.5) ||
	    !(p->beta > 0.0 && p->beta < 0.5) || !(p->margin > 0.0 && p->margin < 1.0))
		return -EINVAL;
	if (p->first ? p->budget < p->first || p->budget > PLAN_MAX_N : p->n < 1)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	top = p->first ? p->budget : p->n;
	r->row_alpha = p->alpha / (double)p->rows;
	r->p_min = p_min_nn(top);
	r->fpr = NAN;

	/* the smallest fixed n of each outcome */
	for (size_t n = 1; n <= PLAN_MAX_N && (!r->diff_n || !r->same_n); n++) {
		if (!r->diff_n && fixed_diff(n, p->rows, p->alpha))
			r->diff_n = n;
		s = r->same_n ? 1 : fixed_same(n, p->alpha);
		if (s < 0)
			return s;
		if (!r->same_n && s)
			r->same_n = n;
	}
	if (!p->first) {
		r->can_diff = fixed_diff(p->n, p->rows, p->alpha);
		s = fixed_same(p->n, p->alpha);
		if (s < 0)
			return s;
		r->can_same = s;
		return 0;
	}

	ret = seq_can(p->first, p->budget, p, &r->can_diff, &r->can_same, &r->fpr);
	if (ret)
		return ret;
	/*
	 * The smallest budget from first: a look can reject only when its smallest p is below
	 * the per-look threshold (<= the per-row level), and say "same" only when P(U <= 0)
	 * is below beta; budgets far from that are not simulated (20 % slack for the
	 * simulation's error at the edge).
	 */
	for (size_t b = p->first; b <= PLAN_MAX_N && (!r->diff_budget || !r->same_budget); b++) {
		int d = 0, e = 0;
		bool try_d = !r->diff_budget && p_min_nn(b) <= 1.2 * r->row_alpha;
		bool try_e = !r->same_budget && p_min_nn(b) / 2.0 <= 1.2 * p->beta;

		if (b == p->budget) {
			d = r->can_diff;
			e = r->can_same;
		} else if (try_d || try_e) {
			ret = seq_can(p->first, b, p, &d, &e, NULL);
			if (ret)
				return ret;
		}
		if (!r->diff_budget && d)
			r->diff_budget = b;
		if (!r->same_budget && e)
			r->same_budget = b;
	}
	return 0;
}
