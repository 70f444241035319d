// SPDX-License-Identifier: GPL-2.0-only
/* ablab ab: one A/B campaign of one board from the command line. */
#include "bench/bench.h"
#include "campaign.h"
#include "cmd/cmd-plan.h"
#include "cmd/cmds.h"
#include "stats/seqtest.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void ab_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab ab --board BOARD [options]\n"
		"Runs one A/B campaign: boots the control and patched kernels alternately,\n"
		"runs the benchmark on each boot (default: loads dmabench), stores every boot\n"
		"and sample, prints the report.  Your own benchmark: docs/OWN-BENCHMARK.md.\n\n"
		"  --board NAME|FILE   board definition (boards/NAME.json)\n"
		"  --control DIR       control kernel directory (with manifest.json, or a\n"
		"                      TuxMake output directory: metadata.json, the image,\n"
		"                      dtbs/, modules.tar.xz); default: the board's build\n"
		"                      from `make kernels`\n"
		"  --patched DIR       patched kernel directory; default likewise\n"
		"  --boots N           boots per kernel (default 5, or more when the benchmark's\n"
		"                      timing rows need more to be able to say \"different\"\n"
		"                      at alpha 0.05: 6 for 7..23 dmabench scenarios)\n"
		"  --budget N          sequential design instead: rounds of one control and one\n"
		"                      patched boot, a look after each round, stop when every\n"
		"                      row is decided, at most N boots per kernel (2..24)\n"
		"  --first K           first look after K+K boots (default 4)\n"
		"  --margin PCT        \"same\" means no change beyond +-PCT %% (default 1)\n"
		"  --batches M         batches per scenario per boot (default 5)\n"
		"  --order abab|abba|random   boot order (default abab)\n"
		"  --seed S            seed for --order random (default 1)\n"
		"  --params 'K=V ...'  extra module parameters (e.g. 'reps=100'); for\n"
		"                      dma_map_benchmark: 'threads=N seconds=N granule=N dir=D'\n"
		"  --benchmark NAME    dmabench (default), module, regex, dma_map_benchmark\n"
		"  --module NAME       your module: NAME.ko from each kernel directory\n"
		"  --module control=FILE --module patched=FILE   or these prebuilt .ko files\n"
		"  --parser dmabench|seed   the format of its lines (default dmabench: v1)\n"
		"  --command CMD --regex ERE --groups S,V[,U]   a regex benchmark: CMD's\n"
		"                      output lines matched by ERE; group numbers of the\n"
		"                      scenario, the value and (optional) its unit\n"
		"  --results DIR       transcripts go to DIR/campaign-N (default ./results)\n"
		"  --format text|json  report printed at the end (default text)\n"
		"  --undecidable-ok    run a design that can never say \"different\" (too few\n"
		"                      boots for its rows: refused with exit 2 otherwise); the\n"
		"                      report states that the design could not decide\n");
}

/* `ablab ab`'s command line. */
struct ab_opts {
	struct design_opts d; /* --budget 0: a fixed design */
	struct campaign_board cb;
	struct campaign_spec o; /* boots, seed, format */
	struct bench_cli bc; /* --benchmark and its options */
	char kobuf[2][PATH_MAX];
	bool boots_given;
	struct errtext why; /* o.undecidable's text (cli_plan) */
};

