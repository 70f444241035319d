// SPDX-License-Identifier: GPL-2.0-only
/* One LAVA job, run (lava-api.h): the REST client of a LAVA server (submit,
 * wait, fetch the log and the test cases; the API token goes to the
 * --server's origin only), and lava-run on this host for --local. */
#include "lava/lava-api.h"
#include "lava/lava.h"
#include "shared/http.h"
#include "shared/util.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void lava_api_init(void)
{
	curl_global_init(CURL_GLOBAL_DEFAULT);
}

void lava_api_cleanup(void)
{
	curl_global_cleanup();
}

void lava_result_free(struct lava_result *r)
{
	free(r->failure);
	free(r->log);
	if (r->tests)
		json_object_put(r->tests);
	memset(r, 0, sizeof(*r));
}

/* The largest response body taken from a LAVA server (a boot's whole job
 * log is a few MB); a larger one fails the request instead of filling memory. */
#define LAVA_MAX_BODY (32u << 20)

/* scheme, host and port of url (port filled in from the scheme), lower case */
static int url_origin(const char *url, char *o, size_t len)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int ret = -EINVAL;

	if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	    curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
		char *c;

		snprintf(o, len, "%s://%s:%s", scheme, host, port);
		for (c = o; *c; c++)
			*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
		ret = 0;
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return ret;
}

/* The token goes to the --server's origin only: a URL the server hands us
 * (a "next" page) must have the same scheme, host and port. */
static bool same_origin(const struct lava_conn *c, const char *url)
{
	char a[512], b[512];

	return !url_origin(c->server, a, sizeof(a)) && !url_origin(url, b, sizeof(b)) &&
	       !strcmp(a, b);
}

/* An address parsed, not a name's prefix ("127.attacker.example" is a name anyone may
 * own): 127.0.0.0/8, [::1] (or an IPv4-mapped 127.x), or the name localhost. */
