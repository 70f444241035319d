// SPDX-License-Identifier: GPL-2.0-only
/* The machine-readable reports: JSON and CSV. */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

/* ------------------------------------------------------------------ json, csv */

static json_object *jd(double v)
{
	return isnan(v) || isinf(v) ? NULL : json_object_new_double(v);
}

static const char *cmp_verdict_name(const struct rep_cmp *x)
{
	return x->have ? stats_verdict_name(x->verdict) : "none";
}

/* A series campaign: its variants in order and every comparison ("rows" compare control
 * with the last variant) */
static void series_json(const struct report *rep, json_object *root)
{
	json_object *va = json_object_new_array(), *ca = json_object_new_array();

	for (int v = 0; v < rep->vs.n; v++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "label", json_object_new_string(rep->vs.label[v]));
		json_object_object_add(o, "position", json_object_new_int(v));
		json_object_object_add(o, "adds",
				       rep->vpatch[v] && rep->vpatch[v][0] ?
					       json_object_new_string(rep->vpatch[v]) :
					       NULL);
		json_object_array_add(va, o);
	}
	json_object_object_add(root, "variants", va);
	for (size_t c = 0; c < rep->ncmp; c++) {
		const struct rep_cmp *x = &rep->cmp[c];
		const struct rep_row *r = &rep->rows[x->row];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "board",
				       json_object_new_string(rep->boards[r->board].name));
		json_object_object_add(o, "scenario", json_object_new_string(r->scenario));
		json_object_object_add(o, "variant", json_object_new_string(rep->vs.label[x->b]));
		json_object_object_add(o, "variant_position", json_object_new_int(x->b));
		json_object_object_add(o, "vs", json_object_new_string(rep->vs.label[x->a]));
		json_object_object_add(o, "vs_position", json_object_new_int(x->a));
		json_object_object_add(o, "increment", json_object_new_boolean(x->a == x->b - 1));
		json_object_object_add(o, "n", json_object_new_int((int)x->nb));
		json_object_object_add(o, "n_vs", json_object_new_int((int)x->na));
		json_object_object_add(o, "rel_change", jd(x->change));
		json_object_object_add(o, "ci_lo", jd(x->lo));
		json_object_object_add(o, "ci_hi", jd(x->hi));
		json_object_object_add(o, "ci_conf", jd(x->conf));
		json_object_object_add(o, "p_mwu", jd(x->p));
		json_object_object_add(o, "p_holm", jd(x->p_adj));
		json_object_object_add(o, "verdict", json_object_new_string(cmp_verdict_name(x)));
		if (x->seq >= 0)
			json_object_object_add(o, "sequential_decision",
					       json_object_new_string(seq_decision_name(
						       (enum seq_decision)x->seq)));
		json_object_array_add(ca, o);
	}
	json_object_object_add(root, "comparisons", ca);
	json_object_object_add(root, "holm_family", json_object_new_int((int)rep->cmp_family));
}

/* the campaign's fields, its method paragraph and design text */
static void head_json(const struct report *rep, json_object *root)
{
	char *m = rep_method_paragraph(rep, false), *dt = rep_design_text(rep);

	for (char *q = m; *q; q++)
		*q = *q == NBSP ? ' ' : *q;
	for (char *q = dt; *q; q++)
		*q = *q == NBSP ? ' ' : *q;
	json_object_object_add(root, "campaign", json_object_new_int64(rep->campaign));
	json_object_object_add(root, "trigger", json_object_new_string(rep->trigger));
	json_object_object_add(root, "job", rep->job[0] ? json_object_new_string(rep->job) : NULL);
	json_object_object_add(root, "created", json_object_new_string(rep->created));
	json_object_object_add(root, "order", json_object_new_string(rep->order_kind));
	json_object_object_add(root, "batches", json_object_new_int(rep->batches));
	json_object_object_add(root, "status", json_object_new_string(rep->status));
	json_object_object_add(root, "alpha", json_object_new_double(rep->alpha));
	/* the design could not decide and ran with --undecidable-ok: why (else null) */
	json_object_object_add(root, "undecidable",
			       rep->undecidable ? json_object_new_string(rep->undecidable) : NULL);
	json_object_object_add(root, "target_rel_ci", json_object_new_double(rep->target));
	json_object_object_add(root, "bootstrap_seed",
			       json_object_new_int64((int64_t)REPORT_BOOTSTRAP_SEED));
	json_object_object_add(root, "bootstrap_resamples",
			       json_object_new_int((int)STATS_DEFAULT_RESAMPLES));
	json_object_object_add(root, "method", json_object_new_string(m));
	json_object_object_add(root, "rep_design_text", json_object_new_string(dt));
	free(m);
	free(dt);
}

