// SPDX-License-Identifier: GPL-2.0-only
/* Reports of one campaign: the mailing-list table (control / patched /
 * change) in text, paste-ready email, JSON, CSV, SVG and a self-contained
 * HTML page.  The boot is the unit: per boot and scenario the batches are
 * summarised, and every A/B figure is computed from the boot means. */
#include "report.h"
#include "seqtest.h"
#include "util.h"
#include "variant.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMAIL_WIDTH 72
#define NBSP '\001'	/* a space report_wrap() does not break at */

void fmt_time(char *out, size_t len, double ns)
{
	double a = fabs(ns);

	if (isnan(ns))
		snprintf(out, len, "-");
	else if (a < 1000.0)
		snprintf(out, len, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(out, len, "%.3f us", ns / 1e3);
	else if (a < 1e9)
		snprintf(out, len, "%.3f ms", ns / 1e6);
	else
		snprintf(out, len, "%.3f s", ns / 1e9);
}

void fmt_change(char *out, size_t len, double rel)
{
	double pct = rel * 100.0, a = fabs(pct);
	int dec = 1;

	if (isnan(rel)) {
		snprintf(out, len, "-");
		return;
	}
	if (a > 0 && a < 1.0)
		dec = 1 - (int)floor(log10(a));
	if (dec > 6)
		dec = 6;
	snprintf(out, len, "%+.*f%%", dec, pct);
}

static void fmt_p(char *out, size_t len, double p)
{
	if (isnan(p))
		snprintf(out, len, "-");
	else if (p < 0.001)
		snprintf(out, len, "%.1e", p);
	else
		snprintf(out, len, "%.3f", p);
}

static bool is_pres(const struct rep_row *r)
{
	return !strcmp(r->kind, "preserve");
}

static bool is_null(const struct rep_row *r)
{
	return !strcmp(r->op, "null");
}

/* a value of the row's unit: time, or bytes lost */
static void fmt_val(const struct rep_row *r, char *out, size_t len, double v)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else if (is_pres(r))
		snprintf(out, len, "%.0f B", v);
	else
		fmt_time(out, len, v);
}

static void size_label(char *out, size_t len, int64_t size)
{
	if (size >= (1 << 20) && size % (1 << 20) == 0)
		snprintf(out, len, "%" PRId64 " MiB", size >> 20);
	else if (size >= 1024 && size % 1024 == 0)
		snprintf(out, len, "%" PRId64 " KiB", size >> 10);
	else
		snprintf(out, len, "%" PRId64 " B", size);
}

void report_row_label(const struct rep_row *r, char *out, size_t len)
{
	char sz[32];

	size_label(sz, sizeof(sz), r->size);
	if (r->size < 0)	/* a job-defined benchmark: its own scenario names */
		snprintf(out, len, "%s", r->scenario);
	else if (is_pres(r))
		snprintf(out, len, "lost of %s", sz);
	else if (is_null(r))
		snprintf(out, len, "null call");
	else if (r->op[0] && strcmp(r->op, "map_unmap"))
		snprintf(out, len, "%s %s %s", sz, r->state, r->op);
	else
		snprintf(out, len, "%s %s", sz, r->state);
}

/* several boards may share a CPU and family (a board and its stand-in) */
static bool cpu_unique(const struct report *rep, int b)
{
	for (size_t i = 0; i < rep->nboards; i++)
		if ((int)i != b && !strcmp(rep->boards[i].cpu, rep->boards[b].cpu) &&
		    !strcmp(rep->boards[i].family, rep->boards[b].family))
			return false;
	return true;
}

void report_row_label_full(const struct report *rep, const struct rep_row *r, char *out,
			   size_t len)
{
	const struct rep_board *b = &rep->boards[r->board];
	char l[96];

	report_row_label(r, l, sizeof(l));
	if (cpu_unique(rep, r->board))
		snprintf(out, len, "%s, %s, %s", b->cpu, b->family, l);
	else
		snprintf(out, len, "%s (%s), %s, %s", b->cpu, b->name, b->family, l);
}

char *report_wrap(const char *text, size_t width, const char *indent)
{
	struct buf o = { 0 };
	size_t col = 0, il = strlen(indent);
	const char *p = text;

	while (*p) {
		const char *w;
		size_t n;

		if (*p == '\n') {
			buf_append(&o, "\n", 1);
			col = 0;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		w = p;
		while (*p && *p != ' ' && *p != '\n')
			p++;
		n = (size_t)(p - w);
		/* NBSP marks (\001) keep "p = 0.008" together; they print as spaces */
		if (col && col + 1 + n > width) {
			buf_append(&o, "\n", 1);
			col = 0;
		}
		if (!col) {
			buf_append(&o, indent, il);
			col = il;
		} else {
			buf_append(&o, " ", 1);
			col++;
		}
		for (size_t i = 0; i < n; i++)
			buf_append(&o, w[i] == NBSP ? " " : &w[i], 1);
		col += n;
	}
	buf_append(&o, "", 1);
	return o.data;
}

void xml_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case NBSP: fputc(' ', f); break;
		default: fputc(*s, f);
		}
	}
}

/* ------------------------------------------------------------------ loading */

static double getd(PGresult *r, int i, int c)
{
	return PQgetisnull(r, i, c) ? NAN : strtod(PQgetvalue(r, i, c), NULL);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

static int row_rank(const struct rep_row *r)
{
	return is_pres(r) ? 2 : is_null(r) ? 1 : 0;
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
	c = -strcmp(a->state, b->state);	/* dirty before clean */
	if (c)
		return c;
	c = strcmp(a->op, b->op);
	return c ? c : strcmp(a->scenario, b->scenario);
}

static int load_campaign(struct store *st, const char *ids, struct report *rep)
{
	static const char *const q =
		"SELECT trigger, order_kind, " STORE_CAMPAIGN_STATUS_SQL("c") ", "
		" to_char(created, 'YYYY-MM-DD HH24:MI'), "
		" coalesce(job->>'job', ''), coalesce(batches, 0), coalesce(boots_per_variant, 0),"
		" coalesce(seed, 0), coalesce((run->'sequential'->>'first')::int, 0),"
		" coalesce((run->'sequential'->>'budget')::int, 0),"
		" coalesce((run->'sequential'->>'alpha')::float8, 0.05),"
		" coalesce((run->'sequential'->>'beta')::float8, 0.05),"
		" coalesce((run->'sequential'->>'boards')::int, 0),"
		" coalesce((run->>'margin_pct')::float8, (job->>'margin_pct')::float8, 0)"
		" FROM campaigns c WHERE id = $1::int";
	const char *p[1] = { ids };
	PGresult *r = store_query(st, q, 1, p);

	if (!r)
		return -EIO;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return -ENOENT;
	}
	copy_str(rep->trigger, sizeof(rep->trigger), PQgetvalue(r, 0, 0));
	copy_str(rep->order_kind, sizeof(rep->order_kind), PQgetvalue(r, 0, 1));
	copy_str(rep->status, sizeof(rep->status), PQgetvalue(r, 0, 2));
	copy_str(rep->created, sizeof(rep->created), PQgetvalue(r, 0, 3));
	copy_str(rep->job, sizeof(rep->job), PQgetvalue(r, 0, 4));
	rep->batches = atoi(PQgetvalue(r, 0, 5));
	rep->boots_per_variant = atoi(PQgetvalue(r, 0, 6));
	rep->order_seed = strtoll(PQgetvalue(r, 0, 7), NULL, 10);
	rep->seq.first = atoi(PQgetvalue(r, 0, 8));
	rep->seq.budget = atoi(PQgetvalue(r, 0, 9));
	rep->seq.alpha = atof(PQgetvalue(r, 0, 10));
	rep->seq.beta = atof(PQgetvalue(r, 0, 11));
	rep->seq.boards = atoi(PQgetvalue(r, 0, 12));
	rep->margin = atof(PQgetvalue(r, 0, 13)) / 100.0;
	PQclear(r);
	return 0;
}

