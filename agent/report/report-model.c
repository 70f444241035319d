// SPDX-License-Identifier: GPL-2.0-only
/* The model of a report: one campaign's boots loaded (store-report.c holds the
 * SQL) into board x scenario rows, then analysed: A/B statistics, Holm family,
 * sequential looks, verdicts and design advice. */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "store/store-board.h"
#include "store/store-report.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ loading */

static double getd(const struct store_rows *r, int i, int c)
{
	return !store_cell(r, i, c) ? NAN : strtod(store_text(r, i, c), NULL);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int row_rank(const struct rep_row *r)
{
	return rep_is_pres(r) ? 2 : rep_is_null(r) ? 1 : 0;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct rep_row *a = pa, *b = pb;
	int c;

	if (a->board != b->board)
		return a->board - b->board;
	if (row_rank(a) != row_rank(b))
		return row_rank(a) - row_rank(b);
	if (a->size != b->size)
		return a->size < b->size ? -1 : 1;
	c = -strcmp(a->state, b->state); /* dirty before clean */
	if (c)
		return c;
	c = strcmp(a->op, b->op);
	return c ? c : strcmp(a->scenario, b->scenario);
}

static int load_campaign(struct store *st, struct report *rep)
{
	struct store_rows r;

	if (store_report_campaign(st, rep->campaign, &r))
		return -EIO;
	if (!r.nrows) {
		store_rows_free(&r);
		return -ENOENT;
	}
	copy_str(rep->trigger, sizeof(rep->trigger), store_text(&r, 0, RC_TRIGGER));
	copy_str(rep->order_kind, sizeof(rep->order_kind), store_text(&r, 0, RC_ORDER_KIND));
	copy_str(rep->status, sizeof(rep->status), store_text(&r, 0, RC_STATUS));
	copy_str(rep->created, sizeof(rep->created), store_text(&r, 0, RC_CREATED));
	copy_str(rep->job, sizeof(rep->job), store_text(&r, 0, RC_JOB));
	rep->batches = atoi(store_text(&r, 0, RC_BATCHES));
	rep->boots_per_variant = atoi(store_text(&r, 0, RC_BOOTS_PER_VARIANT));
	rep->order_seed = strtoll(store_text(&r, 0, RC_SEED), NULL, 10);
	rep->seq.first = atoi(store_text(&r, 0, RC_SEQ_FIRST));
	rep->seq.budget = atoi(store_text(&r, 0, RC_SEQ_BUDGET));
	rep->seq.alpha = atof(store_text(&r, 0, RC_SEQ_ALPHA));
	rep->seq.beta = atof(store_text(&r, 0, RC_SEQ_BETA));
	rep->seq.boards = atoi(store_text(&r, 0, RC_SEQ_BOARDS));
	rep->margin = atof(store_text(&r, 0, RC_MARGIN_PCT)) / 100.0;
	copy_str(rep->series_msgid, sizeof(rep->series_msgid), store_text(&r, 0, RC_SERIES_MSGID));
	copy_str(rep->series_subject, sizeof(rep->series_subject),
		 store_text(&r, 0, RC_SERIES_SUBJECT));
	rep->series_version = atoi(store_text(&r, 0, RC_SERIES_VERSION));
	rep->series_patches = xstrdup(store_text(&r, 0, RC_SERIES_PATCHES));
	rep->undecidable = *store_text(&r, 0, RC_UNDECIDABLE) ?
				   xstrdup(store_text(&r, 0, RC_UNDECIDABLE)) :
				   NULL;
	store_rows_free(&r);
	/* a series campaign's variants, in order; else control and patched */
	rep->vs = variant_pair;
	if (store_report_variants(st, rep->campaign, &r))
		return -EIO;
	if ((int)r.nrows >= 2) {
		rep->vs.n = 0;
		rep->series = true;
		for (int i = 0; i < (int)r.nrows && rep->vs.n < VARIANTS_MAX; i++) {
			snprintf(rep->vs.label[rep->vs.n], VARIANT_LABEL_MAX, "%s",
				 store_text(&r, i, RV_LABEL));
			rep->vpatch[rep->vs.n++] = xstrdup(store_text(&r, i, RV_PATCH));
		}
	}
	store_rows_free(&r);
	return 0;
}

static int load_boards(struct store *st, struct report *rep)
{
	struct store_rows r;
	int i, n;

	if (store_report_boards(st, rep->campaign, &r))
		return -EIO;
	n = (int)r.nrows;
	rep->boards = xcalloc((size_t)n + 1, sizeof(*rep->boards));
	rep->nboards = (size_t)n;
	for (i = 0; i < n; i++) {
		struct rep_board *b = &rep->boards[i];

		copy_str(b->name, sizeof(b->name), store_text(&r, i, RB_NAME));
		copy_str(b->cpu, sizeof(b->cpu), store_text(&r, i, RB_CPU));
		copy_str(b->family, sizeof(b->family), store_text(&r, i, RB_FAMILY));
		b->emulated = store_text(&r, i, RB_EMULATED)[0] == 't';
		b->description = xstrdup(store_text(&r, i, RB_DESCRIPTION));
		b->lava_jobs = xstrdup(store_text(&r, i, RB_LAVA_JOBS));
		copy_str(b->order, sizeof(b->order), store_text(&r, i, RB_ORDER));
		if (rep->series) { /* A = control, B, C, ... in series order */
			char *labels = xstrdup(store_text(&r, i, RB_VARIANTS)), *save = NULL, *l;
			size_t k = 0;

			for (l = strtok_r(labels, " ", &save); l && k + 1 < sizeof(b->order);
			     l = strtok_r(NULL, " ", &save)) {
				int vi = variant_set_find(&rep->vs, l);

				b->order[k++] = vi < 0 ? '?' : (char)('A' + vi);
			}
			b->order[k] = '\0';
			free(labels);
		}
		b->failed = (size_t)atol(store_text(&r, i, RB_FAILED));
		b->boot_s = getd(&r, i, RB_BOOT_MS) / 1000.0;
		b->run_s = getd(&r, i, RB_RUN_MS) / 1000.0;
		b->clock_res_ns = !store_cell(&r, i, RB_CLOCK_RES_NS) ?
					  -1 :
					  strtoll(store_text(&r, i, RB_CLOCK_RES_NS), NULL, 10);
		b->partial = (size_t)atol(store_text(&r, i, RB_PARTIAL));
		/* QEMU's shifts are 0-10 (the board loader's range): else not counted */
		b->icount_shift = atoi(store_text(&r, i, RB_ICOUNT_SHIFT));
		if (b->icount_shift > 10)
			b->icount_shift = -1;
	}
	store_rows_free(&r);
	if (store_board_phases(st, rep->campaign, NULL, NULL, NULL, &r))
		return -EIO;
	for (i = 0; i < (int)r.nrows; i++)
		for (size_t k = 0; k < rep->nboards; k++)
			if (!strcmp(rep->boards[k].name, store_text(&r, i, BP_BOARD)))
				rep->boards[k].phases = xstrdup(store_text(&r, i, BP_JSON));
	store_rows_free(&r);
	return 0;
}

static int board_index(const struct report *rep, const char *name)
{
	for (size_t i = 0; i < rep->nboards; i++)
		if (!strcmp(rep->boards[i].name, name))
			return (int)i;
	return -1;
}

/* The failed attempts that were not retried, with their reasons: why a
 * campaign (or a board's part of it) stopped; and the boots whose transcript is
 * incomplete. */
static int load_not_retried(struct store *st, struct report *rep)
{
	struct store_attempt *v;
	size_t n;

	if (store_campaign_attempts(st, rep->campaign, &v, &n))
		return -EIO;
	for (size_t i = 0; i < n; i++) {
		int bi = board_index(rep, v[i].board);
		struct rep_board *b;
		struct buf w = { 0 };
		const char *ti = v[i].error ? strstr(v[i].error, "transcript incomplete: ") : NULL;

		if (bi >= 0 && ti) { /* its transcript cut short: every format says so */
			b = &rep->boards[bi];
			if (b->logs_incomplete)
				buf_printf(&w, "%s\n", b->logs_incomplete);
			buf_printf(&w, "boot %d", v[i].seq);
			if (v[i].attempt > 1)
				buf_printf(&w, " attempt %d", v[i].attempt);
			buf_printf(&w, " (%s, %s): %s", v[i].variant, b->name, ti);
			free(b->logs_incomplete);
			b->logs_incomplete = w.data;
			b->nlogs_incomplete++;
			memset(&w, 0, sizeof(w));
		}
		if (bi < 0 || !strcmp(v[i].status, "ok") || v[i].retried)
			continue;
		b = &rep->boards[bi];
		b->not_retried++;
		if (b->not_retried_why)
			buf_printf(&w, "%s; ", b->not_retried_why);
		buf_printf(&w, "slot %d (%s) attempt %d: %s", v[i].seq, v[i].variant, v[i].attempt,
			   v[i].error);
		free(b->not_retried_why);
		b->not_retried_why = w.data;
	}
	store_attempts_free(v, n);
	return 0;
}

static void boot_finish(struct rep_boot *b, double raw_sum, double base_sum, size_t nraw)
{
	if (b->nbatch)
		stats_summary(b->batch, b->nbatch, &b->s);
	b->raw_mean = nraw ? raw_sum / (double)nraw : NAN;
	b->base_mean = nraw ? base_sum / (double)nraw : NAN;
}

/* Each row's calibration: the board's latest A/A campaign for the scenario, one with the
 * same control kernel image first */
static int load_calibrations(struct store *st, struct report *rep)
{
	struct store_rows r;

	if (store_report_calibrations(st, rep->campaign, &r))
		return -EIO;
	for (int i = 0; i < (int)r.nrows; i++) {
		int k = report_find(rep, store_text(&r, i, RCAL_BOARD),
				    store_text(&r, i, RCAL_SCENARIO));

		if (k < 0)
			continue;
		rep->rows[k].cal_campaign = strtoll(store_text(&r, i, RCAL_CAMPAIGN), NULL, 10);
		rep->rows[k].cal_mean = atof(store_text(&r, i, RCAL_MEAN));
		rep->rows[k].cal_vw = atof(store_text(&r, i, RCAL_VAR_WITHIN));
		rep->rows[k].cal_vb = atof(store_text(&r, i, RCAL_VAR_BETWEEN));
	}
	store_rows_free(&r);
	return 0;
}

/* The samples being read into rows and boots: the current row and boot, and the boot's
 * raw and baseline sums. */
struct load_cur {
	struct rep_row *w;
	struct rep_boot *bt;
	double raw_sum, base_sum;
	size_t nraw;
};

static void cur_finish(struct load_cur *c)
{
	if (c->bt)
		boot_finish(c->bt, c->raw_sum, c->base_sum, c->nraw);
	c->bt = NULL;
}

/* sample i opens a new row (board x scenario) */
static void load_row(struct report *rep, struct load_cur *c, const struct store_rows *r, int i,
		     int board)
{
	struct rep_row *w;

	cur_finish(c);
	rep->rows = xrealloc(rep->rows, (rep->nrows + 1) * sizeof(*rep->rows));
	w = c->w = &rep->rows[rep->nrows++];
	memset(w, 0, sizeof(*w));
	w->board = board;
	copy_str(w->scenario, sizeof(w->scenario), store_text(r, i, RS_SCENARIO));
	copy_str(w->kind, sizeof(w->kind), store_text(r, i, RS_KIND));
	copy_str(w->op, sizeof(w->op), store_text(r, i, RS_OP));
	copy_str(w->state, sizeof(w->state), store_text(r, i, RS_STATE));
	copy_str(w->timing, sizeof(w->timing), store_text(r, i, RS_TIMING));
	w->size = strtoll(store_text(r, i, RS_SIZE), NULL, 10);
	w->reps = strtoll(store_text(r, i, RS_REPS), NULL, 10);
}

/* sample i opens a new boot of the current row, of variant vi */
static void load_boot(const struct report *rep, struct load_cur *c, const struct store_rows *r,
		      int i, int64_t boot, int vi, bool pres)
{
	struct rep_row *w = c->w;
	struct rep_boot *bt;

	cur_finish(c);
	w->boots = xrealloc(w->boots, (w->nboots + 1) * sizeof(*w->boots));
	bt = c->bt = &w->boots[w->nboots++];
	memset(bt, 0, sizeof(*bt));
	bt->id = boot;
	bt->seq = atoi(store_text(r, i, RS_SEQ));
	bt->vi = vi;
	/* the A/B table: control against the last variant (all of a series) */
	bt->variant = vi == 0 ? 0 : vi == rep->vs.n - 1 ? 1 : 2;
	bt->mod_min = bt->mod_max = NAN;
	c->raw_sum = c->base_sum = 0;
	c->nraw = 0;
	if (!pres && strcmp(w->timing, store_text(r, i, RS_TIMING))) {
		w->mixed_timing++;
		copy_str(w->other_timing, sizeof(w->other_timing), store_text(r, i, RS_TIMING));
	}
}

/* sample i's batch into the current boot (or counted as left out) */
static void load_batch(struct load_cur *c, const struct store_rows *r, int i, bool pres)
{
	struct rep_row *w = c->w;
	struct rep_boot *bt = c->bt;
	double v = getd(r, i, pres ? RS_LOST_BYTES : RS_MEAN_NS);

	if (isnan(v))
		return;
	w->nbatches_all++;
	if (store_cell(r, i, RS_EXCLUDED)) { /* left out of the boot's mean: counted, not used */
		if (!w->nleft++)
			copy_str(w->left_why, sizeof(w->left_why), store_text(r, i, RS_EXCLUDED));
		bt->nleft++;
		return;
	}
	bt->batch = xrealloc(bt->batch, (bt->nbatch + 1) * sizeof(double));
	bt->batch[bt->nbatch++] = v;
	if (store_cell(r, i, RS_MIN_NS))
		bt->mod_min = isnan(bt->mod_min) ? getd(r, i, RS_MIN_NS) :
						   fmin(bt->mod_min, getd(r, i, RS_MIN_NS));
	if (store_cell(r, i, RS_MAX_NS))
		bt->mod_max = isnan(bt->mod_max) ? getd(r, i, RS_MAX_NS) :
						   fmax(bt->mod_max, getd(r, i, RS_MAX_NS));
	if (store_cell(r, i, RS_RAW_NS) && store_cell(r, i, RS_BASE_NS) && w->reps > 0) {
		c->raw_sum += getd(r, i, RS_RAW_NS) / (double)w->reps;
		c->base_sum += getd(r, i, RS_BASE_NS) / (double)w->reps;
		c->nraw++;
	}
}

/* a boot with no batch in its mean is dropped (counted when batches were left out) */
static void drop_empty_boots(struct report *rep)
{
	for (size_t k = 0; k < rep->nrows; k++) {
		struct rep_row *x = &rep->rows[k];
		size_t keep = 0;

		for (size_t j = 0; j < x->nboots; j++) {
			if (x->boots[j].nbatch) {
				x->boots[keep++] = x->boots[j];
			} else {
				x->boots_nomean += x->boots[j].nleft > 0;
				free(x->boots[j].batch);
			}
		}
		x->nboots = keep;
	}
}

int report_load(struct store *st, int64_t campaign, struct report *rep)
{
	struct load_cur c = { 0 };
	struct store_rows r;
	int ret, i, n;

	memset(rep, 0, sizeof(*rep));
	rep->campaign = campaign;
	ret = load_campaign(st, rep);
	if (!ret)
		ret = load_boards(st, rep);
	if (!ret)
		ret = load_not_retried(st, rep);
	if (ret)
		return ret;
	if (store_report_samples(st, campaign, &r))
		return -EIO;
	n = (int)r.nrows;
	for (i = 0; i < n; i++) {
		int board = board_index(rep, store_text(&r, i, RS_BOARD));
		int64_t boot = strtoll(store_text(&r, i, RS_BOOT_ID), NULL, 10);
		bool pres = !strcmp(store_text(&r, i, RS_KIND), "preserve");
		int vi = variant_set_find(&rep->vs, store_text(&r, i, RS_VARIANT));

		if (vi < 0) {
			rep->ignored++;
			continue;
		}
		if (!c.w || c.w->board != board ||
		    strcmp(c.w->scenario, store_text(&r, i, RS_SCENARIO)))
			load_row(rep, &c, &r, i, board);
		if (!c.bt || c.bt->id != boot)
			load_boot(rep, &c, &r, i, boot, vi, pres);
		load_batch(&c, &r, i, pres);
	}
	cur_finish(&c);
	store_rows_free(&r);
	ret = load_calibrations(st, rep);
	if (!ret) /* what else changed between the boots: every format flags it */
		ret = rep_load_envs(st, rep);
	if (ret)
		return ret;
	drop_empty_boots(rep);
	/* the same board's rows stay together, in the seed's order */
	if (rep->nrows)
		qsort(rep->rows, rep->nrows, sizeof(*rep->rows), cmp_rows);
	return 0;
}

void report_free(struct report *rep)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		for (size_t j = 0; j < rep->rows[i].nboots; j++)
			free(rep->rows[i].boots[j].batch);
		free(rep->rows[i].boots);
	}
	free(rep->rows);
	for (size_t i = 0; i < rep->nboards; i++) {
		free(rep->boards[i].description);
		free(rep->boards[i].lava_jobs);
		free(rep->boards[i].not_retried_why);
		free(rep->boards[i].logs_incomplete);
		free(rep->boards[i].phases);
		env_diff_free(&rep->boards[i].env);
		free(rep->boards[i].env_changed);
	}
	free(rep->boards);
	free(rep->series_patches);
	free(rep->undecidable);
	for (int v = 0; v < VARIANTS_MAX; v++)
		free(rep->vpatch[v]);
	free(rep->cmp);
	memset(rep, 0, sizeof(*rep));
}

