// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the results database as web pages (web-pages.c), a JSON API and Prometheus
 * metrics (web-api.c), both over the output helpers of web-out.c; here the server above
 * them: routing, headers, transcripts, static files.  Everything from the database or a
 * transcript is untrusted text: it reaches a page only through web_h() (HTML-escaped) or
 * web_u() (percent-encoded), never as markup. */
#include "web/web.h"
#include "web/web-int.h"
#include "report/query.h"
#include "shared/opt.h"
#include "report/report.h"
#include "store/store-int.h"
#include "store/store-web.h"
#include "store/store.h"
#include "shared/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <libpq-fe.h>
#include <limits.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/* whether the database names path (a realpath below the root) as a boot's or a health
 * check's transcript: a log_path that resolves to it; false with r the answer */
static bool transcript_known(struct web *w, struct reply *r, const char *path)
{
	const char *p[2] = { path, strrchr(path, '/') + 1 };
	struct store_rows res;
	bool found = false;

	if (web_q(w, r, store_web_transcript, 2, p, &res))
		return false;
	for (size_t i = 0; i < res.nrows && !found; i++) {
		char *rp = realpath(store_text(&res, i, WTR_LOG_PATH), NULL);

		found = rp && !strcmp(rp, path);
		free(rp);
	}
	store_rows_free(&res);
	if (!found)
		web_fail_page(r, 404, "no such transcript in the results directory");
	return found;
}

