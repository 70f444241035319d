// SPDX-License-Identifier: GPL-2.0-only
/* Verdicts as patchwork checks (patchwork.h).  Per patch of the series a campaign ran
 * (its Message-IDs recorded by b4 intake: campaigns.job->'series'->'msgids') and per
 * board, one check "ablab-BOARD":
 *   pending  the campaign is running
 *   fail     it failed, was interrupted or no agent holds it any more
 *   warning  a timing row is different (each such row's change and CI), or undecided
 *   success  every timing row the same within +-margin
 * A series campaign (variants control, +1, +1-2, ...) gives each patch its own
 * increment (its variant against the one before); an A/B campaign whose patched kernel
 * is the series gives every patch the whole series against control. */
#include "report/patchwork.h"
#include "shared/jsonfile.h"
#include "report/report.h"
#include "report/report-int.h"
#include "store/store-campaign.h"
#include "shared/http.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void pw_plan_free(struct pw_plan *p)
{
	if (p->msgids)
		strv_free(p->msgids);
	free(p->checks);
	memset(p, 0, sizeof(*p));
}

static void desc_add(char *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void desc_add(char *d, const char *fmt, ...)
{
	size_t n = strlen(d);
	va_list ap;

	if (n + 1 >= PW_DESC_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(d + n, PW_DESC_MAX - n, fmt, ap);
	va_end(ap);
}

static bool timing_row(const struct rep_row *r)
{
	return !rep_is_pres(r) && !rep_is_null(r) && !r->mixed_timing;
}

/* the state and description of patch k on board bi of a complete campaign */
static void judge(const struct report *rep, const struct pw_plan *p, size_t k, int bi,
		  struct pw_check *c)
{
	size_t ndiff = 0, nsame = 0, nund = 0;
	char diffs[PW_DESC_MAX] = "", ch[48], ci[64];

	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		double change = r->ab.rel_change, lo = r->ab.ci_lo, hi = r->ab.ci_hi;
		enum verdict verdict = r->have_ab ? r->verdict : VERDICT_UNDECIDED;

		if (r->board != bi || !timing_row(r))
			continue;
		if (p->series) {
			verdict = VERDICT_UNDECIDED;
			change = lo = hi = NAN;
			for (size_t x = 0; x < rep->ncmp; x++) {
				const struct rep_cmp *m = &rep->cmp[x];

				if (m->row == i && m->b == (int)k + 1 && m->a == (int)k) {
					verdict = m->have ? m->verdict : VERDICT_UNDECIDED;
					change = m->change;
					lo = m->lo;
					hi = m->hi;
				}
			}
		}
		if (verdict == VERDICT_DIFFERENT) {
			fmt_change(ch, sizeof(ch), change);
			fmt_ci(ci, sizeof(ci), lo, hi);
			desc_add(diffs, "%s%s %s on %s, %s", ndiff ? "; " : "", ch, ci, r->scenario,
				 rep->boards[bi].name);
			ndiff++;
		} else if (verdict == VERDICT_SAME) {
			nsame++;
		} else {
			nund++;
		}
	}
	if (p->series)
		snprintf(c->desc, sizeof(c->desc),
			 "patch %zu/%zu's own increment (%s against %s): ", k + 1, p->npatch,
			 rep->vs.label[k + 1], rep->vs.label[k]);
	else
		snprintf(c->desc, sizeof(c->desc),
			 "the series (%zu patch%s) against control: ", p->npatch,
			 p->npatch == 1 ? "" : "es");
	if (ndiff) {
		c->state = "warning";
		desc_add(c->desc, "different: %s", diffs);
		if (nsame || nund)
			desc_add(c->desc, " (%zu more row%s same or undecided)", nsame + nund,
				 nsame + nund == 1 ? "" : "s");
	} else if (nund || !nsame) {
		c->state = "warning";
		desc_add(c->desc, "undecided on %zu of %zu timing rows (more boots needed)", nund,
			 nund + nsame);
	} else {
		c->state = "success";
		desc_add(c->desc, "same within +-%g %% on all %zu timing rows", rep->margin * 100,
			 nsame);
	}
	desc_add(c->desc, " (ablab campaign %" PRId64 ")", rep->campaign);
}

/* the check of patch k on board of a campaign that has no verdict (yet) */
static void unjudged(const struct pw_plan *p, size_t k, const char *board, struct pw_check *c)
{
	c->patch = k;
	snprintf(c->context, sizeof(c->context), "ablab-%s", board);
	if (!strcmp(p->status, "running")) {
		c->state = "pending";
		snprintf(c->desc, sizeof(c->desc), "ablab campaign %" PRId64 " is running",
			 p->campaign);
	} else {
		c->state = "fail";
		snprintf(c->desc, sizeof(c->desc), "ablab campaign %" PRId64 " %s: no verdict",
			 p->campaign, !strcmp(p->status, "failed") ? "failed" : p->status);
	}
}

int pw_plan(struct store *st, int64_t cid, struct pw_plan *p)
{
	char **boards = NULL;
	size_t nb = 0;
	struct report_opts o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET };
	struct report rep;
	char *js = NULL;
	json_object *a;
	int ret;

	memset(p, 0, sizeof(*p));
	p->campaign = cid;
	ret = store_campaign_status(st, cid, p->status, sizeof(p->status));
	if (ret)
		return ret;
	ret = store_campaign_msgids(st, cid, &js);
	if (ret == -ENOENT) {
		err_msg("campaign %" PRId64
			" has no series with per-patch Message-IDs (a job whose variants.patched.patches names a mailbox: b4 intake records them)",
			cid);
		return -ENODATA;
	}
	if (ret)
		return ret;
	a = json_tokener_parse(js);
	free(js);
	if (!a || !json_object_is_type(a, json_type_array) || !json_object_array_length(a)) {
		json_object_put(a);
		err_msg("campaign %" PRId64 ": its series record has no Message-IDs", cid);
		return -ENODATA;
	}
	p->npatch = json_object_array_length(a);
	p->msgids = xcalloc(p->npatch + 1, sizeof(*p->msgids));
	for (size_t i = 0; i < p->npatch; i++) {
		const char *s = json_object_get_string(json_object_array_get_idx(a, i));

		p->msgids[i] = xstrdup(s ? s : "");
	}
	json_object_put(a);

	/* running or ended without a verdict: the boards the campaign was started on (its
	 * run record), booted yet or not */
	if (strcmp(p->status, "complete") && !store_campaign_run_boards(st, cid, &boards, &nb) &&
	    nb) {
		p->checks = xcalloc(p->npatch * nb, sizeof(*p->checks));
		for (size_t k = 0; k < p->npatch; k++)
			for (size_t bi = 0; bi < nb; bi++)
				unjudged(p, k, boards[bi], &p->checks[p->n++]);
		strv_free(boards);
		return 0;
	}
	strv_free(boards);

	ret = report_load(st, cid, &rep);
	if (ret) {
		report_free(&rep);
		pw_plan_free(p);
		return ret;
	}
	report_analyse(&rep, &o);
	p->series = rep.series;
	if (p->series && (size_t)rep.vs.n != p->npatch + 1) {
		err_msg("campaign %" PRId64
			" compares %d kernels, not control and one per patch of its %zu-patch series: no patch's own increment to post",
			cid, rep.vs.n, p->npatch);
		report_free(&rep);
		pw_plan_free(p);
		return -EINVAL;
	}
	p->checks = xcalloc(p->npatch * (rep.nboards ? rep.nboards : 1), sizeof(*p->checks));
	for (size_t k = 0; k < p->npatch; k++)
		for (size_t bi = 0; bi < rep.nboards; bi++) {
			struct pw_check *c = &p->checks[p->n++];

			c->patch = k;
			snprintf(c->context, sizeof(c->context), "ablab-%s", rep.boards[bi].name);
			if (strcmp(p->status, "complete"))
				unjudged(p, k, rep.boards[bi].name, c);
			else
				judge(&rep, p, k, (int)bi, c);
		}
	report_free(&rep);
	return 0;
}

