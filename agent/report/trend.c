// SPDX-License-Identifier: GPL-2.0-only
/* `ablab trend JOB`'s renderer (cmd_trend_to, also the /trend page's): the
 * patched-vs-control change of every nightly campaign of a job, per board, with the change
 * points of the series, as text or SVG.  The command is cmd/cmd-trend.c. */
#include "report/query.h"
#include "stats/changepoint.h"
#include "shared/opt.h"
#include "report/report.h"
#include "stats/stats.h"
#include "store/store-trend.h"
#include "store/store.h"
#include "shared/util.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ trend */

/* One night of one board: the boot means of both kernels and their comparison. */
struct night {
	int64_t id;
	char date[40];
	char board[64];
	double *v[2]; /* boot means: control, patched */
	size_t n[2], cap[2];
	struct stats_row_result row;
	bool have;
	int cp; /* 1: this night opens a new segment (a change point) */
	double cp_p, seg_mean; /* the change point's p; the mean change of its segment */
};

/* the plotted value: the Hodges-Lehmann relative change, else the change of the means */
static double night_rel(const struct night *n)
{
	if (n->row.have_rel)
		return n->row.rel.shift;
	return n->row.mean_a != 0.0 ? n->row.mean_b / n->row.mean_a - 1.0 : NAN;
}

static void night_push(struct night *n, int var, double v)
{
	if (n->n[var] == n->cap[var]) {
		n->cap[var] = n->cap[var] ? 2 * n->cap[var] : 8;
		n->v[var] = xrealloc(n->v[var], n->cap[var] * sizeof(double));
	}
	n->v[var][n->n[var]++] = v;
}

/*
 * Change points of one board's series of nightly changes (changepoint.h): marks the nights
 * that open a new segment and gives every night its segment's mean change.
 */
static void trend_segments(struct night *n, size_t nn)
{
	double *x = xcalloc(nn + 1, sizeof(double));
	size_t *at = xcalloc(nn + 1, sizeof(size_t)), m = 0, seg = 0;
	struct cp_point *cp = xcalloc(nn + 1, sizeof(*cp));
	int k;

	for (size_t i = 0; i < nn; i++)
		if (n[i].have && isfinite(night_rel(&n[i]))) {
			x[m] = night_rel(&n[i]);
			at[m++] = i;
		}
	k = cp_detect(x, m, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, cp, m);
	for (size_t j = 0, c = 0; j < m; j++) {
		if (c < (size_t)(k > 0 ? k : 0) && cp[c].index == j) {
			n[at[j]].cp = 1;
			n[at[j]].cp_p = cp[c].p;
			c++;
		}
	}
	/* segment means */
	for (size_t j = 0; j <= m; j++) {
		if (j == m || (j > seg && n[at[j]].cp)) {
			double s = 0.0;

			for (size_t q = seg; q < j; q++)
				s += x[q];
			for (size_t q = seg; q < j; q++)
				n[at[q]].seg_mean = s / (double)(j - seg);
			seg = j;
		}
	}
	free(x);
	free(at);
	free(cp);
}

/* The trend plot's area, value range (percent) and number of nights. */
struct tplot {
	double W, H, x0, x1, y0, y1;
	double lo, hi, step;
	size_t nn;
};

/* the x of night i, the y of a change v (percent) */
static double tx(const struct tplot *p, size_t i)
{
	return p->nn > 1 ? p->x0 + 20 + (double)(i) * (p->x1 - p->x0 - 40) / (double)(p->nn - 1) :
			   (p->x0 + p->x1) / 2;
}

static double ty(const struct tplot *p, double v)
{
	return p->y1 - ((v)-p->lo) / (p->hi - p->lo) * (p->y1 - p->y0);
}

/* the range of the changes and their intervals, widened to whole ticks */
static void tplot_scale(struct tplot *p, const struct night *n)
{
	double lo = 0, hi = 0;

	for (size_t i = 0; i < p->nn; i++) {
		if (!n[i].have)
			continue;
		lo = fmin(lo, isnan(n[i].row.rel.lo) ? night_rel(&n[i]) : n[i].row.rel.lo);
		hi = fmax(hi, isnan(n[i].row.rel.hi) ? night_rel(&n[i]) : n[i].row.rel.hi);
	}
	lo *= 100;
	hi *= 100;
	if (!(hi - lo > 1e-9)) {
		lo -= 1;
		hi += 1;
	}
	{
		double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

		p->step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
	}
	p->lo = floor(lo / p->step) * p->step;
	p->hi = ceil(hi / p->step) * p->step;
}

