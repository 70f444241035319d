// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - statistics for ablab (see stats.h and DESIGN.md section 5): summaries, the
 * PRNG and the bootstrap, the A/B comparison, Holm and BH, one report row.  The rank
 * statistics are in stats-rank.c, the distributions in stats-dist.c, the design advice in
 * stats-design.c (stats-int.h: what they share).
 *
 * Only libc and libm. No global state: the bootstrap PRNG lives on the stack of stats_ab().
 */
#include "stats/stats.h"
#include "stats/stats-int.h"
#include "stats/splitmix64.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static void summary_empty(struct summary *s)
{
	s->n = 0;
	s->mean = s->median = s->sd = s->min = s->max = NAN;
}

/* Linear-interpolation quantile (R type 7) of sorted x[0..n-1], n >= 1, 0 <= p <= 1. */
static double quantile_sorted(const double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p;
	size_t lo = (size_t)floor(h);

	if (lo >= n - 1)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

/* ---------------------------------------------------------------- summary */

int stats_summary(const double *x, size_t n, struct summary *s)
{
	double *tmp, sum = 0.0, ss = 0.0;

	if (!x || !s || n == 0 || !all_finite(x, n))
		return -EINVAL;

	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, x, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_double);

	for (size_t i = 0; i < n; i++)
		sum += tmp[i];
	s->n = n;
	s->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (tmp[i] - s->mean) * (tmp[i] - s->mean);
	s->sd = n < 2 ? 0.0 : sqrt(ss / (double)(n - 1));
	s->min = tmp[0];
	s->max = tmp[n - 1];
	s->median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2.0;

	free(tmp);
	return 0;
}

/* ---------------------------------------------------------------- PRNG (xoshiro256**) */