/* what else changed between the board's boots (report-env.c): the phrase (null: nothing),
 * each change, and how many boots had a fingerprint */
static void board_env_json(const struct rep_board *b, json_object *o)
{
	json_object *a = json_object_new_array();

	json_object_object_add(o, "environment_changed",
			       b->env_changed ? json_object_new_string(b->env_changed) : NULL);
	for (size_t i = 0; i < b->env.n; i++) {
		const struct env_change *c = &b->env.v[i];
		json_object *x = json_object_new_object();

		json_object_object_add(x, "key", json_object_new_string(c->key));
		json_object_object_add(x, "variant",
				       c->variant ? json_object_new_string(c->variant) : NULL);
		json_object_object_add(x, c->spread ? "lowest" : "from",
				       json_object_new_string(c->from));
		json_object_object_add(x, c->spread ? "highest" : "to",
				       json_object_new_string(c->to));
		json_object_object_add(x, c->spread ? "hottest_boot" : "from_boot",
				       json_object_new_int(c->seq));
		json_object_object_add(x, "text", json_object_new_string(c->text));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "environment_changes", a);
	json_object_object_add(o, "environment_boots", json_object_new_int((int)b->env.nboots));
	json_object_object_add(o, "environment_boots_unrecorded",
			       json_object_new_int((int)b->env.nskipped));
}

static json_object *board_json(const struct report *rep, size_t bi)
{
	const struct rep_board *b = &rep->boards[bi];
	json_object *o = json_object_new_object();
	bool ic = b->emulated && b->icount_shift >= 0;

	json_object_object_add(o, "board", json_object_new_string(b->name));
	json_object_object_add(o, "cpu", json_object_new_string(b->cpu));
	json_object_object_add(o, "family", json_object_new_string(b->family));
	json_object_object_add(o, "emulated", json_object_new_boolean(b->emulated));
	/* an emulated board with "icount_shift": its times are instructions, each
	 * 2^N ns (the method says so once); else the clock of the board or host */
	json_object_object_add(o, "clock", json_object_new_string(ic ? "icount" : "wall"));
	json_object_object_add(o, "ns_per_insn",
			       ic ? json_object_new_int64(INT64_C(1) << b->icount_shift) : NULL);
	json_object_object_add(o, "order", json_object_new_string(b->order));
	json_object_object_add(o, "lava_jobs",
			       json_object_new_string(b->lava_jobs ? b->lava_jobs : ""));
	json_object_object_add(o, "failed_attempts", json_object_new_int((int)b->failed));
	json_object_object_add(o, "partial_boots", json_object_new_int((int)b->partial));
	{ /* boots whose transcript a full disk cut short, a note each */
		json_object *a = json_object_new_array();

		for (const char *l = b->logs_incomplete; l && *l;) {
			size_t len = strcspn(l, "\n");

			json_object_array_add(a, json_object_new_string_len(l, (int)len));
			l += len + (l[len] == '\n');
		}
		json_object_object_add(o, "transcripts_incomplete", a);
	}
	/* docs/DESIGN.md "Phase medians"; null: no ok boot with phases */
	json_object_object_add(o, "phases", b->phases ? json_tokener_parse(b->phases) : NULL);
	board_env_json(b, o);
	json_object_object_add(o, "boot_s", jd(b->boot_s));
	json_object_object_add(o, "run_s", jd(b->run_s));
	if (b->design_ok) {
		json_object *d = json_object_new_object();

		json_object_object_add(d, "boots_per_kernel", json_object_new_int((int)b->d_boots));
		json_object_object_add(d, "batches", json_object_new_int((int)b->d_batches));
		json_object_object_add(d, "seconds_per_kernel", jd(b->d_seconds));
		json_object_object_add(d, "most_demanding",
				       json_object_new_string(rep->rows[b->d_binding].scenario));
		json_object_object_add(o, "design", d);
	} else {
		json_object_object_add(o, "design", NULL);
	}
	return o;
}

