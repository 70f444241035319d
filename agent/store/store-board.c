// SPDX-License-Identifier: GPL-2.0-only
/* The board commands' SQL (store-board.h): `ablab check`'s health rows, and what
 * `ablab boards` shows of them and of the boards the database knows. */
#include "store/store-board.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int store_health_add(struct store *st, const char *board, bool ok, const char *uname_r,
		     int64_t boot_ms, const char *error, const char *host, const char *log)
{
	char ms[DEC_LEN(int64_t)];
	const char *p[] = { board, ok ? "t" : "f", uname_r, boot_ms >= 0 ? ms : NULL,
			    error, host,	   log };

	snprintf(ms, sizeof(ms), "%" PRId64, boot_ms);
	return store_command(
		st,
		"INSERT INTO health (board, ok, uname_r, boot_ms, error, host, log_path) "
		"VALUES ($1, $2, $3, $4, $5, $6, $7)",
		7, p);
}

/* columns: HL_* (store-board.h) */
int store_health_last(struct store *st, const char *board, struct store_rows *t)
{
	const char *p[] = { board };

	return store_rows_query(st,
				"SELECT ok, to_char(checked, 'YYYY-MM-DD HH24:MI'), "
				"coalesce(uname_r, ''), coalesce(error, '') FROM health "
				"WHERE board = $1 ORDER BY checked DESC, id DESC LIMIT 1",
				1, p, t);
}

/* columns: BK_* (store-board.h) */
int store_boards_known(struct store *st, struct store_rows *t)
{
	return store_rows_query(
		st,
		"SELECT bo.name, coalesce(bo.cpu, ''), (SELECT e->>'board_file' FROM campaigns c, "
		" jsonb_array_elements(CASE WHEN jsonb_typeof(c.run->'boards') = 'array' THEN "
		" c.run->'boards' ELSE '[]' END) e WHERE e->>'board' = bo.name ORDER BY c.id DESC "
		" LIMIT 1), coalesce((SELECT to_char(max(coalesce(b.started, b.inserted)), "
		" 'YYYY-MM-DD HH24:MI') FROM boots b WHERE b.board_id = bo.id), '') "
		"FROM boards bo ORDER BY bo.name",
		0, NULL, t);
}

const char store_board_phases_sql[] =
	"WITH b AS (SELECT bd.name AS board, bo.campaign_id AS c, bo.started, bo.phases"
	" FROM boots bo JOIN boards bd ON bd.id = bo.board_id"
	" WHERE bo.status = 'ok' AND jsonb_typeof(bo.phases) = 'object'"
	" AND ($1::bigint IS NULL OR bo.campaign_id = $1::bigint)"
	" AND ($2::text IS NULL OR bd.name = $2::text)"
	" AND ($3::timestamptz IS NULL OR coalesce(bo.started, bo.inserted) >= $3::timestamptz)"
	" AND ($4::interval IS NULL OR coalesce(bo.started, bo.inserted) >= now() - $4::interval)),"
	" k AS (SELECT board, key, percentile_cont(0.5) WITHIN GROUP (ORDER BY value::float8) AS med"
	" FROM b, jsonb_each_text(b.phases) WHERE key NOT IN ('load_bytes', 'load_ms')"
	" GROUP BY board, key),"
	" g AS (SELECT board, extract(epoch FROM started - lag(started) OVER"
	" (PARTITION BY board, c ORDER BY started)) * 1000 AS gap FROM b),"
	" w AS (SELECT board, percentile_cont(0.5) WITHIN GROUP (ORDER BY gap) AS gap"
	" FROM g WHERE gap > 0 GROUP BY board),"
	" s AS (SELECT board, count(*) AS n,"
	" percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'load_bytes')::float8) AS lb,"
	" percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'load_ms')::float8) AS lm,"
	" percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'load_bytes')::float8 / 1.024"
	" / nullif((phases->>'load_ms')::float8, 0)) AS rate,"
	" percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'off')::float8) AS off"
	" FROM b GROUP BY board)"
	" SELECT s.board, jsonb_strip_nulls(jsonb_build_object('boots', s.n,"
	" 'median_ms', (SELECT jsonb_object_agg(key, round(med::numeric, 1)) FROM k"
	" WHERE k.board = s.board), 'load_bytes', round(s.lb::numeric),"
	" 'load_ms', round(s.lm::numeric, 1), 'load_kib_s', round(s.rate::numeric, 1),"
	" 'boots_per_hour', round((3600000 / nullif(coalesce(w.gap, s.off), 0))::numeric, 1),"
	" 'boots_per_hour_from', CASE WHEN w.gap > 0 THEN 'wall' WHEN s.off > 0 THEN 'off' END))"
	" FROM s LEFT JOIN w USING (board) ORDER BY s.board";

int store_board_phases(struct store *st, int64_t campaign, const char *board, const char *since,
		       const char *age, struct store_rows *t)
{
	char cid[DEC_LEN(int64_t)];
	const char *p[4] = { campaign ? cid : NULL, board, since, age };

	snprintf(cid, sizeof(cid), "%" PRId64, campaign);
	return store_rows_query(st, store_board_phases_sql, 4, p, t);
}
