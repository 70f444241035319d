// SPDX-License-Identifier: GPL-2.0-only
/* A campaign's SQL besides its boots (store-campaign.h): whether it exists, its status and
 * resume data, its variants and batches, where a resumed board continues, the next slot of
 * an ingest, a boot found by uuid, a board's stored definition. */
#include "store/store-campaign.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_campaign_exists(struct store *st, int64_t id)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };
	PGresult *r;
	int ret;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(st, "SELECT 1 FROM campaigns WHERE id = $1::int", 1, p);
	if (!r)
		return -EIO;
	ret = PQntuples(r) ? 0 : -ENOENT;
	PQclear(r);
	return ret;
}

int store_campaign_status(struct store *st, int64_t id, char *status, size_t len)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };
	char *v;
	int ret;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	ret = store_value(
		st,
		"SELECT " STORE_CAMPAIGN_STATUS_SQL("c") " FROM campaigns c WHERE c.id = $1::int",
		1, p, &v);
	if (!ret)
		snprintf(status, len, "%s", v);
	free(v);
	return ret;
}

int store_campaign_run(struct store *st, int64_t id, char **run, char *status, size_t len)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };
	PGresult *r;
	int ret = -ENOENT;

	*run = NULL;
	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(st, "SELECT run, status FROM campaigns WHERE id = $1::int", 1, p);
	if (!r)
		return -EIO;
	if (PQntuples(r) == 1) {
		if (!PQgetisnull(r, 0, 0))
			*run = xstrdup(PQgetvalue(r, 0, 0));
		snprintf(status, len, "%s", PQgetvalue(r, 0, 1));
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int store_stale_boards(struct store *st, bool unmarked, char ***files, int64_t **cids, size_t *n)
{
	const char *p[1] = { unmarked ? "t" : "f" };
	PGresult *r;
	int i;

	*files = NULL;
	*cids = NULL;
	*n = 0;
	r = store_query(
		st,
		"SELECT b->>'board_file', max(c.id) FROM campaigns c,"
		" jsonb_array_elements(CASE WHEN jsonb_typeof(c.run->'boards') = 'array'"
		" THEN c.run->'boards' ELSE '[]' END) b WHERE b->>'board_file' IS NOT NULL"
		" AND coalesce(c.run->>'runner', 'local') = 'local'" /* LAVA switches its own */
		" AND (NOT $1::bool OR coalesce(c.run->>'stale_off_boots', '-1')::bigint <>"
		" (SELECT count(*) FROM boots x WHERE x.campaign_id = c.id))"
		" AND (" STORE_CAMPAIGN_STATUS_SQL("c") ") = 'stale' GROUP BY 1 ORDER BY 2, 1",
		1, p);
	if (!r)
		return -EIO;
	*files = xcalloc((size_t)PQntuples(r) + 1, sizeof(**files));
	*cids = xcalloc((size_t)PQntuples(r) + 1, sizeof(**cids));
	for (i = 0; i < PQntuples(r); i++) {
		(*files)[i] = xstrdup(PQgetvalue(r, i, 0));
		(*cids)[i] = strtoll(PQgetvalue(r, i, 1), NULL, 10);
	}
	*n = (size_t)i;
	PQclear(r);
	return 0;
}

int store_stale_mark(struct store *st, int64_t id)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	return store_command(
		st,
		"UPDATE campaigns SET run = jsonb_set(run, '{stale_off_boots}', to_jsonb((SELECT count(*) FROM boots WHERE campaign_id = $1::int))) WHERE id = $1::int AND jsonb_typeof(run) = 'object'",
		1, p);
}

int store_campaign_variant_add(struct store *st, int64_t id, int pos, const char *label,
			       const char *patch)
{
	char ids[DEC_LEN(int64_t)], ps[DEC_LEN(int)];
	const char *p[4] = { ids, ps, label, patch };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	snprintf(ps, sizeof(ps), "%d", pos);
	return store_command(
		st,
		"INSERT INTO campaign_variants (campaign_id, position, label, patch) VALUES ($1::int, $2::int, $3, $4)",
		4, p);
}

