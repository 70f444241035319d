// SPDX-License-Identifier: GPL-2.0-only
/* One HTTP request with an API token (http.h), for LAVA's and patchwork's REST clients:
 * the token goes with it to the request's server only. */
#include "shared/http.h"
#include "shared/msg.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>

struct sink {
	struct buf *out;
	size_t max;
};

static size_t sink(char *p, size_t sz, size_t n, void *ud)
{
	struct sink *s = ud;

	if (s->out->len + sz * n > s->max)
		return 0; /* CURLE_WRITE_ERROR */
	buf_append(s->out, p, sz * n);
	return sz * n;
}

/* the request's outcome said: 0 or -errno */
static int http_result(const struct http_token_req *r, CURLcode rc, const char *errbuf, long code)
{
	if (rc == CURLE_WRITE_ERROR || rc == CURLE_FILESIZE_EXCEEDED) {
		err_msg("%s %s: response larger than %zu MiB; not read", r->who, r->url,
			r->max_body >> 20);
		return -EFBIG;
	}
	if (rc != CURLE_OK) {
		err_msg("%s %s: %s", r->who, r->url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		return -EIO;
	}
	if (code >= 300 && code < 400) {
		err_msg("%s %s: HTTP %ld redirect not followed (the token goes only to %s %s): give the final URL as %s",
			r->who, r->url, code, r->opt, r->base, r->opt);
		return r->redirect_err;
	}
	return 0;
}

int http_token_request(const struct http_token_req *r, struct buf *out, long *code)
{
	char *auth = xasprintf("Authorization: Token %s", r->token);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink s = { out, r->max_body };
	struct curl_slist *hd = NULL;
	CURL *cu = curl_easy_init();
	CURLcode rc;

	*code = 0;
	if (!cu) {
		free(auth);
		return -ENOMEM;
	}
	hd = curl_slist_append(hd, auth);
	hd = curl_slist_append(hd, "Accept: application/json");
	if (r->body)
		hd = curl_slist_append(hd, "Content-Type: application/json");
	curl_easy_setopt(cu, CURLOPT_URL, r->url);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, hd);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(cu, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 15L);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT, r->timeout_s);
	/* the token goes only to this server: http(s) only, no redirect followed (a 3xx is
	 * an error), no body larger than max_body */
	curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(cu, CURLOPT_REDIR_PROTOCOLS_STR, "https");
	curl_easy_setopt(cu, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(cu, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	if (r->body) {
		curl_easy_setopt(cu, CURLOPT_POST, 1L);
		curl_easy_setopt(cu, CURLOPT_POSTFIELDS, r->body);
	}
	rc = curl_easy_perform(cu);
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, code);
	curl_slist_free_all(hd);
	curl_easy_cleanup(cu);
	free(auth);
	buf_append(out, "", 1);
	out->len--;
	return http_result(r, rc, errbuf, *code);
}
