// SPDX-License-Identifier: GPL-2.0
/*
 * changepoint.c - change points of a nightly series (see changepoint.h).
 */
#include "stats/changepoint.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

struct prefix {
	const double *s, *q; /* sums and sums of squares of the centred values, s[0] = 0 */
};

static double seg_sum(const struct prefix *p, size_t a, size_t b)
{
	return p->s[b] - p->s[a];
}

/* sum of squares about the segment's mean, clamped >= 0 */
static double seg_ss(const struct prefix *p, size_t a, size_t b)
{
	double sum = seg_sum(p, a, b), n = (double)(b - a);

	return fmax(0.0, p->q[b] - p->q[a] - sum * sum / n);
}

/* Student t-test p between [a, m) and [m, b) (pooled variance, df = b - a - 2 >= 1) */
static double split_p(const struct prefix *p, size_t a, size_t m, size_t b)
{
	double within = seg_ss(p, a, m) + seg_ss(p, m, b);
	double between = fmax(0.0, seg_ss(p, a, b) - within), df = (double)(b - a - 2);

	if (b - a < 3)
		return 1.0;
	if (between <= 0.0)
		return 1.0;
	if (within <= 1e-300)
		return 0.0;
	return stats_t_p2(sqrt(between / (within / df)), df);
}

/* Binary segmentation: cut[m] set for each split point whose p is at most p_max, each
 * segment split at its largest between-segment sum of squares (stack: 2 (n + 1) slots). */
static void binary_segments(const struct prefix *pf, size_t n, double p_max, size_t min_size,
			    size_t *stack, bool *cut)
{
	size_t ns = 0;

	stack[ns++] = 0;
	stack[ns++] = n;
	while (ns) {
		size_t b = stack[--ns], a = stack[--ns], lo = a + min_size;
		size_t hi = b == n ? b - 1 : b - min_size, best = 0;
		double tot, bw = -1.0;

		if (b - a < 3 || lo > hi)
			continue;
		tot = seg_sum(pf, a, b);
		for (size_t m = lo; m <= hi; m++) {
			/* between-segment sum of squares = n1 n2 / L (mean1 - mean2)^2 */
			double n1 = (double)(m - a), n2 = (double)(b - m), s1 = seg_sum(pf, a, m);
			double d = s1 / n1 - (tot - s1) / n2, w = n1 * n2 / (n1 + n2) * d * d;

			if (w > bw) {
				bw = w;
				best = m;
			}
		}
		if (split_p(pf, a, best, b) > p_max)
			continue;
		cut[best] = true;
		stack[ns++] = a;
		stack[ns++] = best;
		stack[ns++] = best;
		stack[ns++] = b;
	}
}

/* Otava's pruning: re-test each point between its neighbours, drop the weakest until every
 * p is at most p_max; the points left into k[], their number returned. */
static size_t prune_points(const struct prefix *pf, size_t n, double p_max, bool *cut, size_t *k)
{
	size_t nk;

	for (;;) {
		size_t worst = 0, prev = 0;
		double wp = -1.0;

		nk = 0;
		for (size_t i = 1; i < n; i++)
			if (cut[i])
				k[nk++] = i;
		for (size_t j = 0; j < nk; j++) {
			size_t next = j + 1 < nk ? k[j + 1] : n;
			double pj = split_p(pf, prev, k[j], next);

			if (pj > wp) {
				wp = pj;
				worst = k[j];
			}
			prev = k[j];
		}
		if (!nk || wp <= p_max)
			break;
		cut[worst] = false;
	}
	return nk;
}

int cp_detect(const double *x, size_t n, double p_max, size_t min_size, struct cp_point *cp,
	      size_t max)
{
	double *s, *q, mean = 0.0;
	size_t *stack, nk = 0, *k;
	bool *cut;
	struct prefix pf;
	int ret = -ENOMEM;

	if ((n && !x) || !(p_max > 0.0 && p_max < 1.0) || min_size < 2 || (max && !cp))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return -EINVAL;
		mean += x[i];
	}
	if (n < 3)
		return 0;
	mean /= (double)n;
	s = malloc((n + 1) * sizeof(*s));
	q = malloc((n + 1) * sizeof(*q));
	stack = malloc(2 * (n + 1) * sizeof(*stack));
	k = malloc((n + 1) * sizeof(*k));
	cut = calloc(n + 1, sizeof(*cut));
	if (!s || !q || !stack || !k || !cut)
		goto out;
	s[0] = q[0] = 0.0;
	for (size_t i = 0; i < n; i++) {
		double v = x[i] - mean;

		s[i + 1] = s[i] + v;
		q[i + 1] = q[i] + v * v;
	}
	pf.s = s;
	pf.q = q;

	binary_segments(&pf, n, p_max, min_size, stack, cut);
	nk = prune_points(&pf, n, p_max, cut, k);
	for (size_t j = 0; j < nk && j < max; j++) {
		size_t prev = j ? k[j - 1] : 0, next = j + 1 < nk ? k[j + 1] : n;

		cp[j].index = k[j];
		cp[j].p = split_p(&pf, prev, k[j], next);
		cp[j].mean_before = mean + seg_sum(&pf, prev, k[j]) / (double)(k[j] - prev);
		cp[j].mean_after = mean + seg_sum(&pf, k[j], next) / (double)(next - k[j]);
		cp[j].rel = cp[j].mean_before != 0.0 ? cp[j].mean_after / cp[j].mean_before - 1.0 :
						       NAN;
	}
	ret = (int)nk;
out:
	free(s);
	free(q);
	free(stack);
	free(k);
	free(cut);
	return ret;
}

int cp_new_last(const double *x, size_t n, double p_max, size_t min_size, double min_rel,
		struct cp_point *cp)
{
	struct cp_point *all;
	int m;

	if (!cp)
		return -EINVAL;
	all = malloc((n + 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	m = cp_detect(x, n, p_max, min_size, all, n);
	if (m > 0 && all[m - 1].index == n - 1 && fabs(all[m - 1].rel) >= min_rel) {
		*cp = all[m - 1];
		m = 1;
	} else if (m > 0) {
		m = 0;
	}
	free(all);
	return m;
}