/* --module NAME, or --module control=FILE / patched=FILE: 0, or 2 (said). */
static int ab_module_opt(struct ab_opts *a, const char *arg)
{
	if (!strncmp(arg, "control=", 8) || !strncmp(arg, "patched=", 8)) {
		const char *f = arg + 8;
		size_t l = strlen(f);
		char real[PATH_MAX];
		int p = arg[0] == 'p';

		if (l < 4 || strcmp(f + l - 3, ".ko") || !realpath(f, real)) {
			err_msg("--module %s: %s", arg,
				l < 4 || strcmp(f + l - 3, ".ko") ? "not a .ko file" :
								    strerror(errno));
			return 2;
		}
		memcpy(a->kobuf[p], real, sizeof(real));
		a->bc.ko[p] = a->kobuf[p];
	} else if (strspn(arg,
			  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
			   strlen(arg) ||
		   !arg[0]) {
		err_msg("--module \"%s\": expected NAME (NAME.ko in each kernel directory: letters, digits, _ and -) or control=FILE / patched=FILE",
			arg);
		return 2;
	} else {
		a->bc.module = arg;
	}
	return 0;
}

/* One option of ab's own (not DESIGN_OPTIONS): 0, 2 (said), or 3 for --help. */
static int ab_opt(struct ab_opts *a, int c, const char *arg)
{
	long v;

	switch (c) {
	case 'c':
		a->cb.control_dir = arg;
		return 0;
	case 'p':
		a->cb.patched_dir = arg;
		return 0;
	case 'n':
		if (parse_int_opt("--boots", arg, 1, 1000, &v))
			return 2;
		a->o.boots = (int)v;
		a->boots_given = true;
		return 0;
	case 's':
		if (parse_int_opt("--seed", arg, 0, 0x7fffffffL, &v))
			return 2;
		a->o.seed = (uint64_t)v;
		return 0;
	case 'f':
		a->o.format = arg;
		return 0;
	case 'B':
		a->bc.name = arg;
		return 0;
	case 'F':
		a->bc.parser = arg;
		return 0;
	case 'C':
		a->bc.command = arg;
		return 0;
	case 'R':
		a->bc.regex = arg;
		return 0;
	case 'G':
		a->bc.groups = arg;
		return 0;
	case 'M':
		return ab_module_opt(a, arg);
	case 'h':
		ab_usage(stdout);
		return 3;
	}
	ab_usage(stderr);
	return 2;
}

/* argv into a: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_ab_opts(int argc, char **argv, struct ab_opts *a)
{
	static const struct option lo[] = { DESIGN_OPTIONS,
					    { "control", 1, NULL, 'c' },
					    { "patched", 1, NULL, 'p' },
					    { "boots", 1, NULL, 'n' },
					    { "seed", 1, NULL, 's' },
					    { "format", 1, NULL, 'f' },
					    { "benchmark", 1, NULL, 'B' },
					    { "module", 1, NULL, 'M' },
					    { "parser", 1, NULL, 'F' },
					    { "command", 1, NULL, 'C' },
					    { "regex", 1, NULL, 'R' },
					    { "groups", 1, NULL, 'G' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	int c, r;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		r = parse_design_opt(c, optarg, &a->d);
		if (r == -ENOENT)
			r = ab_opt(a, c, optarg);
		if (r)
			return r;
	}
	if (!a->d.board || optind < argc) {
		ab_usage(stderr);
		return 2;
	}
	if (strcmp(a->o.format, "text") && strcmp(a->o.format, "json")) {
		err_msg("--format: \"%s\" is not one of text, json", a->o.format);
		return 2;
	}
	if (a->d.budget && a->d.order == ORDER_RANDOM) {
		err_msg("--budget: a sequential design boots in rounds of one control and one patched boot; use --order abab or abba, not random");
		return 2;
	}
	return 0;
}

/* The campaign the options ask for, its benchmark in bd: 0, or 2 (said). */
static int ab_spec(struct ab_opts *a, struct bench_def *bd)
{
	struct campaign_spec *o = &a->o;
	int c;

	a->cb.board = a->d.board;
	o->batches = a->d.batches;
	o->order = a->d.order;
	o->modparams = a->d.params;
	o->results = a->d.results;
	o->margin_pct = a->d.margin_pct;
	if (a->d.budget) {
		o->boots = a->d.budget;
		o->first = a->d.first < a->d.budget ? a->d.first : a->d.budget;
		o->alpha = ABLAB_ALPHA;
		o->beta = ABLAB_BETA;
	}
	a->bc.params = o->modparams;
	c = bench_from_cli(bd, &a->bc);
	if (c)
		return c;
	o->bench = bd;
	if (!a->d.budget && !a->boots_given) { /* the default: 5, or what its rows need */
		struct plan_design pd;
		struct plan_result pr;
		bool known;

		campaign_plan_design(o, &pd, &known);
		if (!plan_decidable(&pd, &pr) && !pr.can_diff && pr.diff_n)
			o->boots = (int)pr.diff_n;
	}
	return cli_plan(o, PLAN_NEED_DIFF, a->d.undecidable_ok, &a->why);
}

/* the campaign's loaded hook: the board's plan once its kernels are there */
static void ab_plan_loaded(void *arg, struct store *st)
{
	struct ab_opts *a = arg;
	struct plan_design pd;
	bool known;

	campaign_plan_design(&a->o, &pd, &known);
	cli_plan_print(stderr, st, &a->cb.board, 1, &pd, a->o.batches, 2);
}

int cmd_ab(int argc, char **argv)
{
	struct bench_def bd = { 0 };
	int c;
	struct ab_opts a = {
		.d = { .first = ABLAB_FIRST_LOOK,
		       .batches = ABLAB_BATCHES,
		       .order = ORDER_ABAB,
		       .results = "results" },
		.o = { .boots = ABLAB_BOOTS, .seed = 1, .format = "text", .nboards = 1 }
	};

	a.o.boards = &a.cb;
	c = parse_ab_opts(argc, argv, &a);
	if (c)
		return c == 3 ? 0 : c;
	c = ab_spec(&a, &bd);
	if (!c) {
		a.o.loaded = ab_plan_loaded;
		a.o.loaded_arg = &a;
		a.o.db = opt_db;
		install_signal_handlers();
		c = campaign_run(&a.o, NULL);
		c = c == -EINTR ? 130 : c ? 1 : 0;
	}
	bench_def_free(&bd);
	return c;
}
