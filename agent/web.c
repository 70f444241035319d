// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the results database as web pages, a JSON API and Prometheus metrics
 * (web.h).  Everything from the database or a transcript is untrusted text: it reaches a
 * page only through h() (HTML-escaped) or u() (percent-encoded), never as markup. */
#include "web.h"
#include "board.h"
#include "jsonfile.h"
#include "cmds.h"
#include "report.h"
#include "store.h"
#include "util.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE_ROWS 50

struct web {
	struct store st;	/* the pages' read-only connection */
	char *conninfo;		/* read-only conninfo, also opt_db for the commands */
	char root[PATH_MAX];	/* realpath of the results directory ("" if none) */
};

/* One answer being built: body in a memory stream, status, type, cache headers. */
struct reply {
	FILE *f;
	char *body;
	size_t len;
	unsigned int status;
	const char *type;
	char etag[128];
	const char *cache;	/* Cache-Control, default no-store */
	int fd;			/* a transcript: served from this file instead of body */
	off_t fd_size;
};

/* ------------------------------------------------------------------ output helpers */

/* HTML-escaped text (&, <, >, ", ') */
static void h(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* percent-encoded (keep: unreserved characters, and '/' when path) */
static void u_enc(FILE *f, const char *s, bool path)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~", c) || (path && c == '/'))
			fputc(c, f);
		else
			fprintf(f, "%%%02X", c);
	}
}

static void u(FILE *f, const char *s)
{
	u_enc(f, s, false);
}

static const char *arg(struct MHD_Connection *c, const char *key)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	return v && *v ? v : NULL;
}

static double jnum(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

static void page_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<title>", f);
	h(f, title);
	fputs(" - ablab</title><link rel=\"stylesheet\" href=\"/static/app.css\">"
	      "<script src=\"/static/app.js\" defer></script></head>\n<body><header><nav>"
	      "<b>ablab</b> <a href=\"/\">campaigns</a> <a href=\"/boards\">boards</a> "
	      "<a href=\"/trend\">trends</a> <a href=\"/metrics\">metrics</a> "
	      "<a href=\"/api/v1/campaigns\">API</a></nav></header>\n<main>\n<h1>", f);
	h(f, title);
	fputs("</h1>\n", f);
}

static void page_foot(FILE *f)
{
	fputs("</main></body></html>\n", f);
}

static void fail_page(struct reply *r, unsigned int status, const char *what)
{
	rewind(r->f);
	r->status = status;
	r->type = "text/html; charset=utf-8";
	r->cache = NULL;
	r->etag[0] = 0;
	page_head(r->f, status == 404 ? "not found" : status == 400 ? "bad request" :
		  "server error");
	fputs("<p>", r->f);
	h(r->f, what);
	fputs("</p>\n", r->f);
	page_foot(r->f);
}

/* the pages' connection, reconnected if the server went away */
static struct store *db(struct web *w)
{
	if (w->st.conn && PQstatus(w->st.conn) == CONNECTION_OK)
		return &w->st;
	if (w->st.conn)
		PQreset(w->st.conn);
	return w->st.conn && PQstatus(w->st.conn) == CONNECTION_OK ? &w->st : NULL;
}

static PGresult *q(struct web *w, struct reply *r, const char *sql, int np,
		   const char *const *p)
{
	struct store *st = db(w);
	PGresult *res = st ? store_query(st, sql, np, p) : NULL;

	if (!res)
		fail_page(r, 503, "the results database did not answer (see the server's log)");
	return res;
}

/* ------------------------------------------------------------------ transcripts */

int web_confine(const char *root, const char *rel, char *out, size_t len)
{
	char *p, *rp;
	size_t n = strlen(root);
	struct stat sb;
	int ret = -ENOENT;

	if (!*root || !*rel)
		return -ENOENT;
	p = xasprintf("%s/%s", root, rel);
	rp = realpath(p, NULL);
	if (rp && !strncmp(rp, root, n) && rp[n] == '/' && !stat(rp, &sb) &&
	    S_ISREG(sb.st_mode) && strlen(rp) < len) {
		snprintf(out, len, "%s", rp);
		ret = 0;
	}
	free(p);
	free(rp);
	return ret;
}

/* link to a boot's transcript when it lies in the results directory, else its name */
static void transcript_link(struct web *w, FILE *f, const char *log_path)
{
	char *rp = *log_path ? realpath(log_path, NULL) : NULL;
	size_t n = strlen(w->root);

	if (rp && n && !strncmp(rp, w->root, n) && rp[n] == '/') {
		fputs("<a href=\"/results/", f);
		u_enc(f, rp + n + 1, true);
		fputs("\">transcript</a>", f);
	} else if (*log_path) {
		fputs("<span title=\"not below the served results directory\">", f);
		h(f, log_path);
		fputs("</span>", f);
	}
	free(rp);
}

static void serve_file(struct web *w, struct reply *r, const char *rel)
{
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (web_confine(w->root, rel, path, sizeof(path)) ||
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		fail_page(r, 404, "no such transcript in the results directory");
		return;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		fail_page(r, 404, "no such transcript in the results directory");
		return;
	}
	r->fd = fd;
	r->fd_size = sb.st_size;
	r->type = "text/plain; charset=utf-8";
}

/* ------------------------------------------------------------------ the commands */

/* Runs a command's function (cmds.h: cmd_X_to) on argv with its output to r: what the
 * command prints is the answer.  The server has one thread, so getopt's state is ours. */
static int run_cmd(int (*fn)(FILE *, int, char **), struct reply *r, const char **argv)
{
	char *v[32];
	int n = 0, ret;

	while (argv[n] && n < 31) {
		v[n] = xstrdup(argv[n]);
		n++;
	}
	v[n] = NULL;
	optind = 0;
	opterr = 0;
	ret = fn(r->f, n, v);
	opterr = 1;
	for (int i = 0; i < n; i++)
		free(v[i]);
	return ret;
}

