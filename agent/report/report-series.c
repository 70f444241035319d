// SPDX-License-Identifier: GPL-2.0-only
/* The attribution report of a series campaign (more variants than control and patched):
 * per board and timing row, each variant against control and each variant against the
 * one before it (a patch's own increment), with the change, its interval, the p-value
 * adjusted by Holm over every comparison of every timing row, and the verdict; the
 * sequential looks decide every one of these comparisons. */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "shared/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* rows whose comparisons enter the family (as the A/B table's: no preservation check, no
 * null call, one timing mode) */
static bool series_row(const struct rep_row *r)
{
	return !rep_is_pres(r) && !rep_is_null(r) && !r->mixed_timing;
}

/* boot means of the variant at position vi (caller frees) */
static double *means_of(const struct rep_row *r, int vi, size_t *n)
{
	return report_boot_means(r, vi, true, n);
}

/* The comparisons of nv variants, in the order the table shows them: each variant against
 * the one before it (for the first, that is control), then each later one against
 * control.  Returns how many (2 nv - 3). */
static size_t comparisons(int nv, int (*ab)[2])
{
	size_t n = 0;

	for (int b = 1; b < nv; b++) {
		ab[n][0] = b - 1;
		ab[n++][1] = b;
	}
	for (int b = 2; b < nv; b++) {
		ab[n][0] = 0;
		ab[n++][1] = b;
	}
	return n;
}

/* The sequential decisions of every comparison (Bonferroni over boards x rows x
 * comparisons) */
static void seq_decisions(struct report *rep, size_t per_row)
{
	struct rep_seq_test *t = xcalloc(rep->ncmp + 1, sizeof(*t));

	for (size_t c = 0; c < rep->ncmp; c++)
		t[c] = (struct rep_seq_test){ .row = rep->cmp[c].row,
					      .a = rep->cmp[c].a,
					      .b = rep->cmp[c].b,
					      .by_position = true };
	rep_seq_decide(rep, series_row, per_row, t, rep->ncmp);
	for (size_t c = 0; c < rep->ncmp; c++) {
		struct rep_cmp *x = &rep->cmp[c];

		if (!t[c].look)
			continue;
		x->seq = t[c].seq;
		x->verdict = t[c].verdict;
		if (!isnan(t[c].lo)) {
			x->lo = t[c].lo;
			x->hi = t[c].hi;
			x->conf = t[c].conf;
		}
	}
	free(t);
}

void rep_series_analyse(struct report *rep, const struct report_opts *o)
{
	int ab[2 * VARIANTS_MAX][2];
	size_t per_row = comparisons(rep->vs.n, ab), k = 0;
	double *p, *adj;

	free(rep->cmp);
	rep->cmp = xcalloc(rep->nrows * per_row + 1, sizeof(*rep->cmp));
	rep->ncmp = 0;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		if (!series_row(r) || (o->only_scenario && strcmp(r->scenario, o->only_scenario)))
			continue;
		for (size_t c = 0; c < per_row; c++) {
			struct rep_cmp *x = &rep->cmp[rep->ncmp++];
			struct stats_row_result sr;
			double *a = means_of(r, ab[c][0], &x->na);
			double *b = means_of(r, ab[c][1], &x->nb);

			x->row = i;
			x->a = ab[c][0];
			x->b = ab[c][1];
			x->change = x->lo = x->hi = x->conf = x->p = x->p_adj = NAN;
			x->verdict = VERDICT_UNDECIDED;
			x->seq = -1;
			x->have = x->na && x->nb &&
				  !stats_row(a, x->na, b, x->nb, o->alpha, rep->margin, &sr);
			if (x->have) {
				/* as the A/B table: the exact Hodges-Lehmann estimate on the log
				 * scale when every boot mean is positive, else the shift over the
				 * median of a */
				const struct hl_result *h = sr.have_rel ? &sr.rel : &sr.shift;
				double scale = sr.have_rel ? 1.0 : fabs(sr.median_a);

				if (scale > 0) {
					x->change = h->shift / scale;
					x->lo = x->na > 1 || x->nb > 1 ? h->lo / scale : NAN;
					x->hi = x->na > 1 || x->nb > 1 ? h->hi / scale : NAN;
					x->conf = h->conf;
				}
				x->p = sr.p;
				x->verdict = sr.within_margin ? VERDICT_SAME : VERDICT_UNDECIDED;
			}
			free(a);
			free(b);
		}
	}
	/* Holm over the family of every comparison of every timing row of the campaign */
	p = xcalloc(rep->ncmp + 1, sizeof(double));
	adj = xcalloc(rep->ncmp + 1, sizeof(double));
	for (size_t c = 0; c < rep->ncmp; c++) {
		p[c] = rep->cmp[c].have ? rep->cmp[c].p : NAN;
		k += rep->cmp[c].have;
	}
	if (!stats_holm(p, rep->ncmp, adj))
		for (size_t c = 0; c < rep->ncmp; c++) {
			struct rep_cmp *x = &rep->cmp[c];

			if (!x->have)
				continue;
			x->p_adj = adj[c];
			if (adj[c] <= o->alpha)
				x->verdict = VERDICT_DIFFERENT;
		}
	rep->cmp_family = k;
	free(p);
	free(adj);
	if (rep->seq.budget > 0 && rep->seq.first > 0)
		seq_decisions(rep, per_row);
}