int store_campaign_has_variant(struct store *st, int64_t id, const char *label, char *labels,
			       size_t len)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[2] = { ids, label };
	PGresult *r;
	int ret;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(
		st,
		"SELECT coalesce(bool_or(label = $2), $2 IN ('control', 'patched')), coalesce(string_agg(label, ', ' ORDER BY position), 'control, patched') FROM campaign_variants WHERE campaign_id = $1::int",
		2, p);
	if (!r)
		return -EIO;
	ret = PQntuples(r) == 1 && !strcmp(PQgetvalue(r, 0, 0), "t");
	if (labels && len)
		snprintf(labels, len, "%s", PQntuples(r) == 1 ? PQgetvalue(r, 0, 1) : "");
	PQclear(r);
	return ret;
}

int store_campaign_set_batches(struct store *st, int64_t id)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	return store_command(
		st,
		"UPDATE campaigns c SET batches = x.n FROM (SELECT CASE WHEN count(DISTINCT n) = 1 THEN min(n) END AS n FROM (SELECT max(s.batch) AS n FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $1::int AND b.status = 'ok' GROUP BY b.id, s.scenario) y HAVING count(*) > 0) x WHERE c.id = $1::int AND c.batches IS DISTINCT FROM x.n",
		1, p);
}

int store_resume_point(struct store *st, int64_t id, const char *board, int *slot, int *attempts)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[2] = { ids, board };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(
		st,
		"SELECT coalesce(max(b.seq) FILTER (WHERE b.status = 'ok'), 0), "
		" (SELECT count(*) FROM boots b2 JOIN boards o2 ON o2.id = b2.board_id "
		"  WHERE b2.campaign_id = $1::int AND o2.name = $2 AND b2.seq = coalesce(max(b.seq)"
		"  FILTER (WHERE b.status = 'ok'), 0) + 1) "
		"FROM boots b JOIN boards o ON o.id = b.board_id "
		"WHERE b.campaign_id = $1::int AND o.name = $2",
		2, p);
	if (!r)
		return -EIO;
	*slot = atoi(PQgetvalue(r, 0, 0));
	*attempts = atoi(PQgetvalue(r, 0, 1));
	PQclear(r);
	return 0;
}

int store_campaign_reserve(struct store *st, int64_t *id)
{
	char *v = NULL;
	int ret = store_value(st, "SELECT nextval(pg_get_serial_sequence('campaigns', 'id'))", 0,
			      NULL, &v);

	if (!ret)
		*id = strtoll(v, NULL, 10);
	free(v);
	return ret;
}

int store_campaign_insert(struct store *st, const struct campaign_def *c, int64_t id)
{
	char ids[DEC_LEN(int64_t)], seed[32], boots[16], batches[16];
	const char *p[8] = { ids,   c->trigger, c->order,    seed,
			     boots, batches,	c->job_json, c->run_json };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	snprintf(seed, sizeof(seed), "%" PRId64, (int64_t)c->seed);
	snprintf(boots, sizeof(boots), "%d", c->boots);
	snprintf(batches, sizeof(batches), "%d", c->batches);
	r = store_query(
		st,
		"WITH c AS (INSERT INTO campaigns (id, trigger, order_kind, seed, "
		"boots_per_variant, batches, job, run) VALUES ($1::int, $2, $3, $4::bigint, "
		"$5::int, $6::int, $7::jsonb, $8::jsonb) RETURNING id) "
		"SELECT id, pg_advisory_lock_shared(4243, id) FROM c",
		8, p);
	if (!r)
		return -EIO;
	st->campaign_key = id;
	PQclear(r);
	return 0;
}

