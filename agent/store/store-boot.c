// SPDX-License-Identifier: GPL-2.0-only
/* One boot stored: its row, its samples (COPY) and its boot means, in one transaction; a
 * boot already stored (a spool replayed, a resumed campaign) is recognised, not doubled. */
#include "store/store.h"
#include "store/store-int.h"
#include "board.h"
#include "stats/stats-screen.h"
#include "store/store-campaign.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_i64(struct buf *b, int64_t v, bool null_if_neg)
{
	char d[24], *e = d + sizeof(d), *p = e;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (null_if_neg && v < 0) {
		buf_append(b, "\\N", 2);
		return;
	}
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	buf_append(b, p, (size_t)(e - p));
}

/* A double that round-trips: as an integer when it is one (a mean of whole
 * nanoseconds, almost every sample), else %.17g. */
static void put_double(struct buf *b, double v)
{
	if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v &&
	    !(v == 0 && signbit(v)))
		put_i64(b, (int64_t)v, false);
	else
		buf_printf(b, "%.17g", v);
}

/* A text field of COPY's text format: backslash, tab, newline and CR (and
 * the other control characters COPY decodes) escaped, so a regex benchmark's
 * scenario name or a spool file cannot shift columns or rows. */
static void put_text(struct buf *b, const char *s)
{
	for (; *s; s++) {
		const char *e = NULL;
		size_t n = strcspn(s, "\\\t\n\r\b\f\v");

		if (n) { /* the plain run up to the next escape */
			buf_append(b, s, n);
			s += n;
			if (!*s)
				break;
		}
		switch (*s) {
		case '\\':
			e = "\\\\";
			break;
		case '\t':
			e = "\\t";
			break;
		case '\n':
			e = "\\n";
			break;
		case '\r':
			e = "\\r";
			break;
		case '\b':
			e = "\\b";
			break;
		case '\f':
			e = "\\f";
			break;
		case '\v':
			e = "\\v";
			break;
		}
		if (e)
			buf_append(b, e, 2);
		else
			buf_append(b, s, 1);
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int c = strcmp(x->scenario, y->scenario);

	return c ? c : (x->batch > y->batch) - (x->batch < y->batch);
}

/*
 * The screening rule (stats-screen.h) over each timing scenario's batches of the boot:
 * why[i] the reason by[i] is left out of the boot's mean (malloc'd), NULL when kept.
 * by is sorted by scenario, so a scenario's batches are one run of it.
 */
static void screen_samples(const struct sample **by, size_t n, char **why)
{
	for (size_t i = 0, j; i < n; i = j) {
		struct screen_in *in;
		struct screen_out *out;
		size_t m;

		for (j = i + 1; j < n && !strcmp(by[j]->scenario, by[i]->scenario); j++)
			;
		if (by[i]->kind == SAMPLE_PRESERVE)
			continue;
		m = j - i;
		in = xcalloc(m, sizeof(*in));
		out = xcalloc(m, sizeof(*out));
		for (size_t k = 0; k < m; k++)
			in[k] = (struct screen_in){ by[i + k]->mean_ns, by[i + k]->raw_ns,
						    by[i + k]->base_ns, by[i + k]->reps };
		if (stats_screen(in, m, out) > 0)
			for (size_t k = 0; k < m; k++) {
				char r[128];

				if (out[k].why != SCREEN_KEPT)
					why[i + k] = xstrdup(
						stats_screen_reason(&in[k], &out[k], r, sizeof(r)));
			}
		free(in);
		free(out);
	}
}

/* COPY text format, every text field through put_text(), in primary key order
 * (scenario, batch): each index insert then lands next to the previous one
 * instead of jumping between the boot's scenarios batch by batch. */
static int copy_samples(struct store *st, const char *boot_id, const struct run_result *res)
{
	struct buf b = { 0 };
	const struct sample **by;
	char **why;
	size_t i, idlen = strlen(boot_id);
	PGresult *r;
	int ret = 0;

	r = PQexec(st->conn, "COPY samples (boot_id, scenario, batch, kind, size, reps, dir, op,"
			     " state, timing, mean_ns, min_ns, max_ns, raw_ns, base_ns, ns_per_kib,"
			     " lost_bytes, fmt, excluded) FROM STDIN");
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		err_msg("database: COPY samples: %s", PQresultErrorMessage(r));
		PQclear(r);
		return -EIO;
	}
	PQclear(r);
	by = xcalloc(res->n + 1, sizeof(*by));
	for (i = 0; i < res->n; i++)
		by[i] = &res->v[i];
	qsort(by, res->n, sizeof(*by), cmp_key);
	why = xcalloc(res->n + 1, sizeof(*why));
	screen_samples(by, res->n, why);
	for (i = 0; i < res->n; i++) {
		const struct sample *s = by[i];
		bool pres = s->kind == SAMPLE_PRESERVE;

		buf_append(&b, boot_id, idlen);
		buf_append(&b, "\t", 1);
		put_text(&b, s->scenario);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->batch, false);
		buf_append(&b, pres ? "\tpreserve\t" : "\tresult\t", pres ? 10 : 8);
		put_i64(&b, s->size, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, pres ? -1 : s->reps, true);
		if (pres)
			buf_append(&b, "\t\\N\t\\N\t\\N\t\\N\t\\N\t", 16);
		else {
			const char *w[4] = { s->dir, s->op, s->state, s->timing };

			for (size_t k = 0; k < ARRAY_SIZE(w); k++) {
				buf_append(&b, "\t", 1);
				put_text(&b, w[k]);
			}
			buf_append(&b, "\t", 1);
			put_double(&b, s->mean_ns);
			buf_append(&b, "\t", 1);
		}
		put_i64(&b, s->min_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->max_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->raw_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->base_ns, true);
		if (pres)
			buf_append(&b, "\t\\N\t", 4);
		else {
			buf_append(&b, "\t", 1);
			put_double(&b, s->ns_per_kib);
			buf_append(&b, "\t", 1);
		}
		put_i64(&b, s->lost, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->fmt, false);
		buf_append(&b, "\t", 1);
		if (why[i])
			put_text(&b, why[i]);
		else
			buf_append(&b, "\\N", 2);
		buf_append(&b, "\n", 1);
		/* streamed: the server works on one part while the next is made */
		if (b.len >= 256 * 1024 || i + 1 == res->n) {
			if (!ret && PQputCopyData(st->conn, b.data, (int)b.len) != 1)
				ret = -EIO;
			b.len = 0;
		}
	}
	if (PQputCopyEnd(st->conn, ret ? "client error" : NULL) != 1)
		ret = -EIO;
	buf_free(&b);
	for (i = 0; i < res->n; i++)
		free(why[i]);
	free(why);
	free(by);
	r = PQgetResult(st->conn);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		err_msg("database: COPY samples: %s", PQresultErrorMessage(r));
		ret = -EIO;
	}
	PQclear(r);
	while ((r = PQgetResult(st->conn)))
		PQclear(r);
	return ret;
}

