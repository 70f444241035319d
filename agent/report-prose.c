// SPDX-License-Identifier: GPL-2.0-only
/* The words of a report: value and change formatting, row labels, wrapping, the
 * table cells every renderer shares, the method paragraph and the design advice. */
#include "report.h"
#include "report-int.h"
#include "seqtest.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool rep_is_pres(const struct rep_row *r)
{
	return !strcmp(r->kind, "preserve");
}

bool rep_is_null(const struct rep_row *r)
{
	return !strcmp(r->op, "null");
}

/* a value of the row's unit: time, or bytes lost */
void rep_fmt_val(const struct rep_row *r, char *out, size_t len, double v)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else if (rep_is_pres(r))
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
	if (r->size < 0) /* a job-defined benchmark: its own scenario names */
		snprintf(out, len, "%s", r->scenario);
	else if (rep_is_pres(r))
		snprintf(out, len, "lost of %s", sz);
	else if (rep_is_null(r))
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

void report_row_label_full(const struct report *rep, const struct rep_row *r, char *out, size_t len)
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
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		case NBSP:
			fputc(' ', f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* ------------------------------------------------------------------ shared text */

static const char *sep_word(enum separation s)
{
	return s == SEP_B_BELOW ? "below" : s == SEP_B_ABOVE ? "above" : "overlap";
}

/* "-" when a side has no boots */
const char *rep_row_sep(const struct rep_row *r)
{
	return r->have_ab && r->ab.a.n && r->ab.b.n ? sep_word(r->ab.sep) : "-";
}

/* a row's verdict: "different", "same within +-1%", "undecided", "undecided: too few
 * boots", "refused"; the preservation check keeps significant / not significant */
void rep_verdict_cell(const struct report *rep, const struct rep_row *r, char *out, size_t len)
{
	if (r->mixed_timing)
		snprintf(out, len, "refused");
	else if (rep_is_pres(r))
		snprintf(out, len, "%s",
			 r->verdict == 1 ? "significant" :
			 r->verdict == 0 ? "not significant" :
					   "too few boots");
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
void rep_change_cell(const struct rep_row *r, char *out, size_t len, bool mark)
{
	char c[32];

	if (!r->have_ab || !r->ab.a.n || !r->ab.b.n) {
		snprintf(out, len, "-");
		return;
	}
	if (rep_is_pres(r))
		snprintf(c, sizeof(c), "%+.0f B", r->ab.b.mean - r->ab.a.mean);
	else
		fmt_change(c, sizeof(c), r->ab.rel_change);
	if (mark && !rep_is_pres(r) && r->verdict < 0)
		snprintf(out, len, "~");
	else if (mark && !rep_is_pres(r) && r->verdict == 0)
		snprintf(out, len, "same");
	else
		snprintf(out, len, "%s", c);
}

/* the p cell: "0.008", "0.690"; the smallest p these n allow when it is above alpha */
void rep_p_cell(const struct rep_row *r, char *out, size_t len)
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
void rep_padj_cell(const struct rep_row *r, char *out, size_t len)
{
	if (isnan(r->p_adj))
		snprintf(out, len, "-");
	else
		fmt_p(out, len, r->p_adj);
}

void fmt_ci(char *out, size_t len, double lo, double hi)
{
	char a[24], b[24];

	if (isnan(lo)) {
		snprintf(out, len, "-");
		return;
	}
	fmt_change(a, sizeof(a), lo);
	fmt_change(b, sizeof(b), hi);
	snprintf(out, len, "[%s, %s]", a, b);
}

/* "[+5.1%, +7.4%]" and "96.8%" */
void rep_ci_cells(const struct rep_row *r, char *ci, size_t cilen, char *conf, size_t clen)
{
	char lo[24], hi[24];

	if (rep_is_pres(r) || isnan(r->ab.ci_lo) || !r->have_sr) {
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
		buf_printf(
			o,
			"the boots were captured by hand and ingested from their logs, so their order is not known");
		return;
	}
	if (alt && n > 1 && email)
		buf_printf(o, "alternating (%s, A = control)", b->order);
	else if (alt && n > 1)
		buf_printf(o,
			   "alternating the kernels on every boot (%s, A = control, B = patched)",
			   b->order);
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
	static const char *const w[] = { "no",	"one",	 "two",	  "three", "four", "five",
					 "six", "seven", "eight", "nine",  "ten" };

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
		if ((!email || !rep_is_null(&rep->rows[i])) && pred(rep, &rep->rows[i], arg))
			total++;
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160];

		if ((email && rep_is_null(r)) || !pred(rep, r, arg))
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
	return !rep_is_pres(r) && r->have_sr && !r->mixed_timing && r->verdict == *(const int *)arg;
}

/* complete separation that is not a "different" verdict: reported with its chance */
static bool pred_lucky(const struct report *rep, const struct rep_row *r, const void *arg)
{
	(void)rep;
	(void)arg;
	return !rep_is_pres(r) && r->have_sr && r->verdict != 1 && r->ab.sep != SEP_OVERLAP;
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
		buf_printf(
			o,
			" %s is emulated (%.*s): its timings show that the procedure works, not what the patch costs on hardware.",
			b->name, n, d);
	else if (email)
		buf_printf(o, " %s is emulated: not hardware costs.", b->name);
	else
		buf_printf(
			o,
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
		buf_printf(o, "%s%s",
			   n == 1     ? "" :
			   n == total ? " and " :
					", ",
			   rep->boards[j].name);
	}
	(void)bi;
}

/* The method statement a reviewer can quote (one paragraph, not wrapped): boards with
 * the same design in one sentence, every scenario named once. */
char *rep_method_paragraph(const struct report *rep, bool email)
{
	struct buf o = { 0 };
	bool *done = xcalloc(rep->nboards + 1, sizeof(bool));
	bool *same = xcalloc(rep->nboards + 1, sizeof(bool));
	bool any_batch = false;

	buf_printf(&o, "Method (ablab campaign %" PRId64 "):", rep->campaign);
	if (rep->series_msgid[0])
		buf_printf(&o, " the patched kernel is the control's source + series <%s> v%d: %s;",
			   rep->series_msgid, rep->series_version > 0 ? rep->series_version : 1,
			   rep->series_patches ? rep->series_patches : "");
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
			buf_printf(
				&o,
				" the control kernel was booted %zu and the patched kernel %zu times",
				nc, np);
		}
		buf_printf(&o, ", ");
		order_words(rep, b, &o, email);
		buf_printf(&o, ";");
	}
	if (rep->seq.budget > 0)
		buf_printf(
			&o,
			" the boots came in rounds of one control and one patched boot, with a look at the data after each round from %d+%d on, until every row was decided or %d+%d boots were spent;",
			rep->seq.first, rep->seq.first, rep->seq.budget, rep->seq.budget);
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
			if (rep_is_pres(r) || (email && rep_is_null(r)) || r->board != 0 ||
			    r->reps <= 0)
				continue;
			report_row_label(r, l, sizeof(l));
			for (char *q = l; *q; q++)
				*q = *q == ' ' ? NBSP : *q;
			buf_printf(&o, "%s%s %" PRId64, first ? " (iterations per batch: " : ", ",
				   l, r->reps);
			first = false;
		}
		buf_printf(&o, "%s; %s.", first ? "" : ")",
			   email ? "a boot's mean is one observation" :
				   "the mean over a boot's batches is one observation");
	} else {
		buf_printf(&o, " each boot's log is one observation.");
	}
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].timing, "batch"))
			any_batch = true;
	if (any_batch)
		buf_printf(
			&o,
			" Where the clock was too coarse for single iterations, whole batches were timed and a memset-only batch subtracted (one mode per scenario and board, fixed at its first boot).");
	/* a false-alarm rate only with its power, or with "cannot decide" */
	if (rep->seq.nlooks && !(rep->seq.p_diff > 0))
		buf_printf(
			&o,
			" A row was decided by a group-sequential exact rank test (Pocock-type boundaries over %zu looks at %.2g per row, %zu rows: this design could not say \"different\", the smallest p of %d+%d boots being above that level) or by its equivalence interval lying within \u00b1%g%%; its interval is the repeated CI.",
			rep->seq.nlooks, rep->seq.row_alpha, rep->seq.nrows_tested, rep->seq.budget,
			rep->seq.budget, rep->margin * 100.0);
	else if (rep->seq.nlooks) {
		char pw[96];

		if (rep->seq.power_rows)
			snprintf(
				pw, sizeof(pw),
				"power %.2f against a change of \u00b1%g%% (A/A calibration, lowest row)",
				rep->seq.power, rep->margin * 100.0);
		else
			snprintf(pw, sizeof(pw),
				 "power against \u00b1%g%% unknown without an A/A calibration",
				 rep->margin * 100.0);
		buf_printf(
			&o,
			" A row was decided by a group-sequential exact rank test (Pocock-type boundaries over %zu looks at %.2g per row, %zu rows: overall false-alarm rate %.3f\001\u00b1\001%.3f by simulation, %s) or by its equivalence interval lying within \u00b1%g%%; its interval is the repeated CI.",
			rep->seq.nlooks, rep->seq.row_alpha, rep->seq.nrows_tested,
			rep->seq.fpr * rep->seq.nrows_tested,
			rep->seq.fpr_se * rep->seq.nrows_tested, pw, rep->margin * 100.0);
	} else if (rep->nfamily && email)
		buf_printf(
			&o,
			" Change: Hodges-Lehmann estimate, exact CI; p: Mann-Whitney U, Holm-adjusted over %zu rows; \"same\": the %g%% CI is within \u00b1%g%%.",
			rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha), rep->margin * 100.0);
	else if (rep->nfamily)
		buf_printf(
			&o,
			" Changes are Hodges-Lehmann estimates over boot means with exact distribution-free intervals; p is the exact Mann-Whitney U, Holm-adjusted over the %zu timing rows (not the null-call baseline); \"same\" means the %g%% interval lies within \u00b1%g%%.",
			rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha), rep->margin * 100.0);
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
			buf_printf(
				&o,
				" The boots of %s did not overlap, but with %zu+%zu boots that happens with no change with probability %.2g, so it is not evidence.",
				l.data, r->ab.a.n, r->ab.b.n, r->ab.p_min);
		}
		buf_free(&l);
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];

		if (!rep_is_pres(r) || !r->ab.a.n || !r->ab.b.n)
			continue;
		buf_printf(&o,
			   " The preservation check%s%s lost %.0f of %" PRId64
			   " bytes per boot with control, %.0f with patched.",
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
			buf_printf(&o, "%s%s",
				   k == 1  ? " " :
				   k == ne ? " and " :
					     ", ",
				   rep->boards[bi].name);
		}
		if (ne && email)
			buf_printf(&o, " %s emulated (QEMU, no cache model): not hardware costs.",
				   ne == 1 ? "is" : "are");
		else if (ne)
			buf_printf(
				&o,
				" %s emulated (QEMU, no cache model): %s timings show the procedure works, not what the patch costs on hardware.",
				ne == 1 ? "is" : "are", ne == 1 ? "its" : "their");
		for (size_t bi = 0; bi < rep->nboards; bi++)
			if (rep->boards[bi].emulated && !is_qemu(&rep->boards[bi]))
				emulated_words(&o, &rep->boards[bi], email);
	}
	if (rep->ignored)
		buf_printf(
			&o,
			" %zu boot(s) with a variant other than control and patched are not in the table.",
			rep->ignored);
	free(done);
	free(same);
	return o.data;
}

