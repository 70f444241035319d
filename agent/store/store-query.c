// SPDX-License-Identifier: GPL-2.0-only
/* `ablab query`'s and `ablab campaigns`' SQL (store-query.h): the statement built from the
 * filters given, each value a $n parameter. */
#include "store/store-query.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The 15 significant digits of "%.15g" of the float8 whose shortest round-trip text
 * (PostgreSQL's float8 output) is f8, into d[15] with *p, the digits before the decimal
 * point: from f8's own digits (no conversion), except where f8 has more than 15 and what
 * follows the 15th is exactly half of one, where the double's exact value decides.  (Two
 * decimals that differ past the 15th digit and are not such a tie round alike: a 15-digit
 * midpoint between f8 and the double would itself be a shorter or closer text of it.)
 * false for a text that is not a finite number.
 */
static bool digits15(const char *f8, char d[16], int *p, bool *neg)
{
	const char *q = f8;
	int n = 0, lead = 0, before = 0, i;
	bool dot = false, up = false;

	*neg = *q == '-';
	q += *q == '-' || *q == '+';
	memset(d, '0', 15);
	d[15] = '\0';
	for (; (*q >= '0' && *q <= '9') || (*q == '.' && !dot); q++) {
		if (*q == '.') {
			dot = true;
			continue;
		}
		if (!n && *q == '0') { /* leading zeros: no significant digit yet */
			lead += dot;
			continue;
		}
		if (!dot)
			before++;
		if (n < 15) {
			d[n++] = *q;
		} else if (n++ == 15) { /* the 16th digit: is the rest a tie? */
			const char *r = q + 1;

			while (*r == '0' || *r == '.')
				r++;
			if (*q == '5' && !(*r >= '1' && *r <= '9'))
				return false; /* a tie: the exact value decides */
			up = *q >= '5';
		}
	}
	if (!n) {
		*p = 0;
		return *q == '\0' || *q == 'e' || *q == 'E';
	}
	*p = before ? before : -lead;
	if (*q == 'e' || *q == 'E')
		*p += atoi(q + 1);
	else if (*q)
		return false;
	if (n > 15 && up) {
		for (i = 14; i >= 0 && d[i] == '9'; i--)
			d[i] = '0';
		if (i < 0) {
			d[0] = '1';
			(*p)++;
		} else {
			d[i]++;
		}
	}
	return true;
}

int store_round1(const char *f8, char *out, size_t len)
{
	char e[32], d[16];
	int p, cut, i, n = 0;
	bool neg, nz = false;

	if (!digits15(f8, d, &p, &neg)) {
		double x = strtod(f8, NULL);

		neg = signbit(x);
		if (isnan(x))
			return snprintf(out, len, "NaN");
		if (isinf(x))
			return snprintf(out, len, "%sInfinity", neg ? "-" : "");
		/* float8_numeric: the 15 significant digits of "%.15g", D.DDDDDDDDDDDDDDe+X */
		snprintf(e, sizeof(e), "%.14e", fabs(x));
		d[0] = e[0];
		memcpy(d + 1, e + 2, 14);
		d[15] = '\0';
		p = atoi(e + 17) + 1; /* digits before the decimal point */
	}
	cut = p + 1; /* digits kept: those and one decimal */
	if (cut <= 0) { /* under 0.1: 0.0, or 0.1 from 0.05 on */
		bool up = cut == 0 && d[0] >= '5';

		memset(d, '0', 15);
		if (up) {
			d[0] = '1';
			p = 0;
		}
	} else if (cut < 15) {
		/* round_var(): half away from zero on the decimal digits */
		bool up = d[cut] >= '5';

		memset(d + cut, '0', (size_t)(15 - cut));
		for (i = cut - 1; up && i >= 0; i--) {
			up = d[i] == '9';
			d[i] = up ? '0' : (char)(d[i] + 1);
		}
		if (up) { /* 9.95 -> 10.0: one digit more */
			memmove(d + 1, d, 14);
			d[0] = '1';
			p++;
		}
	}
	for (i = 0; i < 15; i++)
		nz = nz || d[i] != '0';
	if (neg && nz && (size_t)n + 1 < len)
		out[n++] = '-';
	if (p <= 0 && (size_t)n + 1 < len)
		out[n++] = '0';
	for (i = 0; i < p && (size_t)n + 1 < len; i++)
		out[n++] = i < 15 ? d[i] : '0';
	if ((size_t)n + 3 < len) {
		out[n++] = '.';
		out[n++] = p >= 0 && p < 15 ? d[p] : '0';
	}
	out[n < (int)len ? n : (int)len - 1] = '\0';
	return n;
}

/* cols [first, first + n) of every row: float8 text -> store_round1's text (a new arena) */
static void round_cols(struct store_rows *t, size_t first, size_t n)
{
	struct buf b = { 0 };
	size_t *off = xcalloc(t->nrows * t->ncols + 1, sizeof(*off)), i, c;
	char r[400];

	for (i = 0; i < t->nrows; i++)
		for (c = 0; c < t->ncols; c++) {
			const char *v = store_cell(t, i, c);

			off[i * t->ncols + c] = b.len;
			if (!v)
				continue;
			if (c >= first && c < first + n) {
				store_round1(v, r, sizeof(r));
				v = r;
			}
			buf_append(&b, v, strlen(v) + 1);
		}
	for (i = 0; i < t->nrows * t->ncols; i++)
		if (t->cell[i])
			t->cell[i] = b.data + off[i];
	free(t->text);
	t->text = b.data;
	free(off);
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
		/* mean, min and max as float8: rounded here (store_round1), not by the
		 * server's round(x::numeric, 1), a fifth of the query's time */
		"b.id, b.seq, s.scenario, s.n, s.avg, s.min, s.max, "
		"CASE WHEN s.kind = 'preserve' THEN 'bytes lost' ELSE 'ns' END, "
		/* a LAVA job id is only unique on its server: both, "SERVER#ID" */
		"CASE WHEN b.lava_job_id IS NOT NULL THEN coalesce(b.lava_server, "
		"'(server not recorded)') || '#' || b.lava_job_id ELSE '' END, "
		/* a series campaign's variant: its position (0 control) */
		"cv.position "
		"FROM boots b JOIN campaigns c ON c.id = b.campaign_id "
		"JOIN boards bo ON bo.id = b.board_id LEFT JOIN kernels k ON k.id = b.kernel_id "
		"LEFT JOIN campaign_variants cv ON cv.campaign_id = c.id AND cv.label = b.variant "
		/* over the batches kept in the boot's mean (samples.excluded: stats-screen.h) */
		"CROSS JOIN LATERAL (SELECT s.scenario, s.kind, count(*) FILTER (WHERE s.excluded IS NULL) AS n, "
		"avg(coalesce(s.mean_ns, s.lost_bytes)) FILTER (WHERE s.excluded IS NULL) AS avg, "
		"min(coalesce(s.mean_ns, s.lost_bytes)) FILTER (WHERE s.excluded IS NULL) AS min, "
		"max(coalesce(s.mean_ns, s.lost_bytes)) FILTER (WHERE s.excluded IS NULL) AS max "
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
	if (f->limit) {
		params[np++] = f->limit;
		buf_printf(&sql, " LIMIT $%d::int", np);
	}
	if (f->offset) {
		params[np++] = f->offset;
		buf_printf(&sql, " OFFSET $%d::int", np);
	}
	ret = store_rows_take(store_query(st, sql.data, np, params), t);
	buf_free(&sql);
	if (!ret)
		round_cols(t, 10, 3);
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
