// SPDX-License-Identifier: GPL-2.0-only
/* ablab ab: one A/B campaign of one board from the command line. */
#include "bench/bench.h"
#include "campaign.h"
#include "cmd/cmds.h"
#include "stats/seqtest.h"
#include "shared/util.h"

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

int cmd_ab(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "board", 1, NULL, 'b' },	    { "control", 1, NULL, 'c' },
		{ "patched", 1, NULL, 'p' },	    { "boots", 1, NULL, 'n' },
		{ "batches", 1, NULL, 'm' },	    { "order", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' },	    { "params", 1, NULL, 'P' },
		{ "results", 1, NULL, 'r' },	    { "format", 1, NULL, 'f' },
		{ "benchmark", 1, NULL, 'B' },	    { "module", 1, NULL, 'M' },
		{ "parser", 1, NULL, 'F' },	    { "command", 1, NULL, 'C' },
		{ "regex", 1, NULL, 'R' },	    { "groups", 1, NULL, 'G' },
		{ "budget", 1, NULL, 'U' },	    { "first", 1, NULL, 'K' },
		{ "margin", 1, NULL, 'X' },	    { "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' }, { NULL, 0, NULL, 0 }
	};
	struct campaign_board cb = { 0 };
	int budget = 0, first = 4;
	struct campaign_spec o = { .boots = 5,
				   .batches = 5,
				   .order = ORDER_ABAB,
				   .seed = 1,
				   .results = "results",
				   .format = "text",
				   .boards = &cb,
				   .nboards = 1 };
	struct bench_cli bc = { 0 }; /* --benchmark and its options */
	static char kobuf[2][PATH_MAX];
	struct bench_def bd = { 0 };
	bool undecidable_ok = false, boots_given = false;
	struct errtext why;
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'U':
			if (parse_int_opt("--budget", optarg, 2, 24, &v))
				return 2;
			budget = (int)v;
			break;
		case 'K':
			if (parse_int_opt("--first", optarg, 2, 24, &v))
				return 2;
			first = (int)v;
			break;
		case 'X':
			if (parse_margin_opt(optarg, &o.margin_pct))
				return 2;
			break;
		case 'b':
			cb.board = optarg;
			break;
		case 'c':
			cb.control_dir = optarg;
			break;
		case 'p':
			cb.patched_dir = optarg;
			break;
		case 'n':
			if (parse_int_opt("--boots", optarg, 1, 1000, &v))
				return 2;
			o.boots = (int)v;
			boots_given = true;
			break;
		case 'm':
			if (parse_int_opt("--batches", optarg, 1, 1000, &v))
				return 2;
			o.batches = (int)v;
			break;
		case 'o':
			if (parse_order_opt(optarg, &o.order))
				return 2;
			break;
		case 's':
			if (parse_int_opt("--seed", optarg, 0, 0x7fffffffL, &v))
				return 2;
			o.seed = (uint64_t)v;
			break;
		case 'P':
			o.modparams = optarg;
			break;
		case 'r':
			o.results = optarg;
			break;
		case 'f':
			o.format = optarg;
			break;
		case 'B':
			bc.name = optarg;
			break;
		case 'F':
			bc.parser = optarg;
			break;
		case 'C':
			bc.command = optarg;
			break;
		case 'R':
			bc.regex = optarg;
			break;
		case 'G':
			bc.groups = optarg;
			break;
		case 'M':
			if (!strncmp(optarg, "control=", 8) || !strncmp(optarg, "patched=", 8)) {
				const char *f = optarg + 8;
				size_t l = strlen(f);
				char real[PATH_MAX];

				if (l < 4 || strcmp(f + l - 3, ".ko") || !realpath(f, real)) {
					err_msg("--module %s: %s", optarg,
						l < 4 || strcmp(f + l - 3, ".ko") ?
							"not a .ko file" :
							strerror(errno));
					return 2;
				}
				memcpy(kobuf[optarg[0] == 'p'], real, sizeof(real));
				bc.ko[optarg[0] == 'p'] = kobuf[optarg[0] == 'p'];
			} else if (strspn(optarg,
					  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
					   strlen(optarg) ||
				   !optarg[0]) {
				err_msg("--module \"%s\": expected NAME (NAME.ko in each kernel directory: letters, digits, _ and -) or control=FILE / patched=FILE",
					optarg);
				return 2;
			} else {
				bc.module = optarg;
			}
			break;
		case 'Y':
			undecidable_ok = true;
			break;
		case 'h':
			ab_usage(stdout);
			return 0;
		default:
			ab_usage(stderr);
			return 2;
		}
	}
	if (!cb.board || optind < argc) {
		ab_usage(stderr);
		return 2;
	}
	if (strcmp(o.format, "text") && strcmp(o.format, "json")) {
		err_msg("--format: \"%s\" is not one of text, json", o.format);
		return 2;
	}
	if (budget) {
		if (o.order == ORDER_RANDOM) {
			err_msg("--budget: a sequential design boots in rounds of one control and one patched boot; use --order abab or abba, not random");
			return 2;
		}
		o.boots = budget;
		o.first = first < budget ? first : budget;
		o.alpha = 0.05;
		o.beta = 0.05;
	}
	bc.params = o.modparams;
	c = bench_from_cli(&bd, &bc);
	if (!c) {
		o.bench = &bd;
		if (!budget && !boots_given) { /* the default: 5, or what its rows need */
			struct plan_design pd;
			struct plan_result pr;
			bool known;

			campaign_plan_design(&o, &pd, &known);
			if (!plan_decidable(&pd, &pr) && !pr.can_diff && pr.diff_n)
				o.boots = (int)pr.diff_n;
		}
		c = cli_plan(&o, PLAN_NEED_DIFF, undecidable_ok, &why);
	}
	if (!c) {
		o.db = opt_db;
		install_signal_handlers();
		c = campaign_run(&o, NULL);
		c = c == -EINTR ? 130 : c ? 1 : 0;
	}
	bench_def_free(&bd);
	return c;
}
