// SPDX-License-Identifier: GPL-2.0-only
/* The words of a report: value and change formatting, row labels, wrapping, the
 * table cells every renderer shares, the method paragraph and the design advice. */
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
			 r->verdict == VERDICT_DIFFERENT ? "significant" :
			 r->verdict == VERDICT_SAME	 ? "not significant" :
							   "too few boots");
	else if (!r->have_sr)
		snprintf(out, len, "-");
	else if (r->verdict == VERDICT_DIFFERENT)
		snprintf(out, len, "different");
	else if (r->verdict == VERDICT_SAME)
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
	if (mark && !rep_is_pres(r) && r->verdict == VERDICT_UNDECIDED)
		snprintf(out, len, "~");
	else if (mark && !rep_is_pres(r) && r->verdict == VERDICT_SAME)
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

/* "1 of 30 batches left out: baseline 28 us, the boot's median 150 ns"; "" when none */
void rep_left_out_text(const struct rep_row *r, char *out, size_t len)
{
	int n;

	if (!r->nleft) {
		snprintf(out, len, "%s", "");
		return;
	}
	n = snprintf(out, len, "%zu of %zu batch%s left out%s: %s", r->nleft, r->nbatches_all,
		     r->nbatches_all == 1 ? "" : "es", r->nleft > 1 ? ", the first" : "",
		     r->left_why);
	if (r->boots_nomean && n >= 0 && (size_t)n < len)
		snprintf(out + n, len - (size_t)n, "; %zu boot%s no mean (every batch left out)",
			 r->boots_nomean, r->boots_nomean == 1 ? " has" : "s have");
}

/* ------------------------------------------------------------------ method paragraph */

/* the order of a board's boots; email: without the order string where the words give it */
static void order_words(const struct report *rep, const struct rep_board *b, struct buf *o,
			bool email)
{
	size_t n = strlen(b->order), alt = 1;

	for (size_t i = 1; i < n; i++)
		if (b->order[i] == b->order[i - 1])
			alt = 0;
	if (!strcmp(rep->order_kind, "manual") && email) {
		buf_printf(o, "captured by hand and ingested from their logs (order unknown)");
		return;
	}
	if (!strcmp(rep->order_kind, "manual")) {
		buf_printf(
			o,
			"the boots were captured by hand and ingested from their logs, so their order is not known");
		return;
	}
	if (alt && n > 1 && email)
		buf_printf(o, "alternating%s", b->order[0] == 'A' ? "" : ", patched first");
	else if (alt && n > 1)
		buf_printf(o,
			   "alternating the kernels on every boot (%s, A = control, B = patched)",
			   b->order);
	else if (!strcmp(rep->order_kind, "abba") && email)
		buf_printf(o, "in counterbalanced ABBA order");
	else if (!strcmp(rep->order_kind, "abba"))
		buf_printf(o, "in counterbalanced ABBA order (%s, A = control, B = patched)",
			   b->order);
	else if (!strcmp(rep->order_kind, "random") && email)
		buf_printf(o, "in a random order (seed %" PRId64 ")", rep->order_seed);
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

/* ", " or " and " before the k-th (1-based) of total items */
static const char *list_sep(size_t k, size_t total)
{
	return k == 1 ? "" : k == total ? " and " : ", ";
}

typedef bool (*row_pred)(const struct report *, const struct rep_row *, const void *);

static size_t count_rows(const struct report *rep, row_pred pred, const void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->nrows; i++)
		if (pred(rep, &rep->rows[i], arg))
			n++;
	return n;
}

/* "256 B dirty, 1 MiB dirty and 1 MiB clean": rows matching a predicate */
static size_t list_rows(const struct report *rep, struct buf *o, row_pred pred, const void *arg)
{
	size_t total = count_rows(rep, pred, arg), k = 0;

	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160];

		if (!pred(rep, r, arg))
			continue;
		report_row_label(r, l, sizeof(l));
		for (char *q = l; *q; q++)
			*q = *q == ' ' ? NBSP : *q;
		k++;
		buf_printf(o, "%s%s%s%s", list_sep(k, total),
			   rep->nboards > 1 ? rep->boards[r->board].cpu : "",
			   rep->nboards > 1 ? " " : "", l);
	}
	return k;
}