int report_find(const struct report *rep, const char *board, const char *scenario)
{
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].scenario, scenario) &&
		    (!board || !strcmp(rep->boards[rep->rows[i].board].name, board)))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------ analysis */

/* boot means of one side of the A/B table (caller frees) */
static double *variant_means(const struct rep_row *r, int var, size_t *n)
{
	return report_boot_means(r, var, false, n);
}

/* Kalibera & Jones per variant: boots with the most common batch count form the matrix */
static void analyse_design(struct report *rep, struct rep_row *r)
{
	const struct rep_board *b = &rep->boards[r->board];
	double c_boot = b->boot_s, c_batch;
	size_t m = 0;

	r->design_ok = 0;
	if (!rep_design_row(r)) {
		snprintf(r->design_why, sizeof(r->design_why), "not a timing target");
		return;
	}
	for (size_t i = 0; i < r->nboots; i++)
		if (r->boots[i].nbatch > m)
			m = r->boots[i].nbatch;
	if (isnan(c_boot) || isnan(b->run_s) || !(b->run_s > 0) || m < 2) {
		snprintf(r->design_why, sizeof(r->design_why), "%s",
			 m < 2 ? "needs at least 2 batches per boot" :
				 "ingested logs carry no boot and run times");
		return;
	}
	c_batch = b->run_s / (double)m;
	for (int var = 0; var < 2; var++) {
		double *x = xcalloc(r->nboots * m + 1, sizeof(double));
		size_t nb = 0;

		for (size_t i = 0; i < r->nboots; i++) {
			if (r->boots[i].variant != var || r->boots[i].nbatch != m)
				continue;
			memcpy(x + nb * m, r->boots[i].batch, m * sizeof(double));
			nb++;
		}
		r->dv_ok[var] = nb >= 2 && stats_design(x, nb, m, c_boot, c_batch, rep->target,
							&r->dv[var]) == 0;
		free(x);
	}
	if (!r->dv_ok[0] || !r->dv_ok[1]) {
		snprintf(r->design_why, sizeof(r->design_why),
			 "needs at least 2 boots per kernel with %zu batches", m);
		return;
	}
	r->design = r->dv[r->dv[1].boots_needed > r->dv[0].boots_needed];
	r->design_ok = 1;
}