/* the header, title, legend and grid */
static void tplot_head(const struct tplot *p, const char *job, const char *label, FILE *out)
{
	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		p->W, p->H, p->W, p->H);
	fprintf(out, "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">nightly job ");
	xml_escape(out, job);
	fprintf(out, ": patched vs control, ");
	xml_escape(out, label);
	fprintf(out, "</text>\n<text x=\"10\" y=\"42\" font-size=\"12\">dot = Hodges-Lehmann "
		     "change, bar = its exact CI; filled = different; grey line = segment mean, "
		     "dashed = change point</text>\n");
	for (double t = p->lo; t <= p->hi + p->step * 0.01; t += p->step)
		fprintf(out,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%+g%%"
			"</text>\n",
			p->x0, p->x1, ty(p, t), ty(p, t),
			fabs(t) < p->step * 1e-6 ? "#555555" : "#e5e5e5", p->x0 - 5, ty(p, t) + 4,
			fabs(t) < p->step * 1e-6 ? 0.0 : t);
}

/* segments: the mean change of each, from its first to its last night; the change points */
static void tplot_segments(const struct tplot *p, const struct night *n, FILE *out)
{
	size_t nn = p->nn, prev = 0;

	for (size_t i = 0, first = nn; i <= nn; i++) {
		bool end = i == nn || (n[i].have && n[i].cp && first < nn);

		if (end && first < nn) {
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#777777\" stroke-width=\"3\" stroke-opacity=\"0.6\"/>\n",
				tx(p, first) - 6, tx(p, prev) + 6, ty(p, n[first].seg_mean * 100),
				ty(p, n[first].seg_mean * 100));
			first = nn;
		}
		if (i < nn && n[i].have) {
			if (first == nn)
				first = i;
			prev = i;
			if (n[i].cp && i)
				fprintf(out,
					"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
					"y2=\"%.1f\" stroke=\"#777777\" stroke-dasharray=\"4 3\">"
					"<title>change point: %+.2f%% from here (p = %.2g)</title>"
					"</line>\n",
					tx(p, i) - 0.5 * (tx(p, 1) - tx(p, 0)),
					tx(p, i) - 0.5 * (tx(p, 1) - tx(p, 0)), p->y0, p->y1,
					n[i].seg_mean * 100, n[i].cp_p);
		}
	}
}

/* each night: its date, change, interval, and the line from the night before */
static void tplot_nights(const struct tplot *p, const struct night *n, FILE *out)
{
	size_t k = 0, prev = 0;

	for (size_t i = 0; i < p->nn; i++) {
		double x = tx(p, i), y;

		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
			"transform=\"rotate(-40 %.1f %.1f)\">%s #%" PRId64 "</text>\n",
			x, p->y1 + 16, x, p->y1 + 16, n[i].date, n[i].id);
		if (!n[i].have)
			continue;
		y = ty(p, night_rel(&n[i]) * 100);
		if (!isnan(n[i].row.rel.lo))
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d55e00\" stroke-width=\"2\"/>\n",
				x, x, ty(p, n[i].row.rel.lo * 100), ty(p, n[i].row.rel.hi * 100));
		fprintf(out,
			"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" stroke=\"#d55e00\" "
			"stroke-width=\"2\" fill=\"%s\"><title>campaign %" PRId64 ": %+.3f%%"
			"</title></circle>\n",
			x, y, n[i].row.verdict == VERDICT_DIFFERENT ? "#d55e00" : "#ffffff",
			n[i].id, night_rel(&n[i]) * 100);
		if (k++)
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d55e00\" stroke-opacity=\"0.4\"/>\n",
				tx(p, prev), x, ty(p, night_rel(&n[prev]) * 100), y);
		prev = i;
	}
}

