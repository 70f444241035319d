// SPDX-License-Identifier: GPL-2.0-only
/* The nightly history's SQL: the previous night of a job, a job's campaign of one night, and
 * the per-night means that the change-point search reads.  One rule for "the previous
 * night": the latest *complete* nightly campaign of the same job before this one (a night
 * that stopped half-way is no baseline), for `ablab nightly` and `ablab compare --previous`.
 */
#include "store/store.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int store_previous_nightly(struct store *st, int64_t cid, char *job, size_t joblen, int64_t *prev)
{
	char ids[32];
	const char *p[1] = { ids };
	PGresult *r;
	int ret = 0;

	*prev = 0;
	if (job && joblen)
		job[0] = '\0';
	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	r = store_query(
		st,
		"SELECT c.trigger, c.job->>'job', (SELECT max(p.id) FROM campaigns p "
		"WHERE p.trigger = 'nightly' AND p.job->>'job' = c.job->>'job' AND "
		"p.id < c.id AND p.status = 'complete') FROM campaigns c WHERE c.id = $1::int",
		1, p);
	if (!r)
		return -EIO;
	if (!PQntuples(r))
		ret = -ENOENT;
	else if (strcmp(PQgetvalue(r, 0, 0), "nightly") || PQgetisnull(r, 0, 1))
		ret = -EINVAL;
	else if (PQgetisnull(r, 0, 2))
		ret = -ENODATA;
	else
		*prev = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
	if (job && joblen && PQntuples(r) && !PQgetisnull(r, 0, 1))
		snprintf(job, joblen, "%s", PQgetvalue(r, 0, 1));
	PQclear(r);
	return ret;
}

int store_nightly_on(struct store *st, const char *job, const char *date, int64_t *cid)
{
	const char *p[2] = { job, date };
	char *v;
	int ret;

	*cid = 0;
	ret = store_value(st,
			  "SELECT max(id) FROM campaigns WHERE trigger = 'nightly' AND "
			  "job->>'job' = $1 AND created::date = $2::date",
			  2, p, &v);
	if (!ret)
		*cid = strtoll(v, NULL, 10);
	free(v);
	return ret;
}

/* columns: NH_* (store.h) */
int store_nightly_history(struct store *st, const char *job, int64_t cid, struct store_rows *t)
{
	static const char *const q =
		"SELECT x.cid, x.board, x.scenario, x.variant, avg(x.bm) FROM (SELECT c.id AS cid, "
		" bo.name AS board, s.scenario, b.variant, b.id, avg(s.mean_ns) AS bm "
		" FROM campaigns c JOIN boots b ON b.campaign_id = c.id "
		" JOIN boards bo ON bo.id = b.board_id JOIN samples s ON s.boot_id = b.id "
		" WHERE c.trigger = 'nightly' AND c.job->>'job' = $1 AND c.id <= $2::int "
		"  AND (c.status = 'complete' OR c.id = $2::int) AND b.status = 'ok' "
		"  AND s.kind <> 'preserve' AND s.mean_ns IS NOT NULL AND s.excluded IS NULL "
		" GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 4, 1";
	char ids[32];
	const char *p[2] = { job, ids };

	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	return store_rows_query(st, q, 2, p, t);
}

int store_kernel_commit(struct store *st, int64_t cid, const char *board, const char *variant,
			char **commit)
{
	char ids[DEC_LEN(int64_t)];
	const char *p[3] = { ids, board, variant };

	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	return store_value(
		st,
		"SELECT k.manifest->'source'->>'commit' FROM boots b JOIN kernels k ON k.id = b.kernel_id JOIN boards o ON o.id = b.board_id WHERE b.campaign_id = $1::int AND o.name = $2 AND b.variant = $3 AND b.status = 'ok' AND k.manifest->'source' ? 'commit' ORDER BY b.seq LIMIT 1",
		3, p, commit);
}