/* ------------------------------------------------------------------ the REST client */

#define PW_MAX_BODY (4u << 20)

int pw_url_ok(const char *url, bool insecure_http)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL;
	int ret = -EINVAL;

	if (!u || curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		err_msg("--url: \"%s\" is not a URL (https://patchwork.example.org)", url);
	} else if (!strcasecmp(scheme, "https")) {
		ret = 0;
	} else if (strcasecmp(scheme, "http")) {
		err_msg("--url: \"%s\": only https:// (or http://) patchwork servers", url);
	} else if (insecure_http || !strncmp(host, "127.", 4) || !strcmp(host, "[::1]") ||
		   !strcasecmp(host, "localhost")) {
		ret = 0;
	} else {
		err_msg("--url: %s is http://: the API token would cross the network in clear text; use https://, or add --insecure-http if you must",
			url);
	}
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ret;
}

int pw_token_read(const char *file, char **token)
{
	struct stat sb;
	int ret;

	if (stat(file, &sb)) {
		ret = -errno;
		err_msg("--token-file %s: %s", file, strerror(errno));
		return ret;
	}
	if (!S_ISREG(sb.st_mode) || (sb.st_mode & 077)) {
		err_msg("--token-file %s: %s (mode %04o): the API token must be readable by its owner only (chmod 600 %s)",
			file, S_ISREG(sb.st_mode) ? "readable or writable by others" : "not a file",
			(unsigned int)(sb.st_mode & 07777), file);
		return -EPERM;
	}
	return read_token_file(file, token);
}

