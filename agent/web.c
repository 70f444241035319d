// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the results database as web pages (web-pages.c), a JSON API and Prometheus
 * metrics (web-api.c); here the server: routing, headers, transcripts, static files and the
 * output helpers (web.h, web-int.h).  Everything from the database or a transcript is
 * untrusted text: it reaches a page only through web_h() (HTML-escaped) or web_u()
 * (percent-encoded), never as markup. */
#include "web.h"
#include "web-int.h"
#include "cmds.h"
#include "report.h"
#include "store-web.h"
#include "store.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ output helpers */

/* HTML-escaped text (&, <, >, ", '): the report's escaper (report-prose.c) */
void web_h(FILE *f, const char *s)
{
	xml_escape(f, s);
}

/* percent-encoded (keep: unreserved characters, and '/' when path) */
void web_u_enc(FILE *f, const char *s, bool path)
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

void web_u(FILE *f, const char *s)
{
	web_u_enc(f, s, false);
}

const char *web_arg(struct MHD_Connection *c, const char *key)
{
	const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	return v && *v ? v : NULL;
}

double web_jnum(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return NAN;
	return json_object_get_double(v);
}

void web_page_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	      "<title>",
	      f);
	web_h(f, title);
	fputs(" - ablab</title><link rel=\"stylesheet\" href=\"/static/app.css\">"
	      "<script src=\"/static/app.js\" defer></script></head>\n<body><header><nav>"
	      "<b>ablab</b> <a href=\"/\">campaigns</a> <a href=\"/boards\">boards</a> "
	      "<a href=\"/trend\">trends</a> <a href=\"/metrics\">metrics</a> "
	      "<a href=\"/api/v1/campaigns\">API</a></nav></header>\n<main>\n<h1>",
	      f);
	web_h(f, title);
	fputs("</h1>\n", f);
}

void web_page_foot(FILE *f)
{
	fputs("</main></body></html>\n", f);
}

void web_fail_page(struct reply *r, unsigned int status, const char *what)
{
	rewind(r->f);
	r->status = status;
	r->type = "text/html; charset=utf-8";
	r->cache = NULL;
	r->etag[0] = 0;
	web_page_head(r->f, status == 404 ? "not found" :
			    status == 400 ? "bad request" :
					    "server error");
	fputs("<p>", r->f);
	web_h(r->f, what);
	fputs("</p>\n", r->f);
	web_page_foot(r->f);
}

/* the pages' connection, reconnected if the server went away */
struct store *web_db(struct web *w)
{
	return store_alive(&w->st) ? &w->st : NULL;
}

int web_q(struct web *w, struct reply *r, const char *sql, int np, const char *const *p,
	  struct store_rows *t)
{
	struct store *st = web_db(w);
	int ret = st ? store_rows_query(st, sql, np, p, t) : -EIO;

	if (ret)
		web_fail_page(r, 503, "the results database did not answer (see the server's log)");
	return ret;
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
	if (rp && !strncmp(rp, root, n) && rp[n] == '/' && !stat(rp, &sb) && S_ISREG(sb.st_mode) &&
	    strlen(rp) < len) {
		snprintf(out, len, "%s", rp);
		ret = 0;
	}
	free(p);
	free(rp);
	return ret;
}

/* s with its control bytes and DEL as \xNN (a request log line stays one line) */
static char *log_safe(const char *s)
{
	struct buf b = { 0 };

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			buf_printf(&b, "\\x%02x", c);
		else
			buf_append(&b, s, 1);
	}
	buf_append(&b, "", 1);
	return b.data;
}

