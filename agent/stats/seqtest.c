// SPDX-License-Identifier: GPL-2.0
/*
 * seqtest.c - group-sequential design on the exact rank test (see seqtest.h).
 */
#include "stats/seqtest.h"
#include "stats/stats-int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int seq_schedule_balanced(size_t first, size_t budget, size_t *na, size_t *nb, size_t max)
{
	size_t k = 0;

	if (!na || !nb || first < 1 || budget / 2 < first)
		return -EINVAL;
	for (size_t n = first; n <= budget / 2; n++) {
		if (k == max)
			return -EINVAL;
		na[k] = nb[k] = n;
		k++;
	}
	return (int)k;
}

const char *seq_decision_name(enum seq_decision s)
{
	switch (s) {
	case SEQ_DIFFERENT:
		return "different";
	case SEQ_SAME:
		return "same";
	case SEQ_CONTINUE:
		return "continue";
	default:
		return "undecided";
	}
}

/* number of sorted v[0..n-1] <= t (with a relative slack for equal floating values) */
static size_t count_le(const double *v, size_t n, double t)
{
	size_t lo = 0, hi = n;

	t *= 1.0 + 1e-12;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* largest candidate t (sorted cand[0..nc-1]) with count_le(minp, t) <= limit * sims, or 0 */
static double pick_threshold(const double *cand, size_t nc, const double *minp, size_t sims,
			     double limit)
{
	double best = 0.0;

	for (size_t i = 0; i < nc; i++) {
		if ((double)count_le(minp, sims, cand[i]) <= limit * (double)sims)
			best = cand[i];
		else
			break; /* the count grows with t */
	}
	return best;
}

static bool design_args_ok(const size_t *na, const size_t *nb, size_t nlooks, double alpha,
			   double beta, double margin)
{
	if (!na || !nb || !nlooks || nlooks > SEQ_MAX_LOOKS)
		return false;
	if (!(alpha > 0.0 && alpha < 0.5) || !(beta > 0.0 && beta < 0.5) ||
	    !(margin > 0.0 && margin < 1.0))
		return false;
	for (size_t k = 0; k < nlooks; k++) {
		if (!na[k] || !nb[k] || na[k] + nb[k] > STATS_MWU_EXACT_MAX)
			return false;
		if (k && (na[k] < na[k - 1] || nb[k] < nb[k - 1] ||
			  na[k] + nb[k] == na[k - 1] + nb[k - 1]))
			return false;
	}
	return true;
}

/* cdf[k][u] = P(U <= u) at look k (each malloc'd); *nc the number of candidate thresholds
 * (2 cdf and cdf below 0.5 at every look).  0 or -ENOMEM. */
static int look_cdfs(struct seq_design *d, const size_t *na, const size_t *nb, double **cdf,
		     size_t *nc)
{
	for (size_t k = 0; k < d->nlooks; k++) {
		size_t mn = na[k] * nb[k];
		double tot = 0.0, cum = 0.0;

		d->look[k].na = na[k];
		d->look[k].nb = nb[k];
		cdf[k] = malloc((mn + 1) * sizeof(**cdf));
		if (!cdf[k] || stats_mwu_dist(na[k], nb[k], cdf[k]))
			return -ENOMEM;
		for (size_t u = 0; u <= mn; u++)
			tot += cdf[k][u];
		for (size_t u = 0; u <= mn; u++) {
			cum += cdf[k][u];
			cdf[k][u] = cum / tot;
		}
		for (size_t u = 0; u <= mn && cdf[k][u] < 0.5; u++)
			*nc += 2;
	}
	return 0;
}

/* Under the null (both samples uniform), per simulated run the smallest two-sided (minp2)
 * and one-sided (minp1) p over the looks, each sorted: U grows with the boots added. */
static void simulate_null(const struct seq_design *d, const size_t *na, const size_t *nb,
			  double **cdf, double *xa, double *xb, double *minp2, double *minp1)
{
	size_t NA = na[d->nlooks - 1], NB = nb[d->nlooks - 1];
	struct stats_rng g;

	stats_rng_seed(&g, d->seed);
	for (unsigned long r = 0; r < d->sims; r++) {
		double m2 = 1.0, m1 = 1.0;
		size_t ca = 0, cb = 0, u = 0;

		for (size_t i = 0; i < NA; i++)
			xa[i] = stats_rng_uniform(&g);
		for (size_t j = 0; j < NB; j++)
			xb[j] = stats_rng_uniform(&g);
		for (size_t k = 0; k < d->nlooks; k++) {
			const double *c = cdf[k];
			size_t mn = na[k] * nb[k], lo;

			for (; ca < na[k]; ca++)
				for (size_t j = 0; j < cb; j++)
					u += xb[j] > xa[ca];
			for (; cb < nb[k]; cb++)
				for (size_t i = 0; i < ca; i++)
					u += xa[i] < xb[cb];
			/* two-sided: the tail of min(U, mn - U) (the distribution is symmetric) */
			lo = u < mn - u ? u : mn - u;
			m2 = fmin(m2, fmin(1.0, 2.0 * c[lo]));
			m1 = fmin(m1, c[u]);
		}
		minp2[r] = m2;
		minp1[r] = m1;
	}
	qsort(minp2, d->sims, sizeof(*minp2), cmp_double);
	qsort(minp1, d->sims, sizeof(*minp1), cmp_double);
}

/* The nominal threshold: the largest candidate (scale * cdf below 0.5 at any look, into
 * cand) whose simulated rate under the null stays within limit. */
static double design_threshold(const struct seq_design *d, const size_t *na, const size_t *nb,
			       double **cdf, double scale, double *cand, const double *minp,
			       double limit)
{
	size_t nc = 0;

	for (size_t k = 0; k < d->nlooks; k++)
		for (size_t u = 0; u <= na[k] * nb[k] && cdf[k][u] < 0.5; u++)
			cand[nc++] = scale * cdf[k][u];
	qsort(cand, nc, sizeof(*cand), cmp_double);
	return pick_threshold(cand, nc, minp, d->sims, limit);
}

/* Each look's bounds on U for the thresholds, and their exact sizes */
static void look_bounds(struct seq_design *d, const size_t *na, const size_t *nb, double **cdf)
{
	for (size_t k = 0; k < d->nlooks; k++) {
		struct seq_look *l = &d->look[k];
		const double *c = cdf[k];

		l->u_diff = l->u_eq = -1;
		for (size_t u = 0; u <= na[k] * nb[k] && c[u] < 0.5; u++) {
			if (d->p_diff > 0.0 && 2.0 * c[u] <= d->p_diff * (1.0 + 1e-12)) {
				l->u_diff = (long)u;
				l->p_size = 2.0 * c[u];
			}
			if (d->p_eq > 0.0 && c[u] <= d->p_eq * (1.0 + 1e-12)) {
				l->u_eq = (long)u;
				l->p_eq_size = c[u];
			}
		}
	}
}

int seq_design_init(struct seq_design *d, const size_t *na, const size_t *nb, size_t nlooks,
		    double alpha, double beta, double margin, unsigned long sims, uint64_t seed)
{
	double **cdf = NULL, *minp2 = NULL, *minp1 = NULL, *cand = NULL, *xa = NULL, *xb = NULL;
	size_t nc = 0;
	int ret = -ENOMEM;

	if (!d || !design_args_ok(na, nb, nlooks, alpha, beta, margin))
		return -EINVAL;
	if (!sims)
		sims = SEQ_DEFAULT_SIMS;
	memset(d, 0, sizeof(*d));
	d->nlooks = nlooks;
	d->alpha = alpha;
	d->beta = beta;
	d->margin = margin;
	d->sims = sims;
	d->seed = seed;

	/* cdf[k][u] = P(U <= u) at look k; the candidate thresholds are 2 cdf and cdf */
	cdf = calloc(nlooks, sizeof(*cdf));
	if (!cdf || look_cdfs(d, na, nb, cdf, &nc))
		goto out;
	cand = malloc((nc + 1) * sizeof(*cand));
	minp2 = malloc(sims * sizeof(*minp2));
	minp1 = malloc(sims * sizeof(*minp1));
	xa = malloc(na[nlooks - 1] * sizeof(*xa));
	xb = malloc(nb[nlooks - 1] * sizeof(*xb));
	if (!cand || !minp2 || !minp1 || !xa || !xb)
		goto out;

	simulate_null(d, na, nb, cdf, xa, xb, minp2, minp1);
	d->p_diff = design_threshold(d, na, nb, cdf, 2.0, cand, minp2, alpha);
	d->p_eq = design_threshold(d, na, nb, cdf, 1.0, cand, minp1, beta);

	d->fpr = (double)count_le(minp2, sims, d->p_diff) / (double)sims;
	d->same_err = (double)count_le(minp1, sims, d->p_eq) / (double)sims;
	if (d->p_diff == 0.0)
		d->fpr = 0.0;
	if (d->p_eq == 0.0)
		d->same_err = 0.0;
	d->fpr_se = sqrt(d->fpr * (1.0 - d->fpr) / (double)sims);
	d->same_err_se = sqrt(d->same_err * (1.0 - d->same_err) / (double)sims);
	look_bounds(d, na, nb, cdf);
	ret = 0;
out:
	if (cdf)
		for (size_t k = 0; k < nlooks; k++)
			free(cdf[k]);
	free(cdf);
	free(cand);
	free(minp2);
	free(minp1);
	free(xa);
	free(xb);
	return ret;
}

int seq_decide(const struct seq_design *d, size_t k, const double *a, size_t na, const double *b,
	       size_t nb, struct seq_result *r)
{
	const struct seq_look *l;
	struct stats_row_result row;
	int ret, pos;

	if (!d || !r || k >= d->nlooks)
		return -EINVAL;
	l = &d->look[k];
	if (na != l->na || nb != l->nb || !a || !b)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->look = k;
	r->eq_lo = r->eq_hi = NAN;
	r->rci_rel.shift = r->rci_rel.lo = r->rci_rel.hi = r->rci_rel.conf = NAN;
	r->rci_shift = r->rci_rel;
	ret = stats_row(a, na, b, nb, d->alpha, d->margin, &row);
	if (ret)
		return ret;
	r->p = row.p;
	r->cliff = row.cliff;
	r->u = (row.cliff + 1.0) * (double)(na * nb) / 2.0;
	pos = row.have_rel;

	if (l->u_diff >= 0) {
		size_t c = (size_t)l->u_diff + 1;

		ret = stats_hl_at(a, na, b, nb, c, 0, &r->rci_shift);
		if (!ret && pos)
			ret = stats_hl_at(a, na, b, nb, c, 1, &r->rci_rel);
		if (ret)
			return ret;
		/* simultaneous over the looks: the design's level, not this look's */
		r->rci_shift.conf = 1.0 - d->fpr;
		if (pos)
			r->rci_rel.conf = 1.0 - d->fpr;
	}
	if (l->u_eq >= 0 && pos) {
		struct hl_result e;

		ret = stats_hl_at(a, na, b, nb, (size_t)l->u_eq + 1, 1, &e);
		if (ret)
			return ret;
		r->eq_lo = e.lo;
		r->eq_hi = e.hi;
	}
	if (l->u_diff >= 0 && row.p <= l->p_size * (1.0 + 1e-9))
		r->decision = SEQ_DIFFERENT;
	else if (!isnan(r->eq_lo) && r->eq_lo > -d->margin && r->eq_hi < d->margin)
		r->decision = SEQ_SAME;
	else
		r->decision = k + 1 < d->nlooks ? SEQ_CONTINUE : SEQ_UNDECIDED;
	return 0;
}
