// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the HTML pages (campaigns, one campaign, boards, one board, trends).
 * Untrusted text reaches a page only through web_h() or web_u() (web.c). */
#include "web/web.h"
#include "web/web-int.h"
#include "backend/boot.h"
#include "store/store-board.h"
#include "board.h"
#include "report/query.h"
#include "shared/opt.h"
#include "shared/jsonfile.h"
#include "report/report.h"
#include "store/store-web.h"
#include "store/store.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE_ROWS 50

/* link to a boot's transcript when it lies in the results directory, else its name */
static void transcript_link(struct web *w, FILE *f, const char *log_path)
{
	char *rp = *log_path ? realpath(log_path, NULL) : NULL;
	size_t n = strlen(w->root);

	if (rp && n && !strncmp(rp, w->root, n) && rp[n] == '/') {
		fputs("<a href=\"/results/", f);
		web_u_enc(f, rp + n + 1, true);
		fputs("\">transcript</a>", f);
	} else if (*log_path) {
		fputs("<span title=\"not below the served results directory\">", f);
		web_h(f, log_path);
		fputs("</span>", f);
	}
	free(rp);
}

/* Row i of res as n table cells, the last a link to its transcript; cell flag red when
 * failed (an attempt or a health check). */
static void result_cells(struct web *w, FILE *f, const struct store_rows *res, int i, int n,
			 int flag, bool failed)
{
	for (int k = 0; k < n; k++) {
		fputs(k == flag && failed ? "<td class=\"v-diff\">" : "<td>", f);
		if (k < n - 1)
			web_h(f, store_text(res, i, k));
		else
			transcript_link(w, f, store_text(res, i, k));
		fputs("</td>", f);
	}
}

static bool is_date(const char *s)
{
	struct tm tm = { 0 };
	const char *e = s ? strptime(s, "%Y-%m-%d", &tm) : NULL;

	return e && !*e && web_date_ok(s);
}

/* ------------------------------------------------------------------ campaigns list */

static const char *const campaigns_keys[] = {
	"board", "job", "trigger", "status", "since", "until"
};

/* the filters, each with its value p[i] */
static void campaigns_form(FILE *f, const char *const *p)
{
	static const char *const trig[] = { "", "cli", "nightly", "lava", "ingest" };
	static const char *const stat[] = { "",	      "running",     "complete",
					    "failed", "interrupted", "stale" };

	fputs("<form method=\"get\" action=\"/\" class=\"filters\">\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(campaigns_keys); i++) {
		const char *const *opts = i == 2 ? trig : i == 3 ? stat : NULL;
		size_t nopts = i == 2 ? ARRAY_SIZE(trig) : ARRAY_SIZE(stat);

		fprintf(f, "<label>%s ", campaigns_keys[i]);
		if (opts) {
			fprintf(f, "<select name=\"%s\">", campaigns_keys[i]);
			for (size_t k = 0; k < nopts; k++)
				fprintf(f, "<option%s>%s</option>",
					!strcmp(p[i], opts[k]) ? " selected" : "", opts[k]);
			fputs("</select>", f);
		} else {
			fprintf(f, "<input name=\"%s\" value=\"", campaigns_keys[i]);
			web_h(f, p[i]);
			fprintf(f, "\"%s>",
				i >= 4 ? " placeholder=\"YYYY-MM-DD\" size=\"10\"" : "");
		}
		fputs("</label>\n", f);
	}
	fputs("<button type=\"submit\">filter</button> <a href=\"/\">clear</a></form>\n", f);
}

