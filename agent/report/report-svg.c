// SPDX-License-Identifier: GPL-2.0-only
/* The pictures: SVG panels (every boot's mean as a dot) and the HTML page. */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "shared/util.h"
#include "variant.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ svg, html */

#define SVG_PW 340 /* panel width */
#define SVG_PH 270 /* panel height */
#define SVG_COLS 3
/* Okabe-Ito: control, patched, then the other colours of the palette for a series */
static const char *const var_color[VARIANTS_MAX] = { "#0072b2", "#d55e00", "#009e73", "#cc79a7",
						     "#e69f00", "#56b4e9", "#000000", "#f0e442" };

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

	if (!rep_is_pres(r))
		while (u < 3 && fabs(ref) >= scale * 1000.0) {
			scale *= 1000.0;
			u++;
		}
	dec = (int)ceil(-log10(step / scale) - 1e-9);
	dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
	snprintf(out, len, "%.*f %s", dec, fabs(v) < step * 1e-9 ? 0.0 : v / scale,
		 rep_is_pres(r) ? "B" : unit[u]);
}

/* One panel's plot area, value range and variant columns. */
struct panel {
	double px0, px1, py0, py1;
	double lo, hi, step;
	double colx[VARIANTS_MAX];
};

/* the y of value v */
static double panel_y(const struct panel *p, double v)
{
	return p->py1 - ((v)-p->lo) / (p->hi - p->lo) * (p->py1 - p->py0);
}

/* the range of the row's boot means, widened to whole ticks */
static void panel_scale(struct panel *p, const struct report *rep, const struct rep_row *r)
{
	int nv = rep->vs.n;

	p->lo = INFINITY;
	p->hi = -INFINITY;
	for (size_t j = 0; j < r->nboots; j++) {
		p->lo = fmin(p->lo, r->boots[j].s.mean);
		p->hi = fmax(p->hi, r->boots[j].s.mean);
	}
	if (!isfinite(p->lo)) {
		p->lo = 0;
		p->hi = 1;
	}
	if (p->hi - p->lo < fabs(p->hi) * 1e-6 + 1e-9) {
		double pad = fabs(p->hi) * 0.01 + 1.0;

		p->lo -= pad;
		p->hi += pad;
	}
	p->step = nice_step(p->hi - p->lo);
	p->lo = floor(p->lo / p->step) * p->step;
	p->hi = ceil(p->hi / p->step) * p->step;
	p->colx[0] = p->px0 + (p->px1 - p->px0) * 0.27;
	p->colx[1] = p->px0 + (p->px1 - p->px0) * 0.73;
	for (int v = 0; nv > 2 && v < nv; v++) /* a series: one column per variant */
		p->colx[v] = p->px0 + (p->px1 - p->px0) * ((double)v + 0.5) / (double)nv;
}

/* the frame, the row's label, change and p, the batches left out */
static void panel_title(const struct report *rep, const struct rep_row *r, FILE *f, double x0,
			double y0)
{
	char l[160], c[40], p[32];

	report_row_label_full(rep, r, l, sizeof(l));
	rep_change_cell(r, c, sizeof(c), true);
	rep_p_cell(r, p, sizeof(p));
	fprintf(f,
		"<g class=\"panel\"><rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" "
		"fill=\"#ffffff\" stroke=\"#cccccc\"/>\n",
		x0 + 2, y0 + 2, SVG_PW - 4, SVG_PH - 4);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" font-weight=\"bold\">", x0 + 10,
		y0 + 20);
	xml_escape(f, l);
	fprintf(f,
		"</text>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\">change %s, p %s, %s"
		"</text>\n",
		x0 + 10, y0 + 38, c, p, rep_row_sep(r));
	if (r->nleft) {
		char t[320];

		rep_left_out_text(r, t, sizeof(t));
		fprintf(f,
			"<text class=\"left-out\" x=\"%.0f\" y=\"%.0f\" font-size=\"10\" fill=\"#b00000\">",
			x0 + 10, y0 + 52);
		xml_escape(f, t);
		fputs("</text>\n", f);
	}
}

/* the grid lines with their values, and the y axis */
static void panel_axis(const struct panel *p, const struct rep_row *r, FILE *f)
{
	for (double t = p->lo; t <= p->hi + p->step * 0.01; t += p->step) {
		char tv[32];

		fmt_tick(r, tv, sizeof(tv), t, p->step, fmax(fabs(p->lo), fabs(p->hi)));
		fprintf(f,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#eeeeee\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
			"text-anchor=\"end\" fill=\"#555555\">%s</text>\n",
			p->px0, p->px1, panel_y(p, t), panel_y(p, t), p->px0 - 4, panel_y(p, t) + 3,
			tv);
	}
	fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#888888\"/>\n",
		p->px0, p->px0, p->py0, p->py1);
}

