/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABLAB_STATS_INT_H
#define ABLAB_STATS_INT_H

/*
 * What the stats*.c files share and nothing else includes: stats.c (summaries, A/B,
 * Holm/BH, one row), stats-rank.c (Mann-Whitney U, Hodges-Lehmann, Cliff's delta),
 * stats-dist.c (t and normal distributions), stats-design.c (design advice), and below them
 * all stats-util.c (the helpers they share).
 */
#include "stats/stats.h"

#include <stdbool.h>
#include <stddef.h>

/* stats-util.c */
int cmp_double(const void *pa, const void *pb); /* qsort() ascending */
bool all_finite(const double *x, size_t n);

/* stats-dist.c */
double t_two_sided_p(double t, double df); /* two-sided p of Student's t */
double t_crit95(double df); /* t_{0.975, df} */

/* stats-rank.c */
int mwu(const double *a, size_t na, const double *b, size_t nb, struct ab_result *r);
double *pair_diffs(const double *a, size_t na, const double *b, size_t nb);
void hl_fill(const double *d, size_t mn, size_t c, struct hl_result *hl);
int hl_rank(size_t na, size_t nb, double level, size_t *c, double *conf, int *met);

#endif