static void trend_svg(const struct night *n, size_t nn, const char *job, const char *label,
		      FILE *out)
{
	struct tplot p = { .W = 760, .H = 380, .x0 = 80, .y0 = 60, .nn = nn };

	p.x1 = p.W - 30;
	p.y1 = p.H - 70;
	tplot_scale(&p, n);
	tplot_head(&p, job, label, out);
	tplot_segments(&p, n, out);
	tplot_nights(&p, n, out);
	fprintf(out, "</svg>\n");
}

static void trend_text(const struct night *n, size_t nn, const char *job, const char *label,
		       double alpha, FILE *out)
{
	size_t ncp = 0;

	fprintf(out, "nightly job %s, %s: patched vs control per night\n\n", job, label);
	fprintf(out, "  %-10s %8s %11s %11s %9s %-26s %5s %-13s %s\n", "date", "campaign",
		"control", "patched", "change", "exact CI (achieved)", "n", "p", "verdict");
	for (size_t i = 0; i < nn; i++) {
		const struct stats_row_result *r = &n[i].row;
		char a[32], b[32], ch[32], ci[48], cia[64], p[32];

		if (!n[i].have) {
			fprintf(out, "  %-10s %8" PRId64 "   (no boots of both kernels)\n",
				n[i].date, n[i].id);
			continue;
		}
		fmt_time(a, sizeof(a), r->mean_a);
		fmt_time(b, sizeof(b), r->mean_b);
		fmt_change(ch, sizeof(ch), night_rel(&n[i]));
		fmt_ci(ci, sizeof(ci), r->rel.lo, r->rel.hi);
		if (isnan(r->rel.lo))
			snprintf(cia, sizeof(cia), "-");
		else
			snprintf(cia, sizeof(cia), "%s %.1f%%", ci, r->rel.conf * 100);
		if (r->p_min > alpha)
			snprintf(p, sizeof(p), "too few boots");
		else
			snprintf(p, sizeof(p), "%.3f", r->p);
		fprintf(out, "  %-10s %8" PRId64 " %11s %11s %9s %-26s %2zu+%-2zu %-13s %s%s\n",
			n[i].date, n[i].id, a, b, ch, cia, r->na, r->nb, p,
			stats_verdict_name(r->verdict), n[i].cp ? "  <- change point" : "");
		ncp += n[i].cp;
	}
	if (!ncp) {
		fprintf(out,
			"\n"
			"no change point in the series (t-test variant of E-divisive, p <= %g)\n",
			CP_DEFAULT_P_MAX);
		return;
	}
	fprintf(out, "\nchange points (t-test variant of E-divisive, p <= %g):\n",
		CP_DEFAULT_P_MAX);
	for (size_t i = 0, last = nn; i < nn; i++) {
		char x[32], y[32];

		if (!n[i].have)
			continue;
		if (n[i].cp && last < nn) {
			fmt_change(x, sizeof(x), n[last].seg_mean);
			fmt_change(y, sizeof(y), n[i].seg_mean);
			fprintf(out, "  %s (campaign %" PRId64 "): %s -> %s, p = %.2g\n", n[i].date,
				n[i].id, x, y, n[i].cp_p);
		}
		last = i;
	}
}

struct tcamp {
	int64_t id;
	size_t rank; /* position by (created, id) */
	char date[16];
};

struct tboard {
	int64_t id;
	char name[64];
};

struct tboot {
	const struct tcamp *camp;
	const char *board;
	int64_t boot;
	int var;
	double v;
};

static int cmp_tcamp(const void *pa, const void *pb)
{
	const struct tcamp *a = pa, *b = pb;

	return (a->id > b->id) - (a->id < b->id);
}

static int cmp_tboot(const void *pa, const void *pb)
{
	const struct tboot *a = pa, *b = pb;
	int c;

	if (!a->board || !b->board || !a->camp || !b->camp)
		return (!a->board || !a->camp) - (!b->board || !b->camp);
	c = strcmp(a->board, b->board);
	if (c)
		return c;
	if (a->camp->rank != b->camp->rank)
		return (a->camp->rank > b->camp->rank) - (a->camp->rank < b->camp->rank);
	return (a->boot > b->boot) - (a->boot < b->boot);
}