/* the rows by name when there are at most 3, else counted: "5 rows", "all 9 rows" */
#define NAMED_ROWS_MAX 3
static void rows_or_count(const struct report *rep, struct buf *o, row_pred pred, const void *arg,
			  size_t of)
{
	size_t n = count_rows(rep, pred, arg);

	if (n <= NAMED_ROWS_MAX)
		list_rows(rep, o, pred, arg);
	else if (n == of)
		buf_printf(o, "all %zu rows", n);
	else
		buf_printf(o, "%zu rows", n);
}

static bool pred_verdict(const struct report *rep, const struct rep_row *r, const void *arg)
{
	(void)rep;
	return !rep_is_pres(r) && !rep_is_null(r) && r->have_sr && !r->mixed_timing &&
	       r->verdict == *(const enum verdict *)arg;
}

/* an undecided row whose boots did not overlap: reported with the chance of that */
static bool pred_lucky(const struct report *rep, const struct rep_row *r, const void *arg)
{
	return pred_verdict(rep, r, arg) && r->ab.sep != SEP_OVERLAP;
}

static bool is_qemu(const struct rep_board *b)
{
	return b->emulated && b->description && strstr(b->description, "QEMU");
}

static bool is_icount(const struct rep_board *b)
{
	return b->emulated && b->icount_shift >= 0;
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

/* "qemu-sam9x75, qemu-arm11 and qemu-pi400": the boards marked in set */
static size_t board_group(const struct report *rep, const bool *set, struct buf *o)
{
	size_t n = 0, total = 0;

	for (size_t j = 0; j < rep->nboards; j++)
		total += set[j];
	for (size_t j = 0; j < rep->nboards; j++)
		if (set[j])
			buf_printf(o, "%s%s", list_sep(++n, total), rep->boards[j].name);
	return total;
}

/* " (1 ns = 1 instruction)", or per board when their shifts differ */
static void icount_unit(const struct report *rep, struct buf *o)
{
	int shift = -1;
	bool one = true;
	size_t k = 0, n = 0;

	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];

		if (!is_icount(b))
			continue;
		one &= shift < 0 || shift == b->icount_shift;
		shift = b->icount_shift;
		n++;
	}
	if (one) {
		buf_printf(o, " (%.0f\001ns\001= 1\001instruction)", ldexp(1.0, shift));
		return;
	}
	buf_printf(o, " (");
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (is_icount(&rep->boards[bi]))
			buf_printf(o, "%s%s: %.0f ns", list_sep(++k, n), rep->boards[bi].name,
				   ldexp(1.0, rep->boards[bi].icount_shift));
	buf_printf(o, " per instruction)");
}

/* What an emulated figure is, once per report (each sentence with a leading space): the
 * boards with exact instruction counting in one sentence, QEMU boards on the host's clock
 * in another, any other emulated board in the words of its own description. */
void rep_emulated_words(const struct report *rep, struct buf *o, bool email)
{
	bool *ic = xcalloc(rep->nboards + 1, sizeof(bool));
	bool *wq = xcalloc(rep->nboards + 1, sizeof(bool));
	bool allq = true;
	size_t ni = 0, nq = 0;

	for (size_t bi = 0; bi < rep->nboards; bi++) {
		const struct rep_board *b = &rep->boards[bi];

		ic[bi] = is_icount(b);
		wq[bi] = !ic[bi] && is_qemu(b);
		allq &= !ic[bi] || is_qemu(b);
		ni += ic[bi];
		nq += wq[bi];
	}
	if (ni && email && ni == rep->nboards && ni > 1) {
		buf_printf(o, " All ");
		buf_count(o, ni);
		buf_printf(o, " boards");
	} else if (ni) {
		buf_printf(o, " ");
		board_group(rep, ic, o);
	}
	if (ni) {
		/* email, every board of the campaign: "All three boards are QEMU" */
		const char *what = !allq   ? (ni == 1 ? "emulated board" : "emulated boards") :
				   ni == 1 ? "QEMU board" :
				   email   ? "QEMU" :
					     "QEMU boards";

		buf_printf(
			o,
			" %s %s with exact instruction counting: %s times are instructions on the CPU path",
			ni == 1 ? "is a" : "are", what,
			ni == 1 ? "its" :
			email	? "the" :
				  "their");
		icount_unit(rep, o);
		buf_printf(o, ", no cache cost.");
	}
	if (nq) {
		buf_printf(o, " ");
		board_group(rep, wq, o);
		if (email)
			buf_printf(o, " %s emulated (QEMU, no cache model): not hardware costs.",
				   nq == 1 ? "is" : "are");
		else
			buf_printf(
				o,
				" %s emulated (QEMU, no cache model): %s timings show the procedure works, not what the patch costs on hardware.",
				nq == 1 ? "is" : "are", nq == 1 ? "its" : "their");
	}
	for (size_t bi = 0; bi < rep->nboards; bi++)
		if (rep->boards[bi].emulated && !ic[bi] && !wq[bi])
			emulated_words(o, &rep->boards[bi], email);
	free(ic);
	free(wq);
}