static int load_boards(struct store *st, const char *ids, struct report *rep)
{
	static const char *const q =
		"SELECT bo.name, coalesce(bo.cpu, ''), coalesce(bo.family, ''), "
		" coalesce(bo.definition->>'emulated', 'false') = 'true', "
		" coalesce(bo.definition->>'description', ''), "
		" coalesce(translate(string_agg(left(b.variant, 1), '' ORDER BY b.seq, b.id) "
		"  FILTER (WHERE b.status = 'ok'), 'cp', 'AB'), ''), "
		" count(*) FILTER (WHERE b.status = 'failed'), "
		" avg(b.boot_ms) FILTER (WHERE b.status = 'ok'), "
		" avg(b.run_ms) FILTER (WHERE b.status = 'ok'), max(b.clock_res_ns), "
		" coalesce(string_agg(coalesce(b.lava_server, '(server not recorded)') || '#' || "
		"  b.lava_job_id, ' ' ORDER BY b.seq, b.id) FILTER (WHERE b.status = 'ok' AND "
		"  b.lava_job_id IS NOT NULL), ''), "
		" count(*) FILTER (WHERE b.status = 'ok' AND b.partial) "
		"FROM boots b JOIN boards bo ON bo.id = b.board_id WHERE b.campaign_id = $1::int "
		"GROUP BY bo.name, bo.cpu, bo.family, bo.definition ORDER BY bo.name";
	const char *p[1] = { ids };
	PGresult *r = store_query(st, q, 1, p);
	int i, n;

	if (!r)
		return -EIO;
	n = PQntuples(r);
	rep->boards = xcalloc((size_t)n + 1, sizeof(*rep->boards));
	rep->nboards = (size_t)n;
	for (i = 0; i < n; i++) {
		struct rep_board *b = &rep->boards[i];

		copy_str(b->name, sizeof(b->name), PQgetvalue(r, i, 0));
		copy_str(b->cpu, sizeof(b->cpu), PQgetvalue(r, i, 1));
		copy_str(b->family, sizeof(b->family), PQgetvalue(r, i, 2));
		b->emulated = PQgetvalue(r, i, 3)[0] == 't';
		b->description = xstrdup(PQgetvalue(r, i, 4));
		b->lava_jobs = xstrdup(PQgetvalue(r, i, 10));
		copy_str(b->order, sizeof(b->order), PQgetvalue(r, i, 5));
		b->failed = (size_t)atol(PQgetvalue(r, i, 6));
		b->boot_s = getd(r, i, 7) / 1000.0;
		b->run_s = getd(r, i, 8) / 1000.0;
		b->clock_res_ns = PQgetisnull(r, i, 9) ? -1 : strtoll(PQgetvalue(r, i, 9), NULL, 10);
		b->partial = (size_t)atol(PQgetvalue(r, i, 11));
	}
	PQclear(r);
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
 * campaign (or a board's part of it) stopped. */
static int load_not_retried(struct store *st, struct report *rep)
{
	PGresult *r = store_campaign_attempts(st, rep->campaign);
	int i, n;

	if (!r)
		return -EIO;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		int bi = board_index(rep, PQgetvalue(r, i, 0));
		struct rep_board *b;
		struct buf w = { 0 };

		if (bi < 0 || !strcmp(PQgetvalue(r, i, 4), "ok") || PQgetvalue(r, i, 5)[0] == 't')
			continue;
		b = &rep->boards[bi];
		b->not_retried++;
		if (b->not_retried_why)
			buf_printf(&w, "%s; ", b->not_retried_why);
		buf_printf(&w, "slot %s (%s) attempt %s: %s", PQgetvalue(r, i, 1),
			   PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), PQgetvalue(r, i, 6));
		free(b->not_retried_why);
		b->not_retried_why = w.data;
	}
	PQclear(r);
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
static int load_calibrations(struct store *st, const char *ids, struct report *rep)
{
	static const char *const q =
		"SELECT DISTINCT ON (c.board, c.scenario) c.board, c.scenario, c.campaign_id,"
		" c.mean, c.var_within, c.var_between FROM calibrations c"
		" WHERE c.board IN (SELECT o.name FROM boots b JOIN boards o ON o.id = b.board_id"
		"  WHERE b.campaign_id = $1::int)"
		" ORDER BY c.board, c.scenario, c.image_sha256 IS NOT DISTINCT FROM"
		"  (SELECT k.image_sha256 FROM boots b JOIN boards o ON o.id = b.board_id"
		"   JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $1::int"
		"   AND o.name = c.board AND b.variant = 'control' LIMIT 1) DESC, c.created DESC";
	const char *p[1] = { ids };
	PGresult *r = store_query(st, q, 1, p);

	if (!r)
		return -EIO;
	for (int i = 0; i < PQntuples(r); i++) {
		int k = report_find(rep, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));

		if (k < 0)
			continue;
		rep->rows[k].cal_campaign = strtoll(PQgetvalue(r, i, 2), NULL, 10);
		rep->rows[k].cal_mean = atof(PQgetvalue(r, i, 3));
		rep->rows[k].cal_vw = atof(PQgetvalue(r, i, 4));
		rep->rows[k].cal_vb = atof(PQgetvalue(r, i, 5));
	}
	PQclear(r);
	return 0;
}

int report_load(struct store *st, int64_t campaign, struct report *rep)
{
	static const char *const q =
		"SELECT bo.name, s.scenario, s.kind, coalesce(s.op, ''), coalesce(s.state, ''), "
		" coalesce(s.timing, ''), coalesce(s.size, -1), coalesce(s.reps, 0), b.id, b.seq, "
		" b.variant, s.mean_ns, s.min_ns, s.max_ns, s.raw_ns, s.base_ns, s.lost_bytes "
		"FROM boots b JOIN samples s ON s.boot_id = b.id JOIN boards bo ON bo.id = b.board_id "
		"WHERE b.campaign_id = $1::int AND b.status = 'ok' "
		"ORDER BY bo.name, s.scenario, b.seq, b.id, s.batch";
	char ids[32];
	const char *p[1] = { ids };
	struct rep_row *w = NULL;
	struct rep_boot *bt = NULL;
	double raw_sum = 0, base_sum = 0;
	size_t nraw = 0;
	PGresult *r;
	int ret, i, n;

	memset(rep, 0, sizeof(*rep));
	rep->campaign = campaign;
	snprintf(ids, sizeof(ids), "%" PRId64, campaign);
	ret = load_campaign(st, ids, rep);
	if (!ret)
		ret = load_boards(st, ids, rep);
	if (!ret)
		ret = load_not_retried(st, rep);
	if (ret)
		return ret;
	r = store_query(st, q, 1, p);
	if (!r)
		return -EIO;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		const char *var = PQgetvalue(r, i, 10);
		int board = board_index(rep, PQgetvalue(r, i, 0));
		int64_t boot = strtoll(PQgetvalue(r, i, 8), NULL, 10);
		bool pres = !strcmp(PQgetvalue(r, i, 2), "preserve");
		double v;

		if (strcmp(var, "control") && strcmp(var, "patched")) {
			rep->ignored++;
			continue;
		}
		if (!w || w->board != board || strcmp(w->scenario, PQgetvalue(r, i, 1))) {
			if (bt)
				boot_finish(bt, raw_sum, base_sum, nraw);
			bt = NULL;
			rep->rows = xrealloc(rep->rows, (rep->nrows + 1) * sizeof(*rep->rows));
			w = &rep->rows[rep->nrows++];
			memset(w, 0, sizeof(*w));
			w->board = board;
			copy_str(w->scenario, sizeof(w->scenario), PQgetvalue(r, i, 1));
			copy_str(w->kind, sizeof(w->kind), PQgetvalue(r, i, 2));
			copy_str(w->op, sizeof(w->op), PQgetvalue(r, i, 3));
			copy_str(w->state, sizeof(w->state), PQgetvalue(r, i, 4));
			copy_str(w->timing, sizeof(w->timing), PQgetvalue(r, i, 5));
			w->size = strtoll(PQgetvalue(r, i, 6), NULL, 10);
			w->reps = strtoll(PQgetvalue(r, i, 7), NULL, 10);
		}
		if (!bt || bt->id != boot) {
			if (bt)
				boot_finish(bt, raw_sum, base_sum, nraw);
			w->boots = xrealloc(w->boots, (w->nboots + 1) * sizeof(*w->boots));
			bt = &w->boots[w->nboots++];
			memset(bt, 0, sizeof(*bt));
			bt->id = boot;
			bt->seq = atoi(PQgetvalue(r, i, 9));
			bt->variant = !strcmp(var, "patched");
			bt->mod_min = bt->mod_max = NAN;
			raw_sum = base_sum = 0;
			nraw = 0;
			if (!pres && strcmp(w->timing, PQgetvalue(r, i, 5))) {
				w->mixed_timing++;
				copy_str(w->other_timing, sizeof(w->other_timing),
					 PQgetvalue(r, i, 5));
			}
		}
		v = getd(r, i, pres ? 16 : 11);
		if (isnan(v))
			continue;
		bt->batch = xrealloc(bt->batch, (bt->nbatch + 1) * sizeof(double));
		bt->batch[bt->nbatch++] = v;
		if (!PQgetisnull(r, i, 12))
			bt->mod_min = isnan(bt->mod_min) ? getd(r, i, 12) : fmin(bt->mod_min,
										 getd(r, i, 12));
		if (!PQgetisnull(r, i, 13))
			bt->mod_max = isnan(bt->mod_max) ? getd(r, i, 13) : fmax(bt->mod_max,
										 getd(r, i, 13));
		if (!PQgetisnull(r, i, 14) && !PQgetisnull(r, i, 15) && w->reps > 0) {
			raw_sum += getd(r, i, 14) / (double)w->reps;
			base_sum += getd(r, i, 15) / (double)w->reps;
			nraw++;
		}
	}
	if (bt)
		boot_finish(bt, raw_sum, base_sum, nraw);
	PQclear(r);
	ret = load_calibrations(st, ids, rep);
	if (ret)
		return ret;
	/* the same board's rows stay together, in the seed's order */
	for (size_t k = 0; k < rep->nrows; k++) {
		struct rep_row *x = &rep->rows[k];
		size_t keep = 0;

		for (size_t j = 0; j < x->nboots; j++) {
			if (x->boots[j].nbatch)
				x->boots[keep++] = x->boots[j];
			else
				free(x->boots[j].batch);
		}
		x->nboots = keep;
	}
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
	}
	free(rep->boards);
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