static const char trend_usage[] =
	"usage: ablab trend JOB --scenario S [--board B] [--format text|svg] [--alpha A]\n"
	"The patched-vs-control change (Hodges-Lehmann, exact CI) of every nightly campaign of\n"
	"JOB, oldest first, per board, with the change points of the series.\n";

/* `ablab trend`'s options */
struct trend_opts {
	const char *format, *scen, *board, *job;
	double alpha;
};

/* argv into o: -1 to go on, else the command's exit status (--help, a usage error) */
static int trend_parse(struct trend_opts *o, int argc, char **argv)
{
	static const struct option lo[] = { { "scenario", 1, NULL, 's' }, { "board", 1, NULL, 'b' },
					    { "format", 1, NULL, 'f' },	  { "alpha", 1, NULL, 'a' },
					    { "help", 0, NULL, 'h' },	  { NULL, 0, NULL, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->scen = optarg;
			break;
		case 'b':
			o->board = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'a':
			if (parse_alpha_opt(optarg, &o->alpha))
				return 2;
			break;
		case 'h':
			fputs(trend_usage, stdout);
			return 0;
		default:
			return 2;
		}
	}
	if (argc - optind != 1 || !o->scen) {
		err_msg("usage: ablab trend JOB --scenario S [--board B] [--format text|svg]");
		return 2;
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "svg")) {
		err_msg("trend: --format \"%s\" is not one of text, svg", o->format);
		return 2;
	}
	o->job = argv[optind];
	return -1;
}

/* the job's nightly campaigns, sorted by id (*camp malloc'd): 0, or -1 (printed) */
static int trend_camps(struct store *st, const char *job, struct tcamp **camp, size_t *nc)
{
	struct store_night *sn;

	if (store_trend_nights(st, job, &sn, nc))
		return -1;
	*camp = xcalloc(*nc + 1, sizeof(**camp));
	for (size_t i = 0; i < *nc; i++) {
		(*camp)[i].id = sn[i].id;
		(*camp)[i].rank = i;
		snprintf((*camp)[i].date, sizeof((*camp)[i].date), "%s", sn[i].date);
	}
	free(sn);
	if (!*nc) {
		err_msg("trend: no nightly campaigns of job \"%s\" (ablab campaigns --trigger nightly lists them)",
			job);
		free(*camp);
		return -1;
	}
	qsort(*camp, *nc, sizeof(**camp), cmp_tcamp);
	return 0;
}

/* the boards' ids and names (*bd malloc'd): 0, or -1 */
static int trend_boards(struct store *st, struct tboard **bd, size_t *nbd)
{
	struct store_board_id *sb;

	if (store_board_ids(st, &sb, nbd))
		return -1;
	*bd = xcalloc(*nbd + 1, sizeof(**bd));
	for (size_t i = 0; i < *nbd; i++) {
		(*bd)[i].id = sb[i].id;
		snprintf((*bd)[i].name, sizeof((*bd)[i].name), "%s", sb[i].name);
	}
	free(sb);
	return 0;
}

/* the scenario's boot means of the job's nightly campaigns as nights (per board, oldest
 * first; *np malloc'd): 0, or -1 (printed) */