/* one variant's column: its boots, their mean and its name */
static void panel_variant(const struct panel *p, const struct report *rep, const struct rep_row *r,
			  FILE *f, int v)
{
	struct summary own = { 0 };
	const struct summary *s = v ? &r->ab.b : &r->ab.a;
	const char *vname = rep->vs.label[v];
	size_t k = 0;

	if (rep->series) { /* the variant's own boots, not the A/B table's */
		double sum = 0;

		for (size_t j = 0; j < r->nboots; j++)
			if (r->boots[j].vi == v) {
				sum += r->boots[j].s.mean;
				own.n++;
			}
		own.mean = own.n ? sum / (double)own.n : NAN;
		s = &own;
	}

	for (size_t j = 0; j < r->nboots; j++) {
		const struct rep_boot *bt = &r->boots[j];
		double jx = (double)((int)(k * 7 % 11) - 5) * 2.6;
		char tv[32];

		if (bt->vi != v)
			continue;
		k++;
		rep_fmt_val(r, tv, sizeof(tv), bt->s.mean);
		fprintf(f,
			"<circle class=\"boot %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
			"fill=\"%s\" fill-opacity=\"0.75\"><title>%s boot %d: %s</title>"
			"</circle>\n",
			vname, p->colx[v] + jx, panel_y(p, bt->s.mean), var_color[v], vname,
			bt->seq, tv);
	}
	if (s->n) {
		char mv[32];

		rep_fmt_val(r, mv, sizeof(mv), s->mean);
		fprintf(f,
			"<line class=\"mean\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
			p->colx[v] - 26, p->colx[v] + 26, panel_y(p, s->mean), panel_y(p, s->mean),
			var_color[v]);
		fprintf(f,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
			"text-anchor=\"middle\" fill=\"%s\">mean %s</text>\n",
			p->colx[v], p->py1 + 34, var_color[v], mv);
	}
	fprintf(f,
		"<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"middle\" "
		"fill=\"%s\" font-weight=\"bold\">%s (n=%zu)</text>\n",
		p->colx[v], p->py1 + 19, var_color[v], vname, s->n);
}

static void svg_panel(const struct report *rep, const struct rep_row *r, FILE *f, double x0,
		      double y0)
{
	struct panel p = {
		.px0 = x0 + 78, .px1 = x0 + SVG_PW - 20, .py0 = y0 + 58, .py1 = y0 + SVG_PH - 50
	};

	panel_scale(&p, rep, r);
	panel_title(rep, r, f, x0, y0);
	panel_axis(&p, r, f);
	for (int v = 0; v < rep->vs.n; v++)
		panel_variant(&p, rep, r, f, v);
	fprintf(f, "</g>\n");
}

void rep_write_svg(const struct report *rep, FILE *f)
{
	size_t n = rep->nrows ? rep->nrows : 1;
	int cols = n < SVG_COLS ? (int)n : SVG_COLS, rowsn = (int)((n + SVG_COLS - 1) / SVG_COLS);
	int w = cols * SVG_PW, h = rowsn * SVG_PH + 30;

	fprintf(f,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
		w, h, w, h);
	fprintf(f, "<title>ablab campaign %" PRId64 ": per-boot means</title>\n", rep->campaign);
	fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n");
	fprintf(f,
		"<text x=\"10\" y=\"20\" font-size=\"13\">campaign %" PRId64 ": one dot per "
		"boot (its mean over the batches), bar = mean of the boot means</text>\n",
		rep->campaign);
	for (size_t i = 0; i < rep->nrows; i++)
		svg_panel(rep, &rep->rows[i], f, (double)((int)i % SVG_COLS) * SVG_PW,
			  30.0 + (double)((int)i / SVG_COLS) * SVG_PH);
	if (!rep->nrows)
		fprintf(f, "<text x=\"10\" y=\"60\">no successful boots</text>\n");
	fprintf(f, "</svg>\n");
}