/* boot means of one variant (caller frees) */
static double *variant_means(const struct rep_row *r, int var, size_t *n)
{
	double *v = xcalloc(r->nboots + 1, sizeof(double));

	*n = 0;
	for (size_t i = 0; i < r->nboots; i++)
		if (r->boots[i].variant == var)
			v[(*n)++] = r->boots[i].s.mean;
	return v;
}

static bool design_row(const struct rep_row *r)
{
	return !is_pres(r) && !is_null(r);
}

/* Kalibera & Jones per variant: boots with the most common batch count form the matrix */
static void analyse_design(struct report *rep, struct rep_row *r)
{
	const struct rep_board *b = &rep->boards[r->board];
	double c_boot = b->boot_s, c_batch;
	size_t m = 0;

	r->design_ok = 0;
	if (!design_row(r)) {
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
	return !is_pres(r) && !is_null(r) && r->have_sr && !r->mixed_timing;
}

/* Sequential campaigns: the decision at the look the row's boots reached.  Each row is
 * tested at alpha / (boards x timing rows of its board), so the campaign's false-alarm
 * rate stays <= alpha (Bonferroni: the engine decides with the same numbers before the
 * other boards' rows exist). */
static void analyse_seq(struct report *rep)
{
	size_t na[SEQ_MAX_LOOKS], nb[SEQ_MAX_LOOKS];
	int nl = seq_schedule_balanced((size_t)rep->seq.first, 2 * (size_t)rep->seq.budget, na,
				       nb, SEQ_MAX_LOOKS);

	if (nl <= 0)
		return;
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		struct seq_design d;
		size_t m = 0, nboards = rep->seq.boards > 0 ? (size_t)rep->seq.boards :
							       rep->nboards;

		for (size_t i = 0; i < rep->nrows; i++)
			m += rep->rows[i].board == (int)bi && family_row(&rep->rows[i]);
		if (!m)
			continue;
		if (seq_design_init(&d, na, nb, (size_t)nl, rep->seq.alpha / (double)(m * nboards),
				    rep->seq.beta, rep->margin, 0, SEQ_DEFAULT_SEED))
			continue;
		rep->seq.nlooks = (size_t)nl;
		rep->seq.row_alpha = d.alpha;
		rep->seq.fpr = d.fpr;
		rep->seq.fpr_se = d.fpr_se;
		rep->seq.same_err = d.same_err;
		rep->seq.p_diff = d.p_diff;
		rep->seq.p_eq = d.p_eq;
		rep->seq.nrows_tested = m * nboards;
		rep->seq.bounds[0] = '\0';
		for (size_t k = 0, len = 0; k < d.nlooks && len < sizeof(rep->seq.bounds); k++)
			len += (size_t)snprintf(rep->seq.bounds + len, sizeof(rep->seq.bounds) - len,
						"%s%zu+%zu:%ld/%ld", k ? " " : "", d.look[k].na,
						d.look[k].nb, d.look[k].u_diff, d.look[k].u_eq);
		for (size_t i = 0; i < rep->nrows; i++) {
			struct rep_row *r = &rep->rows[i];
			struct seq_result sr;
			size_t n1, n2;
			double *a, *b;

			if (r->board != (int)bi || !family_row(r))
				continue;
			a = variant_means(r, 0, &n1);
			b = variant_means(r, 1, &n2);
			for (size_t k = 0; k < (size_t)nl; k++) {
				if (na[k] != n1 || nb[k] != n2 || seq_decide(&d, k, a, n1, b, n2, &sr))
					continue;
				r->seq_look = (int)k + 1;
				r->seq = sr.decision == SEQ_CONTINUE && k + 1 == (size_t)nl ?
						 SEQ_UNDECIDED : (int)sr.decision;
				r->verdict = r->seq == SEQ_DIFFERENT ? 1 : r->seq == SEQ_SAME ? 0 : -1;
				if (!isnan(sr.rci_rel.lo)) {
					/* the repeated CI keeps its promise at a data-dependent stop */
					r->ab.ci_lo = sr.rci_rel.lo;
					r->ab.ci_hi = sr.rci_rel.hi;
					r->ci_conf = 1.0 - d.fpr;
				}
			}
			free(a);
			free(b);
		}
	}
}

int report_seq_board(struct store *st, int64_t campaign, const char *board, char *why,
		     size_t len)
{
	struct report rep;
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	size_t n[4] = { 0 }, total = 0;
	int ret = report_load(st, campaign, &rep);

	if (ret)
		return ret;
	report_analyse(&rep, &o);
	for (size_t i = 0; i < rep.nrows; i++) {
		const struct rep_row *r = &rep.rows[i];

		if (strcmp(rep.boards[r->board].name, board) || !family_row(r))
			continue;
		total++;
		n[r->seq >= 0 && r->seq < 4 ? r->seq : SEQ_CONTINUE]++;
	}
	snprintf(why, len, "%zu row%s: %zu different, %zu same within \u00b1%g%%, %zu open",
		 total, total == 1 ? "" : "s", n[SEQ_DIFFERENT], n[SEQ_SAME], rep.margin * 100.0,
		 n[SEQ_CONTINUE] + n[SEQ_UNDECIDED]);
	report_free(&rep);
	if (!total)
		return -ENODATA;
	return n[SEQ_CONTINUE] + n[SEQ_UNDECIDED] == 0;
}

void report_analyse(struct report *rep, const struct report_opts *o)
{
	double *p, *adj;
	size_t m = 0;

	rep->alpha = o->alpha;
	rep->target = o->target;
	if (o->margin > 0)
		rep->margin = o->margin;
	if (!(rep->margin > 0))
		rep->margin = 0.01;
	for (size_t i = 0; i < rep->nrows; i++) {
		struct rep_row *r = &rep->rows[i];
		size_t na, nb;
		double *a, *b;

		r->p_adj = NAN;
		r->ci_conf = NAN;
		r->mde = NAN;
		r->seq = -1;
		r->seq_look = 0;
		if (o->only_scenario && strcmp(r->scenario, o->only_scenario)) {
			r->have_ab = false;	/* not asked for: no bootstrap spent on it */
			r->verdict = -1;
			continue;
		}
		if (r->mixed_timing) {
			r->have_ab = false;
			r->verdict = -1;
			memset(&r->ab, 0, sizeof(r->ab));
			r->ab.a.mean = r->ab.b.mean = r->ab.rel_change = NAN;
			r->ab.ci_lo = r->ab.ci_hi = r->ab.p_mwu = NAN;
			for (size_t j = 0; j < r->nboots; j++) {
				if (r->boots[j].variant)
					r->ab.b.n++;
				else
					r->ab.a.n++;
			}
			snprintf(r->design_why, sizeof(r->design_why),
				 "refused: %zu of %zu boots timed by %s, the others by %s", r->mixed_timing,
				 r->nboots, r->other_timing[0] ? r->other_timing : "(none)",
				 r->timing[0] ? r->timing : "(none)");
			continue;
		}
		a = variant_means(r, 0, &na);
		b = variant_means(r, 1, &nb);
		r->have_ab = na + nb > 0 &&
			     stats_ab(a, na, b, nb, REPORT_BOOTSTRAP_SEED, 0, &r->ab) == 0;
		r->have_sr = !is_pres(r) && na && nb &&
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
		r->verdict = r->have_ab ? stats_verdict(&r->ab, o->alpha) : -1;
		if (r->have_sr)	/* the null baseline keeps its unadjusted verdict */
			r->verdict = r->sr.verdict == VERDICT_DIFFERENT ? 1 :
				     r->sr.verdict == VERDICT_SAME ? 0 : -1;
		r->few = r->have_ab && !is_pres(r) && r->ab.p_min > o->alpha;
		r->mde = NAN;
		if (r->cal_campaign && !is_pres(r)) {
			size_t mb = 0;

			for (size_t j = 0; j < r->nboots; j++)
				mb = r->boots[j].nbatch > mb ? r->boots[j].nbatch : mb;
			r->mde = stats_mde(r->cal_vb, r->cal_vw, mb ? mb : 1, na < nb ? na : nb,
					   r->cal_mean, o->alpha, 0.8);
		}
		free(a);
		free(b);
		analyse_design(rep, r);
	}
	/* Holm over the campaign's timing rows: a campaign of 15 rows keeps its
	 * family-wise false-alarm rate at alpha (docs/STATISTICS.md) */
	p = xcalloc(rep->nrows + 1, sizeof(double));
	adj = xcalloc(rep->nrows + 1, sizeof(double));
	for (size_t i = 0; i < rep->nrows; i++)
		p[i] = family_row(&rep->rows[i]) ? rep->rows[i].sr.p : NAN;
	if (!stats_holm(p, rep->nrows, adj))
		for (size_t i = 0; i < rep->nrows; i++) {
			struct rep_row *r = &rep->rows[i];

			if (!family_row(r))
				continue;
			m++;
			r->p_adj = adj[i];
			r->verdict = adj[i] <= o->alpha ? 1 : r->sr.within_margin ? 0 : -1;
		}
	free(p);
	free(adj);
	rep->nfamily = m;
	if (rep->seq.budget > 0 && rep->seq.first > 0)
		analyse_seq(rep);
	for (size_t i = 0; i < rep->nboards; i++)
		analyse_board_design(rep, (int)i);
}

/* ------------------------------------------------------------------ shared text */

static const char *sep_word(enum separation s)
{
	return s == SEP_B_BELOW ? "below" : s == SEP_B_ABOVE ? "above" : "overlap";
}