/*
 * One design for the whole board: batches are a module parameter shared by every scenario,
 * so among the candidate batch counts (each row's optimum and the one just used) pick the one
 * whose boots (the most any row and variant needs) x (boot + batches x batch) costs least.
 */
static void analyse_board_design(struct report *rep, int bi)
{
	struct rep_board *b = &rep->boards[bi];
	unsigned int cand[64];
	size_t nc = 0;

	b->design_ok = false;
	if (rep->batches > 0)
		cand[nc++] = (unsigned int)rep->batches;
	for (size_t i = 0; i < rep->nrows && nc < ARRAY_SIZE(cand); i++)
		if (rep->rows[i].board == bi && rep->rows[i].design_ok)
			cand[nc++] = rep->rows[i].design.batches_opt;
	for (size_t c = 0; c < nc; c++) {
		unsigned int m = cand[c], nmax = 0;
		int binding = -1;
		double cost;

		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];

			if (r->board != bi || !r->design_ok)
				continue;
			for (int v = 0; v < 2; v++) {
				unsigned int n = stats_design_boots(r->dv[v].var_within,
								    r->dv[v].var_between,
								    r->dv[v].grand_mean, m,
								    rep->target);
				if (n > nmax) {
					nmax = n;
					binding = (int)i;
				}
			}
		}
		if (binding < 0)
			continue;
		cost = (double)nmax * (b->boot_s + (double)m * b->run_s / rep->batches);
		if (!b->design_ok || cost < b->d_seconds) {
			b->design_ok = true;
			b->d_batches = m;
			b->d_boots = nmax;
			b->d_seconds = cost;
			b->d_binding = binding;
		}
	}
}

