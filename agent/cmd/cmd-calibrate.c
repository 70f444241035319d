// SPDX-License-Identifier: GPL-2.0-only
/* `ablab calibrate BOARD...`: an A/A campaign (the same kernel on both sides)
 * whose boots give each scenario's noise on that board and kernel build: the
 * within-boot (batch) and between-boot variance, stored in calibrations.  Later
 * reports of campaigns on the board print the minimum detectable effect (MDE)
 * at their own number of boots next to each row (report.c). */
#include "campaign.h"
#include "cmd/cmds.h"
#include "kernel.h"
#include "report/report.h"
#include "stats/stats.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void calibrate_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab calibrate BOARD... [--boots N] [--batches M] [--kernel DIR]\n"
		"                       [--params 'K=V ...'] [--results DIR] [--undecidable-ok]\n"
		"Runs an A/A campaign on each board at once: the same kernel (default the\n"
		"board's control build) booted 2N times, alternating the two sides as a real\n"
		"campaign would, and stores each scenario's within-boot and between-boot\n"
		"variance for that board and kernel build.  Later reports on the board show\n"
		"the minimum detectable effect at their own number of boots next to each row;\n"
		"this command prints it for N boots per kernel.  The A/A rows' own verdicts\n"
		"are printed too: a \"different\" there means an order or drift effect.\n"
		"Columns: cv means, the sd of the boot means over their mean (the noise\n"
		"between boots as seen); cv boot, the between-boot variance component\n"
		"(Kalibera & Jones: what the batch noise does not explain); cv batch, the\n"
		"within-boot (batch-to-batch) noise.\n"
		"  --boots N      boots per side (default 5, 2..100)\n"
		"  --batches M    batches per scenario per boot (default 5)\n"
		"  --kernel DIR   the kernel directory (default: the board's control build)\n"
		"  --params 'K=V ...'  extra dmabench parameters, as the campaign to plan\n"
		"                 will use them (e.g. its scenarios and reps)\n"
		"  --results DIR  transcripts go to DIR/campaign-N (default ./results)\n"
		"  --undecidable-ok  run even when N+N boots can never say \"same\" (2+2);\n"
		"                 refused with exit 2 otherwise\n");
}

/* The boots of a row with its most common batch count, as a matrix for stats_design */
static int row_design(const struct rep_row *r, struct design_advice *d, size_t *m_out,
		      size_t *n_out)
{
	size_t m = 0, best = 0, n = 0;
	double *x;
	int ret;

	for (size_t i = 0; i < r->nboots; i++) {
		size_t c = 0;

		for (size_t j = 0; j < r->nboots; j++)
			c += r->boots[j].nbatch == r->boots[i].nbatch;
		if (c > best || (c == best && r->boots[i].nbatch > m)) {
			best = c;
			m = r->boots[i].nbatch;
		}
	}
	if (m < 2 || best < 2)
		return -ENODATA;
	x = xcalloc(best * m, sizeof(double));
	for (size_t i = 0; i < r->nboots; i++)
		if (r->boots[i].nbatch == m)
			memcpy(&x[m * n++], r->boots[i].batch, m * sizeof(double));
	ret = stats_design(x, n, m, 1.0, 1.0, ABLAB_TARGET, d);
	free(x);
	*m_out = m;
	*n_out = n;
	return ret;
}

/* Between-boot CV as seen: the sd of the boot means over their mean (both sides of the A/A) */
static double means_cv(const struct rep_row *r)
{
	double *x = xcalloc(r->nboots + 1, sizeof(double));
	struct summary s;
	size_t n = 0;

	for (size_t i = 0; i < r->nboots; i++)
		if (r->boots[i].nbatch)
			x[n++] = r->boots[i].s.mean;
	if (stats_summary(x, n, &s) || s.mean == 0.0)
		s.sd = NAN;
	free(x);
	return s.sd / fabs(s.mean);
}

static int store_rows(struct store *st, int64_t cid, const struct report *rep, int boots)
{
	int ret = 0;

	printf("\nA/A calibration, campaign %" PRId64 " (the same kernel on both sides):\n", cid);
	printf("  %-12s %-20s %12s %10s %9s %9s %6s  %s\n", "board", "scenario", "mean", "cv means",
	       "cv boot", "cv batch", "A/A", "MDE at these boots (alpha 0.05, power 0.8)");
	for (size_t i = 0; i < rep->nrows && !ret; i++) {
		const struct rep_row *r = &rep->rows[i];
		const struct rep_board *b = &rep->boards[r->board];
		struct design_advice d;
		char mde_s[48];
		size_t m, n;
		double mde;

		if (!strcmp(r->kind, "preserve") || row_design(r, &d, &m, &n))
			continue;
		ret = store_calibration_add(st, cid, b->name, r->scenario, d.grand_mean,
					    d.var_within, d.var_between, m, n);
		if (ret)
			break;
		mde = stats_mde(d.var_between, d.var_within, m, (size_t)boots, d.grand_mean,
				ABLAB_ALPHA, ABLAB_POWER);
		if (isinf(mde))
			snprintf(mde_s, sizeof(mde_s), "none: %d+%d boots cannot reach p < 0.05",
				 boots, boots);
		else
			snprintf(mde_s, sizeof(mde_s),
				 mde >= 0.1 ? "%.0f%% at %d+%d" : "%.2g%% at %d+%d", mde * 100.0,
				 boots, boots);
		printf("  %-12s %-20s %12.6g %9.2g%% %8.2g%% %8.2g%% %6s  %s\n", b->name,
		       r->scenario, d.grand_mean, 100.0 * means_cv(r),
		       100.0 * sqrt(d.var_between) / fabs(d.grand_mean),
		       100.0 * sqrt(d.var_within) / fabs(d.grand_mean),
		       r->verdict == VERDICT_DIFFERENT ? "DIFF" :
		       r->verdict == VERDICT_SAME      ? "same" :
							 "undec.",
		       mde_s);
	}
	return ret;
}