static int trend_nights(struct store *st, const struct trend_opts *o, struct night **np,
			size_t *nnp)
{
	struct store_trend_boot *sv;
	size_t nc = 0, nbd = 0, nt = 0, nn = 0;
	struct tcamp *camp = NULL;
	struct tboard *bd = NULL;
	struct night *n = NULL;
	struct tboot *tb;

	if (trend_camps(st, o->job, &camp, &nc))
		return -1;
	if (trend_boards(st, &bd, &nbd)) {
		free(camp);
		return -1;
	}
	if (store_trend_boots(st, o->job, o->scen, o->board, &sv, &nt)) {
		free(camp);
		free(bd);
		return -1;
	}
	tb = xcalloc(nt + 1, sizeof(*tb));
	for (size_t i = 0; i < nt; i++) {
		struct tcamp key = { .id = sv[i].campaign };
		const struct tcamp *tc = bsearch(&key, camp, nc, sizeof(*camp), cmp_tcamp);

		tb[i].camp = tc;
		for (size_t k = 0; k < nbd; k++)
			if (bd[k].id == sv[i].board)
				tb[i].board = bd[k].name;
		tb[i].boot = sv[i].boot;
		tb[i].var = sv[i].patched;
		tb[i].v = sv[i].mean;
	}
	free(sv);
	/* per board, nights oldest first */
	qsort(tb, nt, sizeof(*tb), cmp_tboot);
	for (size_t i = 0; i < nt; i++) {
		struct night *w = nn ? &n[nn - 1] : NULL;

		if (!tb[i].camp || !tb[i].board)
			continue;
		if (!w || w->id != tb[i].camp->id || strcmp(w->board, tb[i].board)) {
			n = xrealloc(n, (nn + 1) * sizeof(*n));
			w = &n[nn++];
			memset(w, 0, sizeof(*w));
			w->id = tb[i].camp->id;
			snprintf(w->date, sizeof(w->date), "%s", tb[i].camp->date);
			snprintf(w->board, sizeof(w->board), "%s", tb[i].board);
		}
		night_push(w, tb[i].var, tb[i].v);
	}
	free(tb);
	free(camp);
	free(bd);
	*np = n;
	*nnp = nn;
	return 0;
}

/* the label of the first board's row, from the last campaign with both kernels */
static void trend_label(struct store *st, const struct night *n, int64_t last_id, const char *scen,
			char *label, size_t len)
{
	struct report rep;

	if (!report_load(st, last_id, &rep)) {
		int j = report_find(&rep, n[0].board, scen);

		if (j >= 0)
			report_row_label_full(&rep, &rep.rows[j], label, len);
	}
	report_free(&rep);
	if (!label[0])
		snprintf(label, len, "%s, %s", n[0].board, scen);
}

/* per board: its nights, segments, output (svg: the first board only) */
static void trend_write(struct night *n, size_t nn, const struct trend_opts *o, char *label,
			size_t len, FILE *out)
{
	size_t first = 0;

	while (first < nn) {
		size_t end = first;

		while (end < nn && !strcmp(n[end].board, n[first].board))
			end++;
		trend_segments(n + first, end - first);
		if (!strcmp(o->format, "svg")) {
			trend_svg(n + first, end - first, o->job, label, out);
			break;
		}
		if (first)
			snprintf(label, len, "%s, %s", n[first].board, o->scen);
		trend_text(n + first, end - first, o->job, label, o->alpha, out);
		first = end;
		if (first < nn)
			fputc('\n', out);
	}
}

int cmd_trend_to(FILE *out, int argc, char **argv)
{
	struct trend_opts o = { .format = "text", .alpha = ABLAB_ALPHA };
	struct night *n = NULL;
	char label[160] = "";
	struct store st;
	size_t nn = 0, have = 0;
	int64_t last_id = 0;
	int ret = trend_parse(&o, argc, argv);

	if (ret >= 0)
		return ret;
	if (store_open(&st, opt_db))
		return 1;
	if (trend_nights(&st, &o, &n, &nn)) {
		store_close(&st);
		return 1;
	}
	ret = 0;
	for (size_t i = 0; i < nn; i++) {
		n[i].have = n[i].n[0] && n[i].n[1] &&
			    !stats_row(n[i].v[0], n[i].n[0], n[i].v[1], n[i].n[1], o.alpha,
				       ABLAB_MARGIN, &n[i].row);
		have += n[i].have;
		if (n[i].have)
			last_id = n[i].id;
	}
	if (!have) {
		err_msg("trend: no nightly campaign of job \"%s\" has scenario \"%s\"%s%s with both kernels",
			o.job, o.scen, o.board ? " on board " : "", o.board ? o.board : "");
		ret = 1;
	} else {
		trend_label(&st, n, last_id, o.scen, label, sizeof(label));
		trend_write(n, nn, &o, label, sizeof(label), out);
	}
	for (size_t i = 0; i < nn; i++) {
		free(n[i].v[0]);
		free(n[i].v[1]);
	}
	free(n);
	store_close(&st);
	return ret;
}
