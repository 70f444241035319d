// SPDX-License-Identifier: GPL-2.0-only
/* The queries of `ablab plan` (store-plan.h): SQL stays in the store. */
#include "store/store-plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_plan_calibration(struct store *st, const char *board, struct store_rows *t)
{
	const char *p[1] = { board };

	return store_rows_query(
		st,
		"SELECT scenario, campaign_id, mean, var_within, var_between, batches, boots,"
		" to_char(created, 'YYYY-MM-DD HH24:MI') FROM calibrations WHERE board = $1 AND"
		" campaign_id = (SELECT campaign_id FROM calibrations WHERE board = $1"
		"  ORDER BY created DESC, campaign_id DESC LIMIT 1) ORDER BY scenario",
		1, p, t);
}

static double num(const struct store_rows *r, size_t c)
{
	const char *v = store_cell(r, 0, c);

	return v ? atof(v) : NAN;
}

int store_plan_time(struct store *st, const char *board, struct plan_time *t)
{
	char lim[16];
	const char *p[2] = { board, lim };
	struct store_rows r;
	int ret;

	snprintf(lim, sizeof(lim), "%d", STORE_PLAN_BOOTS);
	memset(t, 0, sizeof(*t));
	t->boot_ms = t->run_ms = t->batches = t->cycle_ms = NAN;
	ret = store_rows_query(
		st,
		"WITH b AS (SELECT b.status, b.started, b.boot_ms, b.run_ms, c.batches, lead(b.started) OVER"
		"  (PARTITION BY b.campaign_id ORDER BY b.started) AS next"
		"  FROM boots b JOIN boards o ON o.id = b.board_id JOIN campaigns c"
		"  ON c.id = b.campaign_id WHERE o.name = $1 AND b.started IS NOT NULL),"
		" k AS (SELECT * FROM b WHERE status = 'ok' AND boot_ms IS NOT NULL AND run_ms IS NOT NULL"
		"  ORDER BY started DESC LIMIT $2::int)"
		" SELECT count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY boot_ms),"
		" percentile_cont(0.5) WITHIN GROUP (ORDER BY run_ms),"
		" percentile_cont(0.5) WITHIN GROUP (ORDER BY batches),"
		" percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM next - started)"
		"  * 1000) FROM k",
		2, p, &r);
	if (ret)
		return ret;
	if (r.nrows == 1) {
		t->boots = (size_t)strtoul(store_text(&r, 0, 0), NULL, 10);
		t->boot_ms = num(&r, 1);
		t->run_ms = num(&r, 2);
		t->batches = num(&r, 3);
		t->cycle_ms = num(&r, 4);
	}
	store_rows_free(&r);
	return 0;
}
