// SPDX-License-Identifier: GPL-2.0
/*
 * stats-dist.c - distributions: Student's t (regularised incomplete beta), the normal quantile.
 *
 * Only libc and libm, no global state, no I/O (stats.c): lgamma_r() is used instead of
 * lgamma() (which writes the global signgam).
 */
#include "stats/stats.h"
#include "stats/stats-int.h"

#include <math.h>

static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/* ---------------------------------------------------------------- incomplete beta, Student t */

#define LENTZ_TINY 1e-300

/* One step of modified Lentz's method with the next coefficient aa: c and d updated, the
 * factor the fraction's value changes by returned. */
static double lentz_step(double aa, double *c, double *d)
{
	*d = 1.0 + aa * *d;
	if (fabs(*d) < LENTZ_TINY)
		*d = LENTZ_TINY;
	*c = 1.0 + aa / *c;
	if (fabs(*c) < LENTZ_TINY)
		*c = LENTZ_TINY;
	*d = 1.0 / *d;
	return *d * *c;
}

/* Continued fraction for the incomplete beta function (modified Lentz's method). */
static double betacf(double a, double b, double x)
{
	const double tiny = LENTZ_TINY, eps = 1e-15;
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
		h *= lentz_step(aa, &c, &d);
		/* odd step */
		aa = -(a + dm) * (qab + dm) * x / ((a + m2) * (qap + m2));
		del = lentz_step(aa, &c, &d);
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
double t_two_sided_p(double t, double df)
{
	return betai(df / 2.0, 0.5, df / (df + t * t));
}

/* Two-sided 95% critical value t_{0.975, df} (df > 0), by bisection on the p-value. */
double t_crit95(double df)
{
	double lo = 0.0, hi = 1.0;

	while (t_two_sided_p(hi, df) > ABLAB_CI95_TAIL && hi < 1e6)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2.0;

		if (t_two_sided_p(mid, df) > ABLAB_CI95_TAIL)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2.0;
}

double stats_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0.0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return t_two_sided_p(t, df);
}

/* Acklam's rational approximation of Phi^-1(p) (relative error < 1.15e-9) */
static double acklam(double p)
{
	static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02,
				    -2.759285104469687e+02, 1.383577518672690e+02,
				    -3.066479806614716e+01, 2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02,
				    -1.556989798598866e+02, 6.680131188771972e+01,
				    -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01,
				    -2.400758277161838e+00, -2.549732539343734e+00,
				    4.374664141464968e+00,  2.938163982698783e+00 };
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
		return -acklam(1 - p);
	q = p - 0.5;
	r = q * q;
	return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
	       (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* Acklam's value refined by one Halley step on erfc: |error| ~ 1e-15 */
double stats_norm_quantile(double p)
{
	double x = acklam(p), e, u;

	if (isnan(x))
		return x;
	e = 0.5 * erfc(-x / sqrt(2.0)) - p;
	u = e * sqrt(2.0 * M_PI) * exp(x * x / 2.0);
	if (isfinite(u))
		x -= u / (1.0 + x * u / 2.0);
	return x;
}
