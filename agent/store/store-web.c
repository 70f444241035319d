// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`'s SQL (store-web.h): the statements of the pages, the JSON API and the
 * metrics, run by web_q() on the read-only connection.  Their columns are named by the enum
 * above each declaration in store-web.h: a column added here is added there. */
#include "store/store-web.h"
#include "store/store.h"

const char store_web_read_only[] =
	"SELECT current_setting('transaction_read_only'), current_setting('statement_timeout')";

const char store_web_session[] = "SELECT current_setting('transaction_read_only'), "
				 "current_setting('is_superuser'), current_user";

/* ETag of a campaign: its state, boots, calibrations (the MDE) and the schema */
const char store_web_campaign_state[] = "SELECT " STORE_CAMPAIGN_STATUS_SQL(
	"c") ", coalesce(extract(epoch FROM "
	     "c.finished)::bigint, 0), (SELECT count(*) || '-' || coalesce(max(id), 0) FROM "
	     "boots WHERE campaign_id = c.id), (SELECT coalesce(max(id), 0) FROM "
	     "calibrations), (SELECT max(version) FROM schema_version) "
	     "FROM campaigns c WHERE c.id = $1::int";

const char store_web_campaigns[] =
	/* the page's ids first (OFFSET ... LIMIT), then the per-campaign figures for
	 * those rows only: 10,000 campaigns list in milliseconds (docs/API.md) */
	"SELECT p.id, to_char(p.created, 'YYYY-MM-DD HH24:MI'), p.trigger, p.job, p.st, "
	"coalesce((SELECT string_agg(DISTINCT bo.name, ',') FROM boots b JOIN boards bo "
	"ON bo.id = b.board_id WHERE b.campaign_id = p.id), ''), "
	"(SELECT count(*) FILTER (WHERE status = 'ok' AND variant = 'control') || '/' || "
	"count(*) FILTER (WHERE status = 'ok' AND variant = 'patched') || '/' || "
	"count(*) FILTER (WHERE status = 'failed') FROM boots WHERE campaign_id = p.id) "
	"FROM (SELECT c.id, c.created, c.trigger, coalesce(c.job->>'job', '') AS job, " STORE_CAMPAIGN_STATUS_SQL(
		"c") " AS st FROM campaigns c WHERE "
		     "($1 = '' OR EXISTS (SELECT 1 FROM boots b JOIN boards bo ON bo.id = b.board_id "
		     "WHERE b.campaign_id = c.id AND bo.name = $1)) AND ($2 = '' OR c.job->>'job' = $2) "
		     "AND ($3 = '' OR c.trigger = $3) AND ($4 = '' OR " STORE_CAMPAIGN_STATUS_SQL(
			     "c") " = $4) AND ($5 = '' OR c.created >= NULLIF($5, '')::date) "
				  "AND ($6 = '' OR c.created < NULLIF($6, '')::date + 1) "
				  "ORDER BY c.id DESC LIMIT 51 OFFSET $7::int) p ORDER BY p.id DESC";

#define ATTEMPT_COLS                                                                              \
	"SELECT bo.name, b.seq, b.variant, b.attempt, b.status, coalesce(b.uname_r, k.release, "  \
	"''), coalesce(to_char(b.started, 'YYYY-MM-DD HH24:MI:SS'), ''), coalesce(b.error, ''), " \
	"coalesce(b.log_path, ''), b.campaign_id FROM boots b JOIN boards bo ON bo.id = "         \
	"b.board_id LEFT JOIN kernels k ON k.id = b.kernel_id "

const char store_web_campaign_attempts[] = ATTEMPT_COLS
	"WHERE b.campaign_id = $1::int ORDER BY bo.name, b.seq, "
	"b.attempt, b.id";

const char store_web_boards[] =
	"SELECT n.name, coalesce(h.ok::text, ''), coalesce(to_char("
	"h.checked, 'YYYY-MM-DD HH24:MI'), ''), (SELECT count(DISTINCT "
	"campaign_id) FROM boots b JOIN boards bo ON bo.id = b.board_id WHERE "
	"bo.name = n.name) FROM (SELECT name FROM boards UNION SELECT board FROM "
	"health) n LEFT JOIN LATERAL (SELECT ok, checked FROM health WHERE "
	"board = n.name ORDER BY checked DESC, id DESC LIMIT 1) h ON true "
	"ORDER BY n.name";

const char store_web_board_known[] =
	"SELECT (SELECT count(*) FROM boards WHERE name = $1) + (SELECT count(*) "
	"FROM health WHERE board = $1)";

const char store_web_board_health[] =
	"SELECT to_char(checked, 'YYYY-MM-DD HH24:MI:SS'), CASE WHEN ok THEN 'ok' "
	"ELSE 'FAILED' END, coalesce(uname_r, ''), coalesce(boot_ms::text, ''), "
	"coalesce(host, ''), coalesce(error, ''), coalesce(log_path, '') FROM health "
	"WHERE board = $1 ORDER BY checked DESC, id DESC LIMIT 50";

const char store_web_board_campaigns[] =
	"SELECT c.id, to_char(c.created, 'YYYY-MM-DD HH24:MI'), c.trigger, "
	"coalesce(c.job->>'job', ''), " STORE_CAMPAIGN_STATUS_SQL(
		"c") " FROM campaigns c "
		     "WHERE c.id IN (SELECT b.campaign_id FROM boots b JOIN boards bo ON bo.id = "
		     "b.board_id WHERE bo.name = $1) ORDER BY c.id DESC LIMIT 50";

const char store_web_board_failed[] = ATTEMPT_COLS
	"WHERE bo.name = $1 AND b.status = 'failed' ORDER BY "
	"b.id DESC LIMIT 100";

const char store_web_trend_list[] = "SELECT DISTINCT c.job->>'job', s.scenario FROM "
				    "campaigns c JOIN boots b ON b.campaign_id = c.id JOIN "
				    "boot_means s ON s.boot_id = b.id WHERE c.trigger = 'nightly' "
				    "ORDER BY 1, 2";

const char store_web_metrics_health[] =
	"SELECT n.name, coalesce(h.ok::text, ''), coalesce(extract(epoch FROM "
	"h.checked)::bigint, 0) FROM (SELECT name FROM boards UNION SELECT board FROM "
	"health) n LEFT JOIN LATERAL (SELECT ok, checked FROM health WHERE board = n.name "
	"ORDER BY checked DESC, id DESC LIMIT 1) h ON true ORDER BY n.name";

const char store_web_metrics_nightly[] =
	"SELECT DISTINCT ON (c.job->>'job') c.job->>'job', " STORE_CAMPAIGN_STATUS_SQL(
		"c") ", extract(epoch FROM c.created)::bigint, c.id "
		     "FROM campaigns c WHERE c.trigger = 'nightly' AND c.job->>'job' IS NOT NULL "
		     "ORDER BY c.job->>'job', c.created DESC, c.id DESC";

const char store_web_metrics_campaigns[] =
	"SELECT st, count(*) FROM (SELECT " STORE_CAMPAIGN_STATUS_SQL(
		"c") " AS st FROM campaigns c) x GROUP BY st ORDER BY st";

const char store_web_transcript[] =
	"SELECT log_path FROM boots WHERE log_path = $1 OR log_path = $2 OR "
	"right(log_path, length($2) + 1) = '/' || $2 UNION SELECT log_path FROM health WHERE "
	"log_path = $1 OR log_path = $2 OR right(log_path, length($2) + 1) = '/' || $2";