/* "five times" (email: "5 times"), "5 (control) and 4 (patched) times": one board's boots
 * (malloc'd) */
static char *boot_count(const struct rep_board *b, bool email)
{
	struct buf o = { 0 };
	size_t nc = 0, np = 0;

	for (const char *c = b->order; *c; c++)
		*c == 'A' ? nc++ : np++;
	if (nc == np && email) {
		buf_printf(&o, "%zu time%s", nc, nc == 1 ? "" : "s");
	} else if (nc == np) {
		buf_count(&o, nc);
		buf_printf(&o, " time%s", nc == 1 ? "" : "s");
	} else {
		buf_printf(&o, "%zu (control) and %zu (patched) times", nc, np);
	}
	return o.data;
}

/* "each kernel was booted five times, alternating ...": one board's design (malloc'd) */
static char *board_design(const struct report *rep, const struct rep_board *b, bool email)
{
	struct buf o = { 0 };
	char *n = boot_count(b, email);

	buf_printf(&o, "each kernel %s %s, ", email ? "booted" : "was booted", n);
	order_words(rep, b, &o, email);
	free(n);
	return o.data;
}

/* The boards in groups of equal strings what[] (freed here): " on A and B each kernel was
 * booted five times, alternating ...;" per group; email, when every board's boots came in
 * the same order: " each kernel booted five times on A and B, four times on C,
 * alternating;" */
static void board_groups(const struct report *rep, struct buf *o, char **what, const char *order)
{
	size_t n = rep->nboards;
	bool *done = xcalloc(n + 1, sizeof(bool)), *same = xcalloc(n + 1, sizeof(bool));
	bool first = true;

	if (order)
		buf_printf(o, " each kernel booted");
	for (size_t bi = 0; bi < n; bi++) {
		if (done[bi])
			continue;
		for (size_t j = 0; j < n; j++) {
			same[j] = !done[j] && !strcmp(what[j], what[bi]);
			done[j] |= same[j];
		}
		if (order) {
			buf_printf(o, "%s %s on ", first ? "" : ",", what[bi]);
			board_group(rep, same, o);
		} else {
			buf_printf(o, " on ");
			board_group(rep, same, o);
			buf_printf(o, " %s;", what[bi]);
		}
		first = false;
	}
	if (order)
		buf_printf(o, ", %s;", order);
	for (size_t bi = 0; bi < n; bi++)
		free(what[bi]);
	free(done);
	free(same);
}

