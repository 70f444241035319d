// SPDX-License-Identifier: GPL-2.0
/*
 * stats-util.c - the small helpers every stats*.c file uses (stats-int.h), below them all:
 * stats.c and stats-rank.c both call these and neither calls the other back through them.
 *
 * Only libc and libm. No global state.
 */
#include "stats/stats-int.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}
