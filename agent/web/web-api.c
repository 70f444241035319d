// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the JSON API (/api/v1/...) and the Prometheus metrics (/metrics). */
#include "web/web.h"
#include "web/web-int.h"
#include "backend/boot.h"
#include "store/store-board.h"
#include "shared/util.h"
#include "report/query.h"
#include "shared/opt.h"
#include "report/report.h"
#include "store/store-web.h"
#include "store/store.h"
#include "stats/stats.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void web_api_json(struct reply *r, int rc)
{
	r->type = "application/json";
	if (rc) {
		rewind(r->f);
		r->etag[0] = 0;
		r->cache = NULL;
		r->status = rc == 2 ? 400 : 500;
		fprintf(r->f, "{ \"error\": \"%s\" }\n",
			rc == 2 ? "bad request (the same options as the command: see docs/API.md)" :
				  "the command failed (see the server's log)");
	}
}

/* what `ablab report ID --format json` prints: its defaults, report_campaign_to() */
void web_api_report(struct web *w, struct reply *r, const char *id)
{
	struct report_opts o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET };
	struct store *st;
	bool fin;

	if (web_campaign_state(w, r, id, "api", &fin)) {
		if (r->status == 404) {
			rewind(r->f);
			fputs("{ \"error\": \"no such campaign\" }\n", r->f);
			r->type = "application/json";
		}
		return;
	}
	st = web_db(w);
	web_api_json(r, !st || report_campaign_to(st, strtoll(id, NULL, 10), "json", &o, r->f) ? 1 :
												 0);
}

#define QUERY_LIMIT 1000 /* rows of /api/v1/query without limit= */
#define QUERY_LIMIT_MAX 10000

/* a Link header to the page of /api/v1/query after this one (offset next) */
static void next_link(const struct web_req *q, struct reply *r, const char *const *opts, long next)
{
	size_t len = 0;
	FILE *f = open_memstream(&r->link, &len);

	if (!f)
		return;
	fputs("</api/v1/query?", f);
	for (size_t i = 0; opts[i]; i++) {
		const char *v = web_arg(q, opts[i] + 2);

		if (v && strcmp(opts[i], "--offset")) {
			fprintf(f, "%s=", opts[i] + 2);
			web_u(f, v);
			fputc('&', f);
		}
	}
	fprintf(f, "offset=%ld>; rel=\"next\"", next);
	fclose(f);
}

/* /api/v1/query and /api/v1/campaigns: the query parameters are the command's options
 * without "--" (opts: "--board", ...).  /api/v1/query answers a page: limit= rows (default
 * 1000, at most 10,000) from offset=, with a Link header to the next page when it is full. */
void web_api_list(const struct web_req *q, struct reply *r, const char *cmd,
		  int (*fn)(FILE *, int, char **), const char *const *opts)
{
	const char *argv[32] = { cmd };
	bool paged = !strcmp(cmd, "query");
	const char *lim = web_arg(q, "limit"), *off = web_arg(q, "offset");
	char limv[16];
	int n = 1, rc;

	if (!web_date_ok(web_arg(q, "since")) || !web_date_ok(web_arg(q, "until"))) {
		web_api_json(r, 2);
		return;
	}
	if (paged) {
		if ((lim && (!web_digits(lim) || atol(lim) < 1 || atol(lim) > QUERY_LIMIT_MAX)) ||
		    (off && !web_digits(off))) {
			web_api_json(r, 2);
			return;
		}
		snprintf(limv, sizeof(limv), "%ld", lim ? atol(lim) : (long)QUERY_LIMIT);
		argv[n++] = "--limit";
		argv[n++] = limv;
	}
	for (size_t i = 0; opts[i] && n < 28; i++) {
		const char *v = web_arg(q, opts[i] + 2);

		if (v && !(paged && !strcmp(opts[i], "--limit"))) {
			argv[n++] = opts[i];
			argv[n++] = v;
		}
	}
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n] = NULL;
	rc = web_run_cmd(fn, r, argv);
	web_api_json(r, rc);
	if (paged && !rc && !fflush(r->f)) {
		json_object *a = json_tokener_parse(r->body);

		if (a && json_object_array_length(a) == (size_t)atol(limv))
			next_link(q, r, opts, (off ? atol(off) : 0) + atol(limv));
		json_object_put(a);
	}
}

/* ------------------------------------------------------------------ metrics */

