// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - statistics for ablab (see stats.h and DESIGN.md section 5).
 *
 * Only libc and libm. No global state: the bootstrap PRNG lives on the stack of stats_ab(),
 * and lgamma_r() is used instead of lgamma() (which writes the global signgam).
 */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- helpers */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

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
static int mwu(const double *a, size_t na, const double *b, size_t nb,
	       struct ab_result *r)
{
	size_t n = na + nb, k = na < nb ? na : nb;
	struct obs *o = malloc(n * sizeof(*o));
	unsigned int *w = malloc(n * sizeof(*w));
	double rank_b = 0.0, tie_sum = 0.0;
	long long t2 = 0;	/* doubled rank sum of the smaller group */
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
		double var = (double)na * (double)nb / 12.0 *
			     ((dn + 1.0) - tie_sum / (dn * (dn - 1.0)));
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

/* ---------------------------------------------------------------- PRNG (xoshiro256**) */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

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
static int bootstrap(const double *a, size_t na, const double *b, size_t nb,
		     struct ab_result *r)
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

/* ---------------------------------------------------------------- incomplete beta, Student t */

/* Continued fraction for the incomplete beta function (modified Lentz's method). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 1000; m++) {
		double dm = m, m2 = 2.0 * m, aa, del;

		/* even step */
		aa = dm * (b - dm) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		/* odd step */
		aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b), a, b > 0. */
static double betai(double a, double b, double x)
{
	double lbt;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	lbt = lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log1p(-x);
	/* the continued fraction converges fast for x < (a + 1) / (a + b + 2) */
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1.0 - exp(lbt) * betacf(b, a, 1.0 - x) / b;
}

/* Two-sided p-value of Student's t with df degrees of freedom: I_{df/(df+t^2)}(df/2, 1/2). */
static double t_two_sided_p(double t, double df)
{
	return betai(df / 2.0, 0.5, df / (df + t * t));
}

/* Two-sided 95% critical value t_{0.975, df} (df > 0), by bisection on the p-value. */
static double t_crit95(double df)
{
	double lo = 0.0, hi = 1.0;

	while (t_two_sided_p(hi, df) > 0.05 && hi < 1e6)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2.0;

		if (t_two_sided_p(mid, df) > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
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

int stats_ab(const double *a, size_t na, const double *b, size_t nb,
	     uint64_t seed, unsigned int resamples, struct ab_result *r)
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
		return -1;
	return r->p_mwu <= alpha ? 1 : 0;
}

/* ---------------------------------------------------------------- design advice */

unsigned int stats_design_boots(double var_within, double var_between, double grand_mean,
				unsigned int m, double target_rel)
{
	double v = var_between + var_within / (double)(m ? m : 1);
	double h = target_rel * fabs(grand_mean), n0;
	unsigned int n;

	if (!(h > 0.0) || !isfinite(v))
		return STATS_DESIGN_MAX_BOOTS;
	/* normal-theory start (z = 1.96), then step up until the t-based half-width fits */
	n0 = ceil(1.959963984540054 * 1.959963984540054 * v / (h * h));
	if (v == 0.0)
		return 2;
	if (!(n0 < STATS_DESIGN_MAX_BOOTS))
		return STATS_DESIGN_MAX_BOOTS;
	n = n0 < 2.0 ? 2 : (unsigned int)n0;
	while (n < STATS_DESIGN_MAX_BOOTS) {
		double tc = t_crit95((double)n - 1.0);

		if (tc * tc * v / (double)n <= h * h)
			break;
		n++;
	}
	return n;
}

/*
 * Kalibera & Jones, "Rigorous Benchmarking in Reasonable Time" (ISMM 2013), two levels:
 * level 1 = batches within a boot (m per boot), level 2 = boots (n). With Y_ij = batch j of
 * boot i, Ybar_i = boot mean and Ybar = grand mean:
 *
 *   S1^2 = 1 / (n (m - 1)) * sum_i sum_j (Y_ij - Ybar_i)^2	(within-boot variance)
 *   S2^2 = 1 / (n - 1) * sum_i (Ybar_i - Ybar)^2		(variance of boot means)
 *   T1^2 = S1^2,  T2^2 = S2^2 - S1^2 / m  (clamped >= 0)	(unbiased variance components)
 *
 * Cost of a campaign with n boots of m batches: n (c_boot + m c_batch); variance of the grand
 * mean: (T2^2 + T1^2 / m) / n. Minimising their product over m gives the optimal batches per
 * boot (K&J's r_1 = sqrt(c_2 T_1^2 / (c_1 T_2^2)), as in libkalibera's optimalreps()):
 *
 *   m_opt = ceil(sqrt(c_boot * T1^2 / (c_batch * T2^2))), clamped to [1, MAX_BATCHES]
 *
 * (many batches pay off when batches are noisy and boots are expensive; if T2^2 == 0 no
 * between-boot variance was detected and m_opt is clamped to STATS_DESIGN_MAX_BATCHES).
 * A boot mean over m_opt batches then has variance V = T2^2 + T1^2 / m_opt, and the 95% CI of
 * a variant's mean over n boots has half-width t_{0.975, n-1} sqrt(V / n). boots_needed is
 * the smallest n >= 2 with t_{0.975, n-1} sqrt(V / n) <= target_rel * |Ybar|.
 */
int stats_design(const double *x, size_t n_boots, size_t m_batches,
		 double c_boot, double c_batch, double target_rel,
		 struct design_advice *d)
{
	double sum = 0.0, s1 = 0.0, s2 = 0.0, t2;
	double dn = (double)n_boots, dm = (double)m_batches;
	size_t total;
	unsigned int m_opt, n;

	if (!x || !d || n_boots < 2 || m_batches < 2)
		return -EINVAL;
	if (n_boots > SIZE_MAX / m_batches)
		return -EINVAL;
	if (!isfinite(c_boot) || c_boot < 0.0 || !isfinite(c_batch) ||
	    !(c_batch > 0.0) || !isfinite(target_rel) || !(target_rel > 0.0))
		return -EINVAL;
	total = n_boots * m_batches;
	if (!all_finite(x, total))
		return -EINVAL;

	for (size_t k = 0; k < total; k++)
		sum += x[k];
	d->grand_mean = sum / (double)total;
	for (size_t i = 0; i < n_boots; i++) {
		const double *row = x + i * m_batches;
		double bm = 0.0;

		for (size_t j = 0; j < m_batches; j++)
			bm += row[j];
		bm /= dm;
		for (size_t j = 0; j < m_batches; j++)
			s1 += (row[j] - bm) * (row[j] - bm);
		s2 += (bm - d->grand_mean) * (bm - d->grand_mean);
	}
	s1 /= dn * (dm - 1.0);
	s2 /= dn - 1.0;
	t2 = fmax(0.0, s2 - s1 / dm);
	d->var_within = s1;
	d->var_between = t2;

	if (s1 == 0.0 || c_boot == 0.0) {
		m_opt = 1;
	} else if (t2 == 0.0) {
		m_opt = STATS_DESIGN_MAX_BATCHES;
	} else {
		double r = sqrt(c_boot * s1 / (c_batch * t2));

		m_opt = r >= STATS_DESIGN_MAX_BATCHES ?
				STATS_DESIGN_MAX_BATCHES :
				(unsigned int)ceil(r);
		if (m_opt < 1)
			m_opt = 1;
	}
	d->batches_opt = m_opt;
	d->boots_needed = 0;
	d->est_seconds = NAN;

	if (d->grand_mean == 0.0)
		return -EDOM;
	n = stats_design_boots(s1, t2, d->grand_mean, m_opt, target_rel);
	d->boots_needed = n;
	d->est_seconds = (double)n * (c_boot + (double)m_opt * c_batch);
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

		for (size_t s = top; s >= j; s--)	/* times (1 - q^j) */
			p[s] -= p[s - j];
		for (size_t s = i; s <= top; s++)	/* divided by (1 - q^i) */
			p[s] += p[s - i];
		deg += n - k;
	}
	memcpy(cnt, p, (na * nb + 1) * sizeof(*cnt));
	free(p);
	return 0;
}

