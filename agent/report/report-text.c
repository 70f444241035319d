// SPDX-License-Identifier: GPL-2.0-only
/* The text report (a terminal) and the paste-ready email (72 columns). */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "shared/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ text */

/* Each row's batches the screening rule left out (nothing when none): text, or the email's
 * footnotes at its width ("29.4 us" kept on one line). */
static void left_out_notes(const struct report *rep, FILE *f, bool email)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		char l[160], t[320], *m, *w;

		rep_left_out_text(&rep->rows[i], t, sizeof(t));
		if (!t[0])
			continue;
		report_row_label_full(rep, &rep->rows[i], l, sizeof(l));
		if (!email) {
			fprintf(f, "\n  %s: %s (left out of its boot's mean: docs/STATISTICS.md)\n",
				l, t);
			continue;
		}
		m = xasprintf("* %s: %s.", l, t);
		for (char *p = m + 1; *p; p++)
			if (*p == ' ' && isdigit((unsigned char)p[-1]) && strchr("num", p[1]) &&
			    p[1] && p[2] == 's')
				*p = NBSP;
		w = report_wrap(m, EMAIL_WIDTH, "");
		fprintf(f, "%s\n", w);
		free(m);
		free(w);
	}
}

/* Each board whose boots differ in more than the kernel under test (report-env.c): a line
 * under the table in text, a footnote in the email; never compared silently. */
static void env_notes(const struct report *rep, FILE *f, bool email)
{
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];
		char *m, *w;

		if (!b->env_changed)
			continue;
		if (!email) {
			fprintf(f,
				"\n  %s: %s (its rows above compare boots that differ in more than the kernel)\n",
				b->name, b->env_changed);
			continue;
		}
		m = xasprintf(
			"* %s: %s (its rows compare boots that differ in more than the kernel).",
			b->name, b->env_changed);
		w = report_wrap(m, EMAIL_WIDTH, "");
		fprintf(f, "%s\n", w);
		free(m);
		free(w);
	}
}

/* the campaign, its boards' boot orders and what stopped or limited them */
static void text_head(const struct report *rep, FILE *f)
{
	struct buf key = { 0 };

	fprintf(f, "campaign %" PRId64 " (%s%s%s, %s, %s): %d batch%s per scenario per boot\n",
		rep->campaign, rep->trigger, rep->job[0] ? " " : "", rep->job, rep->status,
		rep->created, rep->batches, rep->batches == 1 ? "" : "es");
	for (int v = 0; v < rep->vs.n; v++)
		buf_printf(&key, "%s%c = %s", v ? ", " : "", 'A' + v, rep->vs.label[v]);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		fprintf(f, "  %s: boots in order %s (%s), %zu failed attempt(s)\n",
			rep->boards[bi].name, rep->boards[bi].order, key.data,
			rep->boards[bi].failed);
	buf_free(&key);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].not_retried_why)
			fprintf(f,
				"  %s: stopped after a failed attempt that was not retried: %s\n",
				rep->boards[bi].name, rep->boards[bi].not_retried_why);
	if (rep->undecidable)
		fprintf(f, "  this design could not decide (run with --undecidable-ok): %s\n",
			rep->undecidable);
	if (!strcmp(rep->status, "stale"))
		fprintf(f,
			"  stale: the campaign is marked running but no agent holds it (its agent died); `ablab resume %" PRId64
			"` continues it\n",
			rep->campaign);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].lava_jobs && rep->boards[bi].lava_jobs[0])
			fprintf(f, "  %s: LAVA jobs (server#id) %s\n", rep->boards[bi].name,
				rep->boards[bi].lava_jobs);
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].partial)
			fprintf(f,
				"  %s: PARTIAL: %zu boot(s) ingested with --partial (a log cut short or with rejected lines: only its valid scenarios kept)\n",
				rep->boards[bi].name, rep->boards[bi].partial);
	for (size_t bi = 0; bi < rep->nboards; bi++) /* a full disk cut them short */
		for (const char *l = rep->boards[bi].logs_incomplete; l && *l;) {
			size_t len = strcspn(l, "\n");

			fprintf(f, "  %.*s (its data stored, its transcript cut short)\n", (int)len,
				l);
			l += len + (l[len] == '\n');
		}
}