static bool digits(const char *s)
{
	if (!s || !*s || strlen(s) > 9)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static bool is_date(const char *s)
{
	struct tm tm = { 0 };
	const char *e = s ? strptime(s, "%Y-%m-%d", &tm) : NULL;

	return e && !*e;
}

/* ETag of a campaign: its state, boots, calibrations (the MDE) and the schema; NULL
 * status when there is no such campaign */
static int campaign_state(struct web *w, struct reply *r, const char *id, const char *kind,
			  bool *finished)
{
	static const char sql[] =
		"SELECT " STORE_CAMPAIGN_STATUS_SQL("c") ", coalesce(extract(epoch FROM "
		"c.finished)::bigint, 0), (SELECT count(*) || '-' || coalesce(max(id), 0) FROM "
		"boots WHERE campaign_id = c.id), (SELECT coalesce(max(id), 0) FROM "
		"calibrations), (SELECT max(version) FROM schema_version) "
		"FROM campaigns c WHERE c.id = $1::int";
	const char *p[1] = { id };
	PGresult *res;
	const char *s;

	if (!digits(id)) {
		fail_page(r, 404, "no such campaign");
		return -ENOENT;
	}
	res = q(w, r, sql, 1, p);
	if (!res)
		return -EIO;
	if (!PQntuples(res)) {
		PQclear(res);
		fail_page(r, 404, "no such campaign");
		return -ENOENT;
	}
	s = PQgetvalue(res, 0, 0);
	*finished = !strcmp(s, "complete") || !strcmp(s, "failed") || !strcmp(s, "interrupted");
	if (*finished) {
		snprintf(r->etag, sizeof(r->etag), "\"%s-%s-%s-%s-%s-%s\"", kind, id,
			 PQgetvalue(res, 0, 1), PQgetvalue(res, 0, 2), PQgetvalue(res, 0, 3),
			 PQgetvalue(res, 0, 4));
		r->cache = "public, max-age=60, must-revalidate";
	}
	PQclear(res);
	return 0;
}

static void api_json(struct reply *r, int rc)
{
	r->type = "application/json";
	if (rc) {
		rewind(r->f);
		r->etag[0] = 0;
		r->cache = NULL;
		r->status = rc == 2 ? 400 : 500;
		fprintf(r->f, "{ \"error\": \"%s\" }\n", rc == 2 ? "bad request (the same "
			"options as the command: see docs/API.md)" : "the command failed (see "
			"the server's log)");
	}
}

/* what `ablab report ID --format json` prints: its defaults, report_campaign_to() */
static void api_report(struct web *w, struct reply *r, const char *id)
{
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	struct store *st;
	bool fin;

	if (campaign_state(w, r, id, "api", &fin)) {
		if (r->status == 404) {
			rewind(r->f);
			fputs("{ \"error\": \"no such campaign\" }\n", r->f);
			r->type = "application/json";
		}
		return;
	}
	st = db(w);
	api_json(r, !st || report_campaign_to(st, strtoll(id, NULL, 10), "json", &o, r->f) ? 1 : 0);
}

/* /api/v1/query and /api/v1/campaigns: the query parameters are the command's options
 * without "--" (opts: "--board", ...) */
static void api_list(struct MHD_Connection *c, struct reply *r, const char *cmd,
		     int (*fn)(FILE *, int, char **), const char *const *opts)
{
	const char *argv[32] = { cmd };
	int n = 1;

	for (size_t i = 0; opts[i] && n < 28; i++) {
		const char *v = arg(c, opts[i] + 2);

		if (v) {
			argv[n++] = opts[i];
			argv[n++] = v;
		}
	}
	argv[n++] = "--format";
	argv[n++] = "json";
	argv[n] = NULL;
	api_json(r, run_cmd(fn, r, argv));
}

/* ------------------------------------------------------------------ campaigns list */

static void campaigns_page(struct web *w, struct MHD_Connection *c, struct reply *r)
{
	static const char sql[] =
		/* the page's ids first (OFFSET ... LIMIT), then the per-campaign figures for
		 * those rows only: 10,000 campaigns list in milliseconds (docs/API.md) */
		"SELECT p.id, to_char(p.created, 'YYYY-MM-DD HH24:MI'), p.trigger, p.job, p.st, "
		"coalesce((SELECT string_agg(DISTINCT bo.name, ',') FROM boots b JOIN boards bo "
		"ON bo.id = b.board_id WHERE b.campaign_id = p.id), ''), "
		"(SELECT count(*) FILTER (WHERE status = 'ok' AND variant = 'control') || '/' || "
		"count(*) FILTER (WHERE status = 'ok' AND variant = 'patched') || '/' || "
		"count(*) FILTER (WHERE status = 'failed') FROM boots WHERE campaign_id = p.id) "
		"FROM (SELECT c.id, c.created, c.trigger, coalesce(c.job->>'job', '') AS job, "
		STORE_CAMPAIGN_STATUS_SQL("c") " AS st FROM campaigns c WHERE "
		"($1 = '' OR EXISTS (SELECT 1 FROM boots b JOIN boards bo ON bo.id = b.board_id "
		"WHERE b.campaign_id = c.id AND bo.name = $1)) AND ($2 = '' OR c.job->>'job' = $2) "
		"AND ($3 = '' OR c.trigger = $3) AND ($4 = '' OR " STORE_CAMPAIGN_STATUS_SQL("c")
		" = $4) AND ($5 = '' OR c.created >= NULLIF($5, '')::date) "
		"AND ($6 = '' OR c.created < NULLIF($6, '')::date + 1) "
		"ORDER BY c.id DESC LIMIT 51 OFFSET $7::int) p ORDER BY p.id DESC";
	static const char *const keys[] = { "board", "job", "trigger", "status", "since", "until" };
	static const char *const trig[] = { "", "cli", "nightly", "lava", "ingest" };
	static const char *const stat[] = { "", "running", "complete", "failed", "interrupted",
					    "stale" };
	const char *p[7];
	char off[16];
	long page = 1;
	PGresult *res;
	FILE *f = r->f;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		p[i] = arg(c, keys[i]) ? arg(c, keys[i]) : "";
	if ((*p[4] && !is_date(p[4])) || (*p[5] && !is_date(p[5]))) {
		fail_page(r, 400, "since and until are dates: YYYY-MM-DD");
		return;
	}
	if (arg(c, "page")) {
		if (!digits(arg(c, "page")) || (page = atol(arg(c, "page"))) < 1 ||
		    page > 1000000) {
			fail_page(r, 400, "page is a number from 1");
			return;
		}
	}
	snprintf(off, sizeof(off), "%ld", (page - 1) * PAGE_ROWS);
	p[6] = off;
	res = q(w, r, sql, 7, p);
	if (!res)
		return;
	page_head(f, "campaigns");
	fputs("<form method=\"get\" action=\"/\" class=\"filters\">\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *const *opts = i == 2 ? trig : i == 3 ? stat : NULL;
		size_t nopts = i == 2 ? ARRAY_SIZE(trig) : ARRAY_SIZE(stat);

		fprintf(f, "<label>%s ", keys[i]);
		if (opts) {
			fprintf(f, "<select name=\"%s\">", keys[i]);
			for (size_t k = 0; k < nopts; k++)
				fprintf(f, "<option%s>%s</option>", !strcmp(p[i], opts[k]) ?
					" selected" : "", opts[k]);
			fputs("</select>", f);
		} else {
			fprintf(f, "<input name=\"%s\" value=\"", keys[i]);
			h(f, p[i]);
			fprintf(f, "\"%s>", i >= 4 ? " placeholder=\"YYYY-MM-DD\" size=\"10\"" :
				"");
		}
		fputs("</label>\n", f);
	}
	fputs("<button type=\"submit\">filter</button> <a href=\"/\">clear</a></form>\n", f);
	n = PQntuples(res);
	fputs("<table class=\"sortable\" id=\"campaigns\"><thead><tr><th>id</th><th>created</th>"
	      "<th>trigger</th><th>job</th><th>status</th><th>boards</th>"
	      "<th title=\"ok control / ok patched / failed attempts\">boots c/p/failed</th>"
	      "</tr></thead><tbody>\n", f);
	for (int i = 0; i < n && i < PAGE_ROWS; i++) {
		char *boards = xstrdup(PQgetvalue(res, i, 5)), *save = NULL;

		fprintf(f, "<tr><td><a href=\"/campaign/%s\">%s</a></td><td>",
			PQgetvalue(res, i, 0), PQgetvalue(res, i, 0));
		h(f, PQgetvalue(res, i, 1));
		fputs("</td><td>", f);
		h(f, PQgetvalue(res, i, 2));
		fputs("</td><td>", f);
		h(f, PQgetvalue(res, i, 3));
		fprintf(f, "</td><td class=\"st-%s\">", PQgetvalue(res, i, 4));
		h(f, PQgetvalue(res, i, 4));
		fputs("</td><td>", f);
		for (char *b = strtok_r(boards, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
			fputs("<a href=\"/board/", f);
			u(f, b);
			fputs("\">", f);
			h(f, b);
			fputs("</a> ", f);
		}
		free(boards);
		fputs("</td><td>", f);
		h(f, PQgetvalue(res, i, 6));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!n)
		fputs("<p>no campaign matches</p>\n", f);
	fputs("<p class=\"pages\">", f);
	for (int dir = -1; dir <= 1; dir += 2) {
		if ((dir < 0 && page == 1) || (dir > 0 && n <= PAGE_ROWS))
			continue;
		fputs("<a href=\"/?", f);
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
			if (!*p[i])
				continue;
			fprintf(f, "%s=", keys[i]);
			u(f, p[i]);
			fputs("&amp;", f);
		}
		fprintf(f, "page=%ld\">%s</a> ", page + dir, dir < 0 ? "newer" : "older");
	}
	fprintf(f, "page %ld</p>\n", page);
	PQclear(res);
	page_foot(f);
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
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	struct store *st = db(w);
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
	      "<th>p (Holm)</th><th>MDE</th><th>verdict</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < json_object_array_length(rows); i++) {
		json_object *o = json_object_array_get_idx(rows, i), *hl = NULL;
		const char *unit = jstr(o, "unit"), *v = jstr(o, "verdict");
		double ch = jnum(o, "rel_change"), lo = jnum(o, "ci_lo"), hi = jnum(o, "ci_hi");
		char a[32], b[32], c1[32], c2[32], c3[32];

		if (json_object_object_get_ex(o, "hodges_lehmann", &hl) && hl &&
		    !isnan(jnum(hl, "rel"))) {
			ch = jnum(hl, "rel");
			lo = jnum(hl, "rel_lo");
			hi = jnum(hl, "rel_hi");
		}
		fputs("<tr><td>", f);
		h(f, jstr(o, "board"));
		fputs("</td><td>", f);
		h(f, jstr(o, "label"));
		fprintf(f, "</td><td>%.0f+%.0f</td><td>", jnum(o, "n_control"),
			jnum(o, "n_patched"));
		fmt_val(a, sizeof(a), jnum(o, "control_mean"), unit);
		fmt_val(b, sizeof(b), jnum(o, "patched_mean"), unit);
		h(f, a);
		fputs("</td><td>", f);
		h(f, b);
		fputs("</td><td>", f);
		if (!isnan(ch)) {
			fmt_change(c1, sizeof(c1), ch);
			h(f, c1);
		}
		fputs("</td><td>", f);
		if (!isnan(lo) && !isnan(hi)) {
			fmt_change(c2, sizeof(c2), lo);
			fmt_change(c3, sizeof(c3), hi);
			fprintf(f, "[%s, %s]", c2, c3);
		}
		fputs("</td><td>", f);
		if (!isnan(jnum(o, "p_holm")))
			fprintf(f, "%.3g", jnum(o, "p_holm"));
		fputs("</td><td>", f);
		if (!isnan(jnum(o, "mde")))
			fprintf(f, "&#177;%.2f%%", jnum(o, "mde") * 100);
		fprintf(f, "</td><td class=\"v-%s\">", v && !strcmp(v, "different") ? "diff" :
			v && !strcmp(v, "same") ? "same" : "open");
		h(f, jstr(o, "verdict_text"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

static void attempts_table(struct web *w, struct reply *r, const char *sql, const char *key,
			   bool campaign_col)
{
	const char *p[1] = { key };
	PGresult *res = q(w, r, sql, 1, p);
	FILE *f = r->f;

	if (!res)
		return;
	fprintf(f, "<table class=\"sortable\"><thead><tr>%s<th>board</th><th>slot</th>"
		"<th>variant</th><th>attempt</th><th>status</th><th>uname -r</th><th>started</th>"
		"<th>error</th><th>transcript</th></tr></thead><tbody>\n",
		campaign_col ? "<th>campaign</th>" : "");
	for (int i = 0; i < PQntuples(res); i++) {
		fputs("<tr>", f);
		if (campaign_col)
			fprintf(f, "<td><a href=\"/campaign/%s\">%s</a></td>",
				PQgetvalue(res, i, 9), PQgetvalue(res, i, 9));
		for (int k = 0; k < 9; k++) {
			bool failed = k == 4 && strcmp(PQgetvalue(res, i, 4), "ok");

			fputs(failed ? "<td class=\"v-diff\">" : "<td>", f);
			if (k < 8)
				h(f, PQgetvalue(res, i, k));
			else
				transcript_link(w, f, PQgetvalue(res, i, 8));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!PQntuples(res))
		fputs("<p>none</p>\n", f);
	PQclear(res);
}

#define ATTEMPT_COLS                                                                              \
	"SELECT bo.name, b.seq, b.variant, b.attempt, b.status, coalesce(b.uname_r, k.release, "  \
	"''), coalesce(to_char(b.started, 'YYYY-MM-DD HH24:MI:SS'), ''), coalesce(b.error, ''), " \
	"coalesce(b.log_path, ''), b.campaign_id FROM boots b JOIN boards bo ON bo.id = "         \
	"b.board_id LEFT JOIN kernels k ON k.id = b.kernel_id "

static void campaign_page(struct web *w, struct reply *r, const char *id)
{
	char *js = NULL, *svg = NULL, *email = NULL;
	json_object *root = NULL, *rows = NULL, *boards = NULL;
	FILE *f = r->f;
	char title[64];
	bool fin;

	if (campaign_state(w, r, id, "page", &fin))
		return;
	js = report_text(w, id, "json");
	root = js ? json_tokener_parse(js) : NULL;
	if (!root) {
		free(js);
		fail_page(r, 500, "the report of this campaign failed (see the server's log)");
		return;
	}
	snprintf(title, sizeof(title), "campaign %s", id);
	page_head(f, title);
	fputs("<p class=\"meta\">", f);
	h(f, jstr(root, "trigger"));
	if (jstr(root, "job")) {
		fputs(", job ", f);
		h(f, jstr(root, "job"));
	}
	fputs(", ", f);
	h(f, jstr(root, "status"));
	fputs(", created ", f);
	h(f, jstr(root, "created"));
	fputs(", order ", f);
	h(f, jstr(root, "order"));
	fprintf(f, ", %.0f batches per boot; boards: ", jnum(root, "batches"));
	if (json_object_object_get_ex(root, "boards", &boards))
		for (size_t i = 0; i < json_object_array_length(boards); i++) {
			const char *b = jstr(json_object_array_get_idx(boards, i), "board");

			fputs("<a href=\"/board/", f);
			u(f, b);
			fputs("\">", f);
			h(f, b);
			fputs("</a> ", f);
		}
	fprintf(f, "&#183; <a href=\"/api/v1/report/%s\">JSON</a></p>\n", id);
	if (json_object_object_get_ex(root, "rows", &rows) && json_object_array_length(rows)) {
		fputs("<p><input type=\"search\" class=\"filter\" data-table=\"report\" "
		      "placeholder=\"filter rows\" hidden></p>\n", f);
		report_table(f, rows);
		svg = report_text(w, id, "svg");
		if (svg) {
			char *s = strstr(svg, "<svg");

			fputs("<h2>every boot</h2>\n<figure class=\"plot\">", f);
			fputs(s ? s : "", f);	/* the renderer escapes every text it writes */
			fputs("</figure>\n", f);
		}
	} else {
		fputs("<p>no successful boots yet</p>\n", f);
	}
	fputs("<h2>method</h2>\n<p class=\"method\">", f);
	h(f, jstr(root, "method"));
	fputs("</p>\n<h2>attempts</h2>\n", f);
	attempts_table(w, r, ATTEMPT_COLS "WHERE b.campaign_id = $1::int ORDER BY bo.name, b.seq, "
		       "b.attempt, b.id", id, false);
	email = report_text(w, id, "email");
	if (email && *email) {
		fputs("<h2>email</h2>\n<p><button type=\"button\" class=\"copy\" "
		      "data-copy=\"email\" hidden>copy</button></p>\n<pre id=\"email\">", f);
		h(f, email);
		fputs("</pre>\n", f);
	}
	page_foot(f);
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

static void boards_page(struct web *w, struct reply *r)
{
	PGresult *res = q(w, r, "SELECT n.name, coalesce(h.ok::text, ''), coalesce(to_char("
			  "h.checked, 'YYYY-MM-DD HH24:MI'), ''), (SELECT count(DISTINCT "
			  "campaign_id) FROM boots b JOIN boards bo ON bo.id = b.board_id WHERE "
			  "bo.name = n.name) FROM (SELECT name FROM boards UNION SELECT board FROM "
			  "health) n LEFT JOIN LATERAL (SELECT ok, checked FROM health WHERE "
			  "board = n.name ORDER BY checked DESC, id DESC LIMIT 1) h ON true "
			  "ORDER BY n.name", 0, NULL);
	FILE *f = r->f;

	if (!res)
		return;
	page_head(f, "boards");
	fputs("<table class=\"sortable\"><thead><tr><th>board</th><th>last health check</th>"
	      "<th>checked</th><th>campaigns</th></tr></thead><tbody>\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		const char *ok = PQgetvalue(res, i, 1);

		fputs("<tr><td><a href=\"/board/", f);
		u(f, PQgetvalue(res, i, 0));
		fputs("\">", f);
		h(f, PQgetvalue(res, i, 0));
		fprintf(f, "</a></td><td class=\"%s\">%s</td><td>", *ok == 'f' ? "v-diff" : "",
			*ok == 't' ? "ok" : *ok == 'f' ? "FAILED" : "never checked");
		h(f, PQgetvalue(res, i, 2));
		fprintf(f, "</td><td>%s</td></tr>\n", PQgetvalue(res, i, 3));
	}
	fputs("</tbody></table>\n", f);
	PQclear(res);
	page_foot(f);
}

static void board_page(struct web *w, struct reply *r, const char *name)
{
	const char *p[1] = { name };
	char who[300] = "", title[96];
	struct board b;
	bool file;
	PGresult *res;
	FILE *f = r->f;

	if (!name_ok(name)) {
		fail_page(r, 404, "no such board");
		return;
	}
	res = q(w, r, "SELECT (SELECT count(*) FROM boards WHERE name = $1) + (SELECT count(*) "
		"FROM health WHERE board = $1)", 1, p);
	if (!res)
		return;
	file = !board_load_by_name(&b, name);
	if (file)
		board_lock_holder(&b, who, sizeof(who));
	if (!file && !atoi(PQgetvalue(res, 0, 0))) {
		PQclear(res);
		board_free(&b);
		fail_page(r, 404, "no such board");
		return;
	}
	PQclear(res);
	snprintf(title, sizeof(title), "board %s", name);
	page_head(f, title);
	fputs("<p class=\"meta\">", f);
	if (file) {
		h(f, b.cpu);
		fputs(b.emulated ? " (emulated)" : "", f);
		fputs("; lock: ", f);
		h(f, *who ? who : "free");
	} else {
		fputs("no board file in the board directory (used by path, ingested or LAVA "
		      "boots): lock holder unknown", f);
	}
	fputs(" &#183; <a href=\"/?board=", f);
	u(f, name);
	fputs("\">its campaigns</a></p>\n<h2>health checks</h2>\n", f);
	board_free(&b);
	res = q(w, r, "SELECT to_char(checked, 'YYYY-MM-DD HH24:MI:SS'), CASE WHEN ok THEN 'ok' "
		"ELSE 'FAILED' END, coalesce(uname_r, ''), coalesce(boot_ms::text, ''), "
		"coalesce(host, ''), coalesce(error, ''), coalesce(log_path, '') FROM health "
		"WHERE board = $1 ORDER BY checked DESC, id DESC LIMIT 50", 1, p);
	if (!res)
		return;
	fputs("<table class=\"sortable\"><thead><tr><th>checked</th><th>result</th>"
	      "<th>uname -r</th><th>boot ms</th><th>host</th><th>error</th><th>transcript</th>"
	      "</tr></thead><tbody>\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		fputs("<tr>", f);
		for (int k = 0; k < 7; k++) {
			fputs(k == 1 && *PQgetvalue(res, i, 1) == 'F' ? "<td class=\"v-diff\">" :
			      "<td>", f);
			if (k < 6)
				h(f, PQgetvalue(res, i, k));
			else
				transcript_link(w, f, PQgetvalue(res, i, 6));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (!PQntuples(res))
		fputs("<p>never checked</p>\n", f);
	PQclear(res);
	res = q(w, r, "SELECT c.id, to_char(c.created, 'YYYY-MM-DD HH24:MI'), c.trigger, "
		"coalesce(c.job->>'job', ''), " STORE_CAMPAIGN_STATUS_SQL("c") " FROM campaigns c "
		"WHERE c.id IN (SELECT b.campaign_id FROM boots b JOIN boards bo ON bo.id = "
		"b.board_id WHERE bo.name = $1) ORDER BY c.id DESC LIMIT 50", 1, p);
	if (!res)
		return;
	fputs("<h2>campaigns (latest 50)</h2>\n<table class=\"sortable\"><thead><tr><th>id</th>"
	      "<th>created</th><th>trigger</th><th>job</th><th>status</th></tr></thead><tbody>\n",
	      f);
	for (int i = 0; i < PQntuples(res); i++) {
		fprintf(f, "<tr><td><a href=\"/campaign/%s\">%s</a></td>", PQgetvalue(res, i, 0),
			PQgetvalue(res, i, 0));
		for (int k = 1; k < 5; k++) {
			fputs("<td>", f);
			h(f, PQgetvalue(res, i, k));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n<h2>failed attempts (latest 100)</h2>\n", f);
	PQclear(res);
	attempts_table(w, r, ATTEMPT_COLS "WHERE bo.name = $1 AND b.status = 'failed' ORDER BY "
		       "b.id DESC LIMIT 100", name, true);
	page_foot(f);
}

/* ------------------------------------------------------------------ trend */

static char *cmd_text(int (*fn)(FILE *, int, char **), const char **argv, int *rc)
{
	struct reply t = { 0 };

	t.f = open_memstream(&t.body, &t.len);
	if (!t.f)
		return NULL;
	*rc = run_cmd(fn, &t, argv);
	fclose(t.f);
	return t.body;
}

static void trend_page(struct web *w, struct MHD_Connection *c, struct reply *r)
{
	const char *job = arg(c, "job"), *scen = arg(c, "scenario"), *board = arg(c, "board");
	FILE *f = r->f;

	if (!job || !scen) {
		PGresult *res = q(w, r, "SELECT DISTINCT c.job->>'job', s.scenario FROM "
				  "campaigns c JOIN boots b ON b.campaign_id = c.id JOIN "
				  "boot_means s ON s.boot_id = b.id WHERE c.trigger = 'nightly' "
				  "ORDER BY 1, 2",
				  0, NULL);

		if (!res)
			return;
		page_head(f, "nightly trends");
		fputs("<ul>\n", f);
		for (int i = 0; i < PQntuples(res); i++) {
			fputs("<li><a href=\"/trend?job=", f);
			u(f, PQgetvalue(res, i, 0));
			fputs("&amp;scenario=", f);
			u(f, PQgetvalue(res, i, 1));
			fputs("\">", f);
			h(f, PQgetvalue(res, i, 0));
			fputs(": ", f);
			h(f, PQgetvalue(res, i, 1));
			fputs("</a></li>\n", f);
		}
		fputs("</ul>\n", f);
		if (!PQntuples(res))
			fputs("<p>no nightly campaigns yet</p>\n", f);
		PQclear(res);
		page_foot(f);
		return;
	}
	{
		const char *sv[] = { "trend", job, "--scenario", scen, "--format", "svg",
				     board ? "--board" : NULL, board, NULL };
		const char *tv[] = { "trend", job, "--scenario", scen, "--format", "text",
				     board ? "--board" : NULL, board, NULL };
		char title[256];
		int rc1 = 1, rc2 = 1;
		char *svg = cmd_text(cmd_trend_to, sv, &rc1), *txt = cmd_text(cmd_trend_to, tv,
									      &rc2);

		if (rc1 || rc2) {
			free(svg);
			free(txt);
			fail_page(r, 404, "no nightly campaign of this job has this scenario with "
				  "both kernels");
			return;
		}
		snprintf(title, sizeof(title), "trend: %s, %s%s%s", job, scen, board ? ", " : "",
			 board ? board : "");
		page_head(f, title);
		fputs("<figure class=\"plot\">", f);
		fputs(strstr(svg, "<svg") ? strstr(svg, "<svg") : "", f);
		fputs("</figure>\n<pre>", f);
		h(f, txt);
		fputs("</pre>\n", f);
		page_foot(f);
		free(svg);
		free(txt);
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

static void metrics(struct web *w, struct reply *r)
{
	PGresult *res;
	FILE *f = r->f;
	int counts[3] = { 0, 0, 0 };

	res = q(w, r, "SELECT current_setting('transaction_read_only')", 0, NULL);
	if (!res)
		return;
	fprintf(f, "# HELP ablab_serve_read_only 1 when the server's database session is "
		"read-only (default_transaction_read_only)\n# TYPE ablab_serve_read_only gauge\n"
		"ablab_serve_read_only %d\n", !strcmp(PQgetvalue(res, 0, 0), "on"));
	PQclear(res);
	res = q(w, r, "SELECT n.name, coalesce(h.ok::text, ''), coalesce(extract(epoch FROM "
		"h.checked)::bigint, 0) FROM (SELECT name FROM boards UNION SELECT board FROM "
		"health) n LEFT JOIN LATERAL (SELECT ok, checked FROM health WHERE board = n.name "
		"ORDER BY checked DESC, id DESC LIMIT 1) h ON true ORDER BY n.name", 0, NULL);
	if (!res)
		return;
	fputs("# HELP ablab_board_health_ok Last health check of the board: 1 ok, 0 failed, "
	      "-1 never checked\n# TYPE ablab_board_health_ok gauge\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		const char *ok = PQgetvalue(res, i, 1);

		counts[*ok == 't' ? 0 : *ok == 'f' ? 1 : 2]++;
		fputs("ablab_board_health_ok{board=\"", f);
		plabel(f, PQgetvalue(res, i, 0));
		fprintf(f, "\"} %d\n", *ok == 't' ? 1 : *ok == 'f' ? 0 : -1);
	}
	fputs("# HELP ablab_board_health_timestamp_seconds Time of the last health check\n"
	      "# TYPE ablab_board_health_timestamp_seconds gauge\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		if (!*PQgetvalue(res, i, 1))
			continue;
		fputs("ablab_board_health_timestamp_seconds{board=\"", f);
		plabel(f, PQgetvalue(res, i, 0));
		fprintf(f, "\"} %s\n", PQgetvalue(res, i, 2));
	}
	fprintf(f, "# HELP ablab_boards Boards by the result of their last health check\n"
		"# TYPE ablab_boards gauge\nablab_boards{health=\"ok\"} %d\n"
		"ablab_boards{health=\"failed\"} %d\nablab_boards{health=\"unchecked\"} %d\n",
		counts[0], counts[1], counts[2]);
	PQclear(res);
	res = q(w, r, "SELECT DISTINCT ON (c.job->>'job') c.job->>'job', "
		STORE_CAMPAIGN_STATUS_SQL("c") ", extract(epoch FROM c.created)::bigint, c.id "
		"FROM campaigns c WHERE c.trigger = 'nightly' AND c.job->>'job' IS NOT NULL "
		"ORDER BY c.job->>'job', c.created DESC, c.id DESC", 0, NULL);
	if (!res)
		return;
	fputs("# HELP ablab_nightly_last_timestamp_seconds Start of the job's last nightly "
	      "campaign\n# TYPE ablab_nightly_last_timestamp_seconds gauge\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		fputs("ablab_nightly_last_timestamp_seconds{job=\"", f);
		plabel(f, PQgetvalue(res, i, 0));
		fprintf(f, "\"} %s\n", PQgetvalue(res, i, 2));
	}
	fputs("# HELP ablab_nightly_last_status Status of the job's last nightly campaign (1 for "
	      "its status)\n# TYPE ablab_nightly_last_status gauge\n", f);
	for (int i = 0; i < PQntuples(res); i++) {
		fputs("ablab_nightly_last_status{job=\"", f);
		plabel(f, PQgetvalue(res, i, 0));
		fprintf(f, "\",status=\"%s\",campaign=\"%s\"} 1\n", PQgetvalue(res, i, 1),
			PQgetvalue(res, i, 3));
	}
	PQclear(res);
	res = q(w, r, "SELECT st, count(*) FROM (SELECT " STORE_CAMPAIGN_STATUS_SQL("c")
		" AS st FROM campaigns c) x GROUP BY st ORDER BY st", 0, NULL);
	if (!res)
		return;
	fputs("# HELP ablab_campaigns Campaigns by status\n# TYPE ablab_campaigns gauge\n", f);
	for (int i = 0; i < PQntuples(res); i++)
		fprintf(f, "ablab_campaigns{status=\"%s\"} %s\n", PQgetvalue(res, i, 0),
			PQgetvalue(res, i, 1));
	PQclear(res);
	r->type = "text/plain; version=0.0.4; charset=utf-8";
}

/* ------------------------------------------------------------------ static files */

static const char app_css[] =
	"body{font-family:sans-serif;margin:0;color:#222;background:#fff}\n"
	"header{background:#234;padding:.5em 1em}header a,header b{color:#fff;margin-right:1em}\n"
	"main{padding:0 1em 2em}table{border-collapse:collapse;margin:.5em 0}\n"
	"th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"th{background:#eef;cursor:pointer}tr:nth-child(even) td{background:#f8f8f8}\n"
	".v-diff{color:#b00;font-weight:bold}.v-same{color:#060}.v-open{color:#666}\n"
	".st-failed,.st-stale,.st-interrupted{color:#b00}.st-running{color:#a60}\n"
	"pre{background:#f4f4f4;padding:.5em;overflow-x:auto;max-width:100%}\n"
	"p.method{max-width:60em;line-height:1.4}.filters label{margin-right:.8em}\n"
	"figure.plot{margin:0;overflow-x:auto}\n";

/* JavaScript only sorts and filters tables and copies the email: every page works without */
static const char app_js[] =
	"'use strict';\n"
	"document.querySelectorAll('table.sortable').forEach(function (t) {\n"
	"  t.querySelectorAll('th').forEach(function (th, col) {\n"
	"    th.addEventListener('click', function () {\n"
	"      var tb = t.tBodies[0], rows = Array.from(tb.rows);\n"
	"      var dir = th.dataset.dir === '1' ? -1 : 1;\n"
	"      th.dataset.dir = dir === 1 ? '1' : '-1';\n"
	"      rows.sort(function (a, b) {\n"
	"        var x = a.cells[col].textContent, y = b.cells[col].textContent;\n"
	"        var nx = parseFloat(x), ny = parseFloat(y);\n"
	"        if (!isNaN(nx) && !isNaN(ny) && nx !== ny) return dir * (nx - ny);\n"
	"        return dir * x.localeCompare(y);\n"
	"      });\n"
	"      rows.forEach(function (r) { tb.appendChild(r); });\n"
	"    });\n"
	"  });\n"
	"});\n"
	"document.querySelectorAll('input.filter').forEach(function (inp) {\n"
	"  var t = document.getElementById(inp.dataset.table);\n"
	"  inp.hidden = false;\n"
	"  inp.addEventListener('input', function () {\n"
	"    var s = inp.value.toLowerCase();\n"
	"    Array.from(t.tBodies[0].rows).forEach(function (r) {\n"
	"      r.hidden = s !== '' && r.textContent.toLowerCase().indexOf(s) < 0;\n"
	"    });\n"
	"  });\n"
	"});\n"
	"document.querySelectorAll('button.copy').forEach(function (b) {\n"
	"  b.hidden = false;\n"
	"  b.addEventListener('click', function () {\n"
	"    navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent);\n"
	"  });\n"
	"});\n";

/* ------------------------------------------------------------------ dispatch */

static const char csp_page[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
			       "img-src 'self'; connect-src 'self'; base-uri 'none'; "
			       "form-action 'self'; frame-ancestors 'none'";

static void route(struct web *w, struct MHD_Connection *c, const char *url, struct reply *r)
{
	static const char *const query_keys[] = {
		"--board", "--scenario", "--variant", "--kernel", "--campaign", "--since",
		"--until", "--trigger", NULL
	};
	static const char *const campaigns_keys[] = { "--trigger", "--job", "--limit", NULL };

	if (!strcmp(url, "/") || !strcmp(url, "/campaigns"))
		campaigns_page(w, c, r);
	else if (!strncmp(url, "/campaign/", 10))
		campaign_page(w, r, url + 10);
	else if (!strcmp(url, "/boards"))
		boards_page(w, r);
	else if (!strncmp(url, "/board/", 7))
		board_page(w, r, url + 7);
	else if (!strcmp(url, "/trend"))
		trend_page(w, c, r);
	else if (!strncmp(url, "/results/", 9))
		serve_file(w, r, url + 9);
	else if (!strcmp(url, "/metrics"))
		metrics(w, r);
	else if (!strncmp(url, "/api/v1/report/", 15))
		api_report(w, r, url + 15);
	else if (!strcmp(url, "/api/v1/query"))
		api_list(c, r, "query", cmd_query_to, query_keys);
	else if (!strcmp(url, "/api/v1/campaigns"))
		api_list(c, r, "campaigns", cmd_campaigns_to, campaigns_keys);
	else if (!strcmp(url, "/api/v1/boards")) {
		const char *argv[] = { "boards", "--format", "json", NULL };

		api_json(r, run_cmd(cmd_boards_to, r, argv));
	} else if (!strcmp(url, "/static/app.css")) {
		fputs(app_css, r->f);
		r->type = "text/css; charset=utf-8";
		r->cache = "public, max-age=3600";
	} else if (!strcmp(url, "/static/app.js")) {
		fputs(app_js, r->f);
		r->type = "text/javascript; charset=utf-8";
		r->cache = "public, max-age=3600";
	} else {
		fail_page(r, 404, "no such page");
	}
}

static void add_headers(struct MHD_Response *resp, const struct reply *r)
{
	MHD_add_response_header(resp, "Content-Type", r->type);
	/* a transcript is untrusted text: never a document that can run anything */
	MHD_add_response_header(resp, "Content-Security-Policy", r->fd >= 0 ?
				"sandbox; default-src 'none'" : csp_page);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(resp, "X-Frame-Options", "DENY");
	MHD_add_response_header(resp, "Cache-Control", r->cache ? r->cache : "no-store");
	if (r->etag[0])
		MHD_add_response_header(resp, "ETag", r->etag);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **ctx)
{
	struct web *w = cls;
	struct reply r = { .status = 200, .type = "text/html; charset=utf-8", .fd = -1 };
	struct MHD_Response *resp;
	const char *inm;
	enum MHD_Result ret;
	int64_t t0 = now_ms();

	(void)version;
	(void)upload;
	if (!*ctx) {		/* headers only so far: answer on the next call */
		*ctx = c;
		return MHD_YES;
	}
	if (*upload_size)
		*upload_size = 0;
	r.f = open_memstream(&r.body, &r.len);
	if (!r.f)
		return MHD_NO;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		r.status = 405;
		r.type = "text/plain; charset=utf-8";
		fputs("read-only: GET and HEAD only\n", r.f);
	} else {
		route(w, c, url, &r);
	}
	fclose(r.f);
	inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
	if (r.status == 200 && r.etag[0] && inm && !strcmp(inm, r.etag)) {
		r.status = 304;
		resp = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
		free(r.body);
	} else if (r.fd >= 0) {
		resp = MHD_create_response_from_fd((uint64_t)r.fd_size, r.fd);
		free(r.body);
	} else {
		resp = MHD_create_response_from_buffer(r.len, r.body, MHD_RESPMEM_MUST_FREE);
	}
	if (!resp)
		return MHD_NO;
	add_headers(resp, &r);
	ret = MHD_queue_response(c, r.status, resp);
	MHD_destroy_response(resp);
	info_msg("%s %s %u %" PRId64 " ms", method, url, r.status, now_ms() - t0);
	return ret;
}

/* ------------------------------------------------------------------ serve */

char *web_conninfo_ro(const char *conninfo)
{
	if (!strncmp(conninfo, "postgresql://", 13) || !strncmp(conninfo, "postgres://", 11))
		return xasprintf("%s%coptions=-c%%20default_transaction_read_only%%3Don&"
				 "application_name=ablab-serve", conninfo,
				 strchr(conninfo, '?') ? '&' : '?');
	return xasprintf("%s options='-c default_transaction_read_only=on' "
			 "application_name=ablab-serve", conninfo);
}

static int parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
{
	char host[128];
	const char *colon = strrchr(s, ':');
	size_t hl;
	long port;
	char *end;

	if (!colon)
		return -EINVAL;
	port = strtol(colon + 1, &end, 10);
	if (*end || end == colon + 1 || port < 0 || port > 65535)
		return -EINVAL;
	hl = (size_t)(colon - s);
	if (hl >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = 0;
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[' && hl > 2 && host[hl - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[hl - 1] = 0;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*v6 = true;
		return inet_pton(AF_INET6, host + 1, &a->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	{
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*v6 = false;
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -EINVAL;
	}
}

int web_serve(const struct web_opts *o)
{
	const char *listen = o->listen ? o->listen : "127.0.0.1:8080";
	struct web w = { 0 };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *di;
	struct store st;
	PGresult *res;
	bool v6;
	int ret;

	if (parse_listen(listen, &ss, &v6)) {
		err_msg("serve: --listen \"%s\" is not ADDR:PORT (e.g. 127.0.0.1:8080, "
			"[::1]:8080, 0.0.0.0:8080 for every interface)", listen);
		return -EINVAL;
	}
	if (!realpath(o->results, w.root)) {
		info_msg("serve: results directory %s: %s; transcripts are not served",
			 o->results, strerror(errno));
		w.root[0] = 0;
	}
	/* a normal session first: starts the private cluster and applies migrations, so
	 * that the read-only sessions below find the schema current */
	ret = store_open(&st, o->db);
	if (ret)
		return ret;
	w.conninfo = web_conninfo_ro(st.conninfo);
	store_close(&st);
	ret = store_open(&w.st, w.conninfo);
	if (ret)
		goto out;
	res = store_query(&w.st, "SELECT current_setting('transaction_read_only')", 0, NULL);
	if (!res || strcmp(PQgetvalue(res, 0, 0), "on")) {
		err_msg("serve: the database session is not read-only (default_transaction_read_only was not applied): not serving");
		PQclear(res);
		ret = -EPERM;
		goto out;
	}
	PQclear(res);
	opt_db = w.conninfo;	/* the commands the API runs connect read-only too */
	install_signal_handlers();
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL,
			     handler, &w, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_CONNECTION_LIMIT, 64u,
			     MHD_OPTION_END);
	if (!d) {
		err_msg("serve: cannot listen on %s: %s", listen, strerror(errno));
		ret = -EADDRINUSE;
		goto out;
	}
	di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	{
		char host[128];
		const char *colon = strrchr(listen, ':');

		snprintf(host, sizeof(host), "%.*s", (int)(colon - listen), listen);
		info_msg("serving http://%s:%u/ (read-only database session; transcripts from %s)",
			 host, di ? di->port : 0, w.root[0] ? w.root : "nowhere");
	}
	while (!stop_requested)
		MHD_run_wait(d, 1000);
	MHD_stop_daemon(d);
	ret = 0;
out:
	store_close(&w.st);
	free(w.conninfo);
	return ret;
}
