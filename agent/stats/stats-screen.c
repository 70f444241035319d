// SPDX-License-Identifier: GPL-2.0
/* Batches left out of a boot's mean: the screening rule of stats-screen.h. */
#include "stats/stats-screen.h"
#include "stats/stats-int.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the normal consistency factor of the MAD */
#define MAD_SIGMA 1.4826

/* median of v[0..n-1] (sorted in place), n > 0 */
static double median_sorted(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

/* median and MAD of x[idx[0..n-1]]; scratch holds n doubles */
static void med_mad(const double *x, const size_t *idx, size_t n, double *scratch, double *med,
		    double *mad)
{
	for (size_t i = 0; i < n; i++)
		scratch[i] = x[idx[i]];
	*med = median_sorted(scratch, n);
	for (size_t i = 0; i < n; i++)
		scratch[i] = fabs(x[idx[i]] - *med);
	*mad = median_sorted(scratch, n);
}

static double limit(double med, double mad)
{
	return fmax(fmax(SCREEN_K * MAD_SIGMA * mad, SCREEN_REL * fabs(med)), SCREEN_ABS_NS);
}

static bool has_base(const struct screen_in *b)
{
	return b->raw_ns >= 0 && b->base_ns >= 0;
}

static bool net_bad(const struct screen_in *b)
{
	if (b->mean_ns < 0)
		return true;
	return has_base(b) && b->base_ns > 0 && (b->raw_ns <= b->base_ns || b->mean_ns <= 0);
}

static double base_per_rep(const struct screen_in *b)
{
	return b->reps > 0 ? (double)b->base_ns / (double)b->reps : (double)b->base_ns;
}

int stats_screen(const struct screen_in *in, size_t n, struct screen_out *out)
{
	size_t *idx, *bidx, ni = 0, nb = 0, left = 0;
	double *val, *base, *scratch;
	double med, mad;

	if (!n)
		return 0;
	if (!in || !out)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(in[i].mean_ns))
			return -EINVAL;
	idx = calloc(n, sizeof(*idx));
	bidx = calloc(n, sizeof(*bidx));
	val = calloc(n, sizeof(*val));
	base = calloc(n, sizeof(*base));
	scratch = calloc(n, sizeof(*scratch));
	if (!idx || !bidx || !val || !base || !scratch) {
		free(idx);
		free(bidx);
		free(val);
		free(base);
		free(scratch);
		return -ENOMEM;
	}
	/* (a) net time <= 0; (c) judges only what (a) kept */
	for (size_t i = 0; i < n; i++) {
		out[i].why = SCREEN_KEPT;
		out[i].value = val[i] = in[i].mean_ns;
		out[i].ref = NAN;
		if (net_bad(&in[i])) {
			out[i].why = SCREEN_NET;
			continue;
		}
		idx[ni++] = i;
	}
	for (size_t i = 0; i < n; i++)
		if (has_base(&in[i])) {
			base[i] = base_per_rep(&in[i]);
			bidx[nb++] = i;
		}
	/* (b) a baseline far above the others': with two, the other is the reference; it
	 * also names the cause of a net time <= 0 that such a baseline made */
	if (nb >= 2) {
		if (nb == 2) {
			med = fmin(base[bidx[0]], base[bidx[1]]);
			mad = 0;
		} else {
			med_mad(base, bidx, nb, scratch, &med, &mad);
		}
		for (size_t k = 0; k < nb; k++) {
			size_t i = bidx[k];

			if (base[i] - med > limit(med, mad)) {
				out[i].why = SCREEN_BASELINE;
				out[i].value = base[i];
				out[i].ref = med;
			}
		}
	}
	/* (c) a time far outside the others' */
	if (ni >= SCREEN_MIN_OUTLIER_N) {
		med_mad(val, idx, ni, scratch, &med, &mad);
		for (size_t k = 0; k < ni; k++) {
			size_t i = idx[k];

			if (out[i].why == SCREEN_KEPT && fabs(val[i] - med) > limit(med, mad)) {
				out[i].why = SCREEN_OUTLIER;
				out[i].ref = med;
			}
		}
	}
	/* (b) and (c) judge a batch against the rest: never all of what (a) kept */
	{
		size_t kept = 0;

		for (size_t k = 0; k < ni; k++)
			kept += out[idx[k]].why == SCREEN_KEPT;
		if (ni && !kept)
			for (size_t k = 0; k < ni; k++) {
				out[idx[k]].why = SCREEN_KEPT;
				out[idx[k]].value = in[idx[k]].mean_ns;
				out[idx[k]].ref = NAN;
			}
	}
	for (size_t i = 0; i < n; i++)
		left += out[i].why != SCREEN_KEPT;
	free(idx);
	free(bidx);
	free(val);
	free(base);
	free(scratch);
	return (int)left;
}

/* "150 ns", "28 us", "1.24 ms", "2.5 s": three significant digits, never negative here */
static void fmt_dur(char *out, size_t len, double ns)
{
	double a = fabs(ns);

	if (a < 1e3)
		snprintf(out, len, "%.0f ns", a);
	else if (a < 1e6)
		snprintf(out, len, "%.3g us", a / 1e3);
	else if (a < 1e9)
		snprintf(out, len, "%.3g ms", a / 1e6);
	else
		snprintf(out, len, "%.3g s", a / 1e9);
}

char *stats_screen_reason(const struct screen_in *in, const struct screen_out *o, char *buf,
			  size_t len)
{
	char x[32], y[32];

	if (!len)
		return buf;
	buf[0] = '\0';
	switch (o->why) {
	case SCREEN_KEPT:
		break;
	case SCREEN_NET:
		if (in->raw_ns >= 0 && in->base_ns > 0) {
			fmt_dur(x, sizeof(x), (double)in->raw_ns);
			fmt_dur(y, sizeof(y), (double)in->base_ns);
			snprintf(buf, len, "net time <= 0 (raw %s, baseline %s)", x, y);
		} else {
			snprintf(buf, len, "net time <= 0");
		}
		break;
	case SCREEN_BASELINE:
		fmt_dur(x, sizeof(x), o->value);
		fmt_dur(y, sizeof(y), o->ref);
		snprintf(buf, len, "baseline %s, the boot's median %s", x, y);
		break;
	case SCREEN_OUTLIER:
		fmt_dur(x, sizeof(x), o->value);
		fmt_dur(y, sizeof(y), o->ref);
		snprintf(buf, len, "time %s, the boot's median %s", x, y);
		break;
	}
	return buf;
}
