// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the request path of `ablab serve` (web_answer in agent/web/web.c) without a
 * socket.  The input is a request as it comes on the wire: "METHOD TARGET" on the first
 * line, then "Name: value" header lines; the target's path and query string are split and
 * percent-decoded as libmicrohttpd does (MHD_http_unescape, '+' a space in the query).  The
 * routing, the Host check, the UTF-8 and date checks, the paging and the commands' option
 * parsing (getopt on the query's values) run; the database is a socket that is not there,
 * so every page that needs it answers 503.  Any bytes: an answer, never a crash or a leak. */
#include "web/web-int.h"
#include "cmd/cmds.h"

#include <limits.h>
#include <microhttpd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *next_line(char **s)
{
	char *l = *s, *e;

	if (!l)
		return NULL;
	e = strchr(l, '\n');
	if (e) {
		*e = 0;
		if (e > l && e[-1] == '\r')
			e[-1] = 0;
		*s = e + 1;
	} else {
		*s = NULL;
	}
	return l;
}

static void add(struct web_req *q, bool arg, const char *k, const char *v)
{
	size_t *n = arg ? &q->nargs : &q->nheaders;

	if (*n >= WEB_MAX_FIELDS) {
		q->too_many = true;
		return;
	}
	(arg ? q->arg_key : q->hdr_key)[*n] = k;
	(arg ? q->arg_val : q->hdr_val)[*n] = v;
	(*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct web w;
	static bool init;
	static const char *const names[] = { "lab.example", NULL };
	struct reply r = { .status = 200, .type = "text/html; charset=utf-8", .fd = -1 };
	struct web_req q = { 0 };
	char *buf, *s, *line, *target, *qs;

	if (!init) {
		if (!realpath("../../tests/fixtures", w.root))
			w.root[0] = 0;
		w.host_names = names;
		w.conninfo = NULL; /* no database: 503 */
		/* the commands the API runs: a database that is not there, refused at once */
		opt_db = "host=/nonexistent-ablab-fuzz dbname=ablab connect_timeout=1";
		init = true;
	}
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = 0;
	s = buf;
	line = next_line(&s);
	target = strchr(line, ' ');
	if (!target) {
		free(buf);
		return 0;
	}
	*target++ = 0;
	q.method = line;
	qs = strchr(target, '?');
	if (qs) {
		*qs++ = 0;
		for (char *save = NULL, *kv = strtok_r(qs, "&", &save); kv;
		     kv = strtok_r(NULL, "&", &save)) {
			char *eq = strchr(kv, '=');

			for (char *p = kv; *p; p++)
				if (*p == '+')
					*p = ' ';
			if (eq) {
				*eq++ = 0;
				MHD_http_unescape(eq);
			}
			MHD_http_unescape(kv);
			add(&q, true, kv, eq);
		}
	}
	MHD_http_unescape(target);
	q.url = target;
	while ((line = next_line(&s))) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon++ = 0;
		while (*colon == ' ')
			colon++;
		add(&q, false, line, colon);
	}
	r.f = open_memstream(&r.body, &r.len);
	if (r.f) {
		web_answer(&w, &q, &r);
		fclose(r.f);
		if (r.status < 200 || r.status > 599)
			abort();
	}
	if (r.fd >= 0)
		close(r.fd);
	free(r.body);
	free(r.link);
	free(buf);
	return 0;
}