int rep_series_open(const struct report *rep, const char *board, size_t *total, size_t *ndiff,
		    size_t *nsame)
{
	*total = *ndiff = *nsame = 0;
	for (size_t c = 0; c < rep->ncmp; c++) {
		const struct rep_cmp *x = &rep->cmp[c];

		if (strcmp(rep->boards[rep->rows[x->row].board].name, board))
			continue;
		(*total)++;
		*ndiff += x->seq == SEQ_DIFFERENT;
		*nsame += x->seq == SEQ_SAME;
	}
	return (int)(*total - *ndiff - *nsame);
}

/* "+1-2 vs +1" */
static void cmp_label(const struct report *rep, const struct rep_cmp *x, char *out, size_t len)
{
	snprintf(out, len, "%s vs %s", rep->vs.label[x->b], rep->vs.label[x->a]);
}

static void cmp_verdict(const struct report *rep, const struct rep_cmp *x, char *out, size_t len)
{
	if (!x->have)
		snprintf(out, len, "-");
	else if (x->verdict == VERDICT_DIFFERENT)
		snprintf(out, len, "different");
	else if (x->verdict == VERDICT_SAME)
		snprintf(out, len, "same \u00b1%g%%", rep->margin * 100.0);
	else
		snprintf(out, len, "undecided");
}

static void cmp_ci(const struct rep_cmp *x, char *out, size_t len)
{
	char lo[32], hi[32];

	if (isnan(x->lo) || isnan(x->hi)) {
		snprintf(out, len, "-");
		return;
	}
	fmt_change(lo, sizeof(lo), x->lo);
	fmt_change(hi, sizeof(hi), x->hi);
	snprintf(out, len, "%s..%s", lo, hi);
}

/* One board's table: per timing row its comparisons, the row label on a line of its own */
static void write_board(const struct report *rep, size_t bi, FILE *f, size_t width)
{
	const struct rep_board *bd = &rep->boards[bi];
	size_t lw = 0, chw = strlen("change"), ciw = strlen("CI"), pw = strlen("p_holm");
	int last = -1;

	for (size_t c = 0; c < rep->ncmp; c++) {
		const struct rep_cmp *x = &rep->cmp[c];
		char l[80], ch[32], ci[80];

		if (rep->rows[x->row].board != (int)bi)
			continue;
		cmp_label(rep, x, l, sizeof(l));
		fmt_change(ch, sizeof(ch), x->change);
		cmp_ci(x, ci, sizeof(ci));
		lw = strlen(l) > lw ? strlen(l) : lw;
		chw = strlen(ch) > chw ? strlen(ch) : chw;
		ciw = strlen(ci) > ciw ? strlen(ci) : ciw;
	}
	fprintf(f, "%s%s%s%s%s:\n", bd->cpu[0] ? bd->cpu : bd->name, bd->family[0] ? ", " : "",
		bd->family, bd->cpu[0] ? " on " : "", bd->cpu[0] ? bd->name : "");
	/* 2 + label + 2 + change + 2 + CI + 2 + p + 2 + verdict ("same ±1%" or "undecided") */
	if (2 + lw + 2 + chw + 2 + ciw + 2 + pw + 2 + 9 > width)
		ciw = 0; /* the interval goes on the next line */
	fprintf(f, "  %-*s  %*s  %-*s  %*s  %s\n", (int)lw, "", (int)chw, "change", (int)ciw,
		ciw ? "CI" : "", (int)pw, "p_holm", "verdict");
	for (size_t c = 0; c < rep->ncmp; c++) {
		const struct rep_cmp *x = &rep->cmp[c];
		const struct rep_row *r = &rep->rows[x->row];
		char l[80], ch[32], ci[80], p[16], v[32], rl[96];

		if (r->board != (int)bi)
			continue;
		if ((int)x->row != last) {
			report_row_label(r, rl, sizeof(rl));
			fprintf(f, "%s\n", rl);
			last = (int)x->row;
		}
		cmp_label(rep, x, l, sizeof(l));
		fmt_change(ch, sizeof(ch), x->change);
		cmp_ci(x, ci, sizeof(ci));
		if (isnan(x->p_adj))
			snprintf(p, sizeof(p), "-");
		else
			snprintf(p, sizeof(p), x->p_adj < 0.001 ? "%.0e" : "%.3f", x->p_adj);
		cmp_verdict(rep, x, v, sizeof(v));
		if (ciw)
			fprintf(f, "  %-*s  %*s  %-*s  %*s  %s\n", (int)lw, l, (int)chw, ch,
				(int)ciw, ci, (int)pw, p, v);
		else
			fprintf(f, "  %-*s  %*s  %*s  %s\n    CI %s\n", (int)lw, l, (int)chw, ch,
				(int)pw, p, v, ci);
	}
}