/* the boots: boards of the same design in one clause, the sequential rounds, failures */
static void method_boots(const struct report *rep, struct buf *o, bool email)
{
	size_t n = rep->nboards;
	char **d = xcalloc(n + 1, sizeof(*d));
	struct buf ord[2] = { { 0 }, { 0 } };
	bool one_order = email && n > 1;

	for (size_t bi = 0; bi < n && one_order; bi++) {
		order_words(rep, &rep->boards[bi], &ord[bi > 0], email);
		one_order = !bi || !strcmp(ord[0].data, ord[1].data);
		buf_free(&ord[1]);
	}
	for (size_t bi = 0; bi < n; bi++)
		d[bi] = one_order ? boot_count(&rep->boards[bi], email) :
				    board_design(rep, &rep->boards[bi], email);
	board_groups(rep, o, d, one_order ? ord[0].data : NULL);
	buf_free(&ord[0]);
	if (rep->seq.budget > 0 && !email) /* email: in method_test() */
		buf_printf(
			o,
			" the boots came in rounds of one control and one patched boot, with a look at the data after each round from %d+%d on, until every row was decided or %d+%d boots were spent;",
			rep->seq.first, rep->seq.first, rep->seq.budget, rep->seq.budget);
	for (size_t bi = 0; bi < n; bi++) {
		const struct rep_board *b = &rep->boards[bi];

		if (!b->failed)
			continue;
		buf_printf(o, " %s had %zu failed boot attempt%s (not in the table)", b->name,
			   b->failed, b->failed == 1 ? "" : "s");
		/* the last one of a slot was not retried: the board's part stopped there */
		if (b->not_retried)
			buf_printf(o, ", %zu not retried, so its part stopped there (%s)",
				   b->not_retried, b->not_retried_why);
		buf_printf(o, ";");
	}
	for (size_t bi = 0; bi < n; bi++) { /* a full disk cut them short */
		const struct rep_board *b = &rep->boards[bi];

		for (const char *l = b->logs_incomplete; l && *l;) {
			size_t len = strcspn(l, "\n");

			buf_printf(o, " %.*s (its data stored, its transcript cut short);",
				   (int)len, l);
			l += len + (l[len] == '\n');
		}
	}
	free(d);
}

/* the batches of a boot and what one observation is; email: without the iterations and
 * the batch timing (the text, JSON and web reports have them) */
static void method_batches(const struct report *rep, struct buf *o, bool email)
{
	bool first = true, any_batch = false;

	if (rep->batches <= 0) {
		buf_printf(o, " each boot's log is one observation.");
		return;
	}
	if (email) {
		buf_printf(o, " %d batch%s per boot, a boot's mean is one observation.",
			   rep->batches, rep->batches == 1 ? "" : "es");
		return;
	}
	buf_printf(o, " each boot ran %d batch%s of every scenario", rep->batches,
		   rep->batches == 1 ? "" : "es");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[96];

		/* benchmarks other than dmabench do not say their iterations */
		if (rep_is_pres(r) || r->board != 0 || r->reps <= 0)
			continue;
		report_row_label(r, l, sizeof(l));
		for (char *q = l; *q; q++)
			*q = *q == ' ' ? NBSP : *q;
		buf_printf(o, "%s%s %" PRId64, first ? " (iterations per batch: " : ", ", l,
			   r->reps);
		first = false;
	}
	buf_printf(o, "%s; the mean over a boot's batches is one observation.", first ? "" : ")");
	for (size_t i = 0; i < rep->nrows; i++)
		if (!strcmp(rep->rows[i].timing, "batch"))
			any_batch = true;
	if (any_batch)
		buf_printf(
			o,
			" Where the clock was too coarse for single iterations, whole batches were timed and a memset-only batch subtracted (one mode per scenario and board, fixed at its first boot).");
}

/* how a row is decided: the sequential design or the fixed one's tests; a false-alarm rate
 * only with its power, or with "cannot decide" */
static void method_test(const struct report *rep, struct buf *o, bool email)
{
	/* email: a design that cannot say "different" is said by the footnote and the
	 * undecidable note */
	if (rep->seq.nlooks && email)
		buf_printf(
			o,
			" Sequential, looks at %d+%d..%d+%d: Pocock-type exact rank test at %.2g per row; same: repeated CI within \u00b1%g%%.",
			rep->seq.first, rep->seq.first, rep->seq.budget, rep->seq.budget,
			rep->seq.row_alpha, rep->margin * 100.0);
	else if (rep->seq.nlooks && !(rep->seq.p_diff > 0))
		buf_printf(
			o,
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
			o,
			" A row was decided by a group-sequential exact rank test (Pocock-type boundaries over %zu looks at %.2g per row, %zu rows: overall false-alarm rate %.3f\001\u00b1\001%.3f by simulation, %s) or by its equivalence interval lying within \u00b1%g%%; its interval is the repeated CI.",
			rep->seq.nlooks, rep->seq.row_alpha, rep->seq.nrows_tested,
			rep->seq.fpr * rep->seq.nrows_tested,
			rep->seq.fpr_se * rep->seq.nrows_tested, pw, rep->margin * 100.0);
	} else if (rep->nfamily && email)
		buf_printf(
			o,
			" Change: Hodges-Lehmann; p: exact Mann-Whitney U, Holm over %zu rows; same: %g%% CI within \u00b1%g%%.",
			rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha), rep->margin * 100.0);
	else if (rep->nfamily)
		buf_printf(
			o,
			" Changes are Hodges-Lehmann estimates over boot means with exact distribution-free intervals; p is the exact Mann-Whitney U, Holm-adjusted over the %zu timing rows (not the null-call baseline); \"same\" means the %g%% interval lies within \u00b1%g%%.",
			rep->nfamily, 100.0 * (1.0 - 2.0 * rep->alpha), rep->margin * 100.0);
}

