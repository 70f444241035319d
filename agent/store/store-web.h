/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_WEB_H
#define ABLAB_STORE_WEB_H

/* `ablab serve`'s SQL (store-web.c): the statements the pages, the API and the metrics pass
 * to web_q() (store_query() on the pages' read-only connection, a 503 page when the
 * database does not answer).  Each comment gives the parameters and the columns, and the
 * enum above each statement names its columns in their order: readers use the names. */

/* no parameter: "on" when the session is read-only */
enum { WRO_READ_ONLY, WRO_STATEMENT_TIMEOUT };
extern const char store_web_read_only[];
/* no parameter: transaction_read_only ("on"), is_superuser ("off"), the role */
enum { WSE_READ_ONLY, WSE_SUPERUSER, WSE_USER };
extern const char store_web_session[];
/* $1 a campaign id: status (as shown), finished (epoch, 0), "boots-maxid",
 * max calibration id, schema version; no row: no such campaign */
enum { WCS_STATUS, WCS_FINISHED, WCS_BOOTS, WCS_CALIBRATION, WCS_SCHEMA };
extern const char store_web_campaign_state[];
/* the campaigns list, newest first, 51 rows from offset $7: $1 board, $2 job, $3 trigger,
 * $4 status, $5 since, $6 until (dates; '' any of them: any): id, created, trigger, job,
 * status, boards (comma-separated), "control/patched/failed" boots */
enum { WCL_ID, WCL_CREATED, WCL_TRIGGER, WCL_JOB, WCL_STATUS, WCL_BOARDS, WCL_BOOTS };
extern const char store_web_campaigns[];
/* $1 a campaign id: every attempt by board, slot, attempt: board, seq, variant, attempt,
 * status, uname -r, started, error, log_path, campaign */
enum {
	WAT_BOARD,
	WAT_SEQ,
	WAT_VARIANT,
	WAT_ATTEMPT,
	WAT_STATUS,
	WAT_UNAME_R,
	WAT_STARTED,
	WAT_ERROR,
	WAT_LOG_PATH,
	WAT_CAMPAIGN,
};
extern const char store_web_campaign_attempts[];
/* every board (known or health-checked) by name: name, ok ("t", "f", '': never checked),
 * checked (YYYY-MM-DD HH24:MI, ''), its campaigns (count) */
enum { WBS_NAME, WBS_OK, WBS_CHECKED, WBS_CAMPAIGNS };
extern const char store_web_boards[];
/* $1 a board name: its rows in boards and health (one count) */
enum { WBK_COUNT };
extern const char store_web_board_known[];
/* $1 a board name: its latest 50 health checks: checked, "ok"/"FAILED", uname_r, boot_ms,
 * host, error, log_path ('' for none) */
enum {
	WBH_CHECKED,
	WBH_OK,
	WBH_UNAME_R,
	WBH_BOOT_MS,
	WBH_HOST,
	WBH_ERROR,
	WBH_LOG_PATH,
};
extern const char store_web_board_health[];
/* $1 a board name: the latest 50 campaigns that booted it: id, created, trigger, job,
 * status */
enum { WBC_ID, WBC_CREATED, WBC_TRIGGER, WBC_JOB, WBC_STATUS };
extern const char store_web_board_campaigns[];
/* $1 a board name: its latest 100 failed attempts, columns as store_web_campaign_attempts
 * (WAT_*) */
extern const char store_web_board_failed[];
/* the nightly jobs and their scenarios: job, scenario */
enum { WTL_JOB, WTL_SCENARIO };
extern const char store_web_trend_list[];
/* the metrics: every board by name: name, ok ("t", "f", ''), checked (epoch, 0) */
enum { WMH_NAME, WMH_OK, WMH_CHECKED };
extern const char store_web_metrics_health[];
/* the metrics: each job's last nightly campaign: job, status, created (epoch), id */
enum { WMN_JOB, WMN_STATUS, WMN_CREATED, WMN_ID };
extern const char store_web_metrics_nightly[];
/* the metrics: campaigns by status: status, count */
enum { WMC_STATUS, WMC_COUNT };
extern const char store_web_metrics_campaigns[];
/* $1 a file's path, $2 its name: the boots' and health checks' log_path that may name it
 * (the same path, or one ending in /NAME): log_path */
enum { WTR_LOG_PATH };
extern const char store_web_transcript[];

#endif
