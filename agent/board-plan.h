/* SPDX-License-Identifier: GPL-2.0-only */
/* One board's plan: its calibration and time per boot, and what a change costs on it
 * (board-plan.c; printed by cmd/cmd-plan.c). */
#ifndef ABLAB_BOARD_PLAN_H
#define ABLAB_BOARD_PLAN_H

#include "stats/stats-cost.h"
#include "store/store.h"
#include "store/store-plan.h"

#include <stddef.h>
#include <stdint.h>

/* one board's plan */
struct board_plan {
	char *name; /* the board's name (a board file's "name") */
	struct store_rows cal; /* its latest calibration; nrows 0: none */
	struct cost_row *rows; /* the calibrated rows planned for (--scenario) */
	size_t nrows;
	char *missing; /* a --scenario the calibration lacks */
	int64_t cal_id;
	int cal_batches;
	struct plan_time t;
	int timed; /* boot_s, batch_s measured */
	double boot_s, batch_s;
	struct cost_result r;
	int ret; /* of cost_plan() */
};

/* The board (a name, or a board file's "name"; -ENOENT: neither) its latest calibration's
 * rows (those of scen[], or all) and its time per boot, read with st. */
int board_plan_load(struct store *st, struct board_plan *bp, const char *arg, char *const *scen,
		    size_t nscen);
void board_plan_free(struct board_plan *bp);
/* seconds of one boot of m batches on the board (NAN: no boot timed) */
double board_plan_boot_seconds(const struct board_plan *bp, unsigned int m);
/* bp->r, bp->ret: cost_plan() for q0 at `batches` per boot (0: the cheapest) */
void board_plan_compute(struct board_plan *bp, const struct cost_query *q0, unsigned int batches);
/* The Holm family: the campaign's rows as the refusal counts them, or more when the boards'
 * calibrations have more timing rows than the benchmark's defaults say. */
size_t board_plans_family_rows(size_t design_rows, const struct board_plan *bp, size_t nb,
			       size_t cmp);
/* Each of nb boards' plan computed, order[] the boards in the order they answer; *job_s the
 * job's wall time (the slowest board's), *asis_s the job's as written (asis_n boots of
 * asis_m batches; 0: none).  1 when a board has no plan, else 0. */
int board_plans_compute(struct board_plan *bp, size_t nb, const struct cost_query *q,
			unsigned int batches, int asis_n, int asis_m, size_t *order, double *job_s,
			double *asis_s);

#endif
