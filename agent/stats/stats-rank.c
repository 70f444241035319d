// SPDX-License-Identifier: GPL-2.0
/*
 * stats-rank.c - rank statistics: exact Mann-Whitney U (distribution, critical values), Hodges-Lehmann shift and its confidence interval, Cliff's delta.
 *
 * Only libc and libm, no global state, no I/O (stats.c).
 */
#include "stats/stats.h"
#include "stats/stats-int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- Mann-Whitney U */

struct obs {
	double v;
	int is_b;
};

static int cmp_obs(const void *pa, const void *pb)
{
	const struct obs *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

/* min(1, 2 / C(na + nb, na)): the two-sided p of the most extreme arrangement. */
static double mwu_p_min(size_t na, size_t nb)
{
	size_t k = na < nb ? na : nb, n = na + nb;
	double c = 1.0;

	/* After step i, c == C(n - k + i, i): an integer, exact in a double below 2^53. */
	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return fmin(1.0, 2.0 / c);
}

/*
 * Exact permutation distribution of the rank sum of the smaller group, ties included.
 * The pooled sample's midranks, doubled so that they are integers (w[t] = 2 * midrank,
 * t = 0..n-1), are fixed; under H0 every k-subset of them (k = min(na, nb)) is equally likely
 * to be that group. ways[c][s] counts c-subsets of the first t values with doubled sum s
 * (0/1 knapsack). Without ties this is the classical distribution of U. The counts are
 * integers <= C(50, 25) ~ 1.3e14 < 2^53, hence exact in a double. On success cnt[s],
 * s = 0..smax (smax = n * (n + 1)), holds the number of k-subsets with doubled rank sum s.
 */
static int mwu_exact_counts(const unsigned int *w, size_t n, size_t k, double *cnt)
{
	size_t smax = n * (n + 1), ws = smax + 1, tot = 0;
	double *ways = calloc((k + 1) * ws, sizeof(*ways));

	if (!ways)
		return -ENOMEM;
	ways[0] = 1.0;
	for (size_t t = 0; t < n; t++) {
		size_t cmax = t + 1 < k ? t + 1 : k;

		tot += w[t];
		for (size_t c = cmax; c >= 1; c--)
			for (size_t s = tot; s >= w[t]; s--)
				ways[c * ws + s] += ways[(c - 1) * ws + s - w[t]];
	}
	memcpy(cnt, ways + k * ws, ws * sizeof(*cnt));
	free(ways);
	return 0;
}

/*
 * Fill r->u, r->p_mwu, r->p_exact, r->p_min. na, nb >= 1.
 *
 * na + nb <= STATS_MWU_EXACT_MAX: exact two-sided p of the permutation distribution,
 * conditional on the observed ties (midranks), p = P(|T - E T| >= |t - E T|) with T the rank
 * sum of the smaller group (the convention of StatXact and R's coin::wilcox_test(distribution
 * = "exact")). Without ties the distribution is symmetric and this equals R's wilcox.test
 * min(1, 2 * min(P(U <= u), P(U >= u))).
 *
 * Above that: the normal approximation with tie correction and continuity correction:
 *   mu = na nb / 2, var = na nb / 12 * ((N + 1) - sum(t^3 - t) / (N (N - 1))),
 *   z = (u - mu - 0.5 sgn(u - mu)) / sqrt(var), p = 2 * Phi(-|z|)  (p = 1 if var == 0).
 */
int mwu(const double *a, size_t na, const double *b, size_t nb, struct ab_result *r)
{
	size_t n = na + nb, k = na < nb ? na : nb;
	struct obs *o = malloc(n * sizeof(*o));
	unsigned int *w = malloc(n * sizeof(*w));
	double rank_b = 0.0, tie_sum = 0.0;
	long long t2 = 0; /* doubled rank sum of the smaller group */
	int ret = 0;

	if (!o || !w) {
		free(o);
		free(w);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na; i++)
		o[i] = (struct obs){ a[i], 0 };
	for (size_t j = 0; j < nb; j++)
		o[na + j] = (struct obs){ b[j], 1 };
	qsort(o, n, sizeof(*o), cmp_obs);

	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double t;

		while (j < n && o[j].v == o[i].v)
			j++;
		/* positions i..j-1 hold ranks i+1..j; doubled midrank i + 1 + j */
		for (size_t q = i; q < j; q++) {
			w[q] = (unsigned int)(i + 1 + j);
			if (o[q].is_b)
				rank_b += (double)w[q] / 2.0;
			if (o[q].is_b == (k == nb))
				t2 += w[q];
		}
		t = (double)(j - i);
		tie_sum += t * t * t - t;
		i = j;
	}
	free(o);

	r->u = rank_b - (double)nb * (double)(nb + 1) / 2.0;
	r->p_min = mwu_p_min(na, nb);

	if (n <= STATS_MWU_EXACT_MAX) {
		size_t smax = n * (n + 1);
		long long mu2 = (long long)k * (long long)(n + 1), dev = llabs(t2 - mu2);
		double *cnt = malloc((smax + 1) * sizeof(*cnt));
		double ext = 0.0, tot = 0.0;

		if (!cnt) {
			free(w);
			return -ENOMEM;
		}
		ret = mwu_exact_counts(w, n, k, cnt);
		free(w);
		if (ret) {
			free(cnt);
			return ret;
		}
		for (size_t s = 0; s <= smax; s++) {
			tot += cnt[s];
			if (llabs((long long)s - mu2) >= dev)
				ext += cnt[s];
		}
		free(cnt);
		r->p_mwu = fmin(1.0, ext / tot);
		r->p_exact = 1;
	} else {
		double dn = (double)n, mu = (double)na * (double)nb / 2.0;
		double var =
			(double)na * (double)nb / 12.0 * ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
		double d = r->u - mu, z;

		free(w);
		if (var <= 0.0) {
			r->p_mwu = 1.0;
		} else {
			d -= d > 0 ? 0.5 : d < 0 ? -0.5 : 0.0;
			z = d / sqrt(var);
			r->p_mwu = fmin(1.0, erfc(fabs(z) / sqrt(2.0)));
		}
		r->p_exact = 0;
	}
	return 0;
}

