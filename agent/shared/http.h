/* SPDX-License-Identifier: GPL-2.0-only */
/* One HTTP request that carries an API token (shared/http.c): LAVA's and patchwork's REST
 * clients. */
#ifndef ABLAB_HTTP_H
#define ABLAB_HTTP_H

#include "shared/mem.h"

#include <stddef.h>

struct http_token_req {
	const char *who; /* in messages: "LAVA server", "patchwork" */
	const char *opt, *base; /* the option that names the server and its value */
	const char *token; /* sent as "Authorization: Token TOKEN" */
	const char *url;
	const char *body; /* NULL: GET; else a POST of this JSON */
	long timeout_s;
	size_t max_body; /* a larger answer is not read: -EFBIG */
	int redirect_err; /* returned for a 3xx (said): the token goes to url's server only */
};

/* The request: http(s) only, no redirect followed, no answer over max_body.  0 with *code
 * and the body in out (NUL-ended), or -ENOMEM, -EFBIG, -EIO, r->redirect_err (each said). */
int http_token_request(const struct http_token_req *r, struct buf *out, long *code);

#endif
