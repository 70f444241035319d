// SPDX-License-Identifier: GPL-2.0-only
/* The queries of a report (report-model.c reads their rows): SQL stays in the store. */
#include "store/store-report.h"
#include "stats/stats.h"

#include <inttypes.h>
#include <stdio.h>

static int store_query_id(struct store *st, const char *q, int64_t campaign, struct store_rows *t)
{
	char ids[32];
	const char *p[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, campaign);
	return store_rows_query(st, q, 1, p, t);
}

/* the sequential design's alpha and beta as stored, else the defaults */
#define SEQ_ALPHA_SQL \
	"coalesce((run->'sequential'->>'alpha')::float8, " ABLAB_SQL_NUM(ABLAB_ALPHA) ")"
#define SEQ_BETA_SQL "coalesce((run->'sequential'->>'beta')::float8, " ABLAB_SQL_NUM(ABLAB_BETA) ")"

/* columns: enum store_report_campaign_col (store-report.h), one line each */
int store_report_campaign(struct store *st, int64_t campaign, struct store_rows *t)
{
	static const char *const q = "SELECT trigger, order_kind, " STORE_CAMPAIGN_STATUS_SQL(
		"c") ", "
		     " to_char(created, 'YYYY-MM-DD HH24:MI'), "
		     " coalesce(job->>'job', ''),"
		     " coalesce(batches, 0),"
		     " coalesce(boots_per_variant, 0),"
		     " coalesce(seed, 0),"
		     " coalesce((run->'sequential'->>'first')::int, 0),"
		     " coalesce((run->'sequential'->>'budget')::int, 0), " SEQ_ALPHA_SQL
		     ", " SEQ_BETA_SQL ","
		     " coalesce((run->'sequential'->>'boards')::int, 0),"
		     " coalesce((run->>'margin_pct')::float8, (job->>'margin_pct')::float8, 0),"
		     " coalesce(job->'series'->>'msgid', ''),"
		     " coalesce(job->'series'->>'subject', ''),"
		     " coalesce((job->'series'->>'version')::int, 0),"
		     " coalesce((SELECT string_agg(p, ', ') FROM jsonb_array_elements_text("
		     "  CASE WHEN jsonb_typeof(job->'series'->'patches') = 'array'"
		     "  THEN job->'series'->'patches' END) p), '')," /* why it could not decide */
		     " coalesce(run->>'undecidable', '')"
		     " FROM campaigns c WHERE id = $1::int";

	return store_query_id(st, q, campaign, t);
}

/* per board of the campaign: identity, boot order, failures, times, LAVA jobs, icount shift;
 * columns: enum store_report_board_col (store-report.h) */
int store_report_boards(struct store *st, int64_t campaign, struct store_rows *t)
{
	static const char *const q =
		"SELECT bo.name, coalesce(bo.cpu, ''), coalesce(bo.family, ''), "
		" coalesce(bo.definition->>'emulated', 'false') = 'true', "
		" coalesce(bo.definition->>'description', ''), "
		" coalesce(translate(string_agg(left(b.variant, 1), '' ORDER BY b.seq, b.id) "
		"  FILTER (WHERE b.status = 'ok'), 'cp', 'AB'), ''), "
		" count(*) FILTER (WHERE b.status = 'failed'), "
		" avg(b.boot_ms) FILTER (WHERE b.status = 'ok'), "
		" avg(b.run_ms) FILTER (WHERE b.status = 'ok'), max(b.clock_res_ns), "
		" coalesce(string_agg(coalesce(b.lava_server, '(server not recorded)') || '#' || "
		"  b.lava_job_id, ' ' ORDER BY b.seq, b.id) FILTER (WHERE b.status = 'ok' AND "
		"  b.lava_job_id IS NOT NULL), ''), "
		" count(*) FILTER (WHERE b.status = 'ok' AND b.partial), "
		" coalesce(string_agg(b.variant, ' ' ORDER BY b.seq, b.id) FILTER (WHERE b.status = 'ok'), ''), "
		" CASE WHEN jsonb_typeof(bo.definition->'icount_shift') = 'number' "
		"  THEN (bo.definition->>'icount_shift')::numeric::int ELSE -1 END "
		"FROM boots b JOIN boards bo ON bo.id = b.board_id WHERE b.campaign_id = $1::int "
		"GROUP BY bo.name, bo.cpu, bo.family, bo.definition ORDER BY bo.name";
	;

	return store_query_id(st, q, campaign, t);
}

/* every sample of the campaign's ok boots, by board, scenario, boot, batch; the last
 * column why the screening rule left it out of its boot's mean (NULL: kept); columns: enum
 * store_report_sample_col (store-report.h) */
int store_report_samples(struct store *st, int64_t campaign, struct store_rows *t)
{
	static const char *const q =
		"SELECT bo.name, s.scenario, s.kind, coalesce(s.op, ''), coalesce(s.state, ''), "
		" coalesce(s.timing, ''), coalesce(s.size, -1), coalesce(s.reps, 0), b.id, b.seq, "
		" b.variant, s.mean_ns, s.min_ns, s.max_ns, s.raw_ns, s.base_ns, s.lost_bytes, "
		" s.excluded "
		"FROM boots b JOIN samples s ON s.boot_id = b.id JOIN boards bo ON bo.id = b.board_id "
		"WHERE b.campaign_id = $1::int AND b.status = 'ok' "
		"ORDER BY bo.name, s.scenario, b.seq, b.id, s.batch";
	;

	return store_query_id(st, q, campaign, t);
}

/* per board and scenario the latest A/A calibration, the control kernel's image first;
 * columns: enum store_report_calibration_col (store-report.h) */
int store_report_calibrations(struct store *st, int64_t campaign, struct store_rows *t)
{
	static const char *const q =
		"SELECT DISTINCT ON (c.board, c.scenario) c.board, c.scenario, c.campaign_id,"
		" c.mean, c.var_within, c.var_between FROM calibrations c"
		" WHERE c.board IN (SELECT o.name FROM boots b JOIN boards o ON o.id = b.board_id"
		"  WHERE b.campaign_id = $1::int)"
		" ORDER BY c.board, c.scenario, c.image_sha256 IS NOT DISTINCT FROM"
		"  (SELECT k.image_sha256 FROM boots b JOIN boards o ON o.id = b.board_id"
		"   JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $1::int"
		"   AND o.name = c.board AND b.variant = 'control' LIMIT 1) DESC, c.created DESC";
	;

	return store_query_id(st, q, campaign, t);
}

/* position, label, patch of a series campaign's variants, in order; columns: enum
 * store_report_variant_col (store-report.h) */
int store_report_variants(struct store *st, int64_t campaign, struct store_rows *t)
{
	return store_query_id(
		st,
		"SELECT position, label, coalesce(patch, '') FROM campaign_variants WHERE campaign_id = $1::int ORDER BY position",
		campaign, t);
}