static void serve_file(struct web *w, struct reply *r, const char *rel)
{
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (web_confine(w->root, rel, path, sizeof(path)) ||
	    /* O_NONBLOCK: a FIFO put in a transcript's place must not hang the server */
	    (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		web_fail_page(r, 404, "no such transcript in the results directory");
		return;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		web_fail_page(r, 404, "no such transcript in the results directory");
		return;
	}
	r->fd = fd;
	r->fd_size = sb.st_size;
	r->type = "text/plain; charset=utf-8";
}

/* ------------------------------------------------------------------ the commands */

/* Runs a command's function (cmds.h: cmd_X_to) on argv with its output to r: what the
 * command prints is the answer.  The server has one thread, so getopt's state is ours. */
int web_run_cmd(int (*fn)(FILE *, int, char **), struct reply *r, const char **argv)
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

bool web_digits(const char *s)
{
	if (!s || !*s || strlen(s) > 9)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* ETag of a campaign: its state, boots, calibrations (the MDE) and the schema; NULL
 * status when there is no such campaign */
int web_campaign_state(struct web *w, struct reply *r, const char *id, const char *kind,
		       bool *finished)
{
	const char *p[1] = { id };
	struct store_rows res;
	const char *s;

	if (!web_digits(id)) {
		web_fail_page(r, 404, "no such campaign");
		return -ENOENT;
	}
	if (web_q(w, r, store_web_campaign_state, 1, p, &res))
		return -EIO;
	if (!res.nrows) {
		store_rows_free(&res);
		web_fail_page(r, 404, "no such campaign");
		return -ENOENT;
	}
	s = store_text(&res, 0, 0);
	*finished = !strcmp(s, "complete") || !strcmp(s, "failed") || !strcmp(s, "interrupted");
	if (*finished) {
		snprintf(r->etag, sizeof(r->etag), "\"%s-%s-%s-%s-%s-%s\"", kind, id,
			 store_text(&res, 0, 1), store_text(&res, 0, 2), store_text(&res, 0, 3),
			 store_text(&res, 0, 4));
		r->cache = "public, max-age=60, must-revalidate";
	}
	store_rows_free(&res);
	return 0;
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
	static const char *const query_keys[] = { "--board",  "--scenario", "--variant",
						  "--kernel", "--campaign", "--since",
						  "--until",  "--trigger",  NULL };
	static const char *const campaigns_keys[] = { "--trigger", "--job", "--limit", NULL };

	if (!strcmp(url, "/") || !strcmp(url, "/campaigns"))
		web_campaigns_page(w, c, r);
	else if (!strncmp(url, "/campaign/", 10))
		web_campaign_page(w, r, url + 10);
	else if (!strcmp(url, "/boards"))
		web_boards_page(w, r);
	else if (!strncmp(url, "/board/", 7))
		web_board_page(w, r, url + 7);
	else if (!strcmp(url, "/trend"))
		web_trend_page(w, c, r);
	else if (!strncmp(url, "/results/", 9))
		serve_file(w, r, url + 9);
	else if (!strcmp(url, "/metrics"))
		web_metrics(w, r);
	else if (!strncmp(url, "/api/v1/report/", 15))
		web_api_report(w, r, url + 15);
	else if (!strcmp(url, "/api/v1/query"))
		web_api_list(c, r, "query", cmd_query_to, query_keys);
	else if (!strcmp(url, "/api/v1/campaigns"))
		web_api_list(c, r, "campaigns", cmd_campaigns_to, campaigns_keys);
	else if (!strcmp(url, "/api/v1/boards")) {
		const char *argv[] = { "boards", "--format", "json", NULL };

		web_api_json(r, web_run_cmd(cmd_boards_to, r, argv));
	} else if (!strcmp(url, "/static/app.css")) {
		fputs(app_css, r->f);
		r->type = "text/css; charset=utf-8";
		r->cache = "public, max-age=3600";
	} else if (!strcmp(url, "/static/app.js")) {
		fputs(app_js, r->f);
		r->type = "text/javascript; charset=utf-8";
		r->cache = "public, max-age=3600";
	} else {
		web_fail_page(r, 404, "no such page");
	}
}

static void add_headers(struct MHD_Response *resp, const struct reply *r)
{
	MHD_add_response_header(resp, "Content-Type", r->type);
	/* a transcript is untrusted text: never a document that can run anything */
	MHD_add_response_header(resp, "Content-Security-Policy",
				r->fd >= 0 ? "sandbox; default-src 'none'" : csp_page);
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
	if (!*ctx) { /* headers only so far: answer on the next call */
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
	{ /* a control byte in the URL (decoded %0A, an ESC) must not forge log lines */
		char *m = log_safe(method), *u = log_safe(url);

		info_msg("%s %s %u %" PRId64 " ms", m, u, r.status, now_ms() - t0);
		free(m);
		free(u);
	}
	return ret;
}

/* ------------------------------------------------------------------ serve */

char *web_conninfo_ro(const char *conninfo)
{
	if (!strncmp(conninfo, "postgresql://", 13) || !strncmp(conninfo, "postgres://", 11))
		return xasprintf(
			"%s%coptions=-c%%20default_transaction_read_only%%3Don&application_name=ablab-serve",
			conninfo, strchr(conninfo, '?') ? '&' : '?');
	return xasprintf(
		"%s options='-c default_transaction_read_only=on' application_name=ablab-serve",
		conninfo);
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
	struct store_rows res;
	bool v6;
	int ret;

	if (parse_listen(listen, &ss, &v6)) {
		err_msg("serve: --listen \"%s\" is not ADDR:PORT (e.g. 127.0.0.1:8080, [::1]:8080, 0.0.0.0:8080 for every interface)",
			listen);
		return -EINVAL;
	}
	if (!realpath(o->results, w.root)) {
		info_msg("serve: results directory %s: %s; transcripts are not served", o->results,
			 strerror(errno));
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
	if (store_rows_query(&w.st, store_web_read_only, 0, NULL, &res) || !res.nrows ||
	    strcmp(store_text(&res, 0, 0), "on")) {
		err_msg("serve: the database session is not read-only (default_transaction_read_only was not applied): not serving");
		store_rows_free(&res);
		ret = -EPERM;
		goto out;
	}
	store_rows_free(&res);
	opt_db = w.conninfo; /* the commands the API runs connect read-only too */
	install_signal_handlers();
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | (v6 ? MHD_USE_IPv6 : 0), 0, NULL, NULL, handler,
			     &w, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
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
