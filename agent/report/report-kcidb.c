// SPDX-License-Identifier: GPL-2.0-only
/* The KCIDB export: one campaign as a KernelCI results database submission
 * (schema v5.3, kcidb-io; tests/fixtures/kcidb/ holds its JSON form).
 *
 * Every kernel of the campaign is one checkout with one build ("ablab:cN-LABEL",
 * "ablab:cN-LABEL-build"); every row is one test per kernel, its boot means'
 * mean as the test's number (ns, or bytes lost), status DONE (a measurement,
 * not a pass/fail).  The comparison rides in the test's misc: the control and
 * patched values, the change, its CI, the verdict; on a series campaign each
 * middle variant carries its own increment (against the variant before it). */
#include "report/report.h"
#include "report/report-int.h"
#include "shared/util.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

#define KCIDB_ORIGIN "ablab"

static json_object *kd(double v)
{
	return json_object_new_double(v);
}

static void add_num(json_object *o, const char *key, double v)
{
	if (!isnan(v) && !isinf(v)) /* KCIDB allows no null */
		json_object_object_add(o, key, kd(v));
}

static void add_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, json_object_new_string(s));
}

/* "[a-zA-Z0-9_-]+": a KCIDB path component from a scenario or board name */
static void path_part(char *out, size_t len, const char *s)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		out[n++] = isalnum((unsigned char)*s) || *s == '-' || *s == '_' ? *s : '_';
	if (!n && len > 1)
		out[n++] = '_';
	out[n] = '\0';
}

static const char *row_verdict(const struct report *rep, const struct rep_row *r, char *v,
			       size_t len)
{
	rep_verdict_cell(rep, r, v, len);
	return r->mixed_timing ? "refused" : rep_is_pres(r) ? v : stats_verdict_name(r->verdict);
}

static void cmp_misc(json_object *m, const char *vs, double va, double vb, double change, double lo,
		     double hi, double conf, double p_adj, const char *verdict, size_t na,
		     size_t nb)
{
	char t[48];

	add_str(m, "compared_with", vs);
	add_num(m, "control_value", va);
	add_num(m, "patched_value", vb);
	add_num(m, "rel_change", change);
	add_num(m, "ci_lo", lo);
	add_num(m, "ci_hi", hi);
	add_num(m, "ci_conf", conf);
	add_num(m, "p_holm", p_adj);
	json_object_object_add(m, "n_control", json_object_new_int((int)na));
	json_object_object_add(m, "n_patched", json_object_new_int((int)nb));
	add_str(m, "verdict", verdict);
	if (!isnan(change)) {
		fmt_change(t, sizeof(t), change);
		add_str(m, "change", t);
	}
	if (!isnan(lo)) {
		fmt_ci(t, sizeof(t), lo, hi);
		add_str(m, "ci", t);
	}
}

static double mean_of(const struct rep_row *r, int v, size_t *n)
{
	double *x = report_boot_means(r, v, true, n), s = 0;

	for (size_t i = 0; i < *n; i++)
		s += x[i];
	free(x);
	return *n ? s / (double)*n : NAN;
}