void rep_write_html(const struct report *rep, FILE *f)
{
	char *m = rep_method_paragraph(rep, false), *d = rep_design_text(rep);

	fprintf(f,
		"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		"<title>ablab campaign %" PRId64 "</title>\n<style>\n"
		"body{font-family:sans-serif;margin:1.5em;color:#222;max-width:1100px}\n"
		"table{border-collapse:collapse;margin:1em 0}\n"
		"th,td{padding:3px 9px;border-bottom:1px solid #ddd;text-align:right}\n"
		"th:first-child,td:first-child{text-align:left}\n"
		"th{background:#eef}\ntd{white-space:nowrap}\n.ns{color:#777}\n"
		".sig{font-weight:bold}\np.method{max-width:60em;line-height:1.4}\n"
		"p.design{max-width:60em;white-space:pre-line;font-size:90%%}\n"
		".env-changed{color:#a40000;font-weight:bold}\n"
		"</style></head>\n<body>\n",
		rep->campaign);
	fprintf(f, "<h1>ablab campaign %" PRId64 "</h1>\n<p>", rep->campaign);
	xml_escape(f, rep->trigger);
	if (rep->job[0]) {
		fputs(" job ", f);
		xml_escape(f, rep->job);
	}
	fprintf(f, ", %s, started %s, %d batches per scenario per boot.</p>\n", rep->status,
		rep->created, rep->batches);
	if (rep->undecidable) { /* ran with --undecidable-ok */
		fputs("<p class=\"undecidable\">This design could not decide (run with --undecidable-ok): ",
		      f);
		xml_escape(f, rep->undecidable);
		fputs(".</p>\n", f);
	}
	fprintf(f, "<table id=\"ab\">\n<tr><th></th><th>control</th><th>patched</th>"
		   "<th>change</th><th>95%% CI</th><th>n</th><th>p</th><th>separation</th></tr>\n");
	for (size_t i = 0; i < rep->nrows; i++) {
		const struct rep_row *r = &rep->rows[i];
		char l[160], a[32], b[32], c[40], p[32], lo[24], hi[24];

		report_row_label_full(rep, r, l, sizeof(l));
		rep_fmt_val(r, a, sizeof(a), r->ab.a.mean);
		rep_fmt_val(r, b, sizeof(b), r->ab.b.mean);
		rep_change_cell(r, c, sizeof(c), false);
		rep_p_cell(r, p, sizeof(p));
		fmt_change(lo, sizeof(lo), r->ab.ci_lo);
		fmt_change(hi, sizeof(hi), r->ab.ci_hi);
		/* its board's boots differ in more than the kernel: marked, said below */
		fputs(rep->boards[r->board].env_changed ? "<tr class=\"env-changed\"><td>" :
							  "<tr><td>",
		      f);
		xml_escape(f, l);
		if (rep->boards[r->board].env_changed) {
			fputs(" <span class=\"env-changed\" title=\"", f);
			xml_escape(f, rep->boards[r->board].env_changed);
			fputs("\">&#9888; environment changed</span>", f);
		}
		fprintf(f,
			"</td><td>%s</td><td>%s</td><td class=\"%s\">%s</td><td>%s%s%s%s%s</td>"
			"<td>%zu+%zu</td><td>%s</td><td>%s</td></tr>\n",
			a, b, r->verdict == VERDICT_DIFFERENT ? "sig" : "ns", c,
			isnan(r->ab.ci_lo) || rep_is_pres(r) ? "-" : "[",
			isnan(r->ab.ci_lo) || rep_is_pres(r) ? "" : lo,
			isnan(r->ab.ci_lo) || rep_is_pres(r) ? "" : ", ",
			isnan(r->ab.ci_lo) || rep_is_pres(r) ? "" : hi,
			isnan(r->ab.ci_lo) || rep_is_pres(r) ? "" : "]", r->ab.a.n, r->ab.b.n, p,
			rep_row_sep(r));
	}
	fputs("</table>\n", f);
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		if (!rep->boards[bi].env_changed)
			continue;
		fputs("<p class=\"env-changed\">&#9888; ", f);
		xml_escape(f, rep->boards[bi].name);
		fputs(": ", f);
		xml_escape(f, rep->boards[bi].env_changed);
		fputs(" (its rows above compare boots that differ in more than the kernel)</p>\n",
		      f);
	}
	for (size_t i = 0; i < rep->nrows; i++) {
		char l[160], t[320];

		rep_left_out_text(&rep->rows[i], t, sizeof(t));
		if (!t[0])
			continue;
		report_row_label_full(rep, &rep->rows[i], l, sizeof(l));
		fputs("<p class=\"left-out\">", f);
		xml_escape(f, l);
		fputs(": ", f);
		xml_escape(f, t);
		fputs(" (left out of its boot's mean)</p>\n", f);
	}
	fputs("<p class=\"method\">", f);
	xml_escape(f, m);
	fputs("</p>\n<p class=\"design\">", f);
	xml_escape(f, d);
	fputs("</p>\n<div id=\"plots\">\n", f);
	rep_write_svg(rep, f);
	fputs("</div>\n</body></html>\n", f);
	free(m);
	free(d);
}
