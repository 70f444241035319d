/* SPDX-License-Identifier: GPL-2.0 */
/*
 * changepoint.h - change points in a nightly series (one value per night), the t-test variant
 * of E-divisive used by Hunter/Otava (Fleming et al., ICPE 2023; Matteson & James 2014).
 *
 * Binary segmentation: in a segment, the split maximising the E-divisive statistic with
 * exponent 2, n1 n2 / (n1 + n2) (mean1 - mean2)^2 (equivalently the two-sample Student t, the
 * within-segment sum of squares being what is left), is a candidate; it is kept when the
 * Student t-test between its two sides gives p <= p_max, and both sides are searched again.
 * Then, as in Otava, every kept point is re-tested between its neighbouring change points and
 * the weakest one above p_max is dropped until none is. Segments hold >= min_size values,
 * except the last segment of the series, which may be one value: tonight's night can open a
 * new segment at once. O(n) per segment via prefix sums: 2,500 nights in well under 1 ms.
 *
 * The t-test replaces E-divisive's permutation test (Hunter's choice: deterministic and
 * fast); the p of a split is that of the chosen split, not corrected for the choice among
 * the splits, so p_max is a tuning level (Otava's default is 0.001), not an error rate.
 * Pure code: no I/O, no globals.
 */
#ifndef ABLAB_CHANGEPOINT_H
#define ABLAB_CHANGEPOINT_H

#include <stddef.h>

#define CP_DEFAULT_P_MAX 0.01
#define CP_DEFAULT_MIN_SIZE 3

struct cp_point {
	size_t index; /* first value of the new segment (1 <= index < n) */
	double p; /* Student t-test p between the two neighbouring segments */
	double mean_before, mean_after;
	double rel; /* mean_after / mean_before - 1; NAN if mean_before == 0 */
};

/*
 * Change points of x[0..n-1], sorted by index: returns how many were found (the first max
 * of them are written to cp, which may be NULL when max == 0), or -EINVAL (x NULL with n > 0,
 * a non-finite value, p_max outside (0, 1), min_size < 2), -ENOMEM.
 */
int cp_detect(const double *x, size_t n, double p_max, size_t min_size, struct cp_point *cp,
	      size_t max);

/*
 * Whether the last value x[n-1] opens a new segment: 1 (and *cp filled) if cp_detect() finds
 * a change point at index n - 1 with |rel| >= min_rel, 0 if not, negative errno as above.
 */
int cp_new_last(const double *x, size_t n, double p_max, size_t min_size, double min_rel,
		struct cp_point *cp);

#endif /* ABLAB_CHANGEPOINT_H */