static bool host_is_loopback(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;
	char in[64];
	size_t l = strlen(host);

	if (!strcasecmp(host, "localhost"))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (l < 3 || l - 2 >= sizeof(in) || host[0] != '[' || host[l - 1] != ']')
		return false;
	memcpy(in, host + 1, l - 2);
	in[l - 2] = '\0';
	if (inet_pton(AF_INET6, in, &a6) != 1)
		return false;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return true;
	return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

int lava_server_url_ok(const char *server, bool insecure_http)
{
	char o[512], *host;

	if (url_origin(server, o, sizeof(o))) {
		err_msg("--server: \"%s\" is not a URL (https://lava.example.org)", server);
		return -EINVAL;
	}
	if (!strncmp(o, "https://", 8))
		return 0;
	if (strncmp(o, "http://", 7)) {
		err_msg("--server: \"%s\": only https:// (or http://) LAVA servers", server);
		return -EINVAL;
	}
	host = o + 7;
	*strrchr(host, ':') = '\0';
	if (insecure_http || host_is_loopback(host))
		return 0;
	err_msg("--server: %s is http://: the API token would cross the network in clear text; use https://, or add --insecure-http if you must",
		server);
	return -EINVAL;
}

/* One HTTP request; *code gets the status; body in out. */
static int http(const struct lava_conn *c, const char *url, const char *body, struct buf *out,
		long *code)
{
	struct http_token_req r = { .who = "LAVA server",
				    .opt = "--server",
				    .base = c->server,
				    .token = c->token,
				    .url = url,
				    .body = body,
				    .timeout_s = 120,
				    .max_body = LAVA_MAX_BODY,
				    .redirect_err = -EPERM };

	return http_token_request(&r, out, code);
}

static json_object *http_json(const struct lava_conn *c, const char *url, long *code)
{
	struct buf out = { 0 };
	json_object *o = NULL;

	if (!http(c, url, NULL, &out, code) && *code == 200)
		o = json_tokener_parse(out.data);
	if (!o && *code != 0)
		err_msg("LAVA server %s: HTTP %ld%s%.200s", url, *code, out.len ? ": " : "",
			out.len ? out.data : "");
	buf_free(&out);
	return o;
}

int lava_submit(const struct lava_conn *c, const char *yaml, int64_t *id)
{
	json_object *req = json_object_new_object(), *resp = NULL, *ids;
	char *url = xasprintf("%s/api/v0.2/jobs/", c->server);
	struct buf out = { 0 };
	long code = 0;
	int ret;

	json_object_object_add(req, "definition", json_object_new_string(yaml));
	ret = http(c, url, json_object_to_json_string(req), &out, &code);
	if (!ret) {
		resp = json_tokener_parse(out.data);
		ids = jobj(resp, "job_ids");
		if ((code != 200 && code != 201) || !ids ||
		    !json_object_is_type(ids, json_type_array) ||
		    json_object_array_length(ids) != 1) {
			err_msg("LAVA server refused the job (HTTP %ld): %.300s", code,
				out.data ? out.data : "");
			ret = code == 401 || code == 403 ? -EACCES : -EINVAL;
		} else {
			*id = json_object_get_int64(json_object_array_get_idx(ids, 0));
		}
	}
	if (resp)
		json_object_put(resp);
	json_object_put(req);
	buf_free(&out);
	free(url);
	return ret;
}

int lava_wait(const struct lava_conn *c, int64_t id, int64_t deadline, struct lava_result *r)
{
	char *url = xasprintf("%s/api/v0.2/jobs/%" PRId64 "/", c->server, id);
	int ret = -ETIMEDOUT;

	while (now_ms() < deadline && !stop_requested) {
		long code = 0;
		json_object *o = http_json(c, url, &code);
		const char *state = jstr(o, "state"), *health = jstr(o, "health");

		if (o && state && !strcmp(state, "Finished")) {
			snprintf(r->health, sizeof(r->health), "%s", health ? health : "Unknown");
			if (jstr(o, "failure_comment"))
				r->failure = xstrdup(jstr(o, "failure_comment"));
			json_object_put(o);
			ret = 0;
			break;
		}
		if (o)
			json_object_put(o);
		else if (code != 200 && code != 0 && code != 502 && code != 503) {
			ret = code >= 300 && code < 400 ? -EPERM : -EIO; /* printed */
			break;
		}
		poll(NULL, 0, 1000); /* LAVA has no long-poll; a job takes seconds */
	}
	free(url);
	if (stop_requested)
		ret = -EINTR;
	return ret;
}

int lava_fetch(const struct lava_conn *c, int64_t id, struct lava_result *r)
{
	char *url = xasprintf("%s/api/v0.2/jobs/%" PRId64 "/logs/", c->server, id);
	json_object *all = json_object_new_array();
	struct buf out = { 0 };
	long code = 0;
	int ret, pages = 0;

	ret = http(c, url, NULL, &out, &code);
	free(url);
	if (!ret && code == 200) {
		r->log = lava_log_target_text(out.data, out.len);
		if (!r->failure && strcmp(r->health, "Complete"))
			r->failure = lava_log_failure(out.data);
	} else if (!ret)
		err_msg("LAVA job %" PRId64 ": log: HTTP %ld", id, code);
	buf_free(&out);
	/* the test cases, page by page */
	url = xasprintf("%s/api/v0.2/jobs/%" PRId64 "/tests/", c->server, id);
	while (url && !ret) {
		json_object *page = http_json(c, url, &code), *res;
		size_t i;

		free(url);
		url = NULL;
		if (!page) {
			ret = -EIO;
			break;
		}
		res = jobj(page, "results");
		for (i = 0; res && i < json_object_array_length(res); i++)
			json_object_array_add(all,
					      json_object_get(json_object_array_get_idx(res, i)));
		if (jstr(page, "next") && !same_origin(c, jstr(page, "next"))) {
			err_msg("LAVA job %" PRId64
				": the test cases' \"next\" page %.200s is not on --server %s (scheme, host and port); not followed, the token goes only to the server",
				id, jstr(page, "next"), c->server);
			ret = -EPERM;
		} else if (jstr(page, "next") && ++pages > 10000) {
			err_msg("LAVA job %" PRId64
				": more than 10000 pages of test cases; not followed further",
				id);
			ret = -EPERM;
		} else if (jstr(page, "next")) {
			url = xstrdup(jstr(page, "next"));
		}
		json_object_put(page);
	}
	free(url);
	r->tests = all;
	return ret ? ret : r->log ? 0 : -EIO;
}

char *lava_local_device(const struct lava_conn *c, const char *board)
{
	char *src = xstrdup(c->device_tmpl), *p;

	while ((p = strstr(src, "{board}"))) {
		char *n = xasprintf("%.*s%s%s", (int)(p - src), src, board, p + 7);

		free(src);
		src = n;
	}
	if (!is_file(src)) {
		err_msg("--device: %s does not exist (a LAVA device dictionary for board %s)", src,
			board);
		free(src);
		return NULL;
	}
	return src;
}

/* The device configuration lava-run needs, rendered as lava-server does it
 * for a job: the device dictionary (.jinja2) with the job's context, with
 * the dictionary's directory, ablab's device types (jobs/lava/device-types)
 * and lava-server's (/usr/share/lava-server/device-types) on the search
 * path.  A .yaml device file is used as it is. */
static int render_device(const char *dev, const char *jobf, const char *out)
{
	static const char *const py =
		"import os, sys, jinja2, yaml\n"
		"d = os.path.abspath(sys.argv[1])\n"
		"ctx = (yaml.safe_load(open(sys.argv[2])) or {}).get('context') or {}\n"
		"env = jinja2.Environment(loader=jinja2.FileSystemLoader([os.path.dirname(d), "
		"os.path.join(os.path.dirname(d), '..', 'device-types')] + sys.argv[3:]), "
		"trim_blocks=True, autoescape=False)\n"
		"sys.stdout.write(env.get_template(os.path.basename(d)).render(**ctx))\n";
	size_t l = strlen(dev);
	struct buf y = { 0 };
	int ret;

	if (l < 7 || strcmp(dev + l - 7, ".jinja2")) {
		char *argv[] = { "cp", "--", (char *)dev, (char *)out, NULL };

		return run_argv(argv, NULL) == 0 ? 0 : -EIO;
	}
	{
		char *argv[] = { "/usr/bin/python3",
				 "-c",
				 (char *)py,
				 (char *)dev,
				 (char *)jobf,
				 "/usr/share/lava-server/device-types",
				 NULL };

		ret = run_argv(argv, &y);
	}
	if (ret != 0 || !y.len) {
		err_msg("%s: cannot render the device dictionary (needs python3-jinja2 and lava-server's device types: apt-get install lava-server)",
			dev);
		ret = -EINVAL;
	} else {
		ret = write_file_atomic(out, y.data, y.len);
	}
	buf_free(&y);
	return ret;
}

/* lava-run on this host: the log is its stderr. */
int lava_local_run(const struct lava_conn *c, const char *dev, const char *yaml,
		   struct lava_result *r)
{
	char *jobf, *outd, *logf, *idstr, *devf;
	struct buf log = { 0 };
	char *data = NULL;
	size_t len = 0;
	int ret, status;

	jobf = xasprintf("%s/job-%" PRId64 ".yaml", c->workdir, r->id);
	outd = xasprintf("%s/out-%" PRId64, c->workdir, r->id);
	logf = xasprintf("%s/job-%" PRId64 ".log", c->workdir, r->id);
	idstr = xasprintf("%" PRId64, r->id);
	devf = xasprintf("%s/device-%" PRId64 ".yaml", c->workdir, r->id);
	ret = write_file_atomic(jobf, yaml, strlen(yaml));
	if (!ret)
		ret = render_device(dev, jobf, devf);
	if (!ret)
		ret = mkdir_p(outd, 0755);
	if (!ret) {
		/* stderr to a file: sh is only the redirection, arguments stay argv */
		char *argv[] = { "sh",
				 "-c",
				 "exec lava-run --job-id \"$1\" --output-dir \"$2\" "
				 "--device \"$3\" \"$4\" 2>\"$5\" >/dev/null",
				 "sh",
				 idstr,
				 outd,
				 devf,
				 jobf,
				 logf,
				 NULL };

		status = run_argv(argv, NULL);
		if (read_file(logf, &data, &len) == 0)
			r->log = lava_log_target_text(data, len);
		/* lava-run's exit status: 0 Complete, else Incomplete/Canceled;
		 * the last "error" record says why */
		if (status == 0) {
			snprintf(r->health, sizeof(r->health), "Complete");
		} else {
			snprintf(r->health, sizeof(r->health), "Incomplete");
			r->failure = data ? lava_log_failure(data) : NULL;
			if (!r->failure)
				r->failure = xasprintf("lava-run exited %d (log %s)", status, logf);
		}
		free(data);
		ret = 0;
	}
	buf_free(&log);
	free(devf);
	free(jobf);
	free(outd);
	free(logf);
	free(idstr);
	return ret;
}

int lava_cross_check(const struct lava_result *r, const struct run_result *res, struct errtext *why)
{
	size_t i, n = 0, k;

	if (!r->tests)
		return 0; /* local runs: the results are in the log only */
	for (i = 0; i < json_object_array_length(r->tests); i++) {
		json_object *t = json_object_array_get_idx(r->tests, i);
		const char *meas = jstr(t, "measurement"), *name = jstr(t, "name");
		double m;

		if (!meas || !name || !jstr(t, "unit") ||
		    (strcmp(jstr(t, "unit"), "mean_ns") && strcmp(jstr(t, "unit"), "lost")))
			continue;
		n++;
		m = strtod(meas, NULL); /* the REST API gives measurements as strings */
		for (k = 0; k < res->n; k++) {
			const struct sample *s = &res->v[k];
			char id[96], *c;
			double want = s->kind == SAMPLE_PRESERVE ? (double)s->lost : s->mean_ns;

			/* LAVA's case name: lower case, non-word runs -> '_' */
			snprintf(id, sizeof(id), "%s batch=%d", s->scenario, s->batch);
			for (c = id; *c; c++)
				*c = (char)((*c >= 'A' && *c <= 'Z') ? *c - 'A' + 'a' : *c);
			{
				struct buf nm = { 0 };
				bool run = false;

				for (c = id; *c; c++) {
					bool w = (*c >= 'a' && *c <= 'z') ||
						 (*c >= '0' && *c <= '9') || *c == '_';

					if (w) {
						buf_append(&nm, c, 1);
						run = false;
					} else if (!run) {
						buf_append(&nm, "_", 1);
						run = true;
					}
				}
				buf_append(&nm, "", 1);
				if (!strcmp(nm.data, name) &&
				    fabs(want - m) <= 0.5 + 1e-9 * fabs(want)) {
					buf_free(&nm);
					break;
				}
				buf_free(&nm);
			}
		}
		if (k == res->n) {
			return errtext_set(why, -EINVAL,
					   "LAVA test case %s = %s has no matching line in the log",
					   name, meas);
		}
	}
	if (n != res->n) {
		return errtext_set(why, -EINVAL, "LAVA recorded %zu measurements, the log has %zu",
				   n, res->n);
	}
	return 0;
}