static json_object *row_test(const struct report *rep, const struct rep_row *r, int v)
{
	const struct rep_board *b = &rep->boards[r->board];
	json_object *t = json_object_new_object(), *m = json_object_new_object();
	json_object *env = json_object_new_object(), *em = json_object_new_object();
	int last = rep->vs.n - 1;
	char id[256], sc[80], bd[80], lab[160], verd[48];
	size_t n;
	double val = mean_of(r, v, &n);

	path_part(sc, sizeof(sc), r->scenario);
	path_part(bd, sizeof(bd), b->name);
	snprintf(id, sizeof(id), KCIDB_ORIGIN ":c%" PRId64 "-%s-build", rep->campaign,
		 rep->vs.label[v]);
	add_str(t, "build_id", id);
	snprintf(id, sizeof(id), KCIDB_ORIGIN ":c%" PRId64 "-%s-%s-%s", rep->campaign,
		 rep->vs.label[v], bd, sc);
	add_str(t, "id", id);
	add_str(t, "origin", KCIDB_ORIGIN);
	snprintf(id, sizeof(id), "ablab.%s", sc);
	add_str(t, "path", id);
	report_row_label_full(rep, r, lab, sizeof(lab));
	for (char *q = lab; *q; q++)
		*q = *q == NBSP ? ' ' : *q;
	add_str(t, "comment", lab);
	add_str(t, "status", "DONE");
	if (!isnan(val)) {
		json_object *num = json_object_new_object();

		add_num(num, "value", val);
		add_str(num, "unit", rep_is_pres(r) ? "B" : "ns");
		if (!rep_is_pres(r))
			add_str(num, "prefix", "metric");
		json_object_object_add(t, "number", num);
	}
	add_str(env, "comment", b->name);
	add_str(em, "board", b->name);
	add_str(em, "cpu", b->cpu);
	add_str(em, "family", b->family);
	json_object_object_add(em, "emulated", json_object_new_boolean(b->emulated));
	if (b->env_changed) /* its boots differ in more than the kernel (report-env.c) */
		add_str(em, "environment_changed", b->env_changed);
	json_object_object_add(env, "misc", em);
	json_object_object_add(t, "environment", env);

	json_object_object_add(m, "campaign", json_object_new_int64(rep->campaign));
	add_str(m, "board", b->name);
	add_str(m, "scenario", r->scenario);
	add_str(m, "variant", rep->vs.label[v]);
	add_str(m, "unit", rep_is_pres(r) ? "bytes lost" : "ns");
	json_object_object_add(m, "boots", json_object_new_int((int)n));
	if (v == last && v > 0) {
		/* the A/B table's row: control against the last variant */
		cmp_misc(m, rep->vs.label[0], r->ab.a.mean, r->ab.b.mean, r->ab.rel_change,
			 r->ab.ci_lo, r->ab.ci_hi, r->ci_conf, r->p_adj,
			 row_verdict(rep, r, verd, sizeof(verd)), r->ab.a.n, r->ab.b.n);
		rep_verdict_cell(rep, r, verd, sizeof(verd));
		add_str(m, "verdict_text", verd);
	} else if (v > 0) {
		/* a series' middle variant: what it adds to the one before it */
		for (size_t c = 0; c < rep->ncmp; c++) {
			const struct rep_cmp *x = &rep->cmp[c];
			size_t na;

			if (&rep->rows[x->row] != r || x->b != v || x->a != v - 1)
				continue;
			cmp_misc(m, rep->vs.label[x->a], mean_of(r, x->a, &na), val, x->change,
				 x->lo, x->hi, x->conf, x->p_adj,
				 x->have ? stats_verdict_name(x->verdict) : "none", x->na, x->nb);
		}
	}
	json_object_object_add(t, "misc", m);
	return t;
}

void rep_write_kcidb(const struct report *rep, FILE *f)
{
	json_object *root = json_object_new_object(), *ver = json_object_new_object();
	json_object *co = json_object_new_array(), *bu = json_object_new_array();
	json_object *te = json_object_new_array();
	char id[160], txt[512];

	json_object_object_add(ver, "major", json_object_new_int(5));
	json_object_object_add(ver, "minor", json_object_new_int(3));
	json_object_object_add(root, "version", ver);
	for (int v = 0; v < rep->vs.n; v++) {
		json_object *c = json_object_new_object(), *b = json_object_new_object();
		json_object *m = json_object_new_object();

		snprintf(id, sizeof(id), KCIDB_ORIGIN ":c%" PRId64 "-%s", rep->campaign,
			 rep->vs.label[v]);
		add_str(c, "id", id);
		add_str(c, "origin", KCIDB_ORIGIN);
		snprintf(txt, sizeof(txt), "ablab campaign %" PRId64 ", kernel %s%s%s",
			 rep->campaign, rep->vs.label[v], rep->vpatch[v] ? ": adds " : "",
			 rep->vpatch[v] ? rep->vpatch[v] : "");
		add_str(c, "comment", txt);
		if (v > 0 && rep->series_msgid[0])
			add_str(c, "message_id", rep->series_msgid);
		json_object_object_add(m, "campaign", json_object_new_int64(rep->campaign));
		add_str(m, "variant", rep->vs.label[v]);
		json_object_object_add(m, "position", json_object_new_int(v));
		if (rep->job[0])
			add_str(m, "job", rep->job);
		add_str(m, "created", rep->created);
		if (v > 0 && rep->series_subject[0])
			add_str(m, "series_subject", rep->series_subject);
		json_object_object_add(c, "misc", m);
		json_object_array_add(co, c);

		add_str(b, "checkout_id", id);
		snprintf(id, sizeof(id), KCIDB_ORIGIN ":c%" PRId64 "-%s-build", rep->campaign,
			 rep->vs.label[v]);
		add_str(b, "id", id);
		add_str(b, "origin", KCIDB_ORIGIN);
		add_str(b, "comment", txt);
		for (size_t i = 0; i < rep->nrows; i++) {
			size_t n;

			if (!isnan(mean_of(&rep->rows[i], v, &n))) {
				add_str(b, "status", "PASS"); /* it booted and ran */
				break;
			}
		}
		json_object_array_add(bu, b);
	}
	for (size_t i = 0; i < rep->nrows; i++)
		for (int v = 0; v < rep->vs.n; v++)
			json_object_array_add(te, row_test(rep, &rep->rows[i], v));
	json_object_object_add(root, "checkouts", co);
	json_object_object_add(root, "builds", bu);
	json_object_object_add(root, "tests", te);
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}