/* a row's Hodges-Lehmann estimates and Cliff's delta (rows with stats_row's result) */
static void row_hl_json(const struct rep_row *r, json_object *o)
{
	json_object *h = json_object_new_object();

	json_object_object_add(h, "shift_ns", jd(r->sr.shift.shift));
	json_object_object_add(h, "shift_ns_lo", jd(r->sr.shift.lo));
	json_object_object_add(h, "shift_ns_hi", jd(r->sr.shift.hi));
	json_object_object_add(h, "shift_conf", jd(r->sr.shift.conf));
	json_object_object_add(h, "shift_pct_of_control_median", jd(r->sr.shift_pct));
	json_object_object_add(h, "rel", jd(r->sr.have_rel ? r->sr.rel.shift : NAN));
	json_object_object_add(h, "rel_lo", jd(r->sr.have_rel ? r->sr.rel.lo : NAN));
	json_object_object_add(h, "rel_hi", jd(r->sr.have_rel ? r->sr.rel.hi : NAN));
	json_object_object_add(h, "rel_conf", jd(r->sr.have_rel ? r->sr.rel.conf : NAN));
	json_object_object_add(h, "eq_lo", jd(r->sr.have_rel ? r->sr.eq.lo : NAN));
	json_object_object_add(h, "eq_hi", jd(r->sr.have_rel ? r->sr.eq.hi : NAN));
	json_object_object_add(h, "eq_conf", jd(r->sr.have_rel ? r->sr.eq.conf : NAN));
	json_object_object_add(o, "hodges_lehmann", h);
	json_object_object_add(o, "cliff_delta", jd(r->sr.cliff));
}

/* a row's design advice, or why there is none */
static void row_design_json(const struct rep_row *r, json_object *o)
{
	json_object *d;

	if (!r->design_ok) {
		json_object_object_add(o, "design", NULL);
		json_object_object_add(o, "design_unavailable",
				       json_object_new_string(r->design_why));
		return;
	}
	d = json_object_new_object();
	json_object_object_add(d, "var_within", jd(r->design.var_within));
	json_object_object_add(d, "var_between", jd(r->design.var_between));
	json_object_object_add(d, "batches_opt", json_object_new_int((int)r->design.batches_opt));
	json_object_object_add(d, "boots_needed", json_object_new_int((int)r->design.boots_needed));
	json_object_object_add(d, "seconds_per_kernel", jd(r->design.est_seconds));
	json_object_object_add(o, "design", d);
}