/* The timing rows whose p enter the Holm family (not the preservation check) */
static bool family_row(const struct rep_row *r)
{
	/* the null call is the instrument's baseline, not something a patch targets */
	return !rep_is_pres(r) && !rep_is_null(r) && r->have_sr && !r->mixed_timing;
}

/* The A/B table's sequential decisions: one test a row of the Holm family */
static void analyse_seq(struct report *rep)
{
	struct rep_seq_test *t = xcalloc(rep->nrows + 1, sizeof(*t));
	size_t nt = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		if (family_row(&rep->rows[i]))
			t[nt++] = (struct rep_seq_test){ .row = i, .a = 0, .b = 1 };
	rep_seq_decide(rep, family_row, 1, t, nt);
	/* a false-alarm rate is never printed alone: the power at the margin beside it */
	rep->seq.power = NAN;
	rep->seq.power_rows = 0;
	for (size_t j = 0; j < nt; j++) {
		const struct rep_row *r = &rep->rows[t[j].row];
		size_t m = 0;
		double pw;

		if (!r->cal_campaign)
			continue;
		for (size_t k = 0; k < r->nboots; k++)
			m = r->boots[k].nbatch > m ? r->boots[k].nbatch : m;
		pw = rep->seq.p_diff > 0 ?
			     stats_power(r->cal_vb, r->cal_vw, m ? m : 1, (size_t)rep->seq.budget,
					 r->cal_mean, rep->seq.p_diff, rep->margin) :
			     0.0;
		if (isnan(pw))
			continue;
		rep->seq.power = rep->seq.power_rows++ ? fmin(rep->seq.power, pw) : pw;
	}
	for (size_t j = 0; j < nt; j++) {
		struct rep_row *r = &rep->rows[t[j].row];

		if (!t[j].look)
			continue;
		r->seq_look = t[j].look;
		r->seq = t[j].seq;
		r->verdict = t[j].verdict;
		if (!isnan(t[j].lo)) {
			r->ab.ci_lo = t[j].lo;
			r->ab.ci_hi = t[j].hi;
			r->ci_conf = t[j].conf;
		}
	}
	free(t);
}

