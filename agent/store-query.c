// SPDX-License-Identifier: GPL-2.0-only
/* `ablab query`'s and `ablab campaigns`' SQL (store-query.h): the statement built from the
 * filters given, each value a $n parameter. */
#include "store-query.h"
#include "store-int.h"
#include "util.h"

#include <stdio.h>

#define MAX_PARAMS 16

/* " AND expr" with the value as the next parameter; expr holds one "$%d" */
static void add_filter(struct buf *sql, const char **params, int *np, const char *val,
		       const char *expr)
{
	if (!val || *np >= MAX_PARAMS)
		return;
	params[(*np)++] = val;
	buf_append(sql, " AND ", 5);
	buf_printf(sql, expr, *np);
}

int store_query_samples(struct store *st, const struct store_query_filter *f, struct store_rows *t)
{
	const char *params[MAX_PARAMS];
	struct buf sql = { 0 };
	int np = 0, ret;

	/* Each boot's samples grouped in a lateral subquery, in the order of samples' primary
	 * key (boot, scenario, batch): no sort of every sample row by the outer keys, which
	 * was most of the time of `query --board B --since 30d` (docs/BENCHMARKS.md, P5).
	 * A scenario filter goes inside it, as $1. */
	if (f->scenario)
		params[np++] = f->scenario;
	buf_printf(
		&sql,
		"SELECT c.id, c.trigger, to_char(coalesce(b.started, b.inserted), "
		"'YYYY-MM-DD HH24:MI:SS'), bo.name, b.variant, coalesce(b.uname_r, k.release), "
		"b.id, b.seq, s.scenario, s.n, round(s.avg::numeric, 1), round(s.min::numeric, 1), "
		"round(s.max::numeric, 1), "
		"CASE WHEN s.kind = 'preserve' THEN 'bytes lost' ELSE 'ns' END, "
		/* a LAVA job id is only unique on its server: both, "SERVER#ID" */
		"CASE WHEN b.lava_job_id IS NOT NULL THEN coalesce(b.lava_server, "
		"'(server not recorded)') || '#' || b.lava_job_id ELSE '' END, "
		/* a series campaign's variant: its position (0 control) */
		"cv.position "
		"FROM boots b JOIN campaigns c ON c.id = b.campaign_id "
		"JOIN boards bo ON bo.id = b.board_id LEFT JOIN kernels k ON k.id = b.kernel_id "
		"LEFT JOIN campaign_variants cv ON cv.campaign_id = c.id AND cv.label = b.variant "
		"CROSS JOIN LATERAL (SELECT s.scenario, s.kind, count(*) AS n, "
		"avg(coalesce(s.mean_ns, s.lost_bytes)) AS avg, "
		"min(coalesce(s.mean_ns, s.lost_bytes)) AS min, "
		"max(coalesce(s.mean_ns, s.lost_bytes)) AS max "
		"FROM samples s WHERE s.boot_id = b.id%s GROUP BY s.scenario, s.kind) s "
		"WHERE b.status = 'ok'",
		f->scenario ? " AND s.scenario = $1" : "");
	add_filter(&sql, params, &np, f->board, "bo.name = $%d");
	add_filter(&sql, params, &np, f->variant, "b.variant = $%d");
	add_filter(&sql, params, &np, f->kernel, "coalesce(b.uname_r, k.release) = $%d");
	add_filter(&sql, params, &np, f->campaign, "c.id = $%d::int");
	add_filter(&sql, params, &np, f->trigger, "c.trigger = $%d");
	if (f->since)
		add_filter(&sql, params, &np, f->since,
			   f->since_age ?
				   "coalesce(b.started, b.inserted) >= now() - $%d::interval" :
				   "coalesce(b.started, b.inserted) >= $%d::timestamptz");
	if (f->until) /* a date alone: up to the end of that day */
		add_filter(&sql, params, &np, f->until,
			   f->until_age ?
				   "coalesce(b.started, b.inserted) < now() - $%d::interval" :
			   f->until_date ? "coalesce(b.started, b.inserted) < $%d::date + 1" :
					   "coalesce(b.started, b.inserted) <= $%d::timestamptz");
	buf_printf(&sql,
		   " ORDER BY coalesce(b.started, b.inserted), c.id, b.seq, b.id, s.scenario");
	ret = store_rows_take(store_query(st, sql.data, np, params), t);
	buf_free(&sql);
	return ret;
}

int store_query_campaigns(struct store *st, const char *trigger, const char *job, const char *limit,
			  struct store_rows *t)
{
	const char *params[3];
	struct buf sql = { 0 };
	int np = 0, ret;

	buf_printf(
		&sql,
		"SELECT c.id, to_char(c.created, 'YYYY-MM-DD HH24:MI'), c.trigger, "
		"c.job->>'job', " STORE_CAMPAIGN_STATUS_SQL(
			"c") ", c.order_kind, c.batches, "
			     "(SELECT string_agg(DISTINCT bo.name, ',') FROM boots b JOIN boards bo "
			     "  ON bo.id = b.board_id WHERE b.campaign_id = c.id), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
			     "  AND b.variant = 'control'), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
			     "  AND b.variant <> 'control'), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND "
			     "  b.status = 'failed'), "
			     "(SELECT count(DISTINCT s.scenario) FROM boots b JOIN samples s ON "
			     "  s.boot_id = b.id WHERE b.campaign_id = c.id) "
			     "FROM campaigns c WHERE true");
	if (trigger) {
		params[np++] = trigger;
		buf_printf(&sql, " AND c.trigger = $%d", np);
	}
	if (job) {
		params[np++] = job;
		buf_printf(&sql, " AND c.job->>'job' = $%d", np);
	}
	params[np++] = limit;
	buf_printf(&sql, " ORDER BY c.id DESC LIMIT $%d::int", np);
	ret = store_rows_take(store_query(st, sql.data, np, params), t);
	buf_free(&sql);
	return ret;
}
