// SPDX-License-Identifier: GPL-2.0-only
/* What the pages (web-pages.c) and the API (web-api.c) of `ablab serve` share, below
 * both: the output helpers, the pages' database connection, the commands run for an
 * answer and the parameters' checks (web-int.h).  Untrusted text reaches a page only
 * through web_h() (HTML-escaped) or web_u() (percent-encoded). */
#include "web/web-int.h"
#include "report/report.h"
#include "store/store-int.h"
#include "store/store-web.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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

const char *web_arg(const struct web_req *q, const char *key)
{
	for (size_t i = 0; i < q->nargs; i++)
		if (!strcmp(q->arg_key[i], key))
			return q->arg_val[i] && *q->arg_val[i] ? q->arg_val[i] : NULL;
	return NULL;
}

const char *web_header(const struct web_req *q, const char *name)
{
	for (size_t i = 0; i < q->nheaders; i++)
		if (!strcasecmp(q->hdr_key[i], name))
			return q->hdr_val[i];
	return NULL;
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
	if (!w->conninfo)
		return NULL;
	if (!w->st.conn)
		w->st.conn = PQconnectdb(w->conninfo);
	return store_alive(&w->st) ? &w->st : NULL;
}

/* sql on the pages' connection; a connection the server closed (a database restart since
 * the last request) is reconnected and the query run once more.  NULL with *status the
 * answer: 400 for a value the database refuses as data (SQLSTATE class 22: a date that is
 * no date, bytes that are no UTF-8), else 503. */
static PGresult *web_exec(struct web *w, const char *sql, int np, const char *const *p,
			  unsigned int *status)
{
	*status = 503;
	for (int attempt = 0; attempt < 2; attempt++) {
		struct store *st = web_db(w);
		PGresult *res;
		const char *state;

		if (!st)
			continue;
		res = PQexecParams(st->conn, sql, np, NULL, p, NULL, NULL, 0);
		if (PQresultStatus(res) == PGRES_TUPLES_OK ||
		    PQresultStatus(res) == PGRES_COMMAND_OK)
			return res;
		if (PQstatus(st->conn) != CONNECTION_OK) {
			PQclear(res); /* the server went away: reconnect, once more */
			continue;
		}
		state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
		if (state && !strncmp(state, "22", 2))
			*status = 400;
		err_msg("serve: database: %s", PQresultErrorMessage(res));
		PQclear(res);
		return NULL;
	}
	return NULL;
}

int web_q(struct web *w, struct reply *r, const char *sql, int np, const char *const *p,
	  struct store_rows *t)
{
	unsigned int status;
	int ret = store_rows_take(web_exec(w, sql, np, p, &status), t);

	if (ret)
		web_fail_page(r, status,
			      status == 400 ?
				      "a parameter is not a valid value (a date, UTF-8 text)" :
				      "the results database did not answer (see the server's log)");
	return ret;
}

/* ------------------------------------------------------------------ the commands */

/* Runs a command's function (cmd_X_to: report/query.h, web.h) on argv with its output to r: what the
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

bool web_date_ok(const char *s)
{
	struct tm tm = { 0 }, t2;
	time_t t;

	if (!s || !strptime(s, "%Y-%m-%d", &tm))
		return true; /* no date at its start: not ours to judge */
	t2 = tm;
	t2.tm_hour = 12;
	t = timegm(&t2);
	return gmtime_r(&t, &t2) && t2.tm_mday == tm.tm_mday && t2.tm_mon == tm.tm_mon &&
	       tm.tm_year > -1900 && tm.tm_year < 8100;
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
	s = store_text(&res, 0, WCS_STATUS);
	*finished = !strcmp(s, "complete") || !strcmp(s, "failed") || !strcmp(s, "interrupted");
	if (*finished) {
		snprintf(r->etag, sizeof(r->etag), "\"%s-%s-%s-%s-%s-%s\"", kind, id,
			 store_text(&res, 0, WCS_FINISHED), store_text(&res, 0, WCS_BOOTS),
			 store_text(&res, 0, WCS_CALIBRATION), store_text(&res, 0, WCS_SCHEMA));
		r->cache = "public, max-age=60, must-revalidate";
	}
	store_rows_free(&res);
	return 0;
}