/* `ablab calibrate`'s command line. */
struct calibrate_opts {
	struct campaign_spec cs; /* boots, batches, results, modparams */
	const char *kernel;
	bool undecidable_ok;
	char **boards; /* [nb] */
	int nb;
};

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_calibrate_opts(int argc, char **argv, struct calibrate_opts *o)
{
	static const struct option lo[] = {
		{ "boots", 1, NULL, 'n' },	    { "batches", 1, NULL, 'm' },
		{ "kernel", 1, NULL, 'k' },	    { "results", 1, NULL, 'r' },
		{ "params", 1, NULL, 'P' },	    { "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' }, { NULL, 0, NULL, 0 }
	};
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_int_opt("--boots", optarg, 2, 100, &v))
				return 2;
			o->cs.boots = (int)v;
			break;
		case 'm':
			if (parse_int_opt("--batches", optarg, 2, 1000, &v))
				return 2;
			o->cs.batches = (int)v;
			break;
		case 'k':
			o->kernel = optarg;
			break;
		case 'r':
			o->cs.results = optarg;
			break;
		case 'P':
			o->cs.modparams = optarg;
			break;
		case 'Y':
			o->undecidable_ok = true;
			break;
		case 'h':
			calibrate_usage(stdout);
			return 3;
		default:
			calibrate_usage(stderr);
			return 2;
		}
	}
	o->nb = argc - optind;
	o->boards = argv + optind;
	if (o->nb < 1) {
		calibrate_usage(stderr);
		return 2;
	}
	return 0;
}

/* Campaign cid's rows analysed and stored as the boards' calibration: 0 or -errno. */
static int calibrate_store(int64_t cid, int boots, int nb)
{
	struct report rep;
	struct store st;
	int ret = store_open(&st, opt_db);

	if (ret)
		return ret;
	ret = report_load(&st, cid, &rep);
	if (!ret) {
		struct report_opts o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET };

		report_analyse(&rep, &o);
		ret = store_rows(&st, cid, &rep, boots);
		report_free(&rep);
	}
	store_close(&st);
	if (!ret)
		printf("stored: later reports on %s show the MDE per row\n",
		       nb == 1 ? "this board" : "these boards");
	return ret;
}

/* The A/A campaign of o's boards, stored as their calibration: the exit status. */
static int calibrate_run(struct calibrate_opts *o)
{
	struct campaign_spec *cs = &o->cs;
	struct campaign_board *cb = xcalloc((size_t)o->nb, sizeof(*cb));
	char **dirs = xcalloc((size_t)o->nb, sizeof(*dirs));
	struct errtext why;
	int64_t cid = 0;
	int ret;

	for (int i = 0; i < o->nb; i++) {
		dirs[i] = o->kernel ? xstrdup(o->kernel) :
				      kernel_default_dir(o->boards[i], "control");
		cb[i].board = o->boards[i];
		cb[i].control_dir = cb[i].patched_dir = dirs[i];
	}
	cs->boards = cb;
	cs->nboards = (size_t)o->nb;
	cs->db = opt_db;
	/* an A/A campaign must be able to say "same" */
	ret = cli_plan(cs, PLAN_NEED_SAME, o->undecidable_ok, &why) ? -EDOM : 0;
	if (!ret) {
		install_signal_handlers();
		ret = campaign_run(cs, &cid);
	}
	if (!ret && cid)
		ret = calibrate_store(cid, cs->boots, o->nb);
	for (int i = 0; i < o->nb; i++)
		free(dirs[i]);
	free(dirs);
	free(cb);
	if (ret == -EINTR)
		return 130;
	return ret == -EDOM ? 2 : ret ? 1 : 0;
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_opts o = { .cs = { .boots = ABLAB_BOOTS,
					    .batches = ABLAB_BATCHES,
					    .order = ORDER_ABAB,
					    .seed = 1,
					    .results = "results",
					    .trigger = "cli",
					    .job_json = "{\"kind\": \"calibrate\"}" } };
	int ret = parse_calibrate_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	return calibrate_run(&o);
}
