// SPDX-License-Identifier: GPL-2.0-only
/*
 * board-plan.c - one board's plan (issue 29 item 4): its latest A/A calibration and its
 * measured time per boot from the store (store-plan.c), the boots and batches a change needs
 * from cost_plan() (stats-cost.c), and the boards' plans in the order they answer.  No
 * printing: `ablab plan` and the plan `ab` and `run` print are cmd/cmd-plan.c's.
 */
#include "board-plan.h"
#include "shared/util.h"
#include "store/store-plan.h"

#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *board_name_of(const char *arg)
{
	json_object *o, *n;
	char *name = NULL;

	if (!strchr(arg, '/') && !strstr(arg, ".json"))
		return xstrdup(arg);
	o = is_file(arg) ? json_object_from_file(arg) : NULL;
	if (o && json_object_object_get_ex(o, "name", &n) &&
	    json_object_is_type(n, json_type_string))
		name = xstrdup(json_object_get_string(n));
	json_object_put(o);
	return name;
}

/* The board's calibration (the rows of scen[], or all) and its time per boot. */
int board_plan_load(struct store *st, struct board_plan *bp, const char *arg, char *const *scen,
		    size_t nscen)
{
	int ret;

	memset(bp, 0, sizeof(*bp));
	bp->name = board_name_of(arg);
	if (!bp->name)
		return -ENOENT;
	ret = store_plan_calibration(st, bp->name, &bp->cal);
	if (!ret)
		ret = store_plan_time(st, bp->name, &bp->t);
	if (ret)
		return ret;
	bp->rows = xcalloc(bp->cal.nrows + 1, sizeof(*bp->rows));
	for (size_t i = 0; i < bp->cal.nrows; i++) {
		const char *s = store_text(&bp->cal, i, PC_SCENARIO);
		bool want = !nscen;

		for (size_t k = 0; k < nscen && !want; k++)
			want = !strcmp(scen[k], s);
		bp->cal_id = strtoll(store_text(&bp->cal, i, PC_CAMPAIGN), NULL, 10);
		bp->cal_batches = atoi(store_text(&bp->cal, i, PC_BATCHES));
		if (!want)
			continue;
		bp->rows[bp->nrows++] =
			(struct cost_row){ s, atof(store_text(&bp->cal, i, PC_MEAN)),
					   atof(store_text(&bp->cal, i, PC_VAR_WITHIN)),
					   atof(store_text(&bp->cal, i, PC_VAR_BETWEEN)) };
	}
	for (size_t k = 0; k < nscen && bp->cal.nrows && !bp->missing; k++) {
		bool have = false;

		for (size_t i = 0; i < bp->nrows && !have; i++)
			have = !strcmp(bp->rows[i].scenario, scen[k]);
		if (!have)
			bp->missing = scen[k];
	}
	if (bp->t.boots && isfinite(bp->t.boot_ms) && isfinite(bp->t.run_ms)) {
		double per = isfinite(bp->t.cycle_ms) ? bp->t.cycle_ms :
							bp->t.boot_ms + bp->t.run_ms;

		bp->timed = 1;
		bp->batch_s = bp->t.batches > 0 ? bp->t.run_ms / bp->t.batches / 1000.0 : 0.0;
		bp->boot_s = fmax(0.0, per - bp->t.run_ms) / 1000.0;
		if (!(bp->t.batches > 0))
			bp->boot_s = per / 1000.0;
	}
	return 0;
}

void board_plan_free(struct board_plan *bp)
{
	free(bp->name);
	free(bp->rows);
	store_rows_free(&bp->cal);
}

/* seconds of one boot of m batches on the board */
double board_plan_boot_seconds(const struct board_plan *bp, unsigned int m)
{
	return bp->timed ? bp->boot_s + (double)m * bp->batch_s : NAN;
}

void board_plan_compute(struct board_plan *bp, const struct cost_query *q0, unsigned int batches)
{
	struct cost_query q = *q0;

	if (!bp->nrows || bp->missing)
		return;
	q.batches = batches ? batches : bp->timed ? 0 : (unsigned int)bp->cal_batches;
	if (q.batches > COST_MAX_BATCHES)
		q.batches = COST_MAX_BATCHES;
	q.boot_s = bp->timed ? bp->boot_s : 0.0;
	q.batch_s = bp->timed ? bp->batch_s : 0.0;
	bp->ret = cost_plan(&q, bp->rows, bp->nrows, &bp->r);
	if (!bp->timed)
		bp->r.seconds = NAN;
}

/* The Holm family: the campaign's rows as the refusal counts them, or more when the boards'
 * calibrations have more timing rows than the benchmark's defaults say. */
size_t board_plans_family_rows(size_t design_rows, const struct board_plan *bp, size_t nb,
			       size_t cmp)
{
	size_t cal = 0;

	for (size_t i = 0; i < nb; i++)
		cal += bp[i].cal.nrows;
	return cal * cmp > design_rows ? cal * cmp : design_rows;
}

static int cmp_seconds(const struct board_plan *bp, size_t a, size_t b)
{
	double x = bp[a].r.reachable ? bp[a].r.seconds : INFINITY;
	double y = bp[b].r.reachable ? bp[b].r.seconds : INFINITY;

	if (isnan(x))
		x = INFINITY;
	if (isnan(y))
		y = INFINITY;
	return x < y ? -1 : x > y ? 1 : (int)a - (int)b;
}

int board_plans_compute(struct board_plan *bp, size_t nb, const struct cost_query *q,
			unsigned int batches, int asis_n, int asis_m, size_t *order, double *job_s,
			double *asis_s)
{
	int ret = 0;

	for (size_t i = 0; i < nb; i++) {
		board_plan_compute(&bp[i], q, batches);
		order[i] = i;
		ret |= !bp[i].cal.nrows || bp[i].missing || bp[i].ret || !bp[i].r.reachable;
		if (bp[i].r.reachable && bp[i].timed)
			*job_s = isfinite(*job_s) ? fmax(*job_s, bp[i].r.seconds) : bp[i].r.seconds;
		if (asis_n && asis_m && bp[i].timed) {
			double s = (double)(q->kernels ? q->kernels : 2) * asis_n *
				   board_plan_boot_seconds(&bp[i], (unsigned int)asis_m);

			*asis_s = isfinite(*asis_s) ? fmax(*asis_s, s) : s;
		}
	}
	for (size_t i = 1; i < nb; i++)
		for (size_t k = i; k > 0 && cmp_seconds(bp, order[k], order[k - 1]) < 0; k--) {
			size_t t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	return ret;
}
