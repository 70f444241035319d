// SPDX-License-Identifier: GPL-2.0-only
/* A bisect's SQL (store-bisect.h): the bisects and bisect_steps rows that bisect.c writes and
 * replays and bisect-report.c prints, and the campaigns a bisect's steps ran. */
#include "store/store-bisect.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the decimal text of an int64_t / int parameter (buffers of 24 hold any) */
static const char *i64p(char buf[24], int64_t v)
{
	snprintf(buf, 24, "%" PRId64, v);
	return buf;
}

static const char *intp(char buf[24], int v)
{
	snprintf(buf, 24, "%d", v);
	return buf;
}

/* seconds to 0.1 s */
static const char *secp(char buf[32], double s)
{
	snprintf(buf, 32, "%.1f", s);
	return buf;
}

/* a double at full precision, NULL (SQL NULL) when not finite */
static const char *dblp(char buf[32], double v)
{
	if (!isfinite(v))
		return NULL;
	snprintf(buf, 32, "%.17g", v);
	return buf;
}

/* a query whose one parameter is an id */
static PGresult *by_id(struct store *st, const char *sql, int64_t id)
{
	char ids[24];
	const char *p[1] = { i64p(ids, id) };

	return store_query(st, sql, 1, p);
}

/* the same into t: 0 or -EIO (printed) */
static int rows_by_id(struct store *st, const char *sql, int64_t id, struct store_rows *t)
{
	return store_rows_take(by_id(st, sql, id), t);
}

/* a query whose parameters are a bisect's id and a step's n */
static PGresult *by_step(struct store *st, const char *sql, int64_t id, int n)
{
	char ids[24], ns[24];
	const char *p[2] = { i64p(ids, id), intp(ns, n) };

	return store_query(st, sql, 2, p);
}

/* the n text values of a one-row query, malloc'd ("" for NULL): 0, -ENOENT, -EIO */
static int one_row(struct store *st, const char *sql, int64_t id, char **v, int n)
{
	PGresult *r = by_id(st, sql, id);

	for (int i = 0; i < n; i++)
		v[i] = NULL;
	if (!r)
		return -EIO;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return -ENOENT;
	}
	for (int i = 0; i < n; i++)
		v[i] = xstrdup(PQgetvalue(r, 0, i));
	PQclear(r);
	return 0;
}

int store_bisect_new(struct store *st, const char *board, const char *scenario, const char *tree,
		     const char *good, const char *bad, const char *good_ref, const char *bad_ref,
		     const char *commits, const char *settings, int64_t *id)
{
	const char *p[9] = {
		board, scenario, tree, good, bad, good_ref, bad_ref, commits, settings
	};
	PGresult *r = store_query(
		st,
		"INSERT INTO bisects (board, scenario, tree, good, bad, good_ref, bad_ref, commits, settings) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb) RETURNING id",
		9, p);

	if (!r)
		return -EIO;
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return 0;
}

int store_bisect_set_status(struct store *st, int64_t id, const char *status, const char *result,
			    const char *first)
{
	char ids[24];
	const char *p[4] = { i64p(ids, id), status, result, first };

	return store_command(
		st,
		"UPDATE bisects SET status = $2, result = coalesce($3, result), first_changed = coalesce($4, first_changed), finished = CASE WHEN $2 IN ('running', 'interrupted', 'failed') THEN NULL ELSE now() END WHERE id = $1::int",
		4, p);
}

int store_bisect_get(struct store *st, int64_t id, struct store_rows *t)
{
	return rows_by_id(
		st,
		"SELECT board, scenario, tree, good, bad, commits, settings, status FROM bisects WHERE id = $1::int",
		id, t);
}

int store_bisect_state(struct store *st, int64_t id, char **status, char **result)
{
	char *v[2];
	int ret = one_row(st, "SELECT status, result FROM bisects WHERE id = $1::int", id, v, 2);

	*status = v[0];
	*result = v[1];
	return ret;
}

int store_bisect_first_changed(struct store *st, int64_t id, char **commit)
{
	return one_row(st, "SELECT first_changed FROM bisects WHERE id = $1::int", id, commit, 1);
}

int store_bisect_header(struct store *st, int64_t id, struct store_rows *t)
{
	return rows_by_id(
		st,
		"SELECT board, coalesce(scenario, 'any timing row'), tree, good, bad, coalesce(good_ref, ''), coalesce(bad_ref, ''), jsonb_array_length(commits), status, coalesce(result, ''), to_char(created, 'YYYY-MM-DD HH24:MI'), settings->>'budget', settings->>'first', settings->>'margin_pct' FROM bisects WHERE id = $1::int",
		id, t);
}

int store_bisect_steps(struct store *st, int64_t id, struct store_rows *t)
{
	return rows_by_id(
		st,
		"SELECT n, role, position, verdict, change FROM bisect_steps WHERE bisect_id = $1::int ORDER BY n",
		id, t);
}

