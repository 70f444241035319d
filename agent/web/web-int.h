/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_WEB_INT_H
#define ABLAB_WEB_INT_H

/*
 * What the files of `ablab serve` share and nothing else includes: web.c (the server:
 * routing, headers, static files; above the others), web-pages.c (the HTML pages),
 * web-api.c (the JSON API and the metrics), web-out.c (the output helpers, below both).
 */
#include "store/store.h"

#include <json-c/json.h>
#include <limits.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct web {
	struct store st; /* the pages' read-only connection */
	char *conninfo; /* read-only conninfo, also opt_db for the commands; NULL: no database */
	char root[PATH_MAX]; /* realpath of the results directory ("" if none) */
	/* the names a Host header may give besides an address literal and localhost
	 * (--host-name), NULL-terminated */
	const char *const *host_names;
	struct web_conn *conns; /* the open connections (web.c: the header deadline) */
};

/* One request as the handler sees it, without a socket: its decoded query parameters and
 * headers (web_request() fills one from a libmicrohttpd connection, the fuzz harness from
 * bytes). */
#define WEB_MAX_FIELDS 64
struct web_req {
	const char *method, *url; /* url: decoded path, without the query string */
	size_t nargs, nheaders;
	const char *arg_key[WEB_MAX_FIELDS], *arg_val[WEB_MAX_FIELDS]; /* val NULL: "?key" */
	const char *hdr_key[WEB_MAX_FIELDS], *hdr_val[WEB_MAX_FIELDS];
	bool too_many; /* more than WEB_MAX_FIELDS of either */
};

/* One answer being built: body in a memory stream, status, type, cache headers. */
struct reply {
	FILE *f;
	char *body;
	size_t len;
	unsigned int status;
	const char *type;
	char etag[128];
	const char *cache; /* Cache-Control, default no-store */
	int fd; /* a transcript: served from this file instead of body */
	off_t fd_size;
	char *link; /* a Link header (the next page), malloc'd; NULL: none */
};

/* web-out.c: output helpers.  Untrusted text reaches a page only through these two. */
void web_h(FILE *f, const char *s); /* HTML-escaped (&, <, >, ", ') */
void web_u(FILE *f, const char *s); /* percent-encoded */
/* percent-encoded, keeping '/' when path */
void web_u_enc(FILE *f, const char *s, bool path);
/* a query parameter, NULL when absent or empty */
const char *web_arg(const struct web_req *q, const char *key);
/* a header (name case-insensitive), NULL when absent */
const char *web_header(const struct web_req *q, const char *name);
/* The answer to q in r (r->f open, r->status 200, r->fd -1): routing, the Host check, the
 * parameters' checks. */
void web_answer(struct web *w, const struct web_req *q, struct reply *r);
/* a number member of o, NaN when absent */
double web_jnum(json_object *o, const char *key);
void web_page_head(FILE *f, const char *title);
void web_page_foot(FILE *f);
/* r rewritten as an error page with status (404, 400, 5xx) saying what */
void web_fail_page(struct reply *r, unsigned int status, const char *what);
/* the pages' connection, reconnected if the server went away; NULL when down */
struct store *web_db(struct web *w);
/* a query on the pages' connection: 0 with its rows in *t (store_rows_free()), or -EIO with
 * r a 503 page */
int web_q(struct web *w, struct reply *r, const char *sql, int np, const char *const *p,
	  struct store_rows *t);
/* a command's function (cmd_X_to: report/query.h, web.h) run on argv, its output the answer; its exit */
int web_run_cmd(int (*fn)(FILE *, int, char **), struct reply *r, const char **argv);
bool web_digits(const char *s); /* non-empty, only 0-9 */
/* false when s starts with YYYY-MM-DD that is no day of the calendar (2026-02-31) */
bool web_date_ok(const char *s);
/* r's ETag from the campaign's state (kind "page" or "api"); -1 with r an error page */
int web_campaign_state(struct web *w, struct reply *r, const char *id, const char *kind,
		       bool *finished);

/* web-pages.c */
void web_campaigns_page(struct web *w, const struct web_req *q, struct reply *r);
void web_campaign_page(struct web *w, struct reply *r, const char *id);
void web_boards_page(struct web *w, struct reply *r);
void web_board_page(struct web *w, struct reply *r, const char *name);
void web_trend_page(struct web *w, const struct web_req *q, struct reply *r);

/* web-api.c */
void web_api_json(struct reply *r, int rc);
void web_api_report(struct web *w, struct reply *r, const char *id);
void web_api_list(const struct web_req *q, struct reply *r, const char *cmd,
		  int (*fn)(FILE *, int, char **), const char *const *opts);
void web_metrics(struct web *w, struct reply *r);

#endif