int report_seq_board(struct store *st, int64_t campaign, const char *board, struct errtext *why)
{
	struct report rep;
	struct report_opts o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET };
	size_t n[4] = { 0 }, total = 0;
	int ret = report_load(st, campaign, &rep);

	if (ret)
		return ret;
	report_analyse(&rep, &o);
	if (rep.series) { /* every comparison of every timing row */
		size_t tot, nd, ns;
		int open = rep_series_open(&rep, board, &tot, &nd, &ns);

		errtext_set(why, 0,
			    "%zu comparison%s: %zu different, %zu same within \u00b1%g%%, %d open",
			    tot, tot == 1 ? "" : "s", nd, ns, rep.margin * 100.0, open);
		report_free(&rep);
		return !tot ? -ENODATA : open == 0;
	}
	for (size_t i = 0; i < rep.nrows; i++) {
		const struct rep_row *r = &rep.rows[i];

		if (strcmp(rep.boards[r->board].name, board) || !family_row(r))
			continue;
		total++;
		n[r->seq >= 0 && r->seq < 4 ? r->seq : SEQ_CONTINUE]++;
	}
	errtext_set(why, 0, "%zu row%s: %zu different, %zu same within \u00b1%g%%, %zu open", total,
		    total == 1 ? "" : "s", n[SEQ_DIFFERENT], n[SEQ_SAME], rep.margin * 100.0,
		    n[SEQ_CONTINUE] + n[SEQ_UNDECIDED]);
	report_free(&rep);
	if (!total)
		return -ENODATA;
	return n[SEQ_CONTINUE] + n[SEQ_UNDECIDED] == 0;
}