/* the A/B table, one line a row */
static void text_table(const struct report *rep, FILE *f)
{
	fprintf(f, "\n  %-40s %11s %11s %9s %-19s %6s %5s %6s %6s %6s %s\n", "", "control",
		"patched", "change", "CI", "conf", "n", "p", "p_holm", "mde", "verdict");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160], a[32], b[32], c[32], ci[48], conf[16], p[32], pa[16], n[16], v[48];
		char md[16];

		report_row_label_full(rep, r, l, sizeof(l));
		rep_fmt_val(r, a, sizeof(a), r->ab.a.mean);
		rep_fmt_val(r, b, sizeof(b), r->ab.b.mean);
		rep_change_cell(r, c, sizeof(c), false);
		rep_ci_cells(r, ci, sizeof(ci), conf, sizeof(conf));
		rep_p_cell(r, p, sizeof(p));
		rep_padj_cell(r, pa, sizeof(pa));
		rep_verdict_cell(rep, r, v, sizeof(v));
		snprintf(n, sizeof(n), "%zu+%zu", r->ab.a.n, r->ab.b.n);
		if (isnan(r->mde))
			snprintf(md, sizeof(md), "-");
		else if (isinf(r->mde))
			snprintf(md, sizeof(md), "none");
		else
			snprintf(md, sizeof(md), r->mde >= 0.1 ? "%.0f%%" : "%.2g%%",
				 r->mde * 100.0);
		fprintf(f, "  %-40s %11s %11s %9s %-19s %6s %5s %6s %6s %6s %s\n", l, a, b, c, ci,
			conf, n, r->mixed_timing ? "-" : p, pa, md, v);
	}
}

/* the rows refused for mixing timing modes */
static void text_mixed(const struct report *rep, FILE *f)
{
	for (size_t i = 0; i < rep->nrows; i++) {
		char l[160];

		if (!rep->rows[i].mixed_timing)
			continue;
		report_row_label_full(rep, &rep->rows[i], l, sizeof(l));
		fprintf(f,
			"\n  %s: %s; iteration and baseline-subtracted batch timings are not comparable, so this row has no result (a campaign pins each scenario's mode at its first boot; logs ingested by hand can mix them)\n",
			l, rep->rows[i].design_why);
	}
}

/* the columns' legend, the method paragraph and the design advice */
static void text_legend(const struct report *rep, FILE *f)
{
	char *m, *w, *d;

	if (rep->seq.nlooks)
		m = xasprintf(
			"change: Hodges-Lehmann estimate of patched/control - 1 over boot means; CI: the repeated confidence interval of the sequential design at the row's last look (every look's interval covers the change at once with at least conf); p: exact two-sided Mann-Whitney U on boot means at that look, p_holm: Holm-adjusted over the %zu timing rows (shown for reference: the sequential boundaries decide); verdict: different, same within \u00b1%g%%, or undecided after the budget. Boundaries at %.2g per row (look n+n:u_diff/u_eq: different iff U <= u_diff or U >= n^2 - u_diff; same needs the interval of rank u_eq + 1 inside the margin; -1: that look cannot): %s.",
			rep->nfamily, rep->margin * 100.0, rep->seq.row_alpha, rep->seq.bounds);
	else
		m = xasprintf(
			"change: Hodges-Lehmann estimate of patched/control - 1 over boot means; CI: its exact distribution-free interval at nominal %g%% (inverting the Mann-Whitney distribution), conf: the confidence these n achieve; p: exact two-sided Mann-Whitney U on boot means, p_holm: Holm-adjusted over the %zu timing rows; verdict: different (p_holm <= %g), same within \u00b1%g%% (the %g%% interval lies inside the margin), else undecided (\"too few boots\": no p these n allow is below alpha).",
			100.0 * (1.0 - rep->alpha), rep->nfamily, rep->alpha, rep->margin * 100.0,
			100.0 * (1.0 - 2.0 * rep->alpha));
	w = report_wrap(m, 78, "");
	fprintf(f, "\n%s\n\n", w);
	free(m);
	free(w);
	m = rep_method_paragraph(rep, false);
	w = report_wrap(m, 78, "");
	fprintf(f, "%s\n\n", w);
	free(m);
	free(w);
	d = rep_design_text(rep);
	w = report_wrap(d, 78, "");
	fprintf(f, "%s\n", w);
	free(d);
	free(w);
}

/* --detail: every boot's figures */
static void text_boots(const struct report *rep, FILE *f)
{
	fprintf(f,
		"\n"
		"per boot (over its batches; module min/max per iteration; batch timing: raw and baseline per iteration):\n");
	fprintf(f, "  %-12s %-22s %-8s %5s %3s %11s %11s %11s %11s %10s %11s %11s\n", "board",
		"scenario", "variant", "seq", "m", "mean", "median", "min", "max", "sd",
		"module min", "module max");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		for (size_t j = 0; j < r->nboots; j++) {
			const struct rep_boot *bt = &r->boots[j];
			char v[7][32];

			rep_fmt_val(r, v[0], 32, bt->s.mean);
			rep_fmt_val(r, v[1], 32, bt->s.median);
			rep_fmt_val(r, v[2], 32, bt->s.min);
			rep_fmt_val(r, v[3], 32, bt->s.max);
			rep_fmt_val(r, v[4], 32, bt->s.sd);
			rep_fmt_val(r, v[5], 32, bt->mod_min);
			rep_fmt_val(r, v[6], 32, bt->mod_max);
			fprintf(f, "  %-12s %-22s %-8s %5d %3zu %11s %11s %11s %11s %10s %11s %11s",
				rep->boards[r->board].name, r->scenario, rep->vs.label[bt->vi],
				bt->seq, bt->nbatch, v[0], v[1], v[2], v[3], v[4], v[5], v[6]);
			if (!isnan(bt->raw_mean)) {
				fmt_time(v[0], 32, bt->raw_mean);
				fmt_time(v[1], 32, bt->base_mean);
				fprintf(f, "  raw %s base %s", v[0], v[1]);
			}
			fputc('\n', f);
		}
	}
}