/* "-" when a side has no boots */
static const char *row_sep(const struct rep_row *r)
{
	return r->have_ab && r->ab.a.n && r->ab.b.n ? sep_word(r->ab.sep) : "-";
}

/* a row's verdict: "different", "same within +-1%", "undecided", "undecided: too few
 * boots", "refused"; the preservation check keeps significant / not significant */
static void verdict_cell(const struct report *rep, const struct rep_row *r, char *out,
			 size_t len)
{
	if (r->mixed_timing)
		snprintf(out, len, "refused");
	else if (is_pres(r))
		snprintf(out, len, "%s", r->verdict == 1 ? "significant" : r->verdict == 0 ?
			 "not significant" : "too few boots");
	else if (!r->have_sr)
		snprintf(out, len, "-");
	else if (r->verdict == 1)
		snprintf(out, len, "different");
	else if (r->verdict == 0)
		snprintf(out, len, "same within \u00b1%g%%", rep->margin * 100.0);
	else if (r->few && r->seq < 0)
		snprintf(out, len, "undecided: too few boots");
	else
		snprintf(out, len, "undecided");
}

/* the change cell: the HL estimate "+6.3%"; mark (email): "~" for an undecided row,
 * "same" for a row without a change beyond the margin */
static void change_cell(const struct rep_row *r, char *out, size_t len, bool mark)
{
	char c[32];

	if (!r->have_ab || !r->ab.a.n || !r->ab.b.n) {
		snprintf(out, len, "-");
		return;
	}
	if (is_pres(r))
		snprintf(c, sizeof(c), "%+.0f B", r->ab.b.mean - r->ab.a.mean);
	else
		fmt_change(c, sizeof(c), r->ab.rel_change);
	if (mark && !is_pres(r) && r->verdict < 0)
		snprintf(out, len, "~");
	else if (mark && !is_pres(r) && r->verdict == 0)
		snprintf(out, len, "same");
	else
		snprintf(out, len, "%s", c);
}

/* the p cell: "0.008", "0.690"; the smallest p these n allow when it is above alpha */
static void p_cell(const struct rep_row *r, char *out, size_t len)
{
	char p[32];

	if (r->mixed_timing) {
		snprintf(out, len, "refused: mixed timing");
		return;
	}
	if (!r->have_ab || !r->ab.a.n || !r->ab.b.n) {
		snprintf(out, len, "-");
		return;
	}
	fmt_p(p, sizeof(p), r->have_sr ? r->sr.p : r->ab.p_mwu);
	snprintf(out, len, "%s", p);
}

/* the Holm-adjusted p */
static void padj_cell(const struct rep_row *r, char *out, size_t len)
{
	if (isnan(r->p_adj))
		snprintf(out, len, "-");
	else
		fmt_p(out, len, r->p_adj);
}

/* "[+5.1%, +7.4%]" and "96.8%" */
static void ci_cells(const struct rep_row *r, char *ci, size_t cilen, char *conf, size_t clen)
{
	char lo[24], hi[24];

	if (is_pres(r) || isnan(r->ab.ci_lo) || !r->have_sr) {
		snprintf(ci, cilen, "-");
		snprintf(conf, clen, "-");
		return;
	}
	fmt_change(lo, sizeof(lo), r->ab.ci_lo);
	fmt_change(hi, sizeof(hi), r->ab.ci_hi);
	snprintf(ci, cilen, "[%s, %s]", lo, hi);
	snprintf(conf, clen, "%.1f%%", r->ci_conf * 100.0);
}

static void order_words(const struct report *rep, const struct rep_board *b, struct buf *o,
			bool email)
{
	size_t n = strlen(b->order), alt = 1;

	for (size_t i = 1; i < n; i++)
		if (b->order[i] == b->order[i - 1])
			alt = 0;
	if (!strcmp(rep->order_kind, "manual")) {
		buf_printf(o, "the boots were captured by hand and ingested from their logs, so "
			   "their order is not known");
		return;
	}
	if (alt && n > 1 && email)
		buf_printf(o, "alternating (%s, A = control)", b->order);
	else if (alt && n > 1)
		buf_printf(o, "alternating the kernels on every boot (%s, A = control, B = "
			   "patched)", b->order);
	else if (!strcmp(rep->order_kind, "abba"))
		buf_printf(o, "in counterbalanced ABBA order (%s, A = control, B = patched)",
			   b->order);
	else if (!strcmp(rep->order_kind, "random"))
		buf_printf(o, "in a random order (seed %" PRId64 ": %s, A = control, B = patched)",
			   rep->order_seed, b->order);
	else
		buf_printf(o, "in the order %s (A = control, B = patched)", b->order);
}

static const char *number_word(size_t n)
{
	static const char *const w[] = { "no", "one", "two", "three", "four", "five", "six",
					 "seven", "eight", "nine", "ten" };

	return n < ARRAY_SIZE(w) ? w[n] : NULL;
}

static void buf_count(struct buf *o, size_t n)
{
	const char *w = number_word(n);

	if (w)
		buf_printf(o, "%s", w);
	else
		buf_printf(o, "%zu", n);
}

/* "256 B dirty, 1 MiB dirty and 1 MiB clean": rows matching a predicate */
static size_t list_rows(const struct report *rep, struct buf *o, bool email,
			bool (*pred)(const struct report *, const struct rep_row *, const void *),
			const void *arg)
{
	size_t n = 0, total = 0, k = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		if ((!email || !is_null(&rep->rows[i])) && pred(rep, &rep->rows[i], arg))
			total++;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160];

		if ((email && is_null(r)) || !pred(rep, r, arg))
			continue;
		report_row_label(r, l, sizeof(l));
		for (char *q = l; *q; q++)
			*q = *q == ' ' ? NBSP : *q;
		k++;
		buf_printf(o, "%s%s%s%s", n ? (k == total ? " and " : ", ") : "",
			   rep->nboards > 1 ? rep->boards[r->board].cpu : "",
			   rep->nboards > 1 ? " " : "", l);
		n++;
	}
	return n;
}

static bool pred_verdict(const struct report *rep, const struct rep_row *r, const void *arg)
{
	(void)rep;
	return !is_pres(r) && r->have_sr && !r->mixed_timing && r->verdict == *(const int *)arg;
}

/* complete separation that is not a "different" verdict: reported with its chance */
static bool pred_lucky(const struct report *rep, const struct rep_row *r, const void *arg)
{
	(void)rep;
	(void)arg;
	return !is_pres(r) && r->have_sr && r->verdict != 1 && r->ab.sep != SEP_OVERLAP;
}

static bool is_qemu(const struct rep_board *b)
{
	return b->emulated && b->description && strstr(b->description, "QEMU");
}

/* What the board's own description says it is (its first sentence), not an
 * assumption that every emulated board is QEMU. */
static void emulated_words(struct buf *o, const struct rep_board *b, bool email)
{
	const char *d = b->description ? b->description : "";
	const char *e = strstr(d, ". ");
	int n = e ? (int)(e - d) : (int)strlen(d);

	while (n > 0 && d[n - 1] == '.')
		n--;
	if (n && email)
		buf_printf(o, " %s is emulated (%.*s): not hardware costs.", b->name, n, d);
	else if (n)
		buf_printf(o,
			   " %s is emulated (%.*s): its timings show that the procedure works, not what the patch costs on hardware.",
			   b->name, n, d);
	else if (email)
		buf_printf(o, " %s is emulated: not hardware costs.", b->name);
	else
		buf_printf(o,
			   " %s is emulated (\"emulated\": true in its board file): its timings show that the procedure works, not what the patch costs on hardware.",
			   b->name);
}

/* "qemu-sam9x75, qemu-arm11 and qemu-pi400" for the boards whose design key equals bi's */
static void board_group(const struct report *rep, size_t bi, const bool *same, struct buf *o)
{
	size_t n = 0, total = 0;

	for (size_t j = 0; j < rep->nboards; j++)
		total += same[j];
	for (size_t j = 0; j < rep->nboards; j++) {
		if (!same[j])
			continue;
		n++;
		buf_printf(o, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
			   rep->boards[j].name);
	}
	(void)bi;
}

/* The method statement a reviewer can quote (one paragraph, not wrapped): boards with
 * the same design in one sentence, every scenario named once. */