int store_ingest_unfinished(struct store *st, const char *job_json, int64_t *id)
{
	const char *p[1] = { job_json };
	PGresult *r;
	int ret = -ENOENT;

	r = store_query(
		st,
		"SELECT c.id FROM campaigns c, (SELECT $1::jsonb AS j) q WHERE c.trigger = 'ingest'"
		" AND c.job->>'kind' = 'ingest' AND c.job->'board' = q.j->'board'"
		" AND c.job->'variant' = q.j->'variant' AND c.job->'files' = q.j->'files'"
		" AND (" STORE_CAMPAIGN_STATUS_SQL("c") ") = 'stale' ORDER BY c.id DESC LIMIT 1",
		1, p);
	if (!r)
		return -EIO;
	if (PQntuples(r)) {
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int store_next_seq(struct store *st, int64_t id, int *seq)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(st,
			"SELECT coalesce(max(seq), 0) + 1 FROM boots WHERE campaign_id = $1::int",
			1, p);
	if (!r)
		return -EIO;
	*seq = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return 0;
}

int store_boot_find(struct store *st, const char *uuid, int *seq, int64_t *cid)
{
	const char *p[1] = { uuid };
	PGresult *r;
	int ret = -ENOENT;

	r = store_query(st, "SELECT seq, campaign_id FROM boots WHERE uuid = $1::uuid", 1, p);
	if (!r)
		return -EIO;
	if (PQntuples(r)) {
		*seq = atoi(PQgetvalue(r, 0, 0));
		*cid = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int store_board_row(struct store *st, const char *name, char **definition, char **cpu,
		    char **family)
{
	const char *p[1] = { name };
	PGresult *r;
	int ret = -ENOENT;

	r = store_query(st,
			"SELECT coalesce(definition::text, '{}'), coalesce(cpu, ''), "
			"coalesce(family, '') FROM boards WHERE name = $1",
			1, p);
	if (!r)
		return -EIO;
	if (PQntuples(r) == 1) {
		*definition = xstrdup(PQgetvalue(r, 0, 0));
		*cpu = xstrdup(PQgetvalue(r, 0, 1));
		*family = xstrdup(PQgetvalue(r, 0, 2));
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int store_calibration_add(struct store *st, int64_t id, const char *board, const char *scenario,
			  double mean, double var_within, double var_between, size_t batches,
			  size_t boots)
{
	char ids[DEC_LEN(int64_t)], m[32], vw[32], vb[32], bt[DEC_LEN(size_t)], nb[DEC_LEN(size_t)];
	const char *p[8] = { ids, board, scenario, m, vw, vb, bt, nb };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	snprintf(m, sizeof(m), "%.17g", mean);
	snprintf(vw, sizeof(vw), "%.17g", var_within);
	snprintf(vb, sizeof(vb), "%.17g", var_between);
	snprintf(bt, sizeof(bt), "%zu", batches);
	snprintf(nb, sizeof(nb), "%zu", boots);
	return store_command(st,
			     "INSERT INTO calibrations (campaign_id, board, scenario, mean,"
			     " var_within, var_between, batches, boots, release, image_sha256)"
			     " SELECT $1::int, $2, $3, $4::float8, $5::float8, $6::float8,"
			     " $7::int, $8::int, k.release, k.image_sha256 FROM boots bo"
			     " JOIN boards o ON o.id = bo.board_id LEFT JOIN kernels k ON"
			     " k.id = bo.kernel_id WHERE bo.campaign_id = $1::int AND o.name = $2"
			     " AND bo.status = 'ok' ORDER BY bo.seq LIMIT 1"
			     " ON CONFLICT (campaign_id, board, scenario) DO NOTHING",
			     8, p);
}

int store_campaign_msgids(struct store *st, int64_t id, char **json)
{
	char ids[DEC_LEN(int64_t)];
	const char *par[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	return store_value(st, "SELECT job->'series'->'msgids' FROM campaigns WHERE id = $1::int",
			   1, par, json);
}

int store_campaign_run_boards(struct store *st, int64_t id, char ***boards, size_t *n)
{
	char ids[DEC_LEN(int64_t)];
	const char *par[1] = { ids };
	struct store_rows t;
	int ret;

	*boards = NULL;
	*n = 0;
	snprintf(ids, sizeof(ids), "%" PRId64, id);
	ret = store_rows_query(
		st,
		"SELECT e.b->>'board' FROM campaigns c, jsonb_array_elements(CASE WHEN jsonb_typeof(c.run->'boards') = 'array' THEN c.run->'boards' ELSE '[]' END) WITH ORDINALITY e(b, n) WHERE c.id = $1::int AND e.b->>'board' IS NOT NULL ORDER BY e.n",
		1, par, &t);
	if (ret)
		return ret;
	*boards = xcalloc(t.nrows + 1, sizeof(**boards));
	for (size_t i = 0; i < t.nrows; i++)
		(*boards)[(*n)++] = xstrdup(store_text(&t, i, 0));
	store_rows_free(&t);
	return 0;
}
