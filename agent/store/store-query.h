/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_QUERY_H
#define ABLAB_STORE_QUERY_H

/* `ablab query`'s and `ablab campaigns`' SQL (store-query.c).  Every filter value reaches
 * PostgreSQL as a $n parameter, never as SQL text.  The rows into *t (the caller prints its
 * columns as they come, then store_rows_free()s it): 0, or -EIO on a database error
 * (printed). */
#include "store/store.h"

#include <stdbool.h>

struct store_query_filter {
	const char *board, *scenario, *variant, *kernel, *trigger; /* NULL: any */
	const char *campaign; /* its id as text, NULL: any */
	/* as query_parse_when() made them (NULL: no bound): an age ("30 days") or a date/time;
	 * until_date: a date alone, up to the end of that day */
	const char *since, *until;
	bool since_age, until_age, until_date;
	const char *limit, *offset; /* rows at most and rows skipped, as text; NULL: all, none */
};
/* One row per ok boot and scenario, by start time: campaign, trigger, started, board,
 * variant, kernel, boot, seq, scenario, batches, mean, min, max, unit, lava_job
 * ("SERVER#ID", ''), position (a series campaign's variant position, else NULL). */
int store_query_samples(struct store *st, const struct store_query_filter *f, struct store_rows *t);
/* PostgreSQL's text of round(x::numeric, 1) for the float8 x in its text form f8 (as the
 * server sends it): x to 15 significant digits (float8_numeric), then rounded half away
 * from zero to one decimal, "-" only before a nonzero result; NaN, Infinity, -Infinity.
 * Into out (len: 400 holds every float8); the length. */
int store_round1(const char *f8, char *out, size_t len);
/* Campaigns newest first, at most limit (text) of them, of trigger and job (NULL: any): id,
 * created, trigger, job, status (as shown), order, batches, boards, control, patched (ok
 * boots), failed, scenarios. */
int store_query_campaigns(struct store *st, const char *trigger, const char *job, const char *limit,
			  struct store_rows *t);

#endif