static json_object *boot_json(const struct report *rep, const struct rep_boot *bt)
{
	json_object *b = json_object_new_object(), *bv = json_object_new_array();

	json_object_object_add(b, "boot_id", json_object_new_int64(bt->id));
	json_object_object_add(b, "seq", json_object_new_int(bt->seq));
	json_object_object_add(b, "variant", json_object_new_string(rep->vs.label[bt->vi]));
	if (rep->series)
		json_object_object_add(b, "variant_position", json_object_new_int(bt->vi));
	json_object_object_add(b, "batches", json_object_new_int((int)bt->nbatch));
	if (bt->nleft)
		json_object_object_add(b, "batches_left_out", json_object_new_int((int)bt->nleft));
	json_object_object_add(b, "mean", jd(bt->s.mean));
	json_object_object_add(b, "median", jd(bt->s.median));
	json_object_object_add(b, "min", jd(bt->s.min));
	json_object_object_add(b, "max", jd(bt->s.max));
	json_object_object_add(b, "sd", jd(bt->s.sd));
	json_object_object_add(b, "module_min", jd(bt->mod_min));
	json_object_object_add(b, "module_max", jd(bt->mod_max));
	json_object_object_add(b, "raw_mean", jd(bt->raw_mean));
	json_object_object_add(b, "base_mean", jd(bt->base_mean));
	for (size_t k = 0; k < bt->nbatch; k++)
		json_object_array_add(bv, jd(bt->batch[k]));
	json_object_object_add(b, "values", bv);
	return b;
}

static json_object *row_json(const struct report *rep, const struct rep_row *r)
{
	json_object *o = json_object_new_object(), *bs = json_object_new_array();
	char l[160];

	report_row_label_full(rep, r, l, sizeof(l));
	json_object_object_add(o, "board", json_object_new_string(rep->boards[r->board].name));
	json_object_object_add(o, "scenario", json_object_new_string(r->scenario));
	json_object_object_add(o, "label", json_object_new_string(l));
	/* its board's boots differ in more than the kernel (null: they do not) */
	json_object_object_add(o, "environment_changed",
			       rep->boards[r->board].env_changed ?
				       json_object_new_string(rep->boards[r->board].env_changed) :
				       NULL);
	json_object_object_add(o, "kind", json_object_new_string(r->kind));
	json_object_object_add(o, "size", json_object_new_int64(r->size));
	json_object_object_add(o, "reps", json_object_new_int64(r->reps));
	json_object_object_add(o, "timing", json_object_new_string(r->timing));
	json_object_object_add(o, "unit",
			       json_object_new_string(rep_is_pres(r) ? "bytes lost" : "ns"));
	json_object_object_add(o, "n_control", json_object_new_int((int)r->ab.a.n));
	json_object_object_add(o, "n_patched", json_object_new_int((int)r->ab.b.n));
	json_object_object_add(o, "control_mean", jd(r->ab.a.mean));
	json_object_object_add(o, "patched_mean", jd(r->ab.b.mean));
	json_object_object_add(o, "control_sd", jd(r->ab.a.sd));
	json_object_object_add(o, "patched_sd", jd(r->ab.b.sd));
	json_object_object_add(o, "rel_change", jd(r->ab.rel_change));
	json_object_object_add(o, "ci_lo", jd(r->ab.ci_lo));
	json_object_object_add(o, "ci_hi", jd(r->ab.ci_hi));
	json_object_object_add(o, "p_mwu", jd(r->ab.p_mwu));
	json_object_object_add(o, "p_exact", json_object_new_boolean(r->ab.p_exact));
	json_object_object_add(o, "p_min", jd(r->ab.p_min));
	json_object_object_add(o, "welch_t", jd(r->ab.welch_t));
	json_object_object_add(o, "welch_df", jd(r->ab.welch_df));
	json_object_object_add(o, "welch_p", jd(r->ab.welch_p));
	json_object_object_add(o, "separation", json_object_new_string(rep_row_sep(r)));
	{
		char v[48];

		rep_verdict_cell(rep, r, v, sizeof(v));
		json_object_object_add(
			o, "verdict",
			json_object_new_string(r->mixed_timing ? "refused" :
					       rep_is_pres(r)  ? v :
								 stats_verdict_name(r->verdict)));
		json_object_object_add(o, "verdict_text", json_object_new_string(v));
	}
	json_object_object_add(o, "p_holm", jd(r->p_adj));
	json_object_object_add(o, "mde", isinf(r->mde) ? NULL : jd(r->mde));
	if (r->cal_campaign)
		json_object_object_add(o, "mde_calibration_campaign",
				       json_object_new_int64(r->cal_campaign));
	json_object_object_add(o, "ci_conf", jd(r->ci_conf));
	json_object_object_add(o, "margin", jd(rep->margin));
	if (r->have_sr)
		row_hl_json(r, o);
	if (r->seq >= 0) {
		json_object_object_add(o, "sequential_decision",
				       json_object_new_string(seq_decision_name(r->seq)));
		json_object_object_add(o, "sequential_look", json_object_new_int(r->seq_look));
	}
	if (r->mixed_timing)
		json_object_object_add(o, "refused", json_object_new_string(r->design_why));
	if (r->nleft) { /* the screening rule's batches (only when there are any) */
		char t[320];

		rep_left_out_text(r, t, sizeof(t));
		json_object_object_add(o, "batches_left_out", json_object_new_int((int)r->nleft));
		json_object_object_add(o, "batches_total",
				       json_object_new_int((int)r->nbatches_all));
		json_object_object_add(o, "boots_without_mean",
				       json_object_new_int((int)r->boots_nomean));
		json_object_object_add(o, "left_out_reason", json_object_new_string(r->left_why));
		json_object_object_add(o, "left_out", json_object_new_string(t));
	}
	row_design_json(r, o);
	for (size_t j = 0; j < r->nboots; j++)
		json_object_array_add(bs, boot_json(rep, &r->boots[j]));
	json_object_object_add(o, "boots", bs);
	return o;
}

