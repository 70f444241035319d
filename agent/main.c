// SPDX-License-Identifier: GPL-2.0-only
/* ablab: automated A/B benchmark lab for kernel patches on real and
 * emulated boards.  Subcommand table and global options. */
#include "bench.h"
#include "board.h"
#include "campaign.h"
#include "cmds.h"
#include "report.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABLAB_VERSION "0.1"


struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args, *help;
};


static void ab_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab ab --board BOARD [options]\n"
		"Runs one A/B campaign: boots the control and patched kernels alternately,\n"
		"runs the benchmark on each boot (default: loads dmabench), stores every boot\n"
		"and sample, prints the report.  Your own benchmark: docs/OWN-BENCHMARK.md.\n\n"
		"  --board NAME|FILE   board definition (boards/NAME.json)\n"
		"  --control DIR       control kernel directory (with manifest.json);\n"
		"                      default: the board's build from `make kernels`\n"
		"  --patched DIR       patched kernel directory; default likewise\n"
		"  --boots N           boots per kernel (default 3)\n"
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
		"  --format text|json  report printed at the end (default text)\n");
}

/* --benchmark and its options into d; 0, or 2 (usage error, printed). */
static int ab_bench(struct bench_def *d, const char *name, const char *module, const char *ko[2],
		    const char *parser, const char *command, const char *regex, const char *groups,
		    const char *params)
{
	char why[256];

	if (!name)
		name = module || ko[0] || ko[1] || parser ? "module" :
		       command || regex || groups ? "regex" : "dmabench";
	if (strcmp(name, "module") && (module || ko[0] || ko[1] || parser)) {
		err_msg("--module and --parser are for --benchmark module, not %s", name);
		return 2;
	}
	if (strcmp(name, "regex") && (command || regex || groups)) {
		err_msg("--command, --regex and --groups are for --benchmark regex, not %s", name);
		return 2;
	}
	if (!strcmp(name, "dmabench")) {
		d->kind = BENCH_DMABENCH;
	} else if (!strcmp(name, "module")) {
		d->kind = BENCH_MODULE;
		d->parser_fmt = 1;
		if (parser && !strcmp(parser, "seed")) {
			d->parser_fmt = 0;
		} else if (parser && strcmp(parser, "dmabench")) {
			err_msg("--parser: \"%s\" is not one of dmabench (v1 lines), seed (the seed module's lines)",
				parser);
			return 2;
		}
		if (module && (ko[0] || ko[1])) {
			err_msg("--module: give NAME (NAME.ko in each kernel directory) or control=FILE and patched=FILE, not both");
			return 2;
		}
		if (!module && (!ko[0] || !ko[1])) {
			err_msg("--benchmark module needs --module NAME (NAME.ko in each kernel directory) or --module control=FILE --module patched=FILE (%s missing)",
				ko[0] ? "patched=FILE" : ko[1] ? "control=FILE" : "both");
			return 2;
		}
		if (module) {
			d->module = module;
		} else {
			const char *b = strrchr(ko[0], '/') ? strrchr(ko[0], '/') + 1 : ko[0];

			d->module = strndup(b, strlen(b) - 3);	/* freed by cmd_ab */
			d->ko[0] = ko[0];
			d->ko[1] = ko[1];
		}
	} else if (!strcmp(name, "regex")) {
		char *end;

		d->kind = BENCH_REGEX;
		d->command = command;
		d->regex = regex;
		if (!command || !regex || !groups) {
			err_msg("--benchmark regex needs --command CMD, --regex ERE and --groups S,V[,U]");
			return 2;
		}
		d->g_scenario = (int)strtol(groups, &end, 10);
		d->g_value = *end == ',' ? (int)strtol(end + 1, &end, 10) : 0;
		d->g_unit = *end == ',' ? (int)strtol(end + 1, &end, 10) : 0;
		if (*end || d->g_scenario < 1 || d->g_scenario > 9 || d->g_value < 1 ||
		    d->g_value > 9 || d->g_unit < 0 || d->g_unit > 9 ||
		    d->g_scenario == d->g_value ||
		    (d->g_unit && (d->g_unit == d->g_scenario || d->g_unit == d->g_value))) {
			err_msg("--groups: \"%s\": expected S,V or S,V,U: three different group numbers 1..9 (scenario, value, unit)",
				groups);
			return 2;
		}
		if (bench_def_check(d, why, sizeof(why))) {
			err_msg("--regex: %s", why);
			return 2;
		}
		if (params) {
			err_msg("--params: a regex benchmark has no module parameters: put its arguments in --command");
			return 2;
		}
	} else if (!strcmp(name, "dma_map_benchmark")) {
		d->kind = BENCH_DMA_MAP;
		if (bench_dma_map_params(params, d, why, sizeof(why))) {
			err_msg("--params: %s", why);
			return 2;
		}
	} else {
		err_msg("--benchmark: unknown benchmark \"%s\"; known: dmabench, module, regex, dma_map_benchmark",
			name);
		return 2;
	}
	return 0;
}