static char *method_paragraph(const struct report *rep, bool email)
{
	struct buf o = { 0 };
	bool *done = xcalloc(rep->nboards + 1, sizeof(bool));
	bool *same = xcalloc(rep->nboards + 1, sizeof(bool));
	bool any_batch = false;

	buf_printf(&o, "Method (ablab campaign %" PRId64 "):", rep->campaign);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];
		size_t nc = 0, np = 0;

		if (done[bi])
			continue;
		for (const char *c = b->order; *c; c++)
			*c == 'A' ? nc++ : np++;
		for (size_t j = 0; j < rep->nboards; j++) {
			same[j] = !done[j] && !strcmp(rep->boards[j].order, b->order);
			done[j] |= same[j];
		}
		buf_printf(&o, " on ");
		board_group(rep, bi, same, &o);
		if (nc == np) {
			buf_printf(&o, " each kernel was booted ");
			buf_count(&o, nc);
			buf_printf(&o, " time%s", nc == 1 ? "" : "s");
		} else {
			buf_printf(&o, " the control kernel was booted %zu and the patched kernel "
				   "%zu times", nc, np);
		}
		buf_printf(&o, ", ");
		order_words(rep, b, &o, email);
		buf_printf(&o, ";");
	}
	if (rep->seq.budget > 0)
		buf_printf(&o, " the boots came in rounds of one control and one patched boot, "
			   "with a look at the data after each round from %d+%d on, until every "
			   "row was decided or %d+%d boots were spent;", rep->seq.first,
			   rep->seq.first, rep->seq.budget, rep->seq.budget);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];

		if (!b->failed)
			continue;
		buf_printf(&o, " %s had %zu failed boot attempt%s (not in the table)", b->name,
			   b->failed, b->failed == 1 ? "" : "s");
		/* the last one of a slot was not retried: the board's part stopped there */
		if (b->not_retried)
			buf_printf(&o, ", %zu not retried, so its part stopped there (%s)",
				   b->not_retried, b->not_retried_why);
		buf_printf(&o, ";");
	}
	if (rep->batches > 0) {
		bool first = true;

		buf_printf(&o, " each boot ran %d batch%s of every scenario", rep->batches,
			   rep->batches == 1 ? "" : "es");
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];
			char l[96];

			/* benchmarks other than dmabench do not say their iterations */
			if (is_pres(r) || (email && is_null(r)) || r->board != 0 || r->reps <= 0)
				continue;
			report_row_label(r, l, sizeof(l));
			for (char *q = l; *q; q++)
				*q = *q == ' ' ? NBSP : *q;
			buf_printf(&o, "%s%s %" PRId64, first ? " (iterations per batch: " : ", ", l,
				   r->reps);
			first = false;
		}
		buf_printf(&o, "%s; %s.", first ? "" : ")", email ? "a boot's mean is one "
			   "observation" : "the mean over a boot's batches is one observation");
	} else {
		buf_printf(&o, " each boot's log is one observation.");
	}
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].timing, "batch"))
			any_batch = true;
	if (any_batch)
		buf_printf(&o, " Where the clock was too coarse for single iterations, whole "
			   "batches were timed and a memset-only batch subtracted (one mode per "
			   "scenario and board, fixed at its first boot).");
	if (rep->seq.nlooks)
		buf_printf(&o, " A row was decided by a group-sequential exact rank test "
			   "(Pocock-type boundaries over %zu looks at %.2g per row, %zu rows: overall "
			   "false-alarm rate %.3f\001\u00b1\001%.3f by simulation) or by its "
			   "equivalence interval lying within \u00b1%g%%; its interval is the "
			   "repeated CI.", rep->seq.nlooks, rep->seq.row_alpha, rep->seq.nrows_tested,
			   rep->seq.fpr * rep->seq.nrows_tested, rep->seq.fpr_se * rep->seq.nrows_tested,
			   rep->margin * 100.0);
	else if (rep->nfamily && email)
		buf_printf(&o, " Change: Hodges-Lehmann estimate, exact CI; p: Mann-Whitney U, "
			   "Holm-adjusted over %zu rows; \"same\": the %g%% CI is within "
			   "\u00b1%g%%.", rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha),
			   rep->margin * 100.0);
	else if (rep->nfamily)
		buf_printf(&o, " Changes are Hodges-Lehmann estimates over boot means with exact "
			   "distribution-free intervals; p is the exact Mann-Whitney U, Holm-adjusted "
			   "over the %zu timing rows (not the null-call baseline); \"same\" means the %g%% interval lies within "
			   "\u00b1%g%%.", rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha),
			   rep->margin * 100.0);
	{
		static const int vs[3] = { 1, 0, -1 };
		static const char *const words[3] = { "Different", "Same within", "Undecided" };

		for (int k = 0; k < 3; k++) {
			struct buf l = { 0 };

			if (!list_rows(rep, &l, email, pred_verdict, &vs[k])) {
				buf_free(&l);
				continue;
			}
			if (k == 1)
				buf_printf(&o, " %s \u00b1%g%%: %s.", words[k], rep->margin * 100.0,
					   l.data);
			else
				buf_printf(&o, " %s: %s.", words[k], l.data);
			buf_free(&l);
		}
	}
	{
		struct buf l = { 0 };

		if (list_rows(rep, &l, email, pred_lucky, NULL)) {
			const struct rep_row *r = NULL;

			for (size_t i = 0; i < rep->nrows && !r; i++)
				if (pred_lucky(rep, &rep->rows[i], NULL))
					r = &rep->rows[i];
			buf_printf(&o, " The boots of %s did not overlap, but with %zu+%zu boots that "
				   "happens with no change with probability %.2g, so it is not "
				   "evidence.", l.data, r->ab.a.n, r->ab.b.n, r->ab.p_min);
		}
		buf_free(&l);
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		if (!is_pres(r) || !r->ab.a.n || !r->ab.b.n)
			continue;
		buf_printf(&o, " The preservation check%s%s lost %.0f of %" PRId64 " bytes per "
			   "boot with control, %.0f with patched.",
			   rep->nboards > 1 ? " on " : "",
			   rep->nboards > 1 ? rep->boards[r->board].name : "", r->ab.a.mean,
			   r->size, r->ab.b.mean);
	}
	{
		size_t ne = 0, k = 0;

		/* QEMU boards (their description says so) in one sentence, any other
		 * emulated board in the words of its own description */
		for (size_t bi = 0; bi < rep->nboards; bi++)
			ne += is_qemu(&rep->boards[bi]);
		for (size_t bi = 0; bi < rep->nboards; bi++) {
			if (!is_qemu(&rep->boards[bi]))
				continue;
			k++;
			buf_printf(&o, "%s%s", k == 1 ? " " : k == ne ? " and " : ", ",
				   rep->boards[bi].name);
		}
		if (ne && email)
			buf_printf(&o, " %s emulated (QEMU, no cache model): not hardware costs.",
				   ne == 1 ? "is" : "are");
		else if (ne)
			buf_printf(&o, " %s emulated (QEMU, no cache model): %s timings show the "
				   "procedure works, not what the patch costs on hardware.",
				   ne == 1 ? "is" : "are", ne == 1 ? "its" : "their");
		for (size_t bi = 0; bi < rep->nboards; bi++)
			if (rep->boards[bi].emulated && !is_qemu(&rep->boards[bi]))
				emulated_words(&o, &rep->boards[bi], email);
	}
	if (rep->ignored)
		buf_printf(&o, " %zu boot(s) with a variant other than control and patched are "
			   "not in the table.", rep->ignored);
	free(done);
	free(same);
	return o.data;
}

/* design advice lines (shared by text, email, html) */
static char *design_text(const struct report *rep)
{
	struct buf o = { 0 };

	buf_printf(&o, "Design for the next campaign (Kalibera & Jones 2013): boots per kernel "
		   "and batches per boot that reach a 95%% CI half-width of %g%% of the mean "
		   "in the least time, from the within-boot and between-boot variance and the "
		   "measured cost of a boot and of a batch.\n", rep->target * 100.0);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];
		char l[160];

		if (!b->design_ok) {
			const char *why = "no timing row with 2+ boots per kernel and 2+ batches";

			for (size_t i = 0; i < rep->nrows; i++)
				if (rep->rows[i].board == (int)bi && design_row(&rep->rows[i]))
					why = rep->rows[i].design_why;
			buf_printf(&o, "%s: no advice (%s).\n", b->name, why);
			continue;
		}
		report_row_label(&rep->rows[b->d_binding], l, sizeof(l));
		buf_printf(&o, "%s: %u boots per kernel x %u batch%s, about %.0f\001s per "
			   "kernel (boot %.1f\001s, batch %.2f\001s; most demanding: %s).\n",
			   b->name, b->d_boots, b->d_batches, b->d_batches == 1 ? "" : "es",
			   b->d_seconds, b->boot_s, b->run_s / rep->batches, l);
	}
	return o.data;
}

/* ------------------------------------------------------------------ text */

