/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_BOARD_H
#define ABLAB_STORE_BOARD_H

/* The board commands' SQL (store-board.c): health checks and the boards the database
 * knows, as struct store_rows: 0, or -EIO on a database error (printed); the caller
 * store_rows_free()s.  The enum above a query names its columns in their order. */
#include "store/store.h"

#include <stdbool.h>
#include <stdint.h>

/* a health check's result (uname_r, error, log NULL: none; boot_ms < 0: not booted):
 * 0 or -EIO */
int store_health_add(struct store *st, const char *board, bool ok, const char *uname_r,
		     int64_t boot_ms, const char *error, const char *host, const char *log);
/* the board's last health check, no row if never: ok ("t"/"f"), checked
 * (YYYY-MM-DD HH24:MI), uname_r (''), error ('') */
enum { HL_OK, HL_CHECKED, HL_UNAME_R, HL_ERROR };
int store_health_last(struct store *st, const char *board, struct store_rows *t);
/* every board of the database by name: name, cpu (''), the board file of its newest
 * campaign (NULL: none), its last boot (YYYY-MM-DD HH24:MI, '') */
enum { BK_NAME, BK_CPU, BK_BOARD_FILE, BK_LAST_BOOT };
int store_boards_known(struct store *st, struct store_rows *t);

/* Per board, from its ok boots that have phases (docs/DESIGN.md "Boot phases"; boots
 * without, older, LAVA or ingested ones, are skipped), of campaign (0: any) and board (NULL:
 * every board) since a date (since: a timestamptz text) or an age (age: an interval text;
 * NULL: no bound): the board and its "phases" JSON object (docs/DESIGN.md "Phase medians"):
 * boots, median_ms per phase, the load's medians, boots_per_hour and what it came from. */
enum { BP_BOARD, BP_JSON };
extern const char store_board_phases_sql[]; /* $1..$4: campaign, board, since, age */
int store_board_phases(struct store *st, int64_t campaign, const char *board, const char *since,
		       const char *age, struct store_rows *t);

#endif