/* a row whose boots were timed in two modes: refused, with its boot counts */
static void refuse_mixed(struct rep_row *r)
{
	r->have_ab = false;
	r->verdict = VERDICT_UNDECIDED;
	memset(&r->ab, 0, sizeof(r->ab));
	r->ab.a.mean = r->ab.b.mean = r->ab.rel_change = NAN;
	r->ab.ci_lo = r->ab.ci_hi = r->ab.p_mwu = NAN;
	for (size_t j = 0; j < r->nboots; j++) {
		if (r->boots[j].variant == 1)
			r->ab.b.n++;
		else if (r->boots[j].variant == 0)
			r->ab.a.n++;
	}
	snprintf(r->design_why, sizeof(r->design_why),
		 "refused: %zu of %zu boots timed by %s, the others by %s", r->mixed_timing,
		 r->nboots, r->other_timing[0] ? r->other_timing : "(none)",
		 r->timing[0] ? r->timing : "(none)");
}

/* One row's A/B statistics, unadjusted verdict, MDE and design advice. */
static void analyse_row(struct report *rep, struct rep_row *r, const struct report_opts *o)
{
	size_t na, nb;
	double *a = variant_means(r, 0, &na), *b = variant_means(r, 1, &nb);

	r->have_ab = na + nb > 0 && stats_ab(a, na, b, nb, REPORT_BOOTSTRAP_SEED, 0, &r->ab) == 0;
	r->have_sr = !rep_is_pres(r) && na && nb &&
		     stats_row(a, na, b, nb, o->alpha, rep->margin, &r->sr) == 0;
	if (r->have_sr) {
		/* the change and its interval: exact Hodges-Lehmann (log scale when
		 * every boot mean is positive, else the shift over the control median) */
		const struct hl_result *h = r->sr.have_rel ? &r->sr.rel : &r->sr.shift;
		double scale = r->sr.have_rel ? 1.0 : fabs(r->sr.median_a);

		if (scale > 0) {
			r->ab.rel_change = h->shift / scale;
			r->ab.ci_lo = na > 1 || nb > 1 ? h->lo / scale : NAN;
			r->ab.ci_hi = na > 1 || nb > 1 ? h->hi / scale : NAN;
			r->ci_conf = h->conf;
		}
	}
	r->verdict = r->have_ab ? (enum verdict)stats_verdict(&r->ab, o->alpha) : VERDICT_UNDECIDED;
	if (r->have_sr) /* the null baseline keeps its unadjusted verdict */
		r->verdict = r->sr.verdict;
	r->few = r->have_ab && !rep_is_pres(r) && r->ab.p_min > o->alpha;
	r->mde = NAN;
	if (r->cal_campaign && !rep_is_pres(r)) {
		size_t mb = 0;

		for (size_t j = 0; j < r->nboots; j++)
			mb = r->boots[j].nbatch > mb ? r->boots[j].nbatch : mb;
		r->mde = stats_mde(r->cal_vb, r->cal_vw, mb ? mb : 1, na < nb ? na : nb,
				   r->cal_mean, o->alpha, ABLAB_POWER);
	}
	free(a);
	free(b);
	analyse_design(rep, r);
}