/* Why an insert of boot b stored nothing: 0 when it is already stored (same
 * uuid: a re-loaded spool file), -EEXIST (printed) when its slot already has
 * another ok boot or its LAVA job is already stored, -EIO on a query error. */
static int boot_conflict(struct store *st, const struct boot_rec *b, const char *campaign,
			 const char *board_id, const char *seq)
{
	const char *p[5] = { b->uuid, campaign, board_id, seq, b->status };
	PGresult *r;
	int ret = -EEXIST;

	r = store_query(st,
			"SELECT 'uuid', id FROM boots WHERE uuid = $1::uuid UNION ALL "
			"SELECT 'slot', id FROM boots WHERE $5 = 'ok' AND campaign_id = $2::int "
			"AND board_id = $3::int AND seq = $4::int AND status = 'ok'",
			5, p);
	if (!r)
		return -EIO;
	if (PQntuples(r) && !strcmp(PQgetvalue(r, 0, 0), "uuid"))
		ret = 0;
	else if (PQntuples(r))
		err_msg("boot %s: campaign %s, board %s, slot %d already has an ok boot (boot id %s); this second one is not stored",
			b->uuid, campaign, b->board->name, b->seq, PQgetvalue(r, 0, 1));
	else
		err_msg("boot %s: LAVA job %" PRId64
			" of %s is already stored; this boot is not stored again",
			b->uuid, b->lava_job_id, b->lava_server ? b->lava_server : "(no server)");
	PQclear(r);
	return ret;
}

/*
 * The board's and the kernel's rows of boot b: ids into board_id and kernel_id
 * ("" without a kernel).  Each row is written only when it is new or differs:
 * an upsert that writes the same values still locks the row until the commit,
 * and a second boot of the board stored at the same time on another
 * connection (`ablab ingest`, a campaign's boards sharing a kernel row) would
 * wait for the whole first transaction.
 */