static void write_text(const struct report *rep, const struct report_opts *o, FILE *f)
{
	char *m, *w, *d;

	fprintf(f, "campaign %" PRId64 " (%s%s%s, %s, %s): %d batch%s per scenario per boot\n",
		rep->campaign, rep->trigger, rep->job[0] ? " " : "", rep->job, rep->status,
		rep->created, rep->batches, rep->batches == 1 ? "" : "es");
	for (size_t bi = 0; bi < rep->nboards; bi++)
		fprintf(f, "  %s: boots in order %s (A = control, B = patched), %zu failed "
			"attempt(s)\n", rep->boards[bi].name, rep->boards[bi].order,
			rep->boards[bi].failed);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].not_retried_why)
			fprintf(f,
				"  %s: stopped after a failed attempt that was not retried: %s\n",
				rep->boards[bi].name, rep->boards[bi].not_retried_why);
	if (!strcmp(rep->status, "stale"))
		fprintf(f,
			"  stale: the campaign is marked running but no agent holds it (its agent died); `ablab resume %" PRId64 "` continues it\n",
			rep->campaign);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].lava_jobs && rep->boards[bi].lava_jobs[0])
			fprintf(f, "  %s: LAVA jobs (server#id) %s\n", rep->boards[bi].name,
				rep->boards[bi].lava_jobs);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].partial)
			fprintf(f, "  %s: PARTIAL: %zu boot(s) ingested with --partial (a log cut "
				"short or with rejected lines: only its valid scenarios kept)\n",
				rep->boards[bi].name, rep->boards[bi].partial);
	fprintf(f, "\n  %-40s %11s %11s %9s %-19s %6s %5s %6s %6s %6s %s\n", "", "control",
		"patched", "change", "CI", "conf", "n", "p", "p_holm", "mde", "verdict");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160], a[32], b[32], c[32], ci[48], conf[16], p[32], pa[16], n[16], v[48];
		char md[16];

		report_row_label_full(rep, r, l, sizeof(l));
		fmt_val(r, a, sizeof(a), r->ab.a.mean);
		fmt_val(r, b, sizeof(b), r->ab.b.mean);
		change_cell(r, c, sizeof(c), false);
		ci_cells(r, ci, sizeof(ci), conf, sizeof(conf));
		p_cell(r, p, sizeof(p));
		padj_cell(r, pa, sizeof(pa));
		verdict_cell(rep, r, v, sizeof(v));
		snprintf(n, sizeof(n), "%zu+%zu", r->ab.a.n, r->ab.b.n);
		if (isnan(r->mde))
			snprintf(md, sizeof(md), "-");
		else if (isinf(r->mde))
			snprintf(md, sizeof(md), "none");
		else
			snprintf(md, sizeof(md), r->mde >= 0.1 ? "%.0f%%" : "%.2g%%", r->mde * 100.0);
		fprintf(f, "  %-40s %11s %11s %9s %-19s %6s %5s %6s %6s %6s %s\n", l, a, b, c, ci, conf,
			n, r->mixed_timing ? "-" : p, pa, md, v);
	}
	if (!rep->nrows)
		fprintf(f, "  (no successful boots)\n");
	if (!rep->nrows)
		return;
	for (size_t i = 0; i < rep->nrows; i++) {
		char l[160];

		if (!rep->rows[i].mixed_timing)
			continue;
		report_row_label_full(rep, &rep->rows[i], l, sizeof(l));
		fprintf(f, "\n  %s: %s; iteration and baseline-subtracted batch timings are not comparable, so this row has no result (a campaign pins each scenario's mode at its first boot; logs ingested by hand can mix them)\n",
			l, rep->rows[i].design_why);
	}
	if (rep->seq.nlooks)
		m = xasprintf("change: Hodges-Lehmann estimate of patched/control - 1 over boot "
			      "means; CI: the repeated confidence interval of the sequential design "
			      "at the row's last look (every look's interval covers the change at "
			      "once with at least conf); p: exact two-sided Mann-Whitney U on boot "
			      "means at that look, p_holm: Holm-adjusted over the %zu timing rows "
			      "(shown for reference: the sequential boundaries decide); verdict: "
			      "different, same within \u00b1%g%%, or undecided after the budget. "
			      "Boundaries at %.2g per row (look n+n:u_diff/u_eq: different iff U <= "
			      "u_diff or U >= n^2 - u_diff; same needs the interval of rank u_eq + 1 "
			      "inside the margin; -1: that look cannot): %s.",
			      rep->nfamily, rep->margin * 100.0, rep->seq.row_alpha, rep->seq.bounds);
	else
		m = xasprintf("change: Hodges-Lehmann estimate of patched/control - 1 over boot "
			      "means; CI: its exact distribution-free interval at nominal %g%% "
			      "(inverting the Mann-Whitney distribution), conf: the confidence these "
			      "n achieve; p: exact two-sided Mann-Whitney U on boot means, p_holm: "
			      "Holm-adjusted over the %zu timing rows; verdict: different (p_holm <= "
			      "%g), same within \u00b1%g%% (the %g%% interval lies inside the "
			      "margin), else undecided (\"too few boots\": no p these n allow is "
			      "below alpha).", 100.0 * (1.0 - rep->alpha), rep->nfamily, rep->alpha,
			      rep->margin * 100.0, 100.0 * (1.0 - 2.0 * rep->alpha));
	w = report_wrap(m, 78, "");
	fprintf(f, "\n%s\n\n", w);
	free(m);
	free(w);
	m = method_paragraph(rep, false);
	w = report_wrap(m, 78, "");
	fprintf(f, "%s\n\n", w);
	free(m);
	free(w);
	d = design_text(rep);
	w = report_wrap(d, 78, "");
	fprintf(f, "%s\n", w);
	free(d);
	free(w);
	if (!o->detail)
		return;
	fprintf(f, "\nper boot (over its batches; module min/max per iteration; batch timing: "
		"raw and baseline per iteration):\n");
	fprintf(f, "  %-12s %-22s %-8s %5s %3s %11s %11s %11s %11s %10s %11s %11s\n", "board",
		"scenario", "variant", "seq", "m", "mean", "median", "min", "max", "sd",
		"module min", "module max");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		for (size_t j = 0; j < r->nboots; j++) {
			const struct rep_boot *bt = &r->boots[j];
			char v[7][32];

			fmt_val(r, v[0], 32, bt->s.mean);
			fmt_val(r, v[1], 32, bt->s.median);
			fmt_val(r, v[2], 32, bt->s.min);
			fmt_val(r, v[3], 32, bt->s.max);
			fmt_val(r, v[4], 32, bt->s.sd);
			fmt_val(r, v[5], 32, bt->mod_min);
			fmt_val(r, v[6], 32, bt->mod_max);
			fprintf(f, "  %-12s %-22s %-8s %5d %3zu %11s %11s %11s %11s %10s %11s %11s",
				rep->boards[r->board].name, r->scenario,
				bt->variant ? "patched" : "control", bt->seq, bt->nbatch, v[0],
				v[1], v[2], v[3], v[4], v[5], v[6]);
			if (!isnan(bt->raw_mean)) {
				fmt_time(v[0], 32, bt->raw_mean);
				fmt_time(v[1], 32, bt->base_mean);
				fprintf(f, "  raw %s base %s", v[0], v[1]);
			}
			fputc('\n', f);
		}
	}
}

/* ------------------------------------------------------------------ email */

static void write_email(const struct report *rep, FILE *f)
{
	size_t lw = 0, cw = strlen("control"), pw = strlen("patched"), chw = strlen("change");
	size_t n = 0, gap = 3;
	bool stacked, any_few = false;
	char *m, *w;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];
			char l[160], a[32], b[32], c[40];

			if (is_null(r))
				continue;
			report_row_label_full(rep, r, l, sizeof(l));
			fmt_val(r, a, sizeof(a), r->ab.a.mean);
			fmt_val(r, b, sizeof(b), r->ab.b.mean);
			change_cell(r, c, sizeof(c), true);
			if (pass == 0) {
				lw = strlen(l) > lw ? strlen(l) : lw;
				cw = strlen(a) > cw ? strlen(a) : cw;
				pw = strlen(b) > pw ? strlen(b) : pw;
				chw = strlen(c) > chw ? strlen(c) : chw;
				any_few |= !is_pres(r) && r->verdict < 0;
				n++;
				continue;
			}
			if (stacked)
				fprintf(f, "%s\n  %*s   %*s   %*s\n", l, (int)cw, a, (int)pw, b,
					(int)chw, c);
			else
				fprintf(f, "%-*s%*s%*s%*s%*s%*s%*s\n", (int)lw, l, (int)gap, "",
					(int)cw, a, (int)gap, "", (int)pw, b, (int)gap, "",
					(int)chw, c);
		}
		if (pass == 0) {
			/* the seed's layout when it fits, else each label on its own line */
			if (lw + 3 * gap + cw + pw + chw > EMAIL_WIDTH)
				gap = 2;
			stacked = lw + 3 * gap + cw + pw + chw > EMAIL_WIDTH;
			if (stacked)
				fprintf(f, "  %*s   %*s   %*s\n", (int)cw, "control", (int)pw,
					"patched", (int)chw, "change");
			else
				fprintf(f, "%-*s%*s%*s%*s%*s%*s%*s\n", (int)lw, "", (int)gap, "",
					(int)cw, "control", (int)gap, "", (int)pw, "patched",
					(int)gap, "", (int)chw, "change");
		}
	}
	if (!n) {
		fprintf(f, "(no successful boots)\n");
		return;
	}
	if (any_few) {
		const struct rep_row *r = NULL;

		for (size_t i = 0; i < rep->nrows && !r; i++)
			if (!is_pres(&rep->rows[i]) && rep->rows[i].verdict < 0)
				r = &rep->rows[i];
		m = xasprintf("* too few boots to reach alpha = %g: with %zu+%zu boots the "
			      "smallest possible p is %.3f.", rep->alpha, r->ab.a.n, r->ab.b.n,
			      r->ab.p_min);
		w = report_wrap(m, EMAIL_WIDTH, "");
		fprintf(f, "%s\n", w);
		free(m);
		free(w);
	}
	fputc('\n', f);
	m = method_paragraph(rep, true);
	w = report_wrap(m, EMAIL_WIDTH, "");
	fprintf(f, "%s\n", w);
	free(m);
	free(w);
}

/* ------------------------------------------------------------------ json, csv */

static json_object *jd(double v)
{
	return isnan(v) || isinf(v) ? NULL : json_object_new_double(v);
}