void rep_write_text(const struct report *rep, const struct report_opts *o, FILE *f)
{
	text_head(rep, f);
	if (rep->series) { /* the attribution table instead of one A/B table */
		fputc('\n', f);
		rep_write_series(rep, f, 78);
		env_notes(rep, f, false);
		left_out_notes(rep, f, false);
		return;
	}
	text_table(rep, f);
	if (!rep->nrows)
		fprintf(f, "  (no successful boots)\n");
	if (!rep->nrows)
		return;
	text_mixed(rep, f);
	env_notes(rep, f, false);
	left_out_notes(rep, f, false);
	text_legend(rep, f);
	if (o->detail)
		text_boots(rep, f);
}

/* ------------------------------------------------------------------ email */

/* why the first undecided row is undecided: the smallest p its boots allow, or p and the
 * interval (the email's footnote) */
static void email_undecided_note(const struct report *rep, FILE *f)
{
	char *m, *w;
	const struct rep_row *r = NULL;

	for (size_t i = 0; i < rep->nrows && !r; i++)
		if (!rep_is_pres(&rep->rows[i]) && rep->rows[i].verdict == VERDICT_UNDECIDED)
			r = &rep->rows[i];
	/* the reason an undecided row had: the level one row is held to (Bonferroni
	 * per look, or Holm's first step alpha / rows) against the smallest p its
	 * boots allow; else no reason of the design's */
	double lvl = rep->seq.nlooks ?
			     (rep->seq.p_diff > 0 ? rep->seq.p_diff : rep->seq.row_alpha) :
		     rep->nfamily ? rep->alpha / (double)rep->nfamily :
				    rep->alpha;
	size_t fam = rep->seq.nlooks ? rep->seq.nrows_tested : rep->nfamily;

	if (r->ab.p_min > lvl * (1.0 + 1e-9))
		m = xasprintf(
			"* undecided: with %zu+%zu boots the smallest possible p is %.2g, above the %.2g one row is held to (alpha %g over %zu rows%s): this design could not say \"different\".",
			r->ab.a.n, r->ab.b.n, r->ab.p_min, lvl, rep->alpha, fam,
			rep->seq.nlooks ? ", at every look" : ", Holm");
	else
		m = xasprintf(
			"* undecided: p above the %.2g one row is held to (alpha %g over %zu rows), and the interval not within \u00b1%g%%.",
			lvl, rep->alpha, fam, rep->margin * 100.0);
	w = report_wrap(m, EMAIL_WIDTH, "");
	fprintf(f, "%s\n", w);
	free(m);
	free(w);
}

void rep_write_email(const struct report *rep, FILE *f)
{
	size_t lw = 0, cw = strlen("control"), pw = strlen("patched"), chw = strlen("change");
	size_t n = 0, gap = 3;
	bool stacked, any_few = false;
	char *m, *w;

	if (rep->series) { /* per board: each variant and each patch's increment */
		rep_write_series(rep, f, EMAIL_WIDTH);
		env_notes(rep, f, true);
		left_out_notes(rep, f, true);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < rep->nrows; i++) {
			const struct rep_row *r = &rep->rows[i];
			char l[160], a[32], b[32], c[40];

			if (rep_is_null(r))
				continue;
			report_row_label_full(rep, r, l, sizeof(l));
			rep_fmt_val(r, a, sizeof(a), r->ab.a.mean);
			rep_fmt_val(r, b, sizeof(b), r->ab.b.mean);
			rep_change_cell(r, c, sizeof(c), true);
			if (pass == 0) {
				lw = strlen(l) > lw ? strlen(l) : lw;
				cw = strlen(a) > cw ? strlen(a) : cw;
				pw = strlen(b) > pw ? strlen(b) : pw;
				chw = strlen(c) > chw ? strlen(c) : chw;
				any_few |= !rep_is_pres(r) && r->verdict == VERDICT_UNDECIDED;
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
	if (any_few)
		email_undecided_note(rep, f);
	if (rep->undecidable) {
		m = xasprintf("* This design could not decide (run with --undecidable-ok): %s.",
			      rep->undecidable);
		w = report_wrap(m, EMAIL_WIDTH, "");
		fprintf(f, "%s\n", w);
		free(m);
		free(w);
	}
	env_notes(rep, f, true);
	left_out_notes(rep, f, true);
	fputc('\n', f);
	m = rep_method_paragraph(rep, true);
	w = report_wrap(m, EMAIL_WIDTH, "");
	fprintf(f, "%s\n", w);
	free(m);
	free(w);
}