/* ---------------------------------------------------------------- exact U distribution */

int stats_mwu_dist(size_t na, size_t nb, double *cnt)
{
	size_t n = na + nb, k = na < nb ? na : nb, deg = 0;
	double *p;

	if (!cnt || n > STATS_MWU_EXACT_MAX)
		return -EINVAL;
	/*
	 * The U counts are the coefficients of the Gaussian binomial [n choose k]_q =
	 * prod_{i=1..k} (1 - q^(n-k+i)) / (1 - q^i). After step i the polynomial is
	 * [n-k+i choose i]_q, of degree i (n-k), with integer coefficients <= C(n, k) < 2^53:
	 * every intermediate value is an exact integer in a double.
	 */
	p = calloc(na * nb + k + 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p[0] = 1.0;
	for (size_t i = 1; i <= k; i++) {
		size_t j = n - k + i, top = deg + j;

		for (size_t s = top; s >= j; s--) /* times (1 - q^j) */
			p[s] -= p[s - j];
		for (size_t s = i; s <= top; s++) /* divided by (1 - q^i) */
			p[s] += p[s - i];
		deg += n - k;
	}
	memcpy(cnt, p, (na * nb + 1) * sizeof(*cnt));
	free(p);
	return 0;
}

long stats_mwu_crit(size_t na, size_t nb, double tail, double *achieved)
{
	size_t n = na + nb, mn = na * nb;
	double dummy, *ach = achieved ? achieved : &dummy;

	*ach = NAN;
	if (!na || !nb || !(tail > 0.0 && tail < 1.0))
		return -2;
	if (n <= STATS_MWU_EXACT_MAX) {
		double *cnt = malloc((mn + 1) * sizeof(*cnt)), tot = 0.0, cum = 0.0;
		long u = -1;

		if (!cnt || stats_mwu_dist(na, nb, cnt)) {
			free(cnt);
			return -3;
		}
		for (size_t s = 0; s <= mn; s++)
			tot += cnt[s];
		*ach = 0.0;
		/* relative slack: a threshold equal to an achievable tail counts as reached */
		for (size_t s = 0; s <= mn; s++) {
			cum += cnt[s];
			if (cum / tot > tail * (1.0 + 1e-12))
				break;
			u = (long)s;
			*ach = cum / tot;
		}
		free(cnt);
		return u;
	} else {
		double mu = (double)mn / 2.0;
		double sd = sqrt((double)mn * (double)(n + 1) / 12.0);
		double u = floor(mu + stats_norm_quantile(tail) * sd - 0.5);

		if (u < 0.0) {
			*ach = 0.0;
			return -1;
		}
		*ach = 0.5 * erfc(-((u + 0.5 - mu) / sd) / sqrt(2.0));
		return (long)u;
	}
}

/* ---------------------------------------------------------------- Hodges-Lehmann */

/* Sorted pairwise differences b_j - a_i (na * nb of them) in a new array, or NULL. */
double *pair_diffs(const double *a, size_t na, const double *b, size_t nb)
{
	double *d = malloc(na * nb * sizeof(*d));
	size_t k = 0;

	if (!d)
		return NULL;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[k++] = b[j] - a[i];
	qsort(d, k, sizeof(*d), cmp_double);
	return d;
}

/* HL estimate and the interval of rank c (c >= 1) from sorted differences d[0..mn-1]. */
void hl_fill(const double *d, size_t mn, size_t c, struct hl_result *hl)
{
	hl->shift = mn % 2 ? d[mn / 2] : (d[mn / 2 - 1] + d[mn / 2]) / 2.0;
	hl->c = c;
	hl->lo = d[c - 1];
	hl->hi = d[mn - c];
}

/*
 * The rank c of the lower endpoint of the HL interval at level, with its achieved
 * confidence; falls back to c = 1 (widest interval) when level cannot be reached.
 */
int hl_rank(size_t na, size_t nb, double level, size_t *c, double *conf, int *met)
{
	double tail;
	long u = stats_mwu_crit(na, nb, (1.0 - level) / 2.0, &tail);

	if (u < -1)
		return u == -3 ? -ENOMEM : -EINVAL;
	if (u >= 0) {
		*c = (size_t)u + 1;
		*conf = 1.0 - 2.0 * tail;
		*met = 1;
		return 0;
	}
	/* P(U <= 0): 1 / C(na + nb, na), or its normal approximation */
	*c = 1;
	if (na + nb <= STATS_MWU_EXACT_MAX) {
		*conf = 1.0 - mwu_p_min(na, nb);
	} else {
		double mu = (double)na * (double)nb / 2.0;
		double sd = sqrt((double)na * (double)nb * (double)(na + nb + 1) / 12.0);

		*conf = 1.0 - erfc(((mu - 0.5) / sd) / sqrt(2.0));
	}
	*met = 0;
	return 0;
}

int stats_hl(const double *a, size_t na, const double *b, size_t nb, double level,
	     struct hl_result *hl)
{
	double *d;
	int ret;

	if (!hl || !a || !b || !na || !nb || !(level > 0.0 && level < 1.0))
		return -EINVAL;
	if (!all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	memset(hl, 0, sizeof(*hl));
	ret = hl_rank(na, nb, level, &hl->c, &hl->conf, &hl->nominal_met);
	if (ret)
		return ret;
	hl->exact = na + nb <= STATS_MWU_EXACT_MAX;
	d = pair_diffs(a, na, b, nb);
	if (!d)
		return -ENOMEM;
	hl_fill(d, na * nb, hl->c, hl);
	free(d);
	return 0;
}

int stats_hl_at(const double *a, size_t na, const double *b, size_t nb, size_t c, int log_scale,
		struct hl_result *hl)
{
	double *la, *lb, *d, cum = 0.0, tot = 0.0;
	size_t mn = na * nb;

	if (!hl || !a || !b || !na || !nb || c < 1 || c > (mn + 1) / 2)
		return -EINVAL;
	if (!all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	memset(hl, 0, sizeof(*hl));
	la = malloc(na * sizeof(*la));
	lb = malloc(nb * sizeof(*lb));
	if (!la || !lb) {
		free(la);
		free(lb);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na; i++)
		la[i] = log_scale ? log(a[i]) : a[i];
	for (size_t j = 0; j < nb; j++)
		lb[j] = log_scale ? log(b[j]) : b[j];
	if (log_scale && (!all_finite(la, na) || !all_finite(lb, nb))) {
		free(la);
		free(lb);
		return -EDOM;
	}
	d = pair_diffs(la, na, lb, nb);
	free(la);
	free(lb);
	if (!d)
		return -ENOMEM;
	hl_fill(d, mn, c, hl);
	free(d);
	if (log_scale) {
		hl->shift = expm1(hl->shift);
		hl->lo = expm1(hl->lo);
		hl->hi = expm1(hl->hi);
	}
	hl->nominal_met = 1;
	hl->exact = na + nb <= STATS_MWU_EXACT_MAX;
	if (hl->exact) {
		double *cnt = malloc((mn + 1) * sizeof(*cnt));

		if (!cnt || stats_mwu_dist(na, nb, cnt)) {
			free(cnt);
			return -ENOMEM;
		}
		for (size_t s = 0; s <= mn; s++) {
			tot += cnt[s];
			if (s < c)
				cum += cnt[s];
		}
		free(cnt);
		hl->conf = 1.0 - 2.0 * cum / tot;
	} else {
		double mu = (double)mn / 2.0, sd = sqrt((double)mn * (double)(na + nb + 1) / 12.0);

		hl->conf = 1.0 - erfc(((mu - ((double)c - 0.5)) / sd) / sqrt(2.0));
	}
	return 0;
}

double stats_cliff_delta(const double *a, size_t na, const double *b, size_t nb)
{
	double gt = 0.0, lt = 0.0;

	if (!a || !b || !na || !nb)
		return NAN;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++) {
			gt += b[j] > a[i];
			lt += b[j] < a[i];
		}
	return (gt - lt) / ((double)na * (double)nb);
}