/* "On qemu-pi400, patch 2 (+1-2 vs +1) changes 256 B dirty (+6.3%); ..." */
static char *attribution(const struct report *rep, size_t bi)
{
	struct buf b = { 0 };
	bool any = false;

	buf_printf(&b, "On %s,", rep->boards[bi].name);
	for (int v = 1; v < rep->vs.n; v++) {
		const char *l = rep->vs.label[v];
		size_t nd = 0, nrow = 0, nsame = 0;
		struct buf w = { 0 };
		char name[48];

		/* a prefix series' +1-k is control + patches 1..k: against +1-(k-1), patch k */
		if (!strcmp(l, "+1"))
			snprintf(name, sizeof(name), "patch 1");
		else if (!strncmp(l, "+1-", 3))
			snprintf(name, sizeof(name), "patch %s", l + 3);
		else
			snprintf(name, sizeof(name), "%s", l);

		for (size_t c = 0; c < rep->ncmp; c++) {
			const struct rep_cmp *x = &rep->cmp[c];
			char rl[96], ch[32];

			if (rep->rows[x->row].board != (int)bi || x->b != v || x->a != v - 1)
				continue;
			nrow++;
			nsame += x->verdict == VERDICT_SAME;
			if (x->verdict != VERDICT_DIFFERENT)
				continue;
			report_row_label(&rep->rows[x->row], rl, sizeof(rl));
			fmt_change(ch, sizeof(ch), x->change);
			buf_printf(&w, "%s%s (%s)", nd ? ", " : "", rl, ch);
			nd++;
		}
		if (!nrow) {
			buf_free(&w);
			continue;
		}
		if (nd)
			buf_printf(&b, "%s %s (%s vs %s) changes %s", any ? ";" : "", name, l,
				   rep->vs.label[v - 1], w.data);
		else if (nsame == nrow)
			buf_printf(
				&b,
				"%s %s (%s vs %s) changes no timing row (each the same within \u00b1%g%%)",
				any ? ";" : "", name, l, rep->vs.label[v - 1], rep->margin * 100.0);
		else
			buf_printf(
				&b,
				"%s %s (%s vs %s) changes no timing row measurably (%zu undecided)",
				any ? ";" : "", name, l, rep->vs.label[v - 1], nrow - nsame);
		any = true;
		buf_free(&w);
	}
	buf_printf(&b, ".");
	if (!any) {
		buf_free(&b);
		return NULL;
	}
	return b.data;
}

/* How the boots ran: per board the rounds and their order, the batches, the
 * preservation check per variant, what an emulated figure is. */
