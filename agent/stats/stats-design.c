// SPDX-License-Identifier: GPL-2.0
/*
 * stats-design.c - design advice: boots and batches (Kalibera & Jones), the minimum detectable effect.
 *
 * Only libc and libm, no global state, no I/O (stats.c).
 */
#include "stats/stats.h"
#include "stats/stats-int.h"

#include <errno.h>
#include <math.h>

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
int stats_design(const double *x, size_t n_boots, size_t m_batches, double c_boot, double c_batch,
		 double target_rel, struct design_advice *d)
{
	double sum = 0.0, s1 = 0.0, s2 = 0.0, t2;
	double dn = (double)n_boots, dm = (double)m_batches;
	size_t total;
	unsigned int m_opt, n;

	if (!x || !d || n_boots < 2 || m_batches < 2)
		return -EINVAL;
	if (n_boots > SIZE_MAX / m_batches)
		return -EINVAL;
	if (!isfinite(c_boot) || c_boot < 0.0 || !isfinite(c_batch) || !(c_batch > 0.0) ||
	    !isfinite(target_rel) || !(target_rel > 0.0))
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

		m_opt = r >= STATS_DESIGN_MAX_BATCHES ? STATS_DESIGN_MAX_BATCHES :
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

double stats_mde(double var_between, double var_within, size_t m, size_t n, double mean,
		 double alpha, double power)
{
	double se, p_min, cnk = 1;

	if (!n || !m || !(mean != 0) || !(var_between >= 0) || !(var_within >= 0) ||
	    !(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	/* no exact p these n allow reaches alpha: nothing is detectable */
	for (size_t k = 1; k <= n; k++)
		cnk = cnk * (double)(n + k) / (double)k; /* C(2n, n) */
	p_min = fmin(1.0, 2.0 / cnk);
	if (!(p_min <= alpha))
		return INFINITY;
	se = sqrt(2.0 * (var_between + var_within / (double)m) / (double)n);
	/* the rank test's asymptotic relative efficiency to the t-test is 3/pi */
	return (stats_norm_quantile(1 - alpha / 2) + stats_norm_quantile(power)) * se *
	       sqrt(3.14159265358979323846 / 3.0) / fabs(mean);
}

double stats_power(double var_between, double var_within, size_t m, size_t n, double mean,
		   double alpha, double delta)
{
	double se, cnk = 1;

	if (!n || !m || !(mean != 0) || !(var_between >= 0) || !(var_within >= 0) ||
	    !(alpha > 0 && alpha < 1) || !isfinite(delta))
		return NAN;
	for (size_t k = 1; k <= n; k++)
		cnk = cnk * (double)(n + k) / (double)k; /* C(2n, n) */
	if (!(fmin(1.0, 2.0 / cnk) <= alpha))
		return 0.0;
	se = sqrt(2.0 * (var_between + var_within / (double)m) / (double)n) *
	     sqrt(3.14159265358979323846 / 3.0) / fabs(mean);
	if (se == 0.0)
		return delta != 0.0 ? 1.0 : alpha / 2.0;
	return 0.5 * erfc(-(fabs(delta) / se - stats_norm_quantile(1 - alpha / 2)) / sqrt(2.0));
}