void rep_write_json(const struct report *rep, FILE *f)
{
	json_object *root = json_object_new_object(), *rows = json_object_new_array();
	json_object *boards = json_object_new_array();

	head_json(rep, root);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		json_object_array_add(boards, board_json(rep, bi));
	json_object_object_add(root, "boards", boards);
	for (size_t i = 0; i < rep->nrows; i++)
		json_object_array_add(rows, row_json(rep, &rep->rows[i]));
	json_object_object_add(root, "rows", rows);
	if (rep->series)
		series_json(rep, root);
	fprintf(f, "%s\n",
		json_object_to_json_string_ext(root,
					       JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
	json_object_put(root);
}

/* RFC 4180, a formula's first byte made text (csv_cell) */
static void csv_field(FILE *f, const char *s, bool last)
{
	csv_cell(f, s);
	fputc(last ? '\n' : ',', f);
}

static void csv_num(FILE *f, double v, bool last)
{
	if (!isnan(v))
		fprintf(f, "%.17g", v);
	fputc(last ? '\n' : ',', f);
}

/* the last cell of a row: what the report says of its board's boots besides the table
 * (what else changed between them, transcripts a full disk cut short), "; " between them */
static void board_notes(FILE *f, const struct rep_board *b)
{
	struct buf n = { 0 };

	if (b->env_changed)
		buf_printf(&n, "%s", b->env_changed);
	for (const char *l = b->logs_incomplete; l && *l;) {
		size_t len = strcspn(l, "\n");

		buf_printf(&n, "%s%.*s", n.data ? "; " : "", (int)len, l);
		l += len + (l[len] == '\n');
	}
	csv_field(f, n.data ? n.data : "", true);
	buf_free(&n);
}

void rep_write_csv(const struct report *rep, const struct report_opts *o, FILE *f)
{
	if (o->detail) {
		fprintf(f,
			"campaign,board,scenario,variant,boot_id,seq,batches,mean,median,min,max,sd,module_min,module_max,raw_mean,base_mean%s\n",
			rep->series ? ",variant_position" : "");
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];

			for (size_t j = 0; j < r->nboots; j++) {
				const struct rep_boot *bt = &r->boots[j];

				fprintf(f, "%" PRId64 ",", rep->campaign);
				csv_field(f, rep->boards[r->board].name, false);
				csv_field(f, r->scenario, false);
				csv_field(f, rep->vs.label[bt->vi], false);
				fprintf(f, "%" PRId64 ",%d,%zu,", bt->id, bt->seq, bt->nbatch);
				csv_num(f, bt->s.mean, false);
				csv_num(f, bt->s.median, false);
				csv_num(f, bt->s.min, false);
				csv_num(f, bt->s.max, false);
				csv_num(f, bt->s.sd, false);
				csv_num(f, bt->mod_min, false);
				csv_num(f, bt->mod_max, false);
				csv_num(f, bt->raw_mean, false);
				csv_num(f, bt->base_mean, !rep->series);
				if (rep->series)
					fprintf(f, "%d\n", bt->vi);
			}
		}
		return;
	}
	if (rep->series) { /* every comparison, with both variants' labels and positions */
		fprintf(f,
			"campaign,board,scenario,label,variant,variant_position,vs,vs_position,n,n_vs,rel_change,ci_lo,ci_hi,ci_conf,p_mwu,p_holm,verdict,batches_left_out,board_notes\n");
		for (size_t c = 0; c < rep->ncmp; c++) {
			const struct rep_cmp *x = &rep->cmp[c];
			const struct rep_row *r = &rep->rows[x->row];
			char l[160];

			report_row_label(r, l, sizeof(l));
			fprintf(f, "%" PRId64 ",", rep->campaign);
			csv_field(f, rep->boards[r->board].name, false);
			csv_field(f, r->scenario, false);
			csv_field(f, l, false);
			csv_field(f, rep->vs.label[x->b], false);
			fprintf(f, "%d,", x->b);
			csv_field(f, rep->vs.label[x->a], false);
			fprintf(f, "%d,%zu,%zu,", x->a, x->nb, x->na);
			csv_num(f, x->change, false);
			csv_num(f, x->lo, false);
			csv_num(f, x->hi, false);
			csv_num(f, x->conf, false);
			csv_num(f, x->p, false);
			csv_num(f, x->p_adj, false);
			fprintf(f, "%s,%zu,", cmp_verdict_name(x), r->nleft);
			board_notes(f, &rep->boards[r->board]);
		}
		return;
	}
	fprintf(f,
		"campaign,board,cpu,family,scenario,label,kind,size,unit,n_control,n_patched,control_mean,patched_mean,rel_change,ci_lo,ci_hi,ci_conf,p_mwu,p_holm,p_min,verdict,separation,welch_p,cliff_delta,batches_left_out,left_out,board_notes\n");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		const struct rep_board *b = &rep->boards[r->board];
		char l[160];

		report_row_label_full(rep, r, l, sizeof(l));
		fprintf(f, "%" PRId64 ",", rep->campaign);
		csv_field(f, b->name, false);
		csv_field(f, b->cpu, false);
		csv_field(f, b->family, false);
		csv_field(f, r->scenario, false);
		csv_field(f, l, false);
		fprintf(f, "%s,%" PRId64 ",%s,%zu,%zu,", r->kind, r->size,
			rep_is_pres(r) ? "bytes lost" : "ns", r->ab.a.n, r->ab.b.n);
		csv_num(f, r->ab.a.mean, false);
		csv_num(f, r->ab.b.mean, false);
		csv_num(f, r->ab.rel_change, false);
		csv_num(f, r->ab.ci_lo, false);
		csv_num(f, r->ab.ci_hi, false);
		csv_num(f, r->ci_conf, false);
		csv_num(f, r->ab.p_mwu, false);
		csv_num(f, r->p_adj, false);
		csv_num(f, r->ab.p_min, false);
		{
			char v[48];

			rep_verdict_cell(rep, r, v, sizeof(v));
			fprintf(f, "%s,%s,", v, rep_row_sep(r));
		}
		csv_num(f, r->ab.welch_p, false);
		csv_num(f, r->have_sr ? r->sr.cliff : NAN, false);
		{
			char t[320];

			rep_left_out_text(r, t, sizeof(t));
			fprintf(f, "%zu,", r->nleft);
			csv_field(f, t, false);
			board_notes(f, b);
		}
	}
}
