// SPDX-License-Identifier: GPL-2.0
/*
 * stats-cost.c - what an answer will cost: boots, batches and wall time of a fixed n+n design
 * from a board's A/A calibration (stats-cost.h).
 *
 * Pure code: no I/O, no globals. Negative errno on failure.
 */
#include "stats/stats-cost.h"
#include "stats/seqtest.h"
#include "stats/stats-screen.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

static int query_ok(const struct cost_query *q)
{
	return q && (q->effect > 0.0 ? isfinite(q->effect) : q->margin > 0.0 && q->margin < 1.0) &&
	       q->alpha > 0.0 && q->alpha < 0.5 && q->power > 0.0 && q->power < 1.0 &&
	       q->rows >= 1 && q->batches <= COST_MAX_BATCHES && isfinite(q->boot_s) &&
	       q->boot_s >= 0.0 && isfinite(q->batch_s) && q->batch_s >= 0.0;
}

static int row_ok(const struct cost_row *w)
{
	return isfinite(w->mean) && w->mean != 0.0 && isfinite(w->var_within) &&
	       w->var_within >= 0.0 && isfinite(w->var_between) && w->var_between >= 0.0;
}

/* the standard error of the relative change the rank test sees at n+n boots of m batches */
static double rel_se(const struct cost_row *w, unsigned int m, size_t n)
{
	return sqrt(2.0 * (w->var_between + w->var_within / (double)m) / (double)n) *
	       sqrt(PI / 3.0) / fabs(w->mean);
}

double cost_power(const struct cost_query *q, const struct cost_row *w, unsigned int m, size_t n)
{
	double se;

	if (!query_ok(q) || !w || !row_ok(w) || !m || !n)
		return NAN;
	if (q->effect > 0.0)
		return stats_power(w->var_between, w->var_within, m, n, w->mean,
				   q->alpha / (double)q->rows, q->effect);
	se = rel_se(w, m, n);
	if (se == 0.0)
		return 1.0;
	return fmax(0.0, 2.0 * (0.5 * erfc(-(q->margin / se - stats_norm_quantile(1 - q->alpha)) /
					   sqrt(2.0))) -
				 1.0);
}

/* boots per kernel one row needs at m batches; 0: more than COST_MAX_BOOTS */
static size_t row_boots(const struct cost_query *q, const struct cost_row *w, unsigned int m)
{
	double z, d, n0, v = w->var_between + w->var_within / (double)m;
	size_t n;

	if (q->effect > 0.0) {
		z = stats_norm_quantile(1 - q->alpha / (2.0 * (double)q->rows)) +
		    stats_norm_quantile(q->power);
		d = q->effect;
	} else {
		z = stats_norm_quantile(1 - q->alpha) + stats_norm_quantile((1 + q->power) / 2);
		d = q->margin;
	}
	/* the closed form of the normal approximation, then the exact check upwards (the
	 * rank test's smallest p and rounding) */
	n0 = ceil(2.0 * v * (PI / 3.0) * z * z / (d * w->mean * d * w->mean) - 1e-9);
	if (!(n0 <= COST_MAX_BOOTS))
		return 0;
	for (n = n0 < 2.0 ? 2 : (size_t)n0; n <= COST_MAX_BOOTS; n++)
		if (cost_power(q, w, m, n) >= q->power)
			return n;
	return 0;
}

int cost_noise_boots(const struct cost_query *q, const struct cost_row *rows, size_t n,
		     unsigned int m, size_t *boots, size_t *limit)
{
	size_t best = 1, at = 0;

	if (!query_ok(q) || !rows || !n || !m || !boots)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!row_ok(&rows[i]))
			return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		size_t b = row_boots(q, &rows[i], m);

		if (!b) {
			best = 0;
			at = i;
			break;
		}
		if (b > best) {
			best = b;
			at = i;
		}
	}
	*boots = best;
	if (limit)
		*limit = at;
	return 0;
}

static struct plan_design design_of(const struct cost_query *q, size_t n)
{
	struct plan_design p = { .n = n,
				 .rows = q->rows,
				 .alpha = q->alpha,
				 .beta = ABLAB_BETA,
				 .margin = q->margin > 0.0 && q->margin < 1.0 ? q->margin : 0.01 };

	return p;
}

int cost_plan(const struct cost_query *q, const struct cost_row *rows, size_t n,
	      struct cost_result *r)
{
	struct plan_design p;
	struct plan_result pr;
	unsigned int lo = q && q->batches ? q->batches : SCREEN_MIN_OUTLIER_N;
	unsigned int hi = q && q->batches ? q->batches : COST_MAX_BATCHES;
	double best = INFINITY;
	int ret;

	if (!query_ok(q) || !rows || !n || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	r->seconds = INFINITY;
	/* the smallest design that can decide at all: the refusal's computation */
	p = design_of(q, 1);
	ret = plan_decidable(&p, &pr);
	if (ret)
		return ret;
	r->decide_boots = q->effect > 0.0 ? pr.diff_n : pr.same_n;
	r->row_alpha = q->effect > 0.0 ? pr.row_alpha : q->alpha;
	for (unsigned int m = lo; m <= hi; m++) {
		size_t nb, at, b;
		double t;

		ret = cost_noise_boots(q, rows, n, m, &nb, &at);
		if (ret)
			return ret;
		b = nb > r->decide_boots ? nb : r->decide_boots;
		t = (double)(q->kernels ? q->kernels : 2) * (double)b *
		    (q->boot_s + (double)m * q->batch_s);
		if (nb && (!r->batches || t < best)) {
			best = t;
			r->batches = m;
			r->noise_boots = nb;
			r->boots = b;
			r->limit = at;
		}
		if (!r->batches && m == hi) { /* nothing reachable: report the largest m */
			r->batches = m;
			r->limit = at;
		}
	}
	if (!r->noise_boots || !r->decide_boots)
		return 0;
	/* the plan's own design, as the refusal would judge it */
	p = design_of(q, r->boots);
	ret = plan_decidable(&p, &pr);
	if (ret)
		return ret;
	r->reachable = q->effect > 0.0 ? pr.can_diff : pr.can_same;
	r->power = cost_power(q, &rows[r->limit], r->batches, r->boots);
	if (r->reachable)
		r->seconds = best;
	return 0;
}