int cmd_ab(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "board", 1, NULL, 'b' }, { "control", 1, NULL, 'c' },
		{ "patched", 1, NULL, 'p' }, { "boots", 1, NULL, 'n' },
		{ "batches", 1, NULL, 'm' }, { "order", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' }, { "params", 1, NULL, 'P' },
		{ "results", 1, NULL, 'r' }, { "format", 1, NULL, 'f' },
		{ "benchmark", 1, NULL, 'B' }, { "module", 1, NULL, 'M' },
		{ "parser", 1, NULL, 'F' }, { "command", 1, NULL, 'C' },
		{ "regex", 1, NULL, 'R' }, { "groups", 1, NULL, 'G' },
		{ "budget", 1, NULL, 'U' }, { "first", 1, NULL, 'K' }, { "margin", 1, NULL, 'X' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	struct campaign_board cb = { 0 };
	int budget = 0, first = 4;
	struct campaign_spec o = { .boots = 3, .batches = 5, .order = ORDER_ABAB, .seed = 1,
				   .results = "results", .format = "text", .boards = &cb,
				   .nboards = 1 };
	const char *bname = NULL, *module = NULL, *ko[2] = { NULL, NULL }, *parser = NULL;
	const char *command = NULL, *regex = NULL, *groups = NULL;
	static char kobuf[2][PATH_MAX];
	struct bench_def bd = { 0 };
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
		case 'X': {
			char *end;

			o.margin_pct = strtod(optarg, &end);
			if (!*optarg || *end || !(o.margin_pct > 0 && o.margin_pct < 50)) {
				err_msg("--margin: \"%s\" is not a percentage between 0 and 50", optarg);
				return 2;
			}
			break;
		}
		case 'b': cb.board = optarg; break;
		case 'c': cb.control_dir = optarg; break;
		case 'p': cb.patched_dir = optarg; break;
		case 'n':
			if (parse_int_opt("--boots", optarg, 1, 1000, &v))
				return 2;
			o.boots = (int)v;
			break;
		case 'm':
			if (parse_int_opt("--batches", optarg, 1, 1000, &v))
				return 2;
			o.batches = (int)v;
			break;
		case 'o':
			if (order_parse(optarg, &o.order)) {
				err_msg("--order: \"%s\" is not one of abab, abba, random", optarg);
				return 2;
			}
			break;
		case 's':
			if (parse_int_opt("--seed", optarg, 0, 0x7fffffffL, &v))
				return 2;
			o.seed = (uint64_t)v;
			break;
		case 'P': o.modparams = optarg; break;
		case 'r': o.results = optarg; break;
		case 'f': o.format = optarg; break;
		case 'B': bname = optarg; break;
		case 'F': parser = optarg; break;
		case 'C': command = optarg; break;
		case 'R': regex = optarg; break;
		case 'G': groups = optarg; break;
		case 'M':
			if (!strncmp(optarg, "control=", 8) || !strncmp(optarg, "patched=", 8)) {
				const char *f = optarg + 8;
				size_t l = strlen(f);
				char real[PATH_MAX];

				if (l < 4 || strcmp(f + l - 3, ".ko") || !realpath(f, real)) {
					err_msg("--module %s: %s", optarg, l < 4 || strcmp(f + l - 3, ".ko") ? "not a .ko file" : strerror(errno));
					return 2;
				}
				memcpy(kobuf[optarg[0] == 'p'], real, sizeof(real));
				ko[optarg[0] == 'p'] = kobuf[optarg[0] == 'p'];
			} else if (strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(optarg) || !optarg[0]) {
				err_msg("--module \"%s\": expected NAME (NAME.ko in each kernel directory: letters, digits, _ and -) or control=FILE / patched=FILE",
					optarg);
				return 2;
			} else {
				module = optarg;
			}
			break;
		case 'h': ab_usage(stdout); return 0;
		default: ab_usage(stderr); return 2;
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
	c = ab_bench(&bd, bname, module, ko, parser, command, regex, groups, o.modparams);
	if (!c) {
		if (bd.kind != BENCH_DMABENCH)
			o.bench = &bd;
		o.db = opt_db;
		install_signal_handlers();
		c = campaign_run(&o, NULL);
		c = c == -EINTR ? 130 : c ? 1 : 0;
	}
	if (bd.ko[0])
		free((char *)bd.module);
	return c;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "format", 1, NULL, 'f' }, { "alpha", 1, NULL, 'a' },
		{ "target", 1, NULL, 't' }, { "detail", 0, NULL, 'd' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	struct report_opts o = { .alpha = 0.05, .target = 0.01 };
	const char *format = "text";
	struct store st;
	int64_t id = 0;
	long v;
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f': format = optarg; break;
		case 'a':
			if (parse_alpha_opt(optarg, &o.alpha))
				return 2;
			break;
		case 't':
			o.target = strtod(optarg, NULL) / 100.0;
			if (!(o.target > 0 && o.target < 1)) {
				err_msg("--target: \"%s\" must be a percentage between 0 and 100 "
					"(the CI half-width the design advice aims for)", optarg);
				return 2;
			}
			break;
		case 'd': o.detail = true; break;
		case 'h':
			printf("usage: ablab report [CAMPAIGN] [--format text|email|json|csv|svg|html]\n"
			       "                    [--alpha A] [--target PCT] [--detail]\n"
			       "Prints the A/B table of a campaign (default: the latest).  email: 72\n"
			       "columns, ready to paste, with the method paragraph; svg/html: every\n"
			       "boot's mean as a dot.  --target: design advice for a 95%% CI\n"
			       "half-width of PCT%% of the mean (default 1).  --detail: per-boot\n"
			       "statistics (text, csv).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!report_format_ok(format)) {
		err_msg("--format: \"%s\" is not one of text, email, json, csv, svg, html", format);
		return 2;
	}
	if (optind < argc) {
		if (parse_int_opt("CAMPAIGN", argv[optind], 1, 0x7fffffffL, &v))
			return 2;
		id = v;
	}
	if (store_open(&st, opt_db))
		return 1;
	if (!id && store_latest_campaign(&st, &id)) {
		err_msg("the database holds no campaign yet (run `ablab ab`)");
		store_close(&st);
		return 1;
	}
	ret = report_campaign_opts(&st, id, format, &o);
	store_close(&st);
	return ret ? 1 : 0;
}

int cmd_db(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "start") && strcmp(argv[1], "stop") &&
			  strcmp(argv[1], "status"))) {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: ablab db start|stop|status\n"
			"Manages the private PostgreSQL cluster in $ABLAB_DATA/pg (root: "
			"/var/lib/ablab/pg).\nWith --db CONNINFO or ABLAB_DB another server is "
			"used and this one is not needed.\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	return store_private(argv[1], opt_db) ? 1 : 0;
}

