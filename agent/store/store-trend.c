// SPDX-License-Identifier: GPL-2.0-only
/* `ablab trend`'s SQL (store-trend.h): a job's nightly campaigns, the boards by id, and per
 * boot its mean of one scenario as store_boot wrote it (boot_means: one row per boot, not
 * every batch); campaigns and boards are read apart. */
#include "store/store-trend.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_trend_nights(struct store *st, const char *job, struct store_night **v, size_t *n)
{
	const char *p[1] = { job };
	PGresult *r;

	r = store_query(st,
			"SELECT id, to_char(created, 'YYYY-MM-DD') FROM campaigns "
			"WHERE trigger = 'nightly' AND job->>'job' = $1 ORDER BY created, id",
			1, p);
	if (!r)
		return -EIO;
	*n = (size_t)PQntuples(r);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++) {
		(*v)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		snprintf((*v)[i].date, sizeof((*v)[i].date), "%s", PQgetvalue(r, (int)i, 1));
	}
	PQclear(r);
	return 0;
}

int store_board_ids(struct store *st, struct store_board_id **v, size_t *n)
{
	PGresult *r = store_query(st, "SELECT id, name FROM boards ORDER BY id", 0, NULL);

	if (!r)
		return -EIO;
	*n = (size_t)PQntuples(r);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++) {
		(*v)[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		snprintf((*v)[i].name, sizeof((*v)[i].name), "%s", PQgetvalue(r, (int)i, 1));
	}
	PQclear(r);
	return 0;
}

int store_trend_boots(struct store *st, const char *job, const char *scenario, const char *board,
		      struct store_trend_boot **v, size_t *n)
{
	const char *p[3] = { job, scenario, board ? board : "" };
	PGresult *r;

	r = store_query(
		st,
		"SELECT b.campaign_id, b.board_id, b.id, b.variant, m.mean "
		"FROM boots b JOIN boot_means m ON m.boot_id = b.id AND m.scenario = $2 "
		"WHERE b.campaign_id IN (SELECT id FROM campaigns WHERE trigger = 'nightly' AND "
		" job->>'job' = $1) AND b.status = 'ok' "
		" AND b.variant IN ('control', 'patched') "
		" AND ($3 = '' OR b.board_id IN (SELECT id FROM boards WHERE name = $3))",
		3, p);
	if (!r)
		return -EIO;
	*n = (size_t)PQntuples(r);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++) {
		struct store_trend_boot *b = &(*v)[i];

		b->campaign = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		b->board = strtoll(PQgetvalue(r, (int)i, 1), NULL, 10);
		b->boot = strtoll(PQgetvalue(r, (int)i, 2), NULL, 10);
		b->patched = !strcmp(PQgetvalue(r, (int)i, 3), "patched");
		b->mean = strtod(PQgetvalue(r, (int)i, 4), NULL);
	}
	PQclear(r);
	return 0;
}