/* one campaign: its link, creation, trigger, job, status, boards and boots */
static void campaigns_row(FILE *f, const struct store_rows *res, int i)
{
	char *boards = xstrdup(store_text(res, i, WCL_BOARDS)), *save = NULL;

	fprintf(f, "<tr><td><a href=\"/campaign/%s\">%s</a></td><td>", store_text(res, i, WCL_ID),
		store_text(res, i, WCL_ID));
	web_h(f, store_text(res, i, WCL_CREATED));
	fputs("</td><td>", f);
	web_h(f, store_text(res, i, WCL_TRIGGER));
	fputs("</td><td>", f);
	web_h(f, store_text(res, i, WCL_JOB));
	fprintf(f, "</td><td class=\"st-%s\">", store_text(res, i, WCL_STATUS));
	web_h(f, store_text(res, i, WCL_STATUS));
	fputs("</td><td>", f);
	for (char *b = strtok_r(boards, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		fputs("<a href=\"/board/", f);
		web_u(f, b);
		fputs("\">", f);
		web_h(f, b);
		fputs("</a> ", f);
	}
	free(boards);
	fputs("</td><td>", f);
	web_h(f, store_text(res, i, WCL_BOOTS));
	fputs("</td></tr>\n", f);
}

/* links to the newer and older pages with the same filters */
static void campaigns_pages(FILE *f, const char *const *p, long page, int n)
{
	fputs("<p class=\"pages\">", f);
	for (int dir = -1; dir <= 1; dir += 2) {
		if ((dir < 0 && page == 1) || (dir > 0 && n <= PAGE_ROWS))
			continue;
		fputs("<a href=\"/?", f);
		for (size_t i = 0; i < ARRAY_SIZE(campaigns_keys); i++) {
			if (!*p[i])
				continue;
			fprintf(f, "%s=", campaigns_keys[i]);
			web_u(f, p[i]);
			fputs("&amp;", f);
		}
		fprintf(f, "page=%ld\">%s</a> ", page + dir, dir < 0 ? "newer" : "older");
	}
	fprintf(f, "page %ld</p>\n", page);
}

void web_campaigns_page(struct web *w, const struct web_req *q, struct reply *r)
{
	const char *p[7];
	char off[16];
	long page = 1;
	struct store_rows res;
	FILE *f = r->f;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(campaigns_keys); i++)
		p[i] = web_arg(q, campaigns_keys[i]) ? web_arg(q, campaigns_keys[i]) : "";
	if ((*p[4] && !is_date(p[4])) || (*p[5] && !is_date(p[5]))) {
		web_fail_page(r, 400, "since and until are dates: YYYY-MM-DD");
		return;
	}
	if (web_arg(q, "page")) {
		if (!web_digits(web_arg(q, "page")) || (page = atol(web_arg(q, "page"))) < 1 ||
		    page > 1000000) {
			web_fail_page(r, 400, "page is a number from 1");
			return;
		}
	}
	snprintf(off, sizeof(off), "%ld", (page - 1) * PAGE_ROWS);
	p[6] = off;
	if (web_q(w, r, store_web_campaigns, 7, p, &res))
		return;
	web_page_head(f, "campaigns");
	campaigns_form(f, p);
	n = (int)res.nrows;
	fputs("<table class=\"sortable\" id=\"campaigns\"><thead><tr><th>id</th><th>created</th>"
	      "<th>trigger</th><th>job</th><th>status</th><th>boards</th>"
	      "<th title=\"ok control / ok patched / failed attempts\">boots c/p/failed</th>"
	      "</tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < n && i < PAGE_ROWS; i++)
		campaigns_row(f, &res, i);
	fputs("</tbody></table>\n", f);
	if (!n)
		fputs("<p>no campaign matches</p>\n", f);
	campaigns_pages(f, p, page, n);
	store_rows_free(&res);
	web_page_foot(f);
}

/* ------------------------------------------------------------------ campaign */

static void fmt_val(char *out, size_t len, double v, const char *unit)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else if (unit && strcmp(unit, "ns"))
		snprintf(out, len, "%.0f B", v);
	else
		fmt_time(out, len, v);
}

/* the report of campaign id in format, into a malloc'd string (NULL: failed) */
static char *report_text(struct web *w, const char *id, const char *format)
{
	struct report_opts o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET };
	struct store *st = web_db(w);
	char *s = NULL;
	size_t n = 0;
	FILE *f;
	int ret;

	if (!st)
		return NULL;
	f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	ret = report_campaign_to(st, strtoll(id, NULL, 10), format, &o, f);
	fclose(f);
	if (ret && ret != -ENOENT) {
		free(s);
		return NULL;
	}
	return s;
}