static void write_json(const struct report *rep, FILE *f)
{
	json_object *root = json_object_new_object(), *rows = json_object_new_array();
	json_object *boards = json_object_new_array();
	char *m = method_paragraph(rep, false), *dt = design_text(rep);

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
	json_object_object_add(root, "target_rel_ci", json_object_new_double(rep->target));
	json_object_object_add(root, "bootstrap_seed",
			       json_object_new_int64((int64_t)REPORT_BOOTSTRAP_SEED));
	json_object_object_add(root, "bootstrap_resamples",
			       json_object_new_int((int)STATS_DEFAULT_RESAMPLES));
	json_object_object_add(root, "method", json_object_new_string(m));
	json_object_object_add(root, "design_text", json_object_new_string(dt));
	free(m);
	free(dt);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "board", json_object_new_string(b->name));
		json_object_object_add(o, "cpu", json_object_new_string(b->cpu));
		json_object_object_add(o, "family", json_object_new_string(b->family));
		json_object_object_add(o, "emulated", json_object_new_boolean(b->emulated));
		json_object_object_add(o, "order", json_object_new_string(b->order));
		json_object_object_add(o, "lava_jobs",
				       json_object_new_string(b->lava_jobs ? b->lava_jobs : ""));
		json_object_object_add(o, "failed_attempts", json_object_new_int((int)b->failed));
		json_object_object_add(o, "partial_boots", json_object_new_int((int)b->partial));
		json_object_object_add(o, "boot_s", jd(b->boot_s));
		json_object_object_add(o, "run_s", jd(b->run_s));
		if (b->design_ok) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "boots_per_kernel",
					       json_object_new_int((int)b->d_boots));
			json_object_object_add(d, "batches", json_object_new_int((int)b->d_batches));
			json_object_object_add(d, "seconds_per_kernel", jd(b->d_seconds));
			json_object_object_add(d, "most_demanding", json_object_new_string(
				rep->rows[b->d_binding].scenario));
			json_object_object_add(o, "design", d);
		} else {
			json_object_object_add(o, "design", NULL);
		}
		json_object_array_add(boards, o);
	}
	json_object_object_add(root, "boards", boards);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		json_object *o = json_object_new_object(), *bs = json_object_new_array();
		char l[160];

		report_row_label_full(rep, r, l, sizeof(l));
		json_object_object_add(o, "board", json_object_new_string(
			rep->boards[r->board].name));
		json_object_object_add(o, "scenario", json_object_new_string(r->scenario));
		json_object_object_add(o, "label", json_object_new_string(l));
		json_object_object_add(o, "kind", json_object_new_string(r->kind));
		json_object_object_add(o, "size", json_object_new_int64(r->size));
		json_object_object_add(o, "reps", json_object_new_int64(r->reps));
		json_object_object_add(o, "timing", json_object_new_string(r->timing));
		json_object_object_add(o, "unit", json_object_new_string(is_pres(r) ? "bytes lost"
										   : "ns"));
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
		json_object_object_add(o, "separation", json_object_new_string(row_sep(r)));
		{
			char v[48];

			verdict_cell(rep, r, v, sizeof(v));
			json_object_object_add(o, "verdict", json_object_new_string(
				r->mixed_timing ? "refused" : is_pres(r) ? v :
				r->verdict == 1 ? "different" : r->verdict == 0 ? "same" : "undecided"));
			json_object_object_add(o, "verdict_text", json_object_new_string(v));
		}
		json_object_object_add(o, "p_holm", jd(r->p_adj));
		json_object_object_add(o, "mde", isinf(r->mde) ? NULL : jd(r->mde));
		if (r->cal_campaign)
			json_object_object_add(o, "mde_calibration_campaign",
					       json_object_new_int64(r->cal_campaign));
		json_object_object_add(o, "ci_conf", jd(r->ci_conf));
		json_object_object_add(o, "margin", jd(rep->margin));
		if (r->have_sr) {
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
		if (r->seq >= 0) {
			json_object_object_add(o, "sequential_decision",
					       json_object_new_string(seq_decision_name(r->seq)));
			json_object_object_add(o, "sequential_look", json_object_new_int(r->seq_look));
		}
		if (r->mixed_timing)
			json_object_object_add(o, "refused", json_object_new_string(r->design_why));
		if (r->design_ok) {
			json_object *d = json_object_new_object();

			json_object_object_add(d, "var_within", jd(r->design.var_within));
			json_object_object_add(d, "var_between", jd(r->design.var_between));
			json_object_object_add(d, "batches_opt",
					       json_object_new_int((int)r->design.batches_opt));
			json_object_object_add(d, "boots_needed",
					       json_object_new_int((int)r->design.boots_needed));
			json_object_object_add(d, "seconds_per_kernel", jd(r->design.est_seconds));
			json_object_object_add(o, "design", d);
		} else {
			json_object_object_add(o, "design", NULL);
			json_object_object_add(o, "design_unavailable",
					       json_object_new_string(r->design_why));
		}
		for (size_t j = 0; j < r->nboots; j++) {
			const struct rep_boot *bt = &r->boots[j];
			json_object *b = json_object_new_object(), *bv = json_object_new_array();

			json_object_object_add(b, "boot_id", json_object_new_int64(bt->id));
			json_object_object_add(b, "seq", json_object_new_int(bt->seq));
			json_object_object_add(b, "variant", json_object_new_string(
				bt->variant ? "patched" : "control"));
			json_object_object_add(b, "batches", json_object_new_int((int)bt->nbatch));
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
			json_object_array_add(bs, b);
		}
		json_object_object_add(o, "boots", bs);
		json_object_array_add(rows, o);
	}
	json_object_object_add(root, "rows", rows);
	fprintf(f, "%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_SPACED));
	json_object_put(root);
}

/* RFC 4180: quote a field when it holds a comma, quote or newline */
static void csv_field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

static void csv_num(FILE *f, double v, bool last)
{
	if (!isnan(v))
		fprintf(f, "%.17g", v);
	fputc(last ? '\n' : ',', f);
}

static void write_csv(const struct report *rep, const struct report_opts *o, FILE *f)
{
	if (o->detail) {
		fprintf(f, "campaign,board,scenario,variant,boot_id,seq,batches,mean,median,min,"
			"max,sd,module_min,module_max,raw_mean,base_mean\n");
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];

			for (size_t j = 0; j < r->nboots; j++) {
				const struct rep_boot *bt = &r->boots[j];

				fprintf(f, "%" PRId64 ",", rep->campaign);
				csv_field(f, rep->boards[r->board].name, false);
				csv_field(f, r->scenario, false);
				fprintf(f, "%s,%" PRId64 ",%d,%zu,", bt->variant ? "patched" :
					"control", bt->id, bt->seq, bt->nbatch);
				csv_num(f, bt->s.mean, false);
				csv_num(f, bt->s.median, false);
				csv_num(f, bt->s.min, false);
				csv_num(f, bt->s.max, false);
				csv_num(f, bt->s.sd, false);
				csv_num(f, bt->mod_min, false);
				csv_num(f, bt->mod_max, false);
				csv_num(f, bt->raw_mean, false);
				csv_num(f, bt->base_mean, true);
			}
		}
		return;
	}
	fprintf(f, "campaign,board,cpu,family,scenario,label,kind,size,unit,n_control,n_patched,"
		"control_mean,patched_mean,rel_change,ci_lo,ci_hi,ci_conf,p_mwu,p_holm,p_min,"
		"verdict,separation,welch_p,cliff_delta\n");
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
			is_pres(r) ? "bytes lost" : "ns", r->ab.a.n, r->ab.b.n);
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

			verdict_cell(rep, r, v, sizeof(v));
			fprintf(f, "%s,%s,", v, row_sep(r));
		}
		csv_num(f, r->ab.welch_p, false);
		csv_num(f, r->have_sr ? r->sr.cliff : NAN, true);
	}
}

/* ------------------------------------------------------------------ svg, html */

#define SVG_PW 340	/* panel width */
#define SVG_PH 270	/* panel height */
#define SVG_COLS 3
static const char *const var_color[2] = { "#0072b2", "#d55e00" };	/* Okabe-Ito */
static const char *const *const var_name = variant_names;

/* 1, 2, 5 x 10^k step giving about 4 ticks over [lo, hi] */
static double nice_step(double span)
{
	double raw = span / 4.0, mag = pow(10.0, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1.0 : f < 3.5 ? 2.0 : f < 7.5 ? 5.0 : 10.0) * mag;
}

/* a tick label: the unit of the axis' largest value, as many decimals as the step needs */
static void fmt_tick(const struct rep_row *r, char *out, size_t len, double v, double step,
		     double ref)
{
	static const char *const unit[] = { "ns", "us", "ms", "s" };
	double scale = 1.0;
	int u = 0, dec;

	if (!is_pres(r))
		while (u < 3 && fabs(ref) >= scale * 1000.0) {
			scale *= 1000.0;
			u++;
		}
	dec = (int)ceil(-log10(step / scale) - 1e-9);
	dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
	snprintf(out, len, "%.*f %s", dec, fabs(v) < step * 1e-9 ? 0.0 : v / scale,
		 is_pres(r) ? "B" : unit[u]);
}