void stats_rng_seed(struct stats_rng *g, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		g->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t stats_rng_next(struct stats_rng *g)
{
	uint64_t *s = g->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

double stats_rng_uniform(struct stats_rng *g)
{
	/* 53 random bits, shifted by half a step: in (0, 1) */
	return ((double)(stats_rng_next(g) >> 11) + 0.5) * 0x1.0p-53;
}

double stats_rng_gauss(struct stats_rng *g)
{
	double u = stats_rng_uniform(g), v = stats_rng_uniform(g);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Uniform integer in [0, n), n >= 1, without modulo bias (rejection). */
static size_t rng_below(struct stats_rng *g, size_t n)
{
	uint64_t m = n, thresh = (0 - m) % m, x;

	do
		x = stats_rng_next(g);
	while (x < thresh);
	return (size_t)(x % m);
}

/*
 * Percentile bootstrap of rel_change: each resample draws na boots from a and nb boots from b
 * with replacement (independently), computes (mean_b* - mean_a*) / mean_a*, skipping resamples
 * with mean_a* == 0; the CI is the 2.5% and 97.5% type-7 quantiles of those values.
 */
static int bootstrap(const double *a, size_t na, const double *b, size_t nb, struct ab_result *r)
{
	double *rel = malloc((size_t)r->resamples * sizeof(*rel));
	struct stats_rng g;
	size_t k = 0;

	if (!rel)
		return -ENOMEM;
	stats_rng_seed(&g, r->seed);
	for (unsigned int it = 0; it < r->resamples; it++) {
		double sa = 0.0, sb = 0.0, ma, mb;

		for (size_t i = 0; i < na; i++)
			sa += a[rng_below(&g, na)];
		for (size_t j = 0; j < nb; j++)
			sb += b[rng_below(&g, nb)];
		ma = sa / (double)na;
		mb = sb / (double)nb;
		if (ma == 0.0)
			continue;
		rel[k++] = (mb - ma) / ma;
	}
	r->resamples_used = (unsigned int)k;
	if (k > 0) {
		qsort(rel, k, sizeof(*rel), cmp_double);
		r->ci_lo = quantile_sorted(rel, k, 0.025);
		r->ci_hi = quantile_sorted(rel, k, 0.975);
	}
	free(rel);
	return 0;
}

/*
 * Welch's t-test: t = (mean_a - mean_b) / sqrt(va/na + vb/nb) (sign as R's t.test(a, b)),
 * Welch-Satterthwaite df = (va/na + vb/nb)^2 / ((va/na)^2/(na-1) + (vb/nb)^2/(nb-1)),
 * two-sided p from the Student t distribution. Requires na, nb >= 2.
 */
static void welch(struct ab_result *r)
{
	double na = (double)r->a.n, nb = (double)r->b.n;
	double sea = r->a.sd * r->a.sd / na, seb = r->b.sd * r->b.sd / nb;
	double se2 = sea + seb, fa, fb;

	if (!(se2 > 0.0))
		return;
	/* df computed from the fractions of se2 so that tiny variances do not underflow */
	fa = sea / se2;
	fb = seb / se2;
	r->welch_t = (r->a.mean - r->b.mean) / sqrt(se2);
	r->welch_df = 1.0 / (fa * fa / (na - 1.0) + fb * fb / (nb - 1.0));
	r->welch_p = t_two_sided_p(r->welch_t, r->welch_df);
}

/* ---------------------------------------------------------------- A/B */

int stats_ab(const double *a, size_t na, const double *b, size_t nb, uint64_t seed,
	     unsigned int resamples, struct ab_result *r)
{
	int ret;

	if (!r || na + nb == 0 || (na && !a) || (nb && !b))
		return -EINVAL;
	if (!all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;

	memset(r, 0, sizeof(*r));
	r->rel_change = r->p_mwu = r->u = r->ci_lo = r->ci_hi = NAN;
	r->welch_t = r->welch_df = r->welch_p = NAN;
	r->p_min = 1.0;
	r->sep = SEP_OVERLAP;
	r->seed = seed;
	r->resamples = resamples ? resamples : STATS_DEFAULT_RESAMPLES;
	summary_empty(&r->a);
	summary_empty(&r->b);

	if (na) {
		ret = stats_summary(a, na, &r->a);
		if (ret)
			return ret;
	}
	if (nb) {
		ret = stats_summary(b, nb, &r->b);
		if (ret)
			return ret;
	}
	if (!na || !nb)
		return 0;

	if (r->a.mean != 0.0)
		r->rel_change = (r->b.mean - r->a.mean) / r->a.mean;
	if (r->b.max < r->a.min)
		r->sep = SEP_B_BELOW;
	else if (r->b.min > r->a.max)
		r->sep = SEP_B_ABOVE;

	ret = mwu(a, na, b, nb, r);
	if (ret)
		return ret;

	if (na >= 2 && nb >= 2) {
		ret = bootstrap(a, na, b, nb, r);
		if (ret)
			return ret;
		welch(r);
	}
	return 0;
}

int stats_verdict(const struct ab_result *r, double alpha)
{
	if (!r || !(alpha > 0.0 && alpha < 1.0))
		return -EINVAL;
	if (isnan(r->p_mwu) || r->p_min > alpha)
		return VERDICT_UNDECIDED;
	return r->p_mwu <= alpha ? VERDICT_DIFFERENT : VERDICT_SAME;
}

/* ---------------------------------------------------------------- Holm, BH */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *pa, const void *pb)
{
	const struct pidx *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

/* The finite p-values with their indices, sorted (*m = how many), and adj[i] = NAN for the
 * others; NULL when p or adj is NULL or on allocation failure. */
static struct pidx *adjust_setup(const double *p, size_t n, double *adj, size_t *m)
{
	struct pidx *v;

	*m = 0;
	if (!p || !adj)
		return NULL;
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(p[i]))
			v[(*m)++] = (struct pidx){ p[i], i };
		else
			adj[i] = NAN;
	}
	qsort(v, *m, sizeof(*v), cmp_pidx);
	return v;
}

int stats_holm(const double *p, size_t n, double *adj)
{
	struct pidx *v;
	double run = 0.0;
	size_t m;

	v = adjust_setup(p, n, adj, &m);
	if (!v)
		return p && adj ? -ENOMEM : -EINVAL;
	for (size_t k = 0; k < m; k++) {
		run = fmax(run, fmin(1.0, (double)(m - k) * v[k].p));
		adj[v[k].i] = run;
	}
	free(v);
	return 0;
}

int stats_bh(const double *p, size_t n, double *adj)
{
	struct pidx *v;
	double run = 1.0;
	size_t m;

	v = adjust_setup(p, n, adj, &m);
	if (!v)
		return p && adj ? -ENOMEM : -EINVAL;
	for (size_t k = m; k-- > 0;) {
		run = fmin(run, fmin(1.0, (double)m * v[k].p / (double)(k + 1)));
		adj[v[k].i] = run;
	}
	free(v);
	return 0;
}

/* ---------------------------------------------------------------- one row */

const char *stats_verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_DIFFERENT:
		return "different";
	case VERDICT_SAME:
		return "same";
	default:
		return "undecided";
	}
}