int store_bisect_step_table(struct store *st, int64_t id, struct store_rows *t)
{
	return rows_by_id(
		st,
		"SELECT s.n, s.role, s.commit, coalesce(s.build, '-'), coalesce(s.campaign_id::text, '-'), coalesce(s.verdict, 'running'), s.change, s.ci_lo, s.ci_hi, coalesce(s.build_s, 0), coalesce(s.campaign_s, 0), coalesce(s.note, ''), coalesce(s.log_path, ''), coalesce(s.scenario, ''), (SELECT count(*) FILTER (WHERE b.variant = 'control') || '+' || count(*) FILTER (WHERE b.variant = 'patched') FROM boots b WHERE b.campaign_id = s.campaign_id AND b.status = 'ok'), s.try, coalesce(c.status, ''), s.ci_conf FROM bisect_steps s LEFT JOIN campaigns c ON c.id = s.campaign_id WHERE s.bisect_id = $1::int ORDER BY s.n",
		id, t);
}

int store_bisect_step(struct store *st, int64_t id, int n, bool *check, int *pos, int *try)
{
	PGresult *r = by_step(
		st,
		"SELECT role, position, try FROM bisect_steps WHERE bisect_id = $1::int AND n = $2::int",
		id, n);

	if (!r || PQntuples(r) != 1) {
		PQclear(r);
		return -EIO;
	}
	*check = !strcmp(PQgetvalue(r, 0, 0), "check");
	*pos = atoi(PQgetvalue(r, 0, 1));
	*try = atoi(PQgetvalue(r, 0, 2));
	PQclear(r);
	return 0;
}

int store_bisect_step_add(struct store *st, int64_t id, int n, const char *commit, int pos,
			  const char *role, int try)
{
	char ids[24], ns[24], ps[24], ts[24];
	const char *p[6] = {
		i64p(ids, id), intp(ns, n), commit, intp(ps, pos), role, intp(ts, try)
	};

	return store_command(
		st,
		"INSERT INTO bisect_steps (bisect_id, n, commit, position, role, try) VALUES ($1::int, $2::int, $3, $4::int, $5, $6::int)",
		6, p);
}

int store_bisect_step_built(struct store *st, int64_t id, int n, const char *build, double build_s)
{
	char ids[24], ns[24], bs[32];
	const char *p[4] = { i64p(ids, id), intp(ns, n), build, secp(bs, build_s) };

	return store_command(
		st,
		"UPDATE bisect_steps SET build = $3, build_s = coalesce(build_s, 0) + $4::float8 WHERE bisect_id = $1::int AND n = $2::int",
		4, p);
}

int store_bisect_step_unbuilt(struct store *st, int64_t id, int n, double build_s, const char *log,
			      const char *why)
{
	char ids[24], ns[24], bs[32];
	const char *p[5] = { i64p(ids, id), intp(ns, n), secp(bs, build_s), log, why };

	return store_command(
		st,
		"UPDATE bisect_steps SET build = 'build failed', build_s = $3::float8, log_path = $4, verdict = 'build-failed', note = $5, finished = now() WHERE bisect_id = $1::int AND n = $2::int",
		5, p);
}

int store_bisect_step_campaign(struct store *st, int64_t id, int n, int64_t cid, double campaign_s)
{
	char ids[24], ns[24], cids[24], cs[32];
	const char *p[4] = { i64p(ids, id), intp(ns, n), i64p(cids, cid), secp(cs, campaign_s) };

	return store_command(
		st,
		"UPDATE bisect_steps SET campaign_id = $3::int, campaign_s = coalesce(campaign_s, 0) + $4::float8 WHERE bisect_id = $1::int AND n = $2::int",
		4, p);
}

int store_bisect_step_verdict(struct store *st, int64_t id, int n, const char *verdict,
			      const char *scenario, double change, double ci_lo, double ci_hi,
			      double ci_conf)
{
	char ids[24], ns[24], c1[32], c2[32], c3[32], c4[32];
	const char *p[8] = { i64p(ids, id),    intp(ns, n),	verdict,	 scenario,
			     dblp(c1, change), dblp(c2, ci_lo), dblp(c3, ci_hi), dblp(c4, ci_conf) };

	return store_command(
		st,
		"UPDATE bisect_steps SET verdict = $3, scenario = $4, change = $5::float8, ci_lo = $6::float8, ci_hi = $7::float8, ci_conf = $8::float8, finished = now() WHERE bisect_id = $1::int AND n = $2::int",
		8, p);
}

int64_t store_bisect_step_find_campaign(struct store *st, int64_t id, int n, bool *complete)
{
	PGresult *r = by_step(
		st,
		"SELECT id, status FROM campaigns WHERE jsonb_typeof(job->'bisect') = 'string' AND job->>'bisect' = $1 AND job->>'step' = $2 ORDER BY id DESC LIMIT 1",
		id, n);
	int64_t cid = 0;

	*complete = false;
	if (r && PQntuples(r) == 1) {
		cid = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		*complete = !strcmp(PQgetvalue(r, 0, 1), "complete");
	}
	PQclear(r);
	return cid;
}

int64_t store_bisect_of_campaign(struct store *st, int64_t cid)
{
	/* a bisect's campaign has {"bisect": "ID"} (a job file's "bisect" is a boolean) */
	PGresult *r = by_id(
		st,
		"SELECT job->>'bisect' FROM campaigns WHERE id = $1::int AND jsonb_typeof(job) = 'object' AND jsonb_typeof(job->'bisect') = 'string'",
		cid);
	int64_t id = 0;

	if (r && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	PQclear(r);
	return id;
}