static int boot_refs(struct store *st, const struct boot_rec *b, char board_id[32],
		     char kernel_id[32])
{
	const char *defn = b->board_json ? b->board_json :
					   json_object_to_json_string_ext(b->board->jf.root,
									  JSON_C_TO_STRING_PLAIN);
	PGresult *r;

	*kernel_id = '\0';
	{
		const char *p[4] = { b->board->name, b->board->cpu, b->board->family, defn };

		r = store_query(
			st,
			"WITH o AS (SELECT id FROM boards WHERE name = $1 AND cpu IS NOT "
			"DISTINCT FROM $2 AND family IS NOT DISTINCT FROM $3 AND definition IS "
			"NOT DISTINCT FROM $4::jsonb), u AS (INSERT INTO boards (name, cpu, "
			"family, definition) SELECT $1, $2, $3, $4::jsonb WHERE NOT EXISTS "
			"(SELECT 1 FROM o) ON CONFLICT (name) DO UPDATE SET cpu = $2, "
			"family = $3, definition = $4::jsonb RETURNING id) "
			"SELECT id FROM o UNION ALL SELECT id FROM u",
			4, p);
		if (!r)
			return -EIO;
		snprintf(board_id, 32, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	if (b->k) {
		const char *rel = b->uname_r && *b->uname_r ? b->uname_r : b->k->release;
		const char *p[7] = { board_id,
				     b->k->label,
				     rel,
				     b->proc_version ? b->proc_version : "",
				     b->k->zimage_sha256 ? b->k->zimage_sha256 : "",
				     b->k->config_sha256,
				     b->k->manifest_json };

		r = store_query(
			st,
			"WITH o AS (SELECT id FROM kernels WHERE board_id = $1::int AND label ="
			" $2 AND release = $3 AND proc_version = $4 AND image_sha256 = $5 AND "
			"manifest IS NOT DISTINCT FROM $7::jsonb), u AS (INSERT INTO kernels "
			"(board_id, label, release, proc_version, image_sha256, config_sha256, "
			"manifest) SELECT $1::int, $2, $3, $4, $5, $6, $7::jsonb WHERE NOT "
			"EXISTS (SELECT 1 FROM o) ON CONFLICT (board_id, label, release, "
			"proc_version, image_sha256) DO UPDATE SET manifest = $7::jsonb "
			"RETURNING id) SELECT id FROM o UNION ALL SELECT id FROM u",
			7, p);
		if (!r)
			return -EIO;
		snprintf(kernel_id, 32, "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	return 0;
}

int store_boot_refs(struct store *st, const struct boot_rec *b)
{
	char board_id[32], kernel_id[32];

	return boot_refs(st, b, board_id, kernel_id);
}

/* BEGIN, after one reconnect (with the board's advisory lock taken again) when the server
 * went away (maintenance, restart): 0, -ENOTCONN, -EBUSY or -EIO. */
static int boot_begin(struct store *st)
{
	int ret;

	if (PQstatus(st->conn) != CONNECTION_OK && (ret = store_reconnect(st)))
		return ret;
	if (store_exec(st, "BEGIN")) {
		if (PQstatus(st->conn) == CONNECTION_OK)
			return -EIO;
		ret = store_reconnect(st);
		if (ret)
			return ret;
		if (store_exec(st, "BEGIN"))
			return PQstatus(st->conn) != CONNECTION_OK ? -ENOTCONN : -EIO;
	}
	return 0;
}

/* The boots row of b: 0 with its id in boot_id, 1 when nothing was inserted (see
 * boot_conflict()), -EIO on a query error. */
static int boot_insert(struct store *st, const struct boot_rec *b, const char *campaign,
		       const char *board_id, const char *kernel_id, const char *seq,
		       char boot_id[32])
{
	char attempt[16], started[32], boot_ms[32], run_ms[32], cres[32], lava_id[32];
	const char *p[20] = { b->uuid,
			      campaign,
			      board_id,
			      kernel_id[0] ? kernel_id : NULL,
			      b->variant,
			      seq,
			      attempt,
			      b->status,
			      b->error,
			      started,
			      b->boot_ms >= 0 ? boot_ms : NULL,
			      b->run_ms >= 0 ? run_ms : NULL,
			      b->uname_r,
			      b->proc_version,
			      b->res && b->res->have_start ? cres : NULL,
			      b->log_path,
			      b->lava_job_id ? b->lava_server : NULL,
			      b->lava_job_id ? lava_id : NULL,
			      b->phases,
			      b->env };
	PGresult *r;
	int ret = 1;

	snprintf(attempt, sizeof(attempt), "%d", b->attempt);
	snprintf(started, sizeof(started), "%.3f", (double)b->started_wall_ms / 1000.0);
	snprintf(boot_ms, sizeof(boot_ms), "%" PRId64, b->boot_ms);
	snprintf(run_ms, sizeof(run_ms), "%" PRId64, b->run_ms);
	snprintf(cres, sizeof(cres), "%" PRId64, b->res ? b->res->clock_res_ns : 0);
	snprintf(lava_id, sizeof(lava_id), "%" PRId64, b->lava_job_id);
	/* no conflict target: a boot already stored (same uuid), a second ok
	 * boot of the slot and a LAVA job stored twice all insert nothing */
	r = store_query(st,
			"INSERT INTO boots (uuid, campaign_id, board_id, kernel_id, variant,"
			" seq, attempt, status, error, started, boot_ms, run_ms, uname_r, "
			"proc_version, clock_res_ns, log_path, lava_server, lava_job_id, phases,"
			" env) "
			"VALUES ($1::uuid, $2::int, $3::int, $4::int, $5, $6::int, $7::int, "
			"$8, $9, to_timestamp($10::double precision), $11::int, $12::int, $13,"
			" $14, $15::bigint, $16, $17, $18::bigint, $19::jsonb, $20::jsonb) ON "
			"CONFLICT"
			" DO NOTHING RETURNING id",
			20, p);
	if (!r)
		return -EIO;
	if (PQntuples(r)) {
		snprintf(boot_id, 32, "%s", PQgetvalue(r, 0, 0));
		ret = 0;
	}
	PQclear(r);
	return ret;
}

/* The partial mark, the samples and the boot means of the stored boot boot_id: 0 or -EIO. */
static int boot_samples(struct store *st, const struct boot_rec *b, const char *boot_id)
{
	const char *p[1] = { boot_id };
	PGresult *r;

	if (b->partial) {
		r = store_query(st, "UPDATE boots SET partial = true WHERE id = $1::bigint", 1, p);
		if (!r)
			return -EIO;
		PQclear(r);
	}
	if (b->res && b->res->n && !strcmp(b->status, "ok")) {
		if (copy_samples(st, boot_id, b->res))
			return -EIO;
		r = store_query(
			st,
			"INSERT INTO boot_means SELECT s.boot_id, s.scenario, " BOOT_MEAN_SQL
			" FROM samples s WHERE s.boot_id = $1::bigint"
			" GROUP BY s.boot_id, s.scenario HAVING " BOOT_MEAN_N_SQL " > 0",
			1, p);
		if (!r)
			return -EIO;
		PQclear(r);
	}
	return 0;
}

int store_boot(struct store *st, const struct boot_rec *b)
{
	char campaign[32], seq[16], board_id[32] = "", kernel_id[32] = "", boot_id[32] = "";
	int ret = boot_begin(st);

	if (ret)
		return ret;
	if (b->new_campaign && store_campaign_insert(st, b->new_campaign, b->campaign))
		goto fail;
	if (boot_refs(st, b, board_id, kernel_id))
		goto fail;
	snprintf(campaign, sizeof(campaign), "%" PRId64, b->campaign);
	snprintf(seq, sizeof(seq), "%d", b->seq);
	ret = boot_insert(st, b, campaign, board_id, kernel_id, seq, boot_id);
	if (ret < 0)
		goto fail;
	if (ret) {
		ret = boot_conflict(st, b, campaign, board_id, seq);
		if (ret == -EIO)
			goto fail;
		if (!ret && b->new_campaign) { /* its campaign not made for nothing */
			err_msg("boot %s: already stored (at the same time, by another process); not stored again",
				b->uuid);
			ret = -EEXIST;
		}
		store_exec(st, ret ? "ROLLBACK" : "COMMIT");
		return ret;
	}
	if (boot_samples(st, b, boot_id) || store_exec(st, "COMMIT"))
		goto fail;
	return 0;
fail:
	if (PQstatus(st->conn) != CONNECTION_OK)
		return -ENOTCONN; /* nothing was committed: the caller spools it */
	store_exec(st, "ROLLBACK");
	return -EIO;
}