/* design advice lines (shared by text, email, html) */
char *rep_design_text(const struct report *rep)
{
	struct buf o = { 0 };

	buf_printf(
		&o,
		"Design for the next campaign (Kalibera & Jones 2013): boots per kernel and batches per boot that reach a 95%% CI half-width of %g%% of the mean in the least time, from the within-boot and between-boot variance and the measured cost of a boot and of a batch.\n",
		rep->target * 100.0);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];
		char l[160];

		if (!b->design_ok) {
			const char *why = "no timing row with 2+ boots per kernel and 2+ batches";

			for (size_t i = 0; i < rep->nrows; i++)
				if (rep->rows[i].board == (int)bi && rep_design_row(&rep->rows[i]))
					why = rep->rows[i].design_why;
			buf_printf(&o, "%s: no advice (%s).\n", b->name, why);
			continue;
		}
		report_row_label(&rep->rows[b->d_binding], l, sizeof(l));
		buf_printf(
			&o,
			"%s: %u boots per kernel x %u batch%s, about %.0f\001s per kernel (boot %.1f\001s, batch %.2f\001s; most demanding: %s).\n",
			b->name, b->d_boots, b->d_batches, b->d_batches == 1 ? "" : "es",
			b->d_seconds, b->boot_s, b->run_s / rep->batches, l);
	}
	return o.data;
}
