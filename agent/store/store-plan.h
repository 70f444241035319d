/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * store-plan.h - what `ablab plan` reads (issue 29 item 4): a board's latest A/A calibration
 * and its measured time per boot.  0, or -EIO (printed); the caller store_rows_free()s.
 */
#ifndef ABLAB_STORE_PLAN_H
#define ABLAB_STORE_PLAN_H

#include "store/store.h"

/* the rows of board's latest calibration campaign: scenario, campaign_id, mean,
 * var_within, var_between, batches, boots, to_char(created) (none: no calibration) */
enum {
	PC_SCENARIO,
	PC_CAMPAIGN,
	PC_MEAN,
	PC_VAR_WITHIN,
	PC_VAR_BETWEEN,
	PC_BATCHES,
	PC_BOOTS,
	PC_CREATED,
};
int store_plan_calibration(struct store *st, const char *board, struct store_rows *t);

/* The board's time per boot, from its last STORE_PLAN_BOOTS ok boots with a boot time (the
 * one source of a plan's time: item 1 of issue 29 will add per-phase times here).  Medians in
 * ms, NAN when unknown. */
#define STORE_PLAN_BOOTS 50
struct plan_time {
	size_t boots; /* how many boots the medians are of (0: none) */
	double boot_ms; /* power on .. shell prompt */
	double run_ms; /* the benchmark's run */
	double batches; /* the batches those boots ran */
	double cycle_ms; /* one boot's start to the next one's on the board in a campaign
			  * (power off, waits, retries included); NAN without two in a row */
};
int store_plan_time(struct store *st, const char *board, struct plan_time *t);

#endif