/* Holm over the campaign's timing rows: a campaign of 15 rows keeps its family-wise
 * false-alarm rate at alpha (docs/STATISTICS.md); then "too few boots": no p these n allow
 * passes Holm's first step, m p <= alpha (not alpha alone: 5+5 boots reach 0.05 but not
 * the 0.0056 of 9 rows) */
static void analyse_holm(struct report *rep, const struct report_opts *o)
{
	double *p = xcalloc(rep->nrows + 1, sizeof(double));
	double *adj = xcalloc(rep->nrows + 1, sizeof(double));
	size_t m = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		p[i] = family_row(&rep->rows[i]) ? rep->rows[i].sr.p : NAN;
	if (!stats_holm(p, rep->nrows, adj))
		for (size_t i = 0; i < rep->nrows; i++) {
			struct rep_row *r = &rep->rows[i];

			if (!family_row(r))
				continue;
			m++;
			r->p_adj = adj[i];
			r->verdict = adj[i] <= o->alpha	 ? VERDICT_DIFFERENT :
				     r->sr.within_margin ? VERDICT_SAME :
							   VERDICT_UNDECIDED;
		}
	free(p);
	free(adj);
	rep->nfamily = m;
	for (size_t i = 0; i < rep->nrows; i++)
		if (family_row(&rep->rows[i]) && rep->rows[i].have_ab)
			rep->rows[i].few = rep->rows[i].ab.p_min * (double)m > o->alpha;
}