static void svg_panel(const struct report *rep, const struct rep_row *r, FILE *f, double x0,
		      double y0)
{
	const double px0 = x0 + 78, px1 = x0 + SVG_PW - 20, py0 = y0 + 58, py1 = y0 + SVG_PH - 50;
	double lo = INFINITY, hi = -INFINITY, step, colx[2];
	char l[160], c[40], p[32];

	for (size_t j = 0; j < r->nboots; j++) {
		lo = fmin(lo, r->boots[j].s.mean);
		hi = fmax(hi, r->boots[j].s.mean);
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	if (hi - lo < fabs(hi) * 1e-6 + 1e-9) {
		double pad = fabs(hi) * 0.01 + 1.0;

		lo -= pad;
		hi += pad;
	}
	step = nice_step(hi - lo);
	lo = floor(lo / step) * step;
	hi = ceil(hi / step) * step;
	colx[0] = px0 + (px1 - px0) * 0.27;
	colx[1] = px0 + (px1 - px0) * 0.73;
#define SY(v) (py1 - ((v) - lo) / (hi - lo) * (py1 - py0))
	report_row_label_full(rep, r, l, sizeof(l));
	change_cell(r, c, sizeof(c), true);
	p_cell(r, p, sizeof(p));
	fprintf(f, "<g class=\"panel\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\" stroke=\"#cccccc\"/>\n", x0 + 2, y0 + 2, SVG_PW - 4,
		SVG_PH - 4);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" font-weight=\"bold\">",
		x0 + 10, y0 + 20);
	xml_escape(f, l);
	fprintf(f, "</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">change %s, p %s, %s"
		"</text>\n", x0 + 10, y0 + 38, c, p, row_sep(r));
	for (double t = lo; t <= hi + step * 0.01; t += step) {
		char tv[32];

		fmt_tick(r, tv, sizeof(tv), t, step, fmax(fabs(lo), fabs(hi)));
		fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#eeeeee\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"text-anchor=\"end\" fill=\"#555555\">%s</text>\n", px0, px1, SY(t),
			SY(t), px0 - 4, SY(t) + 3, tv);
	}
	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888888\"/>\n",
		px0, px0, py0, py1);
	for (int v = 0; v < 2; v++) {
		const struct summary *s = v ? &r->ab.b : &r->ab.a;
		size_t k = 0;

		for (size_t j = 0; j < r->nboots; j++) {
			const struct rep_boot *bt = &r->boots[j];
			double jx = (double)((int)(k * 7 % 11) - 5) * 2.6;
			char tv[32];

			if (bt->variant != v)
				continue;
			k++;
			fmt_val(r, tv, sizeof(tv), bt->s.mean);
			fprintf(f, "<circle class=\"boot %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
				"fill=\"%s\" fill-opacity=\"0.75\"><title>%s boot %d: %s</title>"
				"</circle>\n", var_name[v], colx[v] + jx, SY(bt->s.mean),
				var_color[v], var_name[v], bt->seq, tv);
		}
		if (s->n) {
			char mv[32];

			fmt_val(r, mv, sizeof(mv), s->mean);
			fprintf(f, "<line class=\"mean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
				colx[v] - 26, colx[v] + 26, SY(s->mean), SY(s->mean),
				var_color[v]);
			fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
				"text-anchor=\"middle\" fill=\"%s\">mean %s</text>\n", colx[v],
				py1 + 34, var_color[v], mv);
		}
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
			"fill=\"%s\" font-weight=\"bold\">%s (n=%zu)</text>\n", colx[v], py1 + 19,
			var_color[v], var_name[v], s->n);
	}
#undef SY
	fprintf(f, "</g>\n");
}

static void write_svg(const struct report *rep, FILE *f)
{
	size_t n = rep->nrows ? rep->nrows : 1;
	int cols = n < SVG_COLS ? (int)n : SVG_COLS, rowsn = (int)((n + SVG_COLS - 1) / SVG_COLS);
	int w = cols * SVG_PW, h = rowsn * SVG_PH + 30;

	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n", w, h, w, h);
	fprintf(f, "<title>ablab campaign %" PRId64 ": per-boot means</title>\n", rep->campaign);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n");
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"13\">campaign %" PRId64 ": one dot per "
		"boot (its mean over the batches), bar = mean of the boot means</text>\n",
		rep->campaign);
	for (size_t i = 0; i < rep->nrows; i++)
		svg_panel(rep, &rep->rows[i], f, (double)((int)i % SVG_COLS) * SVG_PW,
			  30.0 + (double)((int)i / SVG_COLS) * SVG_PH);
	if (!rep->nrows)
		fprintf(f, "<text x=\"10\" y=\"60\">no successful boots</text>\n");
	fprintf(f, "</svg>\n");
}

static void write_html(const struct report *rep, FILE *f)
{
	char *m = method_paragraph(rep, false), *d = design_text(rep);

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>ablab campaign %" PRId64 "</title>\n<style>\n"
		"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
		"table{border-collapse:collapse;margin:1em 0}\n"
		"th,td{padding:3px 9px;border-bottom:1px solid #ddd;text-align:right}\n"
		"th:first-child,td:first-child{text-align:left}\n"
		"th{background:#eef}\ntd{white-space:nowrap}\n.ns{color:#777}\n"
		".sig{font-weight:bold}\np.method{max-width:60em;line-height:1.4}\n"
		"p.design{max-width:60em;white-space:pre-line;font-size:90%%}\n"
		"</style></head>\n<body>\n", rep->campaign);
	fprintf(f, "<h1>ablab campaign %" PRId64 "</h1>\n<p>", rep->campaign);
	xml_escape(f, rep->trigger);
	if (rep->job[0]) {
		fputs(" job ", f);
		xml_escape(f, rep->job);
	}
	fprintf(f, ", %s, started %s, %d batches per scenario per boot.</p>\n", rep->status,
		rep->created, rep->batches);
	fprintf(f, "<table id=\"ab\">\n<tr><th></th><th>control</th><th>patched</th>"
		"<th>change</th><th>95%% CI</th><th>n</th><th>p</th><th>separation</th></tr>\n");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160], a[32], b[32], c[40], p[32], lo[24], hi[24];

		report_row_label_full(rep, r, l, sizeof(l));
		fmt_val(r, a, sizeof(a), r->ab.a.mean);
		fmt_val(r, b, sizeof(b), r->ab.b.mean);
		change_cell(r, c, sizeof(c), false);
		p_cell(r, p, sizeof(p));
		fmt_change(lo, sizeof(lo), r->ab.ci_lo);
		fmt_change(hi, sizeof(hi), r->ab.ci_hi);
		fputs("<tr><td>", f);
		xml_escape(f, l);
		fprintf(f, "</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td><td>%s%s%s%s%s</td>"
			"<td>%zu+%zu</td><td>%s</td><td>%s</td></tr>\n", a, b,
			r->verdict == 1 ? "sig" : "ns", c, isnan(r->ab.ci_lo) || is_pres(r) ? "-" :
			"[", isnan(r->ab.ci_lo) || is_pres(r) ? "" : lo,
			isnan(r->ab.ci_lo) || is_pres(r) ? "" : ", ",
			isnan(r->ab.ci_lo) || is_pres(r) ? "" : hi,
			isnan(r->ab.ci_lo) || is_pres(r) ? "" : "]", r->ab.a.n, r->ab.b.n, p,
			row_sep(r));
	}
	fputs("</table>\n<p class=\"method\">", f);
	xml_escape(f, m);
	fputs("</p>\n<p class=\"design\">", f);
	xml_escape(f, d);
	fputs("</p>\n<div id=\"plots\">\n", f);
	write_svg(rep, f);
	fputs("</div>\n</body></html>\n", f);
	free(m);
	free(d);
}

int report_write(const struct report *rep, const char *format, const struct report_opts *o,
		 FILE *out)
{
	if (!strcmp(format, "text"))
		write_text(rep, o, out);
	else if (!strcmp(format, "email"))
		write_email(rep, out);
	else if (!strcmp(format, "json"))
		write_json(rep, out);
	else if (!strcmp(format, "csv"))
		write_csv(rep, o, out);
	else if (!strcmp(format, "svg"))
		write_svg(rep, out);
	else if (!strcmp(format, "html"))
		write_html(rep, out);
	else
		return -EINVAL;
	return 0;
}

bool report_format_ok(const char *format)
{
	static const char *const f[] = { "text", "email", "json", "csv", "svg", "html" };

	for (size_t i = 0; i < ARRAY_SIZE(f); i++)
		if (!strcmp(format, f[i]))
			return true;
	return false;
}

int report_campaign_opts(struct store *st, int64_t campaign, const char *format,
			 const struct report_opts *o)
{
	return report_campaign_to(st, campaign, format, o, stdout);
}

int report_campaign_to(struct store *st, int64_t campaign, const char *format,
		       const struct report_opts *o, FILE *out)
{
	struct report rep;
	int ret;

	if (!report_format_ok(format)) {
		err_msg("report: unknown format \"%s\" (text, email, json, csv, svg, html)", format);
		return -EINVAL;
	}
	ret = report_load(st, campaign, &rep);
	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", campaign);
	if (ret) {
		report_free(&rep);
		return ret;
	}
	report_analyse(&rep, o);
	ret = report_write(&rep, format, o, out);
	if (!ret && !rep.nrows && (!strcmp(format, "text") || !strcmp(format, "email")))
		ret = -ENOENT;
	report_free(&rep);
	return ret;
}

int report_campaign(struct store *st, int64_t campaign, const char *format, double alpha)
{
	struct report_opts o = { .alpha = alpha, .target = 0.01 };

	return report_campaign_opts(st, campaign, format, &o);
}