/* Phi^-1(q), 0 < q < 1, by bisection on erfc (|error| < 1e-12; used only above 50 values). */
static double norm_quantile(double q)
{
	double lo = -40.0, hi = 40.0;

	for (int i = 0; i < 200 && hi - lo > 1e-13; i++) {
		double mid = (lo + hi) / 2.0;

		if (0.5 * erfc(-mid / sqrt(2.0)) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
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
		double u = floor(mu + norm_quantile(tail) * sd - 0.5);

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
static double *pair_diffs(const double *a, size_t na, const double *b, size_t nb)
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
static void hl_fill(const double *d, size_t mn, size_t c, struct hl_result *hl)
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
static int hl_rank(size_t na, size_t nb, double level, size_t *c, double *conf, int *met)
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
	case VERDICT_DIFFERENT: return "different";
	case VERDICT_SAME: return "same";
	default: return "undecided";
	}
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

int stats_row(const double *a, size_t na, const double *b, size_t nb, double alpha,
	      double margin, struct stats_row_result *r)
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

double stats_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0.0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return t_two_sided_p(t, df);
}

double stats_norm_quantile(double p)
{
	/* Acklam's rational approximation (relative error < 1.15e-9) */
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
				    -2.759285104469687e+02, 1.383577518672690e+02,
				    -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
				    -1.556989798598866e+02, 6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
				    -2.400758277161838e+00, -2.549732539343734e+00,
				    4.374664141464968e+00, 2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01,
				    2.445134137142996e+00, 3.754408661907416e+00 };
	double q, r;

	if (!(p > 0 && p < 1))
		return NAN;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		       ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	}
	if (p > 1 - 0.02425)
		return -stats_norm_quantile(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double stats_mde(double var_between, double var_within, size_t m, size_t n, double mean,
		 double alpha, double power)
{
	double se, p_min, cnk = 1;

	if (!n || !m || !(mean != 0) || !(var_between >= 0) || !(var_within >= 0) ||
	    !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	/* no exact p these n allow reaches alpha: nothing is detectable */
	for (size_t k = 1; k <= n; k++)
		cnk = cnk * (double)(n + k) / (double)k;	/* C(2n, n) */
	p_min = fmin(1.0, 2.0 / cnk);
	if (!(p_min <= alpha))
		return INFINITY;
	se = sqrt(2.0 * (var_between + var_within / (double)m) / (double)n);
	/* the rank test's asymptotic relative efficiency to the t-test is 3/pi */
	return (stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power)) * se *
	       sqrt(3.14159265358979323846 / 3.0) / fabs(mean);
}