/* One request to the server (body: a POST of JSON); the token goes with it, to --url's
 * server only: no redirect is followed.  0 with *code, or -errno (said). */
static int http(const struct pw_conn *c, const char *url, const char *body, struct buf *out,
		long *code)
{
	struct http_token_req r = { .who = "patchwork",
				    .opt = "--url",
				    .base = c->url,
				    .token = c->token,
				    .url = url,
				    .body = body,
				    .timeout_s = 60,
				    .max_body = PW_MAX_BODY,
				    .redirect_err = -EIO };

	return http_token_request(&r, out, code);
}

int pw_patch_id(const struct pw_conn *c, const char *msgid, int64_t *id)
{
	CURL *cu = curl_easy_init();
	char *esc = cu ? curl_easy_escape(cu, msgid, 0) : NULL;
	char *url = xasprintf("%s/api/patches/?msgid=%s", c->url, esc ? esc : "");
	struct buf out = { 0 };
	json_object *a = NULL, *p;
	long code;
	int ret = http(c, url, NULL, &out, &code);

	if (!ret && code != 200) {
		err_msg("patchwork %s: HTTP %ld: %.200s", url, code, out.len ? out.data : "");
		ret = -EIO;
	}
	if (!ret) {
		a = json_tokener_parse(out.data);
		p = a && json_object_is_type(a, json_type_array) && json_object_array_length(a) ?
			    json_object_array_get_idx(a, 0) :
			    NULL;
		if (!p || !jobj(p, "id")) {
			err_msg("patchwork %s has no patch with Message-ID <%s>", c->url, msgid);
			ret = -ENOENT;
		} else {
			*id = json_object_get_int64(jobj(p, "id"));
		}
	}
	json_object_put(a);
	buf_free(&out);
	free(url);
	curl_free(esc);
	if (cu)
		curl_easy_cleanup(cu);
	return ret;
}

int pw_post_check(const struct pw_conn *c, int64_t patch, const struct pw_check *k,
		  const char *target_url)
{
	json_object *o = json_object_new_object();
	char *url = xasprintf("%s/api/patches/%" PRId64 "/checks/", c->url, patch);
	struct buf out = { 0 };
	long code;
	int ret;

	json_object_object_add(o, "state", json_object_new_string(k->state));
	json_object_object_add(o, "context", json_object_new_string(k->context));
	json_object_object_add(o, "description", json_object_new_string(k->desc));
	if (target_url)
		json_object_object_add(o, "target_url", json_object_new_string(target_url));
	ret = http(c, url, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), &out, &code);
	if (!ret && (code == 401 || code == 403)) {
		err_msg("patchwork %s: HTTP %ld: the token was refused (a maintainer's or the check user's API token, with the right to post checks on this project)",
			url, code);
		ret = -EACCES;
	} else if (!ret && code != 201 && code != 200) {
		err_msg("patchwork %s: HTTP %ld: %.200s", url, code, out.len ? out.data : "");
		ret = -EIO;
	}
	json_object_put(o);
	buf_free(&out);
	free(url);
	return ret;
}

/* ------------------------------------------------------------------ posting a plan */