/* a Prometheus label value: \, " and newline escaped */
static void plabel(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* Per board, the median of each boot phase and boots per hour over its ok boots with phases
 * of the last 30 days (store_board_phases_sql); a board or phase without data: no line. */
static void metrics_phases(struct web *w, struct reply *r)
{
	const char *p[4] = { NULL, NULL, NULL, "30 days" };
	struct store_rows res;
	FILE *f = r->f;
	json_object **o;
	json_object *v;

	if (web_q(w, r, store_board_phases_sql, 4, p, &res))
		return;
	o = xcalloc(res.nrows + 1, sizeof(*o));
	for (size_t i = 0; i < res.nrows; i++)
		o[i] = json_tokener_parse(store_text(&res, i, BP_JSON));
	fputs("# HELP ablab_boot_phase_ms Median end of the boot phase, ms after power on (ok boots of the last 30 days)\n"
	      "# TYPE ablab_boot_phase_ms gauge\n",
	      f);
	for (size_t i = 0; i < res.nrows; i++) {
		json_object *m = NULL;

		if (!o[i] || !json_object_object_get_ex(o[i], "median_ms", &m))
			continue;
		for (int ph = 0; ph < PHASE__N; ph++) {
			if (!json_object_object_get_ex(m, boot_phase_names[ph], &v))
				continue;
			fputs("ablab_boot_phase_ms{board=\"", f);
			plabel(f, store_text(&res, i, BP_BOARD));
			fprintf(f, "\",phase=\"%s\"} %s\n", boot_phase_names[ph],
				json_object_get_string(v));
		}
	}
	fputs("# HELP ablab_boots_per_hour Boots per hour of the board: 3600 s / the median wall time between consecutive ok boots of a campaign (else / the median power-on-to-off time), last 30 days\n"
	      "# TYPE ablab_boots_per_hour gauge\n",
	      f);
	for (size_t i = 0; i < res.nrows; i++) {
		if (!o[i] || !json_object_object_get_ex(o[i], "boots_per_hour", &v))
			continue;
		fputs("ablab_boots_per_hour{board=\"", f);
		plabel(f, store_text(&res, i, BP_BOARD));
		fprintf(f, "\"} %s\n", json_object_get_string(v));
	}
	for (size_t i = 0; i < res.nrows; i++)
		json_object_put(o[i]);
	free(o);
	store_rows_free(&res);
}

void web_metrics(struct web *w, struct reply *r)
{
	struct store_rows res;
	FILE *f = r->f;
	int counts[3] = { 0, 0, 0 };

	if (web_q(w, r, store_web_read_only, 0, NULL, &res))
		return;
	fprintf(f,
		"# HELP ablab_serve_read_only 1 when the server's database session is read-only (default_transaction_read_only)\n"
		"# TYPE ablab_serve_read_only gauge\n"
		"ablab_serve_read_only %d\n"
		"# HELP ablab_serve_statement_timeout The server's database session's statement_timeout\n"
		"# TYPE ablab_serve_statement_timeout untyped\n"
		"ablab_serve_statement_timeout{value=\"%s\"} 1\n",
		!strcmp(store_text(&res, 0, WRO_READ_ONLY), "on"),
		store_text(&res, 0, WRO_STATEMENT_TIMEOUT));
	store_rows_free(&res);
	if (web_q(w, r, store_web_metrics_health, 0, NULL, &res))
		return;
	fputs("# HELP ablab_board_health_ok Last health check of the board: 1 ok, 0 failed, -1 never checked\n"
	      "# TYPE ablab_board_health_ok gauge\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		const char *ok = store_text(&res, i, WMH_OK);

		counts[*ok == 't' ? 0 : *ok == 'f' ? 1 : 2]++;
		fputs("ablab_board_health_ok{board=\"", f);
		plabel(f, store_text(&res, i, WMH_NAME));
		fprintf(f, "\"} %d\n", *ok == 't' ? 1 : *ok == 'f' ? 0 : -1);
	}
	fputs("# HELP ablab_board_health_timestamp_seconds Time of the last health check\n"
	      "# TYPE ablab_board_health_timestamp_seconds gauge\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		if (!*store_text(&res, i, WMH_OK))
			continue;
		fputs("ablab_board_health_timestamp_seconds{board=\"", f);
		plabel(f, store_text(&res, i, WMH_NAME));
		fprintf(f, "\"} %s\n", store_text(&res, i, WMH_CHECKED));
	}
	fprintf(f,
		"# HELP ablab_boards Boards by the result of their last health check\n"
		"# TYPE ablab_boards gauge\nablab_boards{health=\"ok\"} %d\n"
		"ablab_boards{health=\"failed\"} %d\nablab_boards{health=\"unchecked\"} %d\n",
		counts[0], counts[1], counts[2]);
	store_rows_free(&res);
	if (web_q(w, r, store_web_metrics_nightly, 0, NULL, &res))
		return;
	fputs("# HELP ablab_nightly_last_timestamp_seconds Start of the job's last nightly campaign\n"
	      "# TYPE ablab_nightly_last_timestamp_seconds gauge\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		fputs("ablab_nightly_last_timestamp_seconds{job=\"", f);
		plabel(f, store_text(&res, i, WMN_JOB));
		fprintf(f, "\"} %s\n", store_text(&res, i, WMN_CREATED));
	}
	fputs("# HELP ablab_nightly_last_status Status of the job's last nightly campaign (1 for its status)\n"
	      "# TYPE ablab_nightly_last_status gauge\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		fputs("ablab_nightly_last_status{job=\"", f);
		plabel(f, store_text(&res, i, WMN_JOB));
		fprintf(f, "\",status=\"%s\",campaign=\"%s\"} 1\n", store_text(&res, i, WMN_STATUS),
			store_text(&res, i, WMN_ID));
	}
	store_rows_free(&res);
	if (web_q(w, r, store_web_metrics_campaigns, 0, NULL, &res))
		return;
	fputs("# HELP ablab_campaigns Campaigns by status\n# TYPE ablab_campaigns gauge\n", f);
	for (int i = 0; i < (int)res.nrows; i++)
		fprintf(f, "ablab_campaigns{status=\"%s\"} %s\n", store_text(&res, i, WMC_STATUS),
			store_text(&res, i, WMC_COUNT));
	store_rows_free(&res);
	metrics_phases(w, r);
	r->type = "text/plain; version=0.0.4; charset=utf-8";
}