static char *design_words(const struct report *rep, bool email)
{
	struct buf b = { 0 };

	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *bd = &rep->boards[bi];
		size_t n = strlen(bd->order);

		buf_printf(
			&b,
			"%s%s booted %zu round%s of one boot of each of the %d variants, %s (%s: A = %s, B = %s, ...)",
			bi ? " " : "", bd->name, n / (size_t)rep->vs.n,
			n / (size_t)rep->vs.n == 1 ? "" : "s", rep->vs.n,
			!strcmp(rep->order_kind, "williams") ?
				"in the rows of a Williams design (each variant follows every other equally often)" :
			!strcmp(rep->order_kind, "random") ? "each round in a seeded random order" :
			!strcmp(rep->order_kind, "abba")   ? "every second round reversed" :
							     "always in series order",
			bd->order, rep->vs.label[0], rep->vs.label[1]);
		buf_printf(&b, ".");
		if (bd->failed)
			buf_printf(&b, " %zu failed attempt%s (not in the table).", bd->failed,
				   bd->failed == 1 ? "" : "s");
	}
	buf_printf(
		&b,
		" %d batch%s per scenario per boot; the mean over a boot's batches is one observation.",
		rep->batches, rep->batches == 1 ? "" : "es");
	if (rep->seq.budget > 0)
		buf_printf(
			&b,
			" Sequential: a look after every round from %d rounds on, a board stopping when every comparison of every timing row was decided, at most %d rounds.",
			rep->seq.first, rep->seq.budget);
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		if (!rep_is_pres(r) || !r->nboots)
			continue;
		buf_printf(&b, " The preservation check%s%s lost, of %" PRId64 " bytes per boot:",
			   rep->nboards > 1 ? " on " : "",
			   rep->nboards > 1 ? rep->boards[r->board].name : "", r->size);
		for (int v = 0; v < rep->vs.n; v++) {
			double sum = 0;
			size_t n = 0;

			for (size_t j = 0; j < r->nboots; j++)
				if (r->boots[j].vi == v) {
					sum += r->boots[j].s.mean;
					n++;
				}
			if (n)
				buf_printf(&b, "%s %.0f with %s", v ? "," : "", sum / (double)n,
					   rep->vs.label[v]);
		}
		buf_printf(&b, ".");
	}
	rep_emulated_words(rep, &b, email);
	return b.data;
}

void rep_write_series(const struct report *rep, FILE *f, size_t width)
{
	char *m, *w;

	if (!rep->ncmp) {
		fprintf(f, "(no successful boots of every variant)\n");
		return;
	}
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		bool has = false;

		for (size_t c = 0; c < rep->ncmp && !has; c++)
			has = rep->rows[rep->cmp[c].row].board == (int)bi;
		if (!has)
			continue;
		write_board(rep, bi, f, width);
		fputc('\n', f);
	}
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		m = attribution(rep, bi);
		if (!m)
			continue;
		/* the variant's own label reads "patch k" for a prefix series */
		w = report_wrap(m, width, "");
		fprintf(f, "%s\n", w);
		free(w);
		free(m);
	}
	{
		struct buf b = { 0 };

		buf_printf(&b, "Variants:");
		for (int v = 0; v < rep->vs.n; v++)
			buf_printf(&b, "%s %s%s%s%s", v ? ";" : "", rep->vs.label[v],
				   rep->vpatch[v] && rep->vpatch[v][0] ? " adds " : "",
				   rep->vpatch[v] ? rep->vpatch[v] : "",
				   v == 0 ? " (the pristine kernel)" : "");
		buf_printf(&b, ".");
		w = report_wrap(b.data, width, "");
		fprintf(f, "\n%s\n", w);
		free(w);
		buf_free(&b);
	}
	m = design_words(rep, width <= EMAIL_WIDTH);
	w = report_wrap(m, width, "");
	fprintf(f, "\n%s\n", w);
	free(w);
	free(m);
	if (rep->seq.nlooks)
		m = xasprintf(
			"\"B vs A\": change is the Hodges-Lehmann estimate of B/A - 1 over boot means, CI the repeated confidence interval of the sequential design at the last look (every look's interval covers at once with at least %.3g), p_holm the exact Mann-Whitney p adjusted by Holm over the family of all %zu comparisons of the campaign's timing rows (for reference: the sequential boundaries at %.2g per comparison decide, Bonferroni over boards, rows and comparisons); \"B vs A\" with A the variant before B is what B's patch adds.",
			1.0 - rep->seq.fpr, rep->cmp_family, rep->seq.row_alpha);
	else
		m = xasprintf(
			"\"B vs A\": change is the Hodges-Lehmann estimate of B/A - 1 over boot means, CI its exact distribution-free interval at nominal %g%%, p_holm the exact two-sided Mann-Whitney p adjusted by Holm over the family of all %zu comparisons (each variant against control and against the variant before it, on every timing row of every board); verdict: different (p_holm <= %g), same within \u00b1%g%% (the %g%% interval inside the margin), else undecided; \"B vs A\" with A the variant before B is what B's patch adds.",
			100.0 * (1.0 - rep->alpha), rep->cmp_family, rep->alpha,
			rep->margin * 100.0, 100.0 * (1.0 - 2.0 * rep->alpha));
	w = report_wrap(m, width, "");
	fprintf(f, "\n%s\n", w);
	free(w);
	free(m);
}