int pw_post_plan(const struct pw_conn *c, const struct pw_plan *p, const char *target_url, bool dry,
		 FILE *out)
{
	int64_t *ids = xcalloc(p->npatch + 1, sizeof(*ids));
	int ret = 0;

	for (size_t k = 0; !dry && !ret && k < p->npatch; k++)
		ret = pw_patch_id(c, p->msgids[k], &ids[k]);
	for (size_t i = 0; !ret && i < p->n; i++) {
		const struct pw_check *k = &p->checks[i];

		if (!dry)
			ret = pw_post_check(c, ids[k->patch], k, target_url);
		if (!ret)
			fprintf(out, "patch %zu/%zu <%s>%s%.0" PRId64 ": %s %s: %s\n", k->patch + 1,
				p->npatch, p->msgids[k->patch], dry ? "" : " patchwork ",
				dry ? (int64_t)0 : ids[k->patch], k->state, k->context, k->desc);
	}
	free(ids);
	return ret;
}

char *pw_target_url(const char *web_url, int64_t cid)
{
	if (!web_url)
		return NULL;
	return xasprintf("%s%scampaign/%" PRId64, web_url,
			 web_url[0] && web_url[strlen(web_url) - 1] == '/' ? "" : "/", cid);
}

/* ------------------------------------------------------------------ a campaign's own */

int pw_auto_init(struct pw_auto *a, const char *url, const char *token_file, const char *web_url,
		 bool insecure_http, const char *db)
{
	memset(a, 0, sizeof(*a));
	if (!url)
		return 0;
	if (!token_file) {
		err_msg("patchwork %s: no token file (--patchwork-token-file, or the job's patchwork.token_file)",
			url);
		return -EINVAL;
	}
	a->url = xstrdup(url);
	a->url[strcspn(a->url, "?#")] = '\0';
	while (*a->url && a->url[strlen(a->url) - 1] == '/')
		a->url[strlen(a->url) - 1] = '\0';
	if (pw_url_ok(a->url, insecure_http) || pw_token_read(token_file, &a->conn.token)) {
		pw_auto_free(a);
		return -EINVAL;
	}
	a->conn.url = a->url;
	a->token_file = xstrdup(token_file);
	a->web_url = web_url ? xstrdup(web_url) : NULL;
	a->db = db;
	a->insecure = insecure_http;
	a->on = true;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return 0;
}

void pw_auto_free(struct pw_auto *a)
{
	if (a->on)
		curl_global_cleanup();
	free(a->url);
	free(a->token_file);
	free(a->web_url);
	free(a->conn.token);
	memset(a, 0, sizeof(*a));
}

/* Posts campaign cid's checks now; ended: the campaign is over (a status still "running"
 * then means its final status was not stored: fail).  A failure is a warning. */
static void auto_post(struct pw_auto *a, int64_t cid, bool ended)
{
	struct pw_plan plan = { 0 };
	struct store st;
	char *target = NULL;
	int ret;

	ret = store_open(&st, a->db);
	if (!ret) {
		ret = pw_plan(&st, cid, &plan);
		store_close(&st);
	}
	if (!ret && ended && !strcmp(plan.status, "running")) {
		for (size_t i = 0; i < plan.n; i++) {
			plan.checks[i].state = "fail";
			snprintf(plan.checks[i].desc, sizeof(plan.checks[i].desc),
				 "ablab campaign %" PRId64 " ended with an error: no verdict", cid);
		}
	}
	if (!ret) {
		target = pw_target_url(a->web_url, cid);
		ret = pw_post_plan(&a->conn, &plan, target, false, stderr);
	}
	if (ret)
		err_msg("warning: patchwork: campaign %lld's %s checks were not all posted to %s (above); the campaign %s: `ablab patchwork post %lld --url %s --token-file %s%s%s%s` posts them again",
			(long long)cid, ended ? "final" : "pending", a->url,
			ended ? "is stored all the same" : "goes on", (long long)cid, a->url,
			a->token_file, a->web_url ? " --web-url " : "",
			a->web_url ? a->web_url : "", a->insecure ? " --insecure-http" : "");
	else
		info_msg("patchwork: posted %zu %s check%s of campaign %" PRId64 " to %s", plan.n,
			 ended ? "final" : "pending", plan.n == 1 ? "" : "s", cid, a->url);
	a->failed += ret != 0;
	pw_plan_free(&plan);
	free(target);
}

void pw_auto_started(int64_t cid, void *arg)
{
	struct pw_auto *a = arg;

	if (a && a->on && cid)
		auto_post(a, cid, false);
}

void pw_auto_ended(struct pw_auto *a, int64_t cid)
{
	if (a->on && cid)
		auto_post(a, cid, true);
}
