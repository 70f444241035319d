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