void report_analyse(struct report *rep, const struct report_opts *o)
{
	rep->alpha = o->alpha;
	rep->target = o->target;
	if (!rep->series) { /* an A/B campaign (or a report built by hand): the pair */
		rep->vs = variant_pair;
		for (size_t i = 0; i < rep->nrows; i++)
			for (size_t j = 0; j < rep->rows[i].nboots; j++)
				rep->rows[i].boots[j].vi = rep->rows[i].boots[j].variant;
	}
	if (o->margin > 0)
		rep->margin = o->margin;
	if (!(rep->margin > 0))
		rep->margin = ABLAB_MARGIN;
	for (size_t i = 0; i < rep->nrows; i++) {
		struct rep_row *r = &rep->rows[i];

		r->p_adj = NAN;
		r->ci_conf = NAN;
		r->mde = NAN;
		r->seq = -1;
		r->seq_look = 0;
		if (o->only_scenario && strcmp(r->scenario, o->only_scenario)) {
			r->have_ab = false; /* not asked for: no bootstrap spent on it */
			r->verdict = VERDICT_UNDECIDED;
		} else if (r->mixed_timing) {
			refuse_mixed(r);
		} else {
			analyse_row(rep, r, o);
		}
	}
	analyse_holm(rep, o);
	if (rep->seq.budget > 0 && rep->seq.first > 0 && !rep->series)
		analyse_seq(rep);
	if (rep->series)
		rep_series_analyse(rep, o);
	for (size_t i = 0; i < rep->nboards; i++)
		analyse_board_design(rep, (int)i);
}