int stats_verdict_parse(const char *s, enum verdict *v)
{
	static const enum verdict all[] = { VERDICT_DIFFERENT, VERDICT_SAME, VERDICT_UNDECIDED };

	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, stats_verdict_name(all[i]))) {
			*v = all[i];
			return 0;
		}
	return -EINVAL;
}

/* HL of log values, endpoints mapped to ratio - 1. */
static int rel_hl(size_t na, size_t nb, const double *d, double level, struct hl_result *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	ret = hl_rank(na, nb, level, &h->c, &h->conf, &h->nominal_met);
	if (ret)
		return ret;
	h->exact = na + nb <= STATS_MWU_EXACT_MAX;
	hl_fill(d, na * nb, h->c, h);
	h->shift = expm1(h->shift);
	h->lo = expm1(h->lo);
	h->hi = expm1(h->hi);
	return 0;
}

int stats_row(const double *a, size_t na, const double *b, size_t nb, double alpha, double margin,
	      struct stats_row_result *r)
{
	struct ab_result ab;
	struct summary sa, sb;
	double *la = NULL, *lb = NULL, *d = NULL;
	int ret;

	if (!r || !a || !b || !na || !nb || !(alpha > 0.0 && alpha < 0.5) ||
	    !(margin > 0.0 && margin < 1.0) || !all_finite(a, na) || !all_finite(b, nb))
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->na = na;
	r->nb = nb;
	r->alpha = alpha;
	r->margin = margin;
	r->verdict = VERDICT_UNDECIDED;
	if ((ret = stats_summary(a, na, &sa)) || (ret = stats_summary(b, nb, &sb)))
		return ret;
	r->median_a = sa.median;
	r->median_b = sb.median;
	r->mean_a = sa.mean;
	r->mean_b = sb.mean;

	memset(&ab, 0, sizeof(ab));
	ret = mwu(a, na, b, nb, &ab);
	if (ret)
		return ret;
	r->p = ab.p_mwu;
	r->p_min = ab.p_min;
	r->p_exact = ab.p_exact;
	r->cliff = stats_cliff_delta(a, na, b, nb);

	ret = stats_hl(a, na, b, nb, 1.0 - alpha, &r->shift);
	if (ret)
		return ret;
	r->shift_pct = sa.median != 0.0 ? r->shift.shift / sa.median : NAN;

	r->rel.shift = r->rel.lo = r->rel.hi = r->rel.conf = NAN;
	r->eq = r->rel;
	r->have_rel = sa.min > 0.0 && sb.min > 0.0;
	if (r->have_rel) {
		la = malloc(na * sizeof(*la));
		lb = malloc(nb * sizeof(*lb));
		if (!la || !lb) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < na; i++)
			la[i] = log(a[i]);
		for (size_t j = 0; j < nb; j++)
			lb[j] = log(b[j]);
		d = pair_diffs(la, na, lb, nb);
		if (!d) {
			ret = -ENOMEM;
			goto out;
		}
		ret = rel_hl(na, nb, d, 1.0 - alpha, &r->rel);
		if (!ret)
			ret = rel_hl(na, nb, d, 1.0 - 2.0 * alpha, &r->eq);
		if (ret)
			goto out;
		r->within_margin = r->eq.nominal_met && r->eq.lo > -margin && r->eq.hi < margin;
	}
	if (r->p <= alpha)
		r->verdict = VERDICT_DIFFERENT;
	else if (r->within_margin)
		r->verdict = VERDICT_SAME;
out:
	free(la);
	free(lb);
	free(d);
	return ret;
}