static void report_table(FILE *f, json_object *rows)
{
	fputs("<table class=\"sortable\" id=\"report\"><thead><tr><th>board</th><th>row</th>"
	      "<th>n</th><th>control</th><th>patched</th><th>change (HL)</th><th>CI</th>"
	      "<th>p (Holm)</th><th>MDE</th><th>verdict</th></tr></thead><tbody>\n",
	      f);
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *o = json_object_array_get_idx(rows, i), *hl = NULL;
		const char *unit = jstr(o, "unit"), *v = jstr(o, "verdict");
		double ch = web_jnum(o, "rel_change"), lo = web_jnum(o, "ci_lo"),
		       hi = web_jnum(o, "ci_hi");
		char a[32], b[32], c1[32], c2[32], c3[32];

		if (json_object_object_get_ex(o, "hodges_lehmann", &hl) && hl &&
		    !isnan(web_jnum(hl, "rel"))) {
			ch = web_jnum(hl, "rel");
			lo = web_jnum(hl, "rel_lo");
			hi = web_jnum(hl, "rel_hi");
		}
		fputs("<tr><td>", f);
		web_h(f, jstr(o, "board"));
		fputs("</td><td>", f);
		web_h(f, jstr(o, "label"));
		fprintf(f, "</td><td>%.0f+%.0f</td><td>", web_jnum(o, "n_control"),
			web_jnum(o, "n_patched"));
		fmt_val(a, sizeof(a), web_jnum(o, "control_mean"), unit);
		fmt_val(b, sizeof(b), web_jnum(o, "patched_mean"), unit);
		web_h(f, a);
		fputs("</td><td>", f);
		web_h(f, b);
		fputs("</td><td>", f);
		if (!isnan(ch)) {
			fmt_change(c1, sizeof(c1), ch);
			web_h(f, c1);
		}
		fputs("</td><td>", f);
		if (!isnan(lo) && !isnan(hi)) {
			fmt_change(c2, sizeof(c2), lo);
			fmt_change(c3, sizeof(c3), hi);
			fprintf(f, "[%s, %s]", c2, c3);
		}
		fputs("</td><td>", f);
		if (!isnan(web_jnum(o, "p_holm")))
			fprintf(f, "%.3g", web_jnum(o, "p_holm"));
		fputs("</td><td>", f);
		if (!isnan(web_jnum(o, "mde")))
			fprintf(f, "&#177;%.2f%%", web_jnum(o, "mde") * 100);
		fprintf(f, "</td><td class=\"v-%s\">",
			v && !strcmp(v, "different") ? "diff" :
			v && !strcmp(v, "same")	     ? "same" :
						       "open");
		web_h(f, jstr(o, "verdict_text"));
		if (jstr(o, "environment_changed")) { /* its boots differ beyond the kernel */
			fputs("<br><small class=\"env-changed\">&#9888; ", f);
			web_h(f, jstr(o, "environment_changed"));
			fputs("</small>", f);
		}
		if (jstr(o, "left_out")) { /* batches the screening rule left out */
			fputs("<br><small class=\"left-out\">", f);
			web_h(f, jstr(o, "left_out"));
			fputs("</small>", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void attempts_table(struct web *w, struct reply *r, const char *sql, const char *key,
			   bool campaign_col)
{
	const char *p[1] = { key };
	struct store_rows res;
	FILE *f = r->f;

	if (web_q(w, r, sql, 1, p, &res))
		return;
	fprintf(f,
		"<table class=\"sortable\"><thead><tr>%s<th>board</th><th>slot</th>"
		"<th>variant</th><th>attempt</th><th>status</th><th>uname -r</th><th>started</th>"
		"<th>error</th><th>transcript</th></tr></thead><tbody>\n",
		campaign_col ? "<th>campaign</th>" : "");
	for (int i = 0; i < (int)res.nrows; i++) {
		fputs("<tr>", f);
		if (campaign_col)
			fprintf(f, "<td><a href=\"/campaign/%s\">%s</a></td>",
				store_text(&res, i, WAT_CAMPAIGN),
				store_text(&res, i, WAT_CAMPAIGN));
		result_cells(w, f, &res, i, WAT_LOG_PATH + 1, WAT_STATUS,
			     strcmp(store_text(&res, i, WAT_STATUS), "ok"));
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!res.nrows)
		fputs("<p>none</p>\n", f);
	store_rows_free(&res);
}

void web_campaign_page(struct web *w, struct reply *r, const char *id)
{
	char *js = NULL, *svg = NULL, *email = NULL;
	json_object *root = NULL, *rows = NULL, *boards = NULL;
	FILE *f = r->f;
	char title[64];
	bool fin;

	if (web_campaign_state(w, r, id, "page", &fin))
		return;
	js = report_text(w, id, "json");
	root = js ? json_tokener_parse(js) : NULL;
	if (!root) {
		free(js);
		web_fail_page(r, 500, "the report of this campaign failed (see the server's log)");
		return;
	}
	snprintf(title, sizeof(title), "campaign %s", id);
	web_page_head(f, title);
	fputs("<p class=\"meta\">", f);
	web_h(f, jstr(root, "trigger"));
	if (jstr(root, "job")) {
		fputs(", job ", f);
		web_h(f, jstr(root, "job"));
	}
	fputs(", ", f);
	web_h(f, jstr(root, "status"));
	fputs(", created ", f);
	web_h(f, jstr(root, "created"));
	fputs(", order ", f);
	web_h(f, jstr(root, "order"));
	fprintf(f, ", %.0f batches per boot; boards: ", web_jnum(root, "batches"));
	if (json_object_object_get_ex(root, "boards", &boards))
		for (size_t i = 0; i < json_object_array_length(boards); i++) {
			const char *b = jstr(json_object_array_get_idx(boards, i), "board");

			fputs("<a href=\"/board/", f);
			web_u(f, b);
			fputs("\">", f);
			web_h(f, b);
			fputs("</a> ", f);
		}
	fprintf(f, "&#183; <a href=\"/api/v1/report/%s\">JSON</a></p>\n", id);
	if (json_object_object_get_ex(root, "rows", &rows) && json_object_array_length(rows)) {
		fputs("<p><input type=\"search\" class=\"filter\" data-table=\"report\" "
		      "placeholder=\"filter rows\" hidden></p>\n",
		      f);
		report_table(f, rows);
		svg = report_text(w, id, "svg");
		if (svg) {
			char *s = strstr(svg, "<svg");

			fputs("<h2>every boot</h2>\n<figure class=\"plot\">", f);
			fputs(s ? s : "", f); /* the renderer escapes every text it writes */
			fputs("</figure>\n", f);
		}
	} else {
		fputs("<p>no successful boots yet</p>\n", f);
	}
	fputs("<h2>method</h2>\n<p class=\"method\">", f);
	web_h(f, jstr(root, "method"));
	fputs("</p>\n<h2>attempts</h2>\n", f);
	attempts_table(w, r, store_web_campaign_attempts, id, false);
	email = report_text(w, id, "email");
	if (email && *email) {
		fputs("<h2>email</h2>\n<p><button type=\"button\" class=\"copy\" "
		      "data-copy=\"email\" hidden>copy</button></p>\n<pre id=\"email\">",
		      f);
		web_h(f, email);
		fputs("</pre>\n", f);
	}
	web_page_foot(f);
	json_object_put(root);
	free(js);
	free(svg);
	free(email);
}

/* ------------------------------------------------------------------ boards */

static bool name_ok(const char *s)
{
	if (!s || !*s || *s == '.' || strlen(s) > 63)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._-", *s))
			return false;
	return true;
}

void web_boards_page(struct web *w, struct reply *r)
{
	struct store_rows res;
	FILE *f = r->f;

	if (web_q(w, r, store_web_boards, 0, NULL, &res))
		return;
	web_page_head(f, "boards");
	fputs("<table class=\"sortable\"><thead><tr><th>board</th><th>last health check</th>"
	      "<th>checked</th><th>campaigns</th></tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		const char *ok = store_text(&res, i, WBS_OK);

		fputs("<tr><td><a href=\"/board/", f);
		web_u(f, store_text(&res, i, WBS_NAME));
		fputs("\">", f);
		web_h(f, store_text(&res, i, WBS_NAME));
		fprintf(f, "</a></td><td class=\"%s\">%s</td><td>", *ok == 'f' ? "v-diff" : "",
			*ok == 't' ? "ok" :
			*ok == 'f' ? "FAILED" :
				     "never checked");
		web_h(f, store_text(&res, i, WBS_CHECKED));
		fprintf(f, "</td><td>%s</td></tr>\n", store_text(&res, i, WBS_CAMPAIGNS));
	}
	fputs("</tbody></table>\n", f);
	store_rows_free(&res);
	web_page_foot(f);
}

/* The board's median boot phases (ok boots with phases of the last 30 days): a table, or a
 * line saying there are none; non-zero when the query failed (the page is answered). */
static int board_phases(struct web *w, struct reply *r, const char *name)
{
	const char *p[4] = { NULL, name, NULL, "30 days" };
	struct store_rows res;
	json_object *o = NULL, *m = NULL, *v;
	FILE *f = r->f;

	if (web_q(w, r, store_board_phases_sql, 4, p, &res))
		return 1;
	fputs("<h2>boot phases (median ms after power on, ok boots of the last 30 days)</h2>\n", f);
	if (res.nrows)
		o = json_tokener_parse(store_text(&res, 0, BP_JSON));
	if (!o || !json_object_object_get_ex(o, "median_ms", &m)) {
		fputs("<p>no ok boot with phases (boots before phases were recorded, LAVA and ingested boots have none)</p>\n",
		      f);
	} else {
		fputs("<table class=\"phases\"><thead><tr><th>boots</th>", f);
		for (int ph = 0; ph < PHASE__N; ph++)
			fprintf(f, "<th>%s</th>", boot_phase_names[ph]);
		fputs("<th>load</th><th>boots per hour</th></tr></thead><tbody>\n", f);
		fprintf(f, "<tr><td>%.0f</td>", web_jnum(o, "boots"));
		for (int ph = 0; ph < PHASE__N; ph++)
			fprintf(f, "<td>%s</td>",
				json_object_object_get_ex(m, boot_phase_names[ph], &v) ?
					json_object_get_string(v) :
					"-");
		if (json_object_object_get_ex(o, "load_bytes", &v))
			fprintf(f, "<td>%s B at %.0f KiB/s</td>", json_object_get_string(v),
				web_jnum(o, "load_kib_s"));
		else
			fputs("<td>-</td>", f);
		if (json_object_object_get_ex(o, "boots_per_hour", &v))
			fprintf(f, "<td>%s</td>", json_object_get_string(v));
		else
			fputs("<td>-</td>", f);
		fputs("</tr>\n</tbody></table>\n", f);
	}
	json_object_put(o);
	store_rows_free(&res);
	return 0;
}

void web_board_page(struct web *w, struct reply *r, const char *name)
{
	const char *p[1] = { name };
	char who[300] = "", title[96];
	struct board b;
	bool file;
	struct store_rows res;
	FILE *f = r->f;

	if (!name_ok(name)) {
		web_fail_page(r, 404, "no such board");
		return;
	}
	if (web_q(w, r, store_web_board_known, 1, p, &res))
		return;
	file = !board_load_by_name(&b, name);
	if (file)
		board_lock_holder(&b, who, sizeof(who));
	if (!file && !atoi(store_text(&res, 0, WBK_COUNT))) {
		store_rows_free(&res);
		board_free(&b);
		web_fail_page(r, 404, "no such board");
		return;
	}
	store_rows_free(&res);
	snprintf(title, sizeof(title), "board %s", name);
	web_page_head(f, title);
	fputs("<p class=\"meta\">", f);
	if (file) {
		web_h(f, b.cpu);
		fputs(b.emulated ? " (emulated)" : "", f);
		fputs("; lock: ", f);
		web_h(f, *who ? who : "free");
	} else {
		fputs("no board file in the board directory (used by path, ingested or LAVA boots): lock holder unknown",
		      f);
	}
	fputs(" &#183; <a href=\"/?board=", f);
	web_u(f, name);
	fputs("\">its campaigns</a></p>\n", f);
	board_free(&b);
	if (board_phases(w, r, name))
		return;
	fputs("<h2>health checks</h2>\n", f);
	if (web_q(w, r, store_web_board_health, 1, p, &res))
		return;
	fputs("<table class=\"sortable\"><thead><tr><th>checked</th><th>result</th>"
	      "<th>uname -r</th><th>boot ms</th><th>host</th><th>error</th><th>transcript</th>"
	      "</tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		fputs("<tr>", f);
		result_cells(w, f, &res, i, WBH_LOG_PATH + 1, WBH_OK,
			     *store_text(&res, i, WBH_OK) == 'F');
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!res.nrows)
		fputs("<p>never checked</p>\n", f);
	store_rows_free(&res);
	if (web_q(w, r, store_web_board_campaigns, 1, p, &res))
		return;
	fputs("<h2>campaigns (latest 50)</h2>\n<table class=\"sortable\"><thead><tr><th>id</th>"
	      "<th>created</th><th>trigger</th><th>job</th><th>status</th></tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < (int)res.nrows; i++) {
		fprintf(f, "<tr><td><a href=\"/campaign/%s\">%s</a></td>",
			store_text(&res, i, WBC_ID), store_text(&res, i, WBC_ID));
		for (int k = WBC_CREATED; k <= WBC_STATUS; k++) {
			fputs("<td>", f);
			web_h(f, store_text(&res, i, k));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<h2>failed attempts (latest 100)</h2>\n", f);
	store_rows_free(&res);
	attempts_table(w, r, store_web_board_failed, name, true);
	web_page_foot(f);
}

/* ------------------------------------------------------------------ trend */

static char *cmd_text(int (*fn)(FILE *, int, char **), const char **argv, int *rc)
{
	struct reply t = { 0 };

	t.f = open_memstream(&t.body, &t.len);
	if (!t.f)
		return NULL;
	*rc = web_run_cmd(fn, &t, argv);
	fclose(t.f);
	return t.body;
}

void web_trend_page(struct web *w, const struct web_req *q, struct reply *r)
{
	const char *job = web_arg(q, "job"), *scen = web_arg(q, "scenario"),
		   *board = web_arg(q, "board");
	FILE *f = r->f;

	if (!job || !scen) {
		struct store_rows res;

		if (web_q(w, r, store_web_trend_list, 0, NULL, &res))
			return;
		web_page_head(f, "nightly trends");
		fputs("<ul>\n", f);
		for (int i = 0; i < (int)res.nrows; i++) {
			fputs("<li><a href=\"/trend?job=", f);
			web_u(f, store_text(&res, i, WTL_JOB));
			fputs("&amp;scenario=", f);
			web_u(f, store_text(&res, i, WTL_SCENARIO));
			fputs("\">", f);
			web_h(f, store_text(&res, i, WTL_JOB));
			fputs(": ", f);
			web_h(f, store_text(&res, i, WTL_SCENARIO));
			fputs("</a></li>\n", f);
		}
		fputs("</ul>\n", f);
		if (!res.nrows)
			fputs("<p>no nightly campaigns yet</p>\n", f);
		store_rows_free(&res);
		web_page_foot(f);
		return;
	}
	{
		/* the job after "--": a job=--help is a name, not an option */
		const char *sv[] = { "trend",
				     "--scenario",
				     scen,
				     "--format",
				     "svg",
				     board ? "--board" : "--",
				     board ? board : job,
				     board ? "--" : NULL,
				     job,
				     NULL };
		const char *tv[] = { "trend",
				     "--scenario",
				     scen,
				     "--format",
				     "text",
				     board ? "--board" : "--",
				     board ? board : job,
				     board ? "--" : NULL,
				     job,
				     NULL };
		char title[256];
		int rc1 = 1, rc2 = 1;
		char *svg = cmd_text(cmd_trend_to, sv, &rc1),
		     *txt = cmd_text(cmd_trend_to, tv, &rc2);

		if (rc1 || rc2) {
			free(svg);
			free(txt);
			web_fail_page(
				r, 404,
				"no nightly campaign of this job has this scenario with both kernels");
			return;
		}
		snprintf(title, sizeof(title), "trend: %s, %s%s%s", job, scen, board ? ", " : "",
			 board ? board : "");
		web_page_head(f, title);
		fputs("<figure class=\"plot\">", f);
		fputs(strstr(svg, "<svg") ? strstr(svg, "<svg") : "", f);
		fputs("</figure>\n<pre>", f);
		web_h(f, txt);
		fputs("</pre>\n", f);
		web_page_foot(f);
		free(svg);
		free(txt);
	}
}
