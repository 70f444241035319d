// SPDX-License-Identifier: GPL-2.0-only
/* `ablab trend JOB`: the patched-vs-control change of every nightly campaign of a job,
 * per board, with the change points of the series, as text or SVG. */
#include "stats/changepoint.h"
#include "cmd/cmds.h"
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

/* The SVG plot's frame and its axis: TX(i) of night i, TY(v) of a change v (%). */
#define SVG_W 760.0
#define SVG_H 380.0
#define SVG_X0 80.0
#define SVG_X1 (SVG_W - 30)
#define SVG_Y0 60.0
#define SVG_Y1 (SVG_H - 70)
struct trend_axis {
	size_t nn;
	double lo, hi, step; /* %, in whole steps */
};

static double tx(const struct trend_axis *a, size_t i)
{
	if (a->nn > 1)
		return SVG_X0 + 20 + (double)i * (SVG_X1 - SVG_X0 - 40) / (double)(a->nn - 1);
	return (SVG_X0 + SVG_X1) / 2;
}

static double ty(const struct trend_axis *a, double v)
{
	return SVG_Y1 - (v - a->lo) / (a->hi - a->lo) * (SVG_Y1 - SVG_Y0);
}

/* The axis: every night's change and CI, 0 included, in about 5 round steps. */
static void trend_axis(struct trend_axis *a, const struct night *n, size_t nn)
{
	double lo = 0, hi = 0, raw, mag, f;

	for (size_t i = 0; i < nn; i++) {
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
	raw = (hi - lo) / 5;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	a->nn = nn;
	a->step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
}

/* The title, the legend and the grid. */
static void svg_frame(const struct trend_axis *a, const char *job, const char *label, FILE *out)
{
	double step = a->step;

	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
		SVG_W, SVG_H, SVG_W, SVG_H);
	fprintf(out, "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">nightly job ");
	xml_escape(out, job);
	fprintf(out, ": patched vs control, ");
	xml_escape(out, label);
	fprintf(out, "</text>\n<text x=\"10\" y=\"42\" font-size=\"12\">dot = Hodges-Lehmann "
		     "change, bar = its exact CI; filled = different; grey line = segment mean, "
		     "dashed = change point</text>\n");
	for (double t = a->lo; t <= a->hi + step * 0.01; t += step)
		fprintf(out,
			"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%+g%%"
			"</text>\n",
			SVG_X0, SVG_X1, ty(a, t), ty(a, t),
			fabs(t) < step * 1e-6 ? "#555555" : "#e5e5e5", SVG_X0 - 5, ty(a, t) + 4,
			fabs(t) < step * 1e-6 ? 0.0 : t);
}

/* Segments: the mean change of each, from its first to its last night; a dashed line
 * at each change point. */
static void svg_segments(const struct trend_axis *a, const struct night *n, size_t nn, FILE *out)
{
	size_t prev = 0;

	for (size_t i = 0, first = nn; i <= nn; i++) {
		bool end = i == nn || (n[i].have && n[i].cp && first < nn);

		if (end && first < nn) {
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#777777\" stroke-width=\"3\" stroke-opacity=\"0.6\"/>\n",
				tx(a, first) - 6, tx(a, prev) + 6, ty(a, n[first].seg_mean * 100),
				ty(a, n[first].seg_mean * 100));
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
					tx(a, i) - 0.5 * (tx(a, 1) - tx(a, 0)),
					tx(a, i) - 0.5 * (tx(a, 1) - tx(a, 0)), SVG_Y0, SVG_Y1,
					n[i].seg_mean * 100, n[i].cp_p);
		}
	}
}

/* Each night: its date, its change with its CI, a line from the night before. */
static void svg_nights(const struct trend_axis *a, const struct night *n, size_t nn, FILE *out)
{
	size_t k = 0, prev = 0;

	for (size_t i = 0; i < nn; i++) {
		double x = tx(a, i), y;

		fprintf(out,
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
			"transform=\"rotate(-40 %.1f %.1f)\">%s #%" PRId64 "</text>\n",
			x, SVG_Y1 + 16, x, SVG_Y1 + 16, n[i].date, n[i].id);
		if (!n[i].have)
			continue;
		y = ty(a, night_rel(&n[i]) * 100);
		if (!isnan(n[i].row.rel.lo))
			fprintf(out,
				"<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d55e00\" stroke-width=\"2\"/>\n",
				x, x, ty(a, n[i].row.rel.lo * 100), ty(a, n[i].row.rel.hi * 100));
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
				tx(a, prev), x, ty(a, night_rel(&n[prev]) * 100), y);
		prev = i;
	}
}

static void trend_svg(const struct night *n, size_t nn, const char *job, const char *label,
		      FILE *out)
{
	struct trend_axis a;

	trend_axis(&a, n, nn);
	svg_frame(&a, job, label, out);
	svg_segments(&a, n, nn, out);
	svg_nights(&a, n, nn, out);
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

/* `ablab trend`'s command line. */
struct trend_opts {
	const char *format, *scen, *board, *job;
	double alpha;
};

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_trend_opts(int argc, char **argv, struct trend_opts *o)
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
			return 3;
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
	return 0;
}

/* What the store gives a trend: the job's nightly campaigns (by id), the boards and
 * the boot means of the scenario. */
struct trend_data {
	struct tcamp *camp;
	struct tboard *bd;
	struct tboot *tb;
	size_t nc, nbd, nt;
};

static void trend_data_free(struct trend_data *d)
{
	free(d->camp);
	free(d->bd);
	free(d->tb);
}