static void serve_file(struct web *w, struct reply *r, const char *rel)
{
	char path[PATH_MAX];
	struct stat sb;
	int fd;

	if (web_confine(w->root, rel, path, sizeof(path))) {
		web_fail_page(r, 404, "no such transcript in the results directory");
		return;
	}
	/* only a transcript the database names (a boot's or a health check's log), not every
	 * file below the results directory (a spool file holds a board's power argv) */
	if (!transcript_known(w, r, path))
		return;
	/* O_NONBLOCK: a FIFO put in a transcript's place must not hang the server */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
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

static void route(struct web *w, const struct web_req *q, const char *url, struct reply *r)
{
	static const char *const query_keys[] = { "--board",  "--scenario", "--variant",
						  "--kernel", "--campaign", "--since",
						  "--until",  "--trigger",  "--limit",
						  "--offset", NULL };
	static const char *const campaigns_keys[] = { "--trigger", "--job", "--limit", NULL };

	if (!strcmp(url, "/") || !strcmp(url, "/campaigns"))
		web_campaigns_page(w, q, r);
	else if (!strncmp(url, "/campaign/", 10))
		web_campaign_page(w, r, url + 10);
	else if (!strcmp(url, "/boards"))
		web_boards_page(w, r);
	else if (!strncmp(url, "/board/", 7))
		web_board_page(w, r, url + 7);
	else if (!strcmp(url, "/trend"))
		web_trend_page(w, q, r);
	else if (!strncmp(url, "/results/", 9))
		serve_file(w, r, url + 9);
	else if (!strcmp(url, "/metrics"))
		web_metrics(w, r);
	else if (!strncmp(url, "/api/v1/report/", 15))
		web_api_report(w, r, url + 15);
	else if (!strcmp(url, "/api/v1/query"))
		web_api_list(q, r, "query", cmd_query_to, query_keys);
	else if (!strcmp(url, "/api/v1/campaigns"))
		web_api_list(q, r, "campaigns", cmd_campaigns_to, campaigns_keys);
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

/* s is UTF-8 (no overlong form, no surrogate, at most U+10FFFF) */
static bool utf8_ok(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (s && *u) {
		unsigned int c = *u,
			     n = c < 0x80	    ? 0 :
				 (c & 0xe0) == 0xc0 ? 1 :
				 (c & 0xf0) == 0xe0 ? 2 :
				 (c & 0xf8) == 0xf0 ? 3 :
						      4,
			     cp = c & (0x3f >> n);

		if (n == 4 || (n == 1 && c < 0xc2))
			return false;
		for (unsigned int i = 1; i <= n; i++) {
			if ((u[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (u[i] & 0x3f);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		u += n + 1;
	}
	return true;
}

/* A Host header this server answers (DNS rebinding: a page of another site whose name
 * now resolves to us sends that name): an address literal (IPv4, [IPv6]), localhost or a
 * --host-name, with or without a port.  No Host (HTTP/1.0) is answered. */
static bool host_ok(const struct web *w, const char *host)
{
	char name[256];
	const char *end;
	struct in6_addr a6;
	struct in_addr a4;
	size_t n;

	if (!host)
		return true;
	if (*host == '[') {
		end = strchr(host, ']');
		n = end ? (size_t)(end - host - 1) : 0;
		if (!end || n >= sizeof(name) ||
		    (end[1] && (end[1] != ':' || !web_digits(end + 2))))
			return false;
		memcpy(name, host + 1, n);
		name[n] = 0;
		return inet_pton(AF_INET6, name, &a6) == 1;
	}
	end = strrchr(host, ':');
	if (end && !web_digits(end + 1))
		return false;
	n = end ? (size_t)(end - host) : strlen(host);
	if (!n || n >= sizeof(name))
		return false;
	memcpy(name, host, n);
	name[n] = 0;
	if (name[n - 1] == '.') /* the root's dot: localhost. is localhost */
		name[n - 1] = 0;
	if (inet_pton(AF_INET, name, &a4) == 1 || !strcasecmp(name, "localhost"))
		return true;
	for (size_t i = 0; w->host_names && w->host_names[i]; i++)
		if (!strcasecmp(name, w->host_names[i]))
			return true;
	return false;
}

void web_answer(struct web *w, const struct web_req *q, struct reply *r)
{
	bool text_ok = utf8_ok(q->url);

	for (size_t i = 0; i < q->nargs && text_ok; i++)
		text_ok = utf8_ok(q->arg_key[i]) && utf8_ok(q->arg_val[i]);
	if (strcmp(q->method, "GET") && strcmp(q->method, "HEAD")) {
		r->status = 405;
		r->type = "text/plain; charset=utf-8";
		fputs("read-only: GET and HEAD only\n", r->f);
	} else if (!host_ok(w, web_header(q, "Host"))) {
		r->status = 421;
		r->type = "text/plain; charset=utf-8";
		fputs("misdirected request: this server answers its address, localhost and its --host-name, not the Host this request names\n",
		      r->f);
	} else if (q->too_many) {
		web_fail_page(r, 400, "too many query parameters or headers");
	} else if (!text_ok) {
		web_fail_page(r, 400, "the path and the query parameters are UTF-8 text");
	} else {
		route(w, q, q->url, r);
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
	if (r->link)
		MHD_add_response_header(resp, "Link", r->link);
}

/* ------------------------------------------------------------------ connections */

/* A connection's request has this long from the connection's start (or its previous
 * request's end) to its last header: a client that trickles a header a byte at a time is
 * cut off, not only one that sends nothing (the idle timeout). */
#define HEADER_DEADLINE_MS 10000

struct web_conn {
	struct MHD_Connection *c;
	int64_t since; /* ms: the connection's start, or its previous request's end */
	bool busy; /* its headers are in: a request being answered */
	bool cut;
	struct web_conn *prev, *next;
};

static struct web_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void conn_notify(void *cls, struct MHD_Connection *c, void **sock_ctx,
			enum MHD_ConnectionNotificationCode toe)
{
	struct web *w = cls;
	struct web_conn *t = *sock_ctx;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		t = xcalloc(1, sizeof(*t));
		t->c = c;
		t->since = now_ms();
		t->next = w->conns;
		if (w->conns)
			w->conns->prev = t;
		w->conns = t;
		*sock_ctx = t;
	} else if (t) {
		if (t->prev)
			t->prev->next = t->next;
		else
			w->conns = t->next;
		if (t->next)
			t->next->prev = t->prev;
		free(t);
		*sock_ctx = NULL;
	}
}

static void request_done(void *cls, struct MHD_Connection *c, void **ctx,
			 enum MHD_RequestTerminationCode toe)
{
	struct web_conn *t = conn_of(c);

	(void)cls;
	(void)ctx;
	(void)toe;
	if (t) {
		t->busy = false;
		t->since = now_ms();
	}
}

/* shuts the socket of every connection past the header deadline: libmicrohttpd then
 * finds it closed and drops it */
static void header_deadline(struct web *w)
{
	int64_t now = now_ms();

	for (struct web_conn *t = w->conns; t; t = t->next) {
		const union MHD_ConnectionInfo *ci;

		if (t->busy || t->cut || now - t->since < HEADER_DEADLINE_MS)
			continue;
		ci = MHD_get_connection_info(t->c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci)
			shutdown(ci->connect_fd, SHUT_RDWR);
		t->cut = true;
	}
}

static enum MHD_Result add_field(void *cls, enum MHD_ValueKind kind, const char *key,
				 const char *value)
{
	struct web_req *q = cls;
	bool arg = kind == MHD_GET_ARGUMENT_KIND;
	size_t *n = arg ? &q->nargs : &q->nheaders;

	if (*n >= WEB_MAX_FIELDS) {
		q->too_many = true;
		return MHD_NO;
	}
	(arg ? q->arg_key : q->hdr_key)[*n] = key;
	(arg ? q->arg_val : q->hdr_val)[*n] = value;
	(*n)++;
	return MHD_YES;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
			       const char *method, const char *version, const char *upload,
			       size_t *upload_size, void **ctx)
{
	struct web *w = cls;
	struct reply r = { .status = 200, .type = "text/html; charset=utf-8", .fd = -1 };
	struct web_req q = { .method = method, .url = url };
	struct MHD_Response *resp;
	const char *inm;
	enum MHD_Result ret;
	int64_t t0 = now_ms();

	(void)version;
	(void)upload;
	if (!*ctx) { /* headers only so far: answer on the next call */
		struct web_conn *t = conn_of(c);

		if (t)
			t->busy = true;
		*ctx = c;
		return MHD_YES;
	}
	if (*upload_size)
		*upload_size = 0;
	r.f = open_memstream(&r.body, &r.len);
	if (!r.f)
		return MHD_NO;
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_field, &q);
	MHD_get_connection_values(c, MHD_HEADER_KIND, add_field, &q);
	web_answer(w, &q, &r);
	fclose(r.f);
	inm = web_header(&q, "If-None-Match");
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
	if (!resp) {
		free(r.link);
		return MHD_NO;
	}
	add_headers(resp, &r);
	ret = MHD_queue_response(c, r.status, resp);
	MHD_destroy_response(resp);
	free(r.link);
	{ /* a control byte in the URL (decoded %0A, an ESC) must not forge log lines */
		char *m = log_safe(method), *u = log_safe(url);

		info_msg("%s %s %u %" PRId64 " ms", m, u, r.status, now_ms() - t0);
		free(m);
		free(u);
	}
	return ret;
}

/* ------------------------------------------------------------------ serve */

char *web_conninfo_ro(const char *conninfo, unsigned int timeout_s)
{
	if (!strncmp(conninfo, "postgresql://", 13) || !strncmp(conninfo, "postgres://", 11))
		return xasprintf(
			"%s%coptions=-c%%20default_transaction_read_only%%3Don%%20-c%%20statement_timeout%%3D%us&application_name=ablab-serve",
			conninfo, strchr(conninfo, '?') ? '&' : '?', timeout_s);
	return xasprintf(
		"%s options='-c default_transaction_read_only=on -c statement_timeout=%us' application_name=ablab-serve",
		conninfo, timeout_s);
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
	unsigned int timeout_s = o->statement_timeout_s ? o->statement_timeout_s : 10;
	const char *ext = o->db && *o->db ? o->db : getenv("ABLAB_DB");
	struct web w = { .host_names = o->host_names };
	struct sockaddr_storage ss;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *di;
	struct store st;
	struct store_rows res;
	char *reader = NULL;
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
	 * that the read-only sessions below find the schema current; on the private cluster
	 * it also makes the reader role serve connects as (not a superuser: no COPY ... TO
	 * PROGRAM, no pg_read_file, whatever a request could make it run) */
	ret = store_open(&st, o->db);
	if (ret)
		return ret;
	if (!ext || !*ext) {
		ret = store_private_reader(&st, &reader);
		if (ret) {
			store_close(&st);
			return ret;
		}
	}
	w.conninfo = web_conninfo_ro(reader ? reader : st.conninfo, timeout_s);
	free(reader);
	store_close(&st);
	ret = store_open(&w.st, w.conninfo);
	if (ret)
		goto out;
	if (store_rows_query(&w.st, store_web_session, 0, NULL, &res) || !res.nrows ||
	    strcmp(store_text(&res, 0, WSE_READ_ONLY), "on")) {
		err_msg("serve: the database session is not read-only (default_transaction_read_only was not applied): not serving");
		store_rows_free(&res);
		ret = -EPERM;
		goto out;
	}
	if (strcmp(store_text(&res, 0, WSE_SUPERUSER), "off"))
		info_msg(
			"serve: warning: the database role %s is a superuser (--db / ABLAB_DB): read-only is a session default, not a boundary; give serve a role without SUPERUSER",
			store_text(&res, 0, WSE_USER));
	store_rows_free(&res);
	opt_db = w.conninfo; /* the commands the API runs connect read-only too */
	install_signal_handlers();
	/* one thread, epoll: an idle connection costs a descriptor, not a thread; one client
	 * address holds at most 16 of the 512 (a browser opens 6), a connection quiet for 10 s
	 * is closed, and one whose headers are not all in 10 s after it opened (or after its
	 * previous request) too */
	d = MHD_start_daemon(MHD_USE_ERROR_LOG | MHD_USE_EPOLL | (v6 ? MHD_USE_IPv6 : 0), 0, NULL,
			     NULL, handler, &w, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_CONNECTION_LIMIT, 512u,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, 16u, MHD_OPTION_NOTIFY_CONNECTION,
			     conn_notify, &w, MHD_OPTION_NOTIFY_COMPLETED, request_done, &w,
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
		info_msg(
			"serving http://%s:%u/ (read-only database session, statement timeout %u s; transcripts from %s)",
			host, di ? di->port : 0, timeout_s, w.root[0] ? w.root : "nowhere");
	}
	while (!stop_requested) {
		MHD_run_wait(d, 1000);
		header_deadline(&w);
	}
	MHD_stop_daemon(d);
	ret = 0;
out:
	store_close(&w.st);
	free(w.conninfo);
	return ret;
}
