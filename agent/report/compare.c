// SPDX-License-Identifier: GPL-2.0-only
/* compare.c - one rule for comparing campaigns (compare.h). */
#include "report/compare.h"

#include "stats/changepoint.h"
#include "shared/util.h"
#include "variant.h"
#include "stats/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The equivalence margin stats_row() is given: night against night, only the p and the
 * change are used (a job's threshold is no margin: it may be any size, e.g. 500 %). */
#define CMP_MARGIN ABLAB_MARGIN

/* Drops the NaN means (a boot without a figure for the row is no boot of it); the count kept. */
static size_t keep_finite(double *v, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return k;
}

int cmp_rows(const struct rep_row *a, int pa, const struct rep_row *b, int pb, double alpha,
	     double margin, struct stats_row_result *r)
{
	size_t na, nb;
	double *x = report_boot_means(a, pa, true, &na), *y = report_boot_means(b, pb, true, &nb);
	int ret = -ENODATA;

	na = keep_finite(x, na);
	nb = keep_finite(y, nb);
	memset(r, 0, sizeof(*r));
	if (na && nb)
		ret = stats_row(x, na, y, nb, alpha, margin, r);
	r->na = na;
	r->nb = nb;
	free(x);
	free(y);
	return ret;
}

int cmp_variant_pairs(const struct report *a, const struct report *b, int pa[], int pb[])
{
	int n = 0;

	for (int v = 0; v < b->vs.n && n < VARIANTS_MAX; v++) {
		int k = variant_set_find(&a->vs, b->vs.label[v]);

		if (k >= 0) {
			pa[n] = k;
			pb[n++] = v;
		}
	}
	return n;
}

static struct night_row *night_push(struct night_family *night)
{
	struct night_row *w;

	night->rows = xrealloc(night->rows, (night->n + 1) * sizeof(*night->rows));
	w = &night->rows[night->n++];
	memset(w, 0, sizeof(*w));
	w->p = w->p_adj = NAN;
	return w;
}

/* The job's nightly history up to campaign cid: for every series (board, scenario, variant)
 * whose last night is cid and which gets a new change point tonight (cp_new_last() with
 * |change| >= the threshold), a row. */
static int history_rows(struct night_family *night, struct store *st, int ji, const char *job,
			double alpha, double threshold, int64_t cid)
{
	struct store_rows r;
	double *x;
	int n, i = 0;

	if (store_nightly_history(st, job, cid, &r))
		return -EIO;
	n = (int)r.nrows;
	x = xcalloc((size_t)n + 1, sizeof(double));
	while (i < n) {
		int k = i, m = 0;
		struct cp_point cp;

		while (k < n && !strcmp(store_text(&r, k, NH_BOARD), store_text(&r, i, NH_BOARD)) &&
		       !strcmp(store_text(&r, k, NH_SCENARIO), store_text(&r, i, NH_SCENARIO)) &&
		       !strcmp(store_text(&r, k, NH_VARIANT), store_text(&r, i, NH_VARIANT)))
			x[m++] = strtod(store_text(&r, k++, NH_MEAN), NULL);
		if (strtoll(store_text(&r, k - 1, NH_CID), NULL, 10) == cid &&
		    cp_new_last(x, (size_t)m, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, threshold,
				&cp) == 1) {
			struct night_row *w = night_push(night);

			w->job = ji;
			snprintf(w->board, sizeof(w->board), "%s", store_text(&r, i, NH_BOARD));
			snprintf(w->scenario, sizeof(w->scenario), "%s",
				 store_text(&r, i, NH_SCENARIO));
			snprintf(w->label, sizeof(w->label), "%s", store_text(&r, i, NH_VARIANT));
			w->variant = !strcmp(w->label, "control") ? 0 :
				     !strcmp(w->label, "patched") ? 1 :
								    2;
			w->baseline = !strcmp(w->scenario, "null");
			w->cp = true;
			w->prev = cp.mean_before;
			w->now = cp.mean_after;
			w->nx = (size_t)m - 1;
			w->ny = 1;
			w->rel = cp.rel;
			w->p = cp.p;
			w->p_min = 0.0;
			w->alpha = alpha;
			w->threshold = threshold;
		}
		i = k;
	}
	free(x);
	store_rows_free(&r);
	return 0;
}

int night_add_job(struct night_family *night, struct store *st, int ji, const char *job,
		  double alpha, double threshold, int64_t prev, int64_t cid)
{
	struct report a, b;
	int pa[VARIANTS_MAX], pb[VARIANTS_MAX], np = 0;
	size_t i;
	int v;

	if (ji >= night->njobs)
		night->njobs = ji + 1;
	if (prev) {
		if (report_load(st, prev, &a))
			return -EIO;
		if (report_load(st, cid, &b)) {
			report_free(&a);
			return -EIO;
		}
		/* each variant against the same label the night before (a series: control, +1,
		 * +1-2, ...; a variant new tonight has nothing to be compared with) */
		np = cmp_variant_pairs(&a, &b, pa, pb);
		for (i = 0; i < b.nrows; i++) {
			const struct rep_row *w = &b.rows[i];
			const char *board = b.boards[w->board].name;
			int k = report_find(&a, board, w->scenario);

			if (k < 0)
				continue;
			for (v = 0; v < np; v++) {
				const char *label = b.vs.label[pb[v]];
				struct stats_row_result sr;
				struct night_row *c;

				int r = cmp_rows(&a.rows[k], pa[v], w, pb[v], alpha, CMP_MARGIN,
						 &sr);

				if (r == -ENODATA)
					continue;
				if (r) {
					err_msg("nightly %s: %s %s %s: cannot compare the nights: %s",
						job, board, w->scenario, label, strerror(-r));
					continue;
				}
				c = night_push(night);
				c->job = ji;
				snprintf(c->board, sizeof(c->board), "%s", board);
				snprintf(c->scenario, sizeof(c->scenario), "%s", w->scenario);
				c->variant = pb[v] == 0 ? 0 : pb[v] == b.vs.n - 1 ? 1 : 2;
				snprintf(c->label, sizeof(c->label), "%s", label);
				c->pres = !strcmp(w->kind, "preserve");
				c->baseline = !strcmp(w->op, "null") ||
					      !strcmp(w->scenario, "null");
				c->prev = sr.mean_a;
				c->now = sr.mean_b;
				c->nx = sr.na;
				c->ny = sr.nb;
				c->rel = sr.mean_a != 0.0 ? sr.mean_b / sr.mean_a - 1.0 : NAN;
				c->p = c->pres ? NAN : sr.p;
				c->p_min = sr.p_min;
				c->alpha = alpha;
				c->threshold = threshold;
			}
		}
		report_free(&a);
		report_free(&b);
	}
	return history_rows(night, st, ji, job, alpha, threshold, cid);
}

int night_decide(struct night_family *night)
{
	double *pv = xcalloc(night->n + 1, sizeof(double));
	double *adj = xcalloc(night->n + 1, sizeof(double));
	int changes = 0;
	size_t i;

	night->family = 0;
	for (i = 0; i < night->n; i++) {
		pv[i] = night->rows[i].baseline ? NAN : night->rows[i].p;
		night->family += isfinite(pv[i]);
	}
	if (night->n)
		stats_holm(pv, night->n, adj);
	for (i = 0; i < night->n; i++) {
		struct night_row *c = &night->rows[i];

		c->p_adj = adj[i];
		c->change = false;
		if (c->pres) {
			c->change = c->prev != c->now;
			c->verdict = c->change ? "CHANGE (lost bytes)" : "same";
		} else if (c->baseline) {
			c->verdict = "baseline (not tested)";
		} else if (!isfinite(c->rel) || fabs(c->rel) < c->threshold) {
			c->verdict = "below threshold";
		} else if (c->p_adj <= c->alpha) {
			c->change = true;
			c->verdict = c->cp ? "CHANGE POINT (Holm p <= alpha)" :
					     "CHANGE (Holm p <= alpha)";
		} else if (c->p_min > c->alpha) {
			c->verdict = "too few boots to reach alpha";
		} else {
			c->verdict = "not significant (Holm)";
		}
		changes += c->change;
	}
	free(pv);
	free(adj);
	return changes;
}

int night_write_job(const struct night_family *night, int ji, const char *job, double alpha,
		    double threshold, int64_t prev, int64_t cid, const char *dir, const char *env)
{
	json_object *jr = json_object_new_object(), *rows = json_object_new_array();
	struct buf txt = { 0 };
	int changes = 0, ret = 0;
	size_t i;
	char *p;

	buf_printf(&txt, "job %s: campaign %" PRId64, job, cid);
	if (prev)
		buf_printf(&txt, " against the previous night's %" PRId64 " and", prev);
	buf_printf(
		&txt,
		" against the job's nightly history (threshold %.1f%%, alpha %.3f, Holm over the night's %zu p-values of %d job(s))\n"
		"\n",
		threshold * 100, alpha, night->family, night->njobs);
	buf_printf(&txt, "  %-14s %-28s %-8s %-7s %12s %12s %9s %7s %7s  %s\n", "board", "scenario",
		   "variant", "vs", "before", "tonight", "change", "p", "p Holm", "verdict");
	for (i = 0; i < night->n; i++) {
		const struct night_row *c = &night->rows[i];
		char pa[32], pb[32], ps[16], pq[16];
		json_object *o2;

		if (c->job != ji)
			continue;
		changes += c->change;
		if (c->pres) {
			snprintf(pa, sizeof(pa), "%.0f B", c->prev);
			snprintf(pb, sizeof(pb), "%.0f B", c->now);
		} else {
			fmt_time(pa, sizeof(pa), c->prev);
			fmt_time(pb, sizeof(pb), c->now);
		}
		snprintf(ps, sizeof(ps), isfinite(c->p) ? "%.4f" : "-", c->p);
		snprintf(pq, sizeof(pq), isfinite(c->p_adj) ? "%.4f" : "-", c->p_adj);
		buf_printf(&txt, "  %-14s %-28s %-8s %-7s %12s %12s %+8.1f%% %7s %7s  %s\n",
			   c->board, c->scenario, c->label, c->cp ? "history" : "night", pa, pb,
			   isfinite(c->rel) ? c->rel * 100 : 0.0, ps, pq, c->verdict);
		o2 = json_object_new_object();
		json_object_object_add(o2, "board", json_object_new_string(c->board));
		json_object_object_add(o2, "scenario", json_object_new_string(c->scenario));
		json_object_object_add(o2, "variant", json_object_new_string(c->label));
		json_object_object_add(o2, "against",
				       json_object_new_string(c->cp ? "history" :
								      "previous night"));
		json_object_object_add(o2, "previous_mean", json_object_new_double(c->prev));
		json_object_object_add(o2, "tonight_mean", json_object_new_double(c->now));
		json_object_object_add(o2, "n_previous", json_object_new_int((int)c->nx));
		json_object_object_add(o2, "n_tonight", json_object_new_int((int)c->ny));
		json_object_object_add(o2, "rel_change",
				       isfinite(c->rel) ? json_object_new_double(c->rel) : NULL);
		json_object_object_add(o2, c->cp ? "p_ttest" : "p_mwu",
				       isfinite(c->p) ? json_object_new_double(c->p) : NULL);
		json_object_object_add(
			o2, "p_holm", isfinite(c->p_adj) ? json_object_new_double(c->p_adj) : NULL);
		json_object_object_add(o2, "change", json_object_new_boolean(c->change));
		json_object_object_add(o2, "verdict", json_object_new_string(c->verdict));
		json_object_array_add(rows, o2);
	}
	if (env) { /* besides the kernel: a line a board and change */
		json_object *ea = json_object_new_array();

		buf_printf(&txt, "\n");
		for (const char *l = env; *l;) {
			size_t len = strcspn(l, "\n");

			buf_printf(&txt, "  %.*s\n", (int)len, l);
			json_object_array_add(ea, json_object_new_string_len(l, (int)len));
			l += len + (l[len] == '\n');
		}
		json_object_object_add(jr, "environment_changes", ea);
	}
	buf_printf(&txt, "\n%d change(s) beyond the threshold.\n", changes);
	json_object_object_add(jr, "job", json_object_new_string(job));
	json_object_object_add(jr, "campaign", json_object_new_int64(cid));
	json_object_object_add(jr, "previous", prev ? json_object_new_int64(prev) : NULL);
	json_object_object_add(jr, "threshold", json_object_new_double(threshold));
	json_object_object_add(jr, "alpha", json_object_new_double(alpha));
	json_object_object_add(jr, "adjustment", json_object_new_string("holm"));
	json_object_object_add(jr, "family_size", json_object_new_int((int)night->family));
	json_object_object_add(jr, "family_jobs", json_object_new_int(night->njobs));
	json_object_object_add(jr, "changes", json_object_new_int(changes));
	json_object_object_add(jr, "rows", rows);
	p = xasprintf("%s/compare.txt", dir);
	if (write_file_atomic(p, txt.data, txt.len))
		ret = -EIO;
	free(p);
	p = xasprintf("%s/compare.json", dir);
	{
		const char *s = json_object_to_json_string_ext(jr, JSON_C_TO_STRING_PRETTY |
									   JSON_C_TO_STRING_SPACED);

		if (write_file_atomic(p, s, strlen(s)))
			ret = -EIO;
	}
	free(p);
	fputs(txt.data, stderr);
	buf_free(&txt);
	json_object_put(jr);
	return ret ? ret : changes;
}

void night_free(struct night_family *night)
{
	free(night->rows);
	memset(night, 0, sizeof(*night));
}