/* The job's nightly campaigns, sorted by id: 0, or 1 (said). */
static int trend_load_camps(struct store *st, const char *job, struct trend_data *d)
{
	struct store_night *sn;

	if (store_trend_nights(st, job, &sn, &d->nc))
		return 1;
	d->camp = xcalloc(d->nc + 1, sizeof(*d->camp));
	for (size_t i = 0; i < d->nc; i++) {
		d->camp[i].id = sn[i].id;
		d->camp[i].rank = i;
		snprintf(d->camp[i].date, sizeof(d->camp[i].date), "%s", sn[i].date);
	}
	free(sn);
	if (!d->nc) {
		err_msg("trend: no nightly campaigns of job \"%s\" (ablab campaigns --trigger nightly lists them)",
			job);
		return 1;
	}
	qsort(d->camp, d->nc, sizeof(*d->camp), cmp_tcamp);
	return 0;
}

/* The boards and the boots of the trend, per board, nights oldest first: 0, or 1. */
static int trend_load(struct store *st, const struct trend_opts *o, struct trend_data *d)
{
	struct store_board_id *sb;
	struct store_trend_boot *sv;

	if (trend_load_camps(st, o->job, d) || store_board_ids(st, &sb, &d->nbd))
		return 1;
	d->bd = xcalloc(d->nbd + 1, sizeof(*d->bd));
	for (size_t i = 0; i < d->nbd; i++) {
		d->bd[i].id = sb[i].id;
		snprintf(d->bd[i].name, sizeof(d->bd[i].name), "%s", sb[i].name);
	}
	free(sb);
	if (store_trend_boots(st, o->job, o->scen, o->board, &sv, &d->nt))
		return 1;
	d->tb = xcalloc(d->nt + 1, sizeof(*d->tb));
	for (size_t i = 0; i < d->nt; i++) {
		struct tcamp key = { .id = sv[i].campaign };

		d->tb[i].camp = bsearch(&key, d->camp, d->nc, sizeof(*d->camp), cmp_tcamp);
		for (size_t k = 0; k < d->nbd; k++)
			if (d->bd[k].id == sv[i].board)
				d->tb[i].board = d->bd[k].name;
		d->tb[i].boot = sv[i].boot;
		d->tb[i].var = sv[i].patched;
		d->tb[i].v = sv[i].mean;
	}
	free(sv);
	qsort(d->tb, d->nt, sizeof(*d->tb), cmp_tboot);
	return 0;
}

/* The boots grouped into nights (one per campaign and board): *nn of them. */
static struct night *trend_nights(const struct trend_data *d, size_t *nn)
{
	struct night *n = NULL;

	*nn = 0;
	for (size_t i = 0; i < d->nt; i++) {
		const struct tboot *t = &d->tb[i];
		struct night *w = *nn ? &n[*nn - 1] : NULL;

		if (!t->camp || !t->board)
			continue;
		if (!w || w->id != t->camp->id || strcmp(w->board, t->board)) {
			n = xrealloc(n, (*nn + 1) * sizeof(*n));
			w = &n[(*nn)++];
			memset(w, 0, sizeof(*w));
			w->id = t->camp->id;
			snprintf(w->date, sizeof(w->date), "%s", t->camp->date);
			snprintf(w->board, sizeof(w->board), "%s", t->board);
		}
		night_push(w, t->var, t->v);
	}
	return n;
}

/* The label of the first board's row, from the last campaign with both kernels. */
static void trend_label(struct store *st, int64_t last_id, const struct night *n, const char *scen,
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

/* Per board: its nights, segments, output (svg: the first board only). */
static void trend_print(FILE *out, const struct trend_opts *o, struct night *n, size_t nn,
			char *label, size_t len)
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

/* The trend o asks for, to out: 0, or 1 (said). */
static int trend_run(FILE *out, const struct trend_opts *o)
{
	struct trend_data d = { 0 };
	struct night *n = NULL;
	char label[160] = "";
	size_t nn = 0, have = 0;
	int64_t last_id = 0;
	struct store st;
	int ret = 0;

	if (store_open(&st, opt_db))
		return 1;
	ret = trend_load(&st, o, &d);
	if (!ret)
		n = trend_nights(&d, &nn);
	trend_data_free(&d);
	for (size_t i = 0; i < nn; i++) {
		n[i].have = n[i].n[0] && n[i].n[1] &&
			    !stats_row(n[i].v[0], n[i].n[0], n[i].v[1], n[i].n[1], o->alpha,
				       ABLAB_MARGIN, &n[i].row);
		have += n[i].have;
		if (n[i].have)
			last_id = n[i].id;
	}
	if (!ret && !have) {
		err_msg("trend: no nightly campaign of job \"%s\" has scenario \"%s\"%s%s with both kernels",
			o->job, o->scen, o->board ? " on board " : "", o->board ? o->board : "");
		ret = 1;
	}
	if (!ret) {
		trend_label(&st, last_id, n, o->scen, label, sizeof(label));
		trend_print(out, o, n, nn, label, sizeof(label));
	}
	for (size_t i = 0; i < nn; i++) {
		free(n[i].v[0]);
		free(n[i].v[1]);
	}
	free(n);
	store_close(&st);
	return ret;
}

int cmd_trend_to(FILE *out, int argc, char **argv)
{
	struct trend_opts o = { .format = "text", .alpha = ABLAB_ALPHA };
	int ret = parse_trend_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	return trend_run(out, &o);
}

int cmd_trend(int argc, char **argv)
{
	return cmd_trend_to(stdout, argc, argv);
}
