/* SPDX-License-Identifier: GPL-2.0-only */
/* `ablab plan` (issue 29 item 4): what an answer will cost on each board, from its latest
 * A/A calibration and its measured time per boot (cmd-plan.c, stats-cost.c). */
#ifndef ABLAB_CMD_PLAN_H
#define ABLAB_CMD_PLAN_H

#include <stddef.h>
#include <stdio.h>

struct plan_design;
struct store;

int cmd_plan(int argc, char **argv);

/*
 * Before a campaign's first boot (`ab`, `run`): one or two lines per board (a name or a board
 * file) on out (stderr beside the progress lines: stdout is the report's): the design's wall
 * time and the smallest change it sees, and the boots a change of the margin needs; "no
 * calibration for board X: run ablab calibrate X" without one.  pd is the campaign's design
 * (campaign_plan_design()), batches its batches per boot, kernels how many it boots n times
 * each (2: A/B; a series' variants).  st: an open connection to read with, or NULL (one
 * opened here).  Prints nothing when the database cannot be opened (the campaign will say
 * why).
 */
void cli_plan_print(FILE *out, struct store *st, const char *const *boards, size_t nboards,
		    const struct plan_design *pd, int batches, int kernels);

#endif