/* the verdicts: each named when at most 3 rows have it, else counted; text: undecided rows
 * whose boots did not overlap with the chance of that */
static void method_verdicts(const struct report *rep, struct buf *o, bool email)
{
	static const enum verdict vs[3] = { VERDICT_DIFFERENT, VERDICT_SAME, VERDICT_UNDECIDED };
	size_t cnt[3], total = 0, nl;
	const struct rep_row *r = NULL;

	for (int k = 0; k < 3; k++)
		total += cnt[k] = count_rows(rep, pred_verdict, &vs[k]);
	for (int k = 0; k < 3; k++) {
		if (!cnt[k])
			continue;
		if (k == 0)
			buf_printf(o, " Different: ");
		else if (k == 1)
			buf_printf(o, " Same within \u00b1%g%%: ", rep->margin * 100.0);
		else
			buf_printf(o, " Undecided: ");
		rows_or_count(rep, o, pred_verdict, &vs[k], total);
		buf_printf(o, ".");
	}
	/* email: its footnote gives the smallest p these boots allow */
	nl = email ? 0 : count_rows(rep, pred_lucky, &vs[2]);
	if (!nl)
		return;
	for (size_t i = 0; i < rep->nrows && !r; i++)
		if (pred_lucky(rep, &rep->rows[i], &vs[2]))
			r = &rep->rows[i];
	if (nl == cnt[2] && nl == 1) {
		buf_printf(o, " Its boots");
	} else if (nl == cnt[2]) {
		buf_printf(o, " Their boots");
	} else if (nl <= NAMED_ROWS_MAX) {
		buf_printf(o, " The boots of ");
		list_rows(rep, o, pred_lucky, &vs[2]);
	} else {
		buf_printf(o, " The boots of %zu of them", nl);
	}
	buf_printf(
		o,
		" did not overlap, but with %zu+%zu boots that happens with no change with probability %.2g, so it is not evidence.",
		r->ab.a.n, r->ab.b.n, r->ab.p_min);
}

static bool pres_ok(const struct rep_row *r)
{
	return rep_is_pres(r) && r->ab.a.n && r->ab.b.n;
}

/* both kernels lost the same bytes, as printed */
static bool pres_equal(const struct rep_row *r)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%.0f", r->ab.a.mean);
	snprintf(b, sizeof(b), "%.0f", r->ab.b.mean);
	return !strcmp(a, b);
}

/* "340032" or "340032-346815" */
static void fmt_bytes(char *out, size_t len, double lo, double hi)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%.0f", lo);
	snprintf(b, sizeof(b), "%.0f", hi);
	if (strcmp(a, b))
		snprintf(out, len, "%s-%s", a, b);
	else
		snprintf(out, len, "%s", a);
}

/* The preservation check: rows of one size and verdict (and both kernels equal or not)
 * agree and share a sentence, their figures as ranges; its boards named unless every
 * board of the campaign is in it. */