int cmd_check_board(int argc, char **argv)
{
	static const char usage[] = "usage: ablab check-board FILE|NAME...\n"
				    "Loads and validates each board definition (a file, or NAME for $ABLAB_BOARDS/NAME.json); prints one ok line per valid board, file:line:col errors otherwise.\n";
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (argv[i][0] == '-') {
			err_msg("check-board: unknown option \"%s\" (see ablab check-board --help)", argv[i]);
			return 2;
		}
	}
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct board b;

		if (board_load_by_name(&b, argv[i])) {
			bad = 1;
		} else {
			printf("%s: ok (%s, %s, console %s, power %s, boot %s)\n", b.jf.path, b.name,
			       b.cpu, b.console_type, b.power_type, b.boot_method);
		}
		board_free(&b);
	}
	return bad;
}

static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "ab", cmd_ab, "--board B [--boots N --batches M --order abab|abba|random --module M ...]",
	  "run one A/B campaign (control vs patched kernel) and print its report" },
	{ "report", cmd_report, "[CAMPAIGN] [--format text|email|json|csv|svg|html]",
	  "the A/B table of a campaign (default: latest)" },
	{ "db", cmd_db, "start|stop|status", "manage the private results database" },
	{ "check-board", cmd_check_board, "FILE|NAME...", "validate board definitions" },
	{ "resume", cmd_resume, "CAMPAIGN [--results DIR]",
	  "continue an interrupted campaign after its last stored boot" },
	{ "spool", cmd_spool, "load|list [--results DIR]",
	  "boots kept while the database was unreachable" },
	{ "run", cmd_run, "JOB [--boards A,B --boots N ... --dry-run]",
	  "run a job file's campaign on all its boards at once" },
	{ "nightly", cmd_nightly, "[--dry-run] [--jobs DIR] [--reports DIR]",
	  "every nightly job once; dated reports; exit 3 on a change" },
	{ "lava", cmd_lava, "export|run JOB ...", "run a job's boots through LAVA" },
	{ "ingest", cmd_ingest, "FILE... --board B --variant L [--kernel R] [--campaign N]",
	  "store hand-captured dmesg/console logs as boots (idempotent)" },
	{ "query", cmd_query, "[--board B --scenario S --variant L --since 30d ...]",
	  "per-boot results from the database (table, json, csv)" },
	{ "campaigns", cmd_campaigns, "[--trigger T] [--job NAME] [--limit N]",
	  "list campaigns with boards and boot counts" },
	{ "calibrate", cmd_calibrate, "BOARD... [--boots N] [--batches M] [--kernel DIR]",
	  "A/A campaign: each scenario's noise, for the MDE in later reports" },
	{ "attempts", cmd_attempts, "[CAMPAIGN] [--failed] [--format table|json]",
	  "every attempt of a campaign: status, reason, retried or not" },
	{ "serve", cmd_serve, "[--listen ADDR:PORT] [--results DIR]",
	  "read-only web UI, JSON API and /metrics over the results" },
	{ "compare", cmd_compare, "A B | A --previous", "two campaigns, kernel by kernel" },
	{ "trend", cmd_trend, "JOB --scenario S [--format text|svg]",
	  "per-night change with CI over a nightly job's campaigns" },
	{ "boards", cmd_boards, "[--format text|json]",
	  "every board: backends, lock holder, last health check" },
	{ "power", cmd_power, "BOARD on|off|cycle", "switch a real board's power" },
	{ "console", cmd_console, "BOARD", "interactive console of a board (~. quits)" },
	{ "check", cmd_check, "BOARD [--dry-run] [--kernel DIR]",
	  "health check: boot the control kernel, uname -r; --dry-run: configuration only" },
	{ "ports", cmd_ports, "", "serial adapters: device, USB VID:PID, serial number" },
	{ "help", cmd_help, "", "this text" },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	(void)argc;
	(void)argv;
	printf("usage: ablab [--db CONNINFO] [-v] COMMAND [ARGS]\n\n"
	       "Automated A/B benchmark lab for kernel patches (version " ABLAB_VERSION ").\n\n"
	       "commands:\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		printf("  %-12s %s\n", cmds[i].name, cmds[i].help);
		if (*cmds[i].args)
			printf("  %-12s   %s\n", "", cmds[i].args);
	}
	printf("\nglobal options:\n"
	       "  --db CONNINFO  PostgreSQL connection (default: $ABLAB_DB, else a private\n"
	       "                 cluster in $ABLAB_DATA/pg, created and started on demand)\n"
	       "  -v             more output\n\n"
	       "environment: ABLAB_DB, ABLAB_DATA, ABLAB_CACHE (built kernels), ABLAB_BOARDS\n"
	       "(board directory, default ./boards).  `ablab COMMAND --help` for details.\n");
	return 0;
}

int main(int argc, char **argv)
{
	int i = 1;
	size_t c;

	while (i < argc && argv[i][0] == '-') {
		if (!strcmp(argv[i], "--db") && i + 1 < argc) {
			opt_db = argv[i + 1];
			i += 2;
		} else if (!strncmp(argv[i], "--db=", 5)) {
			opt_db = argv[i] + 5;
			i++;
		} else if (!strcmp(argv[i], "-v")) {
			verbose++;
			i++;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return cmd_help(0, NULL);
		} else if (!strcmp(argv[i], "--version")) {
			printf("ablab " ABLAB_VERSION "\n");
			return 0;
		} else {
			err_msg("unknown option %s (see ablab --help)", argv[i]);
			return 2;
		}
	}
	if (i >= argc) {
		cmd_help(0, NULL);
		return 2;
	}
	for (c = 0; c < ARRAY_SIZE(cmds); c++) {
		if (!strcmp(cmds[c].name, argv[i])) {
			optind = 1;
			return cmds[c].fn(argc - i, argv + i);
		}
	}
	err_msg("unknown command \"%s\" (see ablab --help)", argv[i]);
	return 2;
}