static void method_preservation(const struct report *rep, struct buf *o, bool email)
{
	bool *done = xcalloc(rep->nrows + 1, sizeof(bool));
	bool *set = xcalloc(rep->nboards + 1, sizeof(bool));

	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		double alo = r->ab.a.mean, ahi = alo, blo = r->ab.b.mean, bhi = blo;
		char a[64], b[64];
		size_t nb = 0;

		if (!pres_ok(r) || done[i])
			continue;
		memset(set, 0, rep->nboards * sizeof(bool));
		for (size_t j = i; j < rep->nrows; j++) {
			const struct rep_row *q = &rep->rows[j];

			if (!pres_ok(q) || done[j] || q->size != r->size ||
			    q->verdict != r->verdict || pres_equal(q) != pres_equal(r))
				continue;
			done[j] = true;
			nb += !set[q->board];
			set[q->board] = true;
			alo = fmin(alo, q->ab.a.mean);
			ahi = fmax(ahi, q->ab.a.mean);
			blo = fmin(blo, q->ab.b.mean);
			bhi = fmax(bhi, q->ab.b.mean);
		}
		fmt_bytes(a, sizeof(a), alo, ahi);
		fmt_bytes(b, sizeof(b), blo, bhi);
		buf_printf(o, email ? " Preservation check" : " The preservation check");
		if (nb < rep->nboards) {
			buf_printf(o, " on ");
			board_group(rep, set, o);
		}
		buf_printf(o,
			   email ? ": %s of %" PRId64 " bytes lost per boot with " :
				   " lost %s of %" PRId64 " bytes per boot with ",
			   a, r->size);
		if (pres_equal(r))
			buf_printf(o, "both kernels");
		else
			buf_printf(o, "control, %s with patched", b);
		buf_printf(o, "%s.", nb == rep->nboards && nb > 1 ? " on every board" : "");
	}
	free(done);
	free(set);
}

/* The method statement a reviewer can quote (one paragraph, not wrapped): boards with the
 * same design in one clause, verdicts named or counted, one preservation sentence per
 * distinct result, what an emulated figure is once. */
char *rep_method_paragraph(const struct report *rep, bool email)
{
	struct buf o = { 0 };

	buf_printf(&o, "Method (ablab campaign %" PRId64 "):", rep->campaign);
	if (rep->series_msgid[0])
		buf_printf(&o, " the patched kernel is the control's source + series <%s> v%d: %s;",
			   rep->series_msgid, rep->series_version > 0 ? rep->series_version : 1,
			   rep->series_patches ? rep->series_patches : "");
	method_boots(rep, &o, email);
	method_batches(rep, &o, email);
	method_test(rep, &o, email);
	method_verdicts(rep, &o, email);
	method_preservation(rep, &o, email);
	rep_emulated_words(rep, &o, email);
	if (rep->ignored)
		buf_printf(
			&o,
			" %zu boot(s) with a variant other than control and patched are not in the table.",
			rep->ignored);
	return o.data;
}

/* the fewest boots per kernel of a fixed design in which a row of this report's family can
 * end "different" (0: none up to PLAN_MAX_N, or no family) */
static unsigned int decidable_boots(const struct report *rep)
{
	struct plan_design p = { .n = 1,
				 .rows = rep->nfamily ? rep->nfamily : 1,
				 .alpha = rep->alpha,
				 .beta = rep->alpha,
				 .margin = rep->margin };
	struct plan_result r;

	if (plan_decidable(&p, &r))
		return 0;
	return (unsigned int)r.diff_n;
}

/* design advice lines (shared by text, email, html); never fewer boots than can decide */
char *rep_design_text(const struct report *rep)
{
	unsigned int floor_n = decidable_boots(rep);
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
		if (floor_n > b->d_boots && b->d_boots > 0) {
			buf_printf(
				&o,
				"%s: %u boots per kernel x %u batch%s (%u reach the CI; %u is the fewest in which one of %zu rows can say \"different\"), about %.0f\001s per kernel (boot %.1f\001s, batch %.2f\001s; most demanding: %s).\n",
				b->name, floor_n, b->d_batches, b->d_batches == 1 ? "" : "es",
				b->d_boots, floor_n, rep->nfamily ? rep->nfamily : 1,
				b->d_seconds * floor_n / b->d_boots, b->boot_s,
				b->run_s / rep->batches, l);
			continue;
		}
		buf_printf(
			&o,
			"%s: %u boots per kernel x %u batch%s, about %.0f\001s per kernel (boot %.1f\001s, batch %.2f\001s; most demanding: %s).\n",
			b->name, b->d_boots, b->d_batches, b->d_batches == 1 ? "" : "es",
			b->d_seconds, b->boot_s, b->run_s / rep->batches, l);
	}
	return o.data;
}
