// SPDX-License-Identifier: GPL-2.0-only
/* ablab: automated A/B benchmark lab for kernel patches on real and
 * emulated boards.  The command table and the global options; the commands
 * themselves are in cmd-*.c (and a few files of their concept: cmds.h). */
#include "backend/backends.h"
#include "cmd/cmd-plan.h"
#include "cmd/cmds.h"
#include "shared/util.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define ABLAB_VERSION "0.1"

static int cmd_help(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "ab", cmd_ab, "--board B [--boots N --batches M --order abab|abba|random --module M ...]",
	  "run one A/B campaign (control vs patched kernel) and print its report" },
	{ "report", cmd_report, "[CAMPAIGN] [--format text|email|json|csv|svg|html|kcidb]",
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
	{ "bisect", cmd_bisect,
	  "--tree DIR --good REF --bad REF --board B [--scenario S] | --resume ID",
	  "the first commit of a git tree that changes a board's timings" },
	{ "lava", cmd_lava, "export|run JOB ...", "run a job's boots through LAVA" },
	{ "patchwork", cmd_patchwork, "post [CAMPAIGN] --url URL --token-file F [--web-url URL]",
	  "a series campaign's verdicts as patchwork checks, one per patch and board" },
	{ "ingest", cmd_ingest, "FILE... --board B --variant L [--kernel R] [--campaign N]",
	  "store hand-captured dmesg/console logs as boots (idempotent)" },
	{ "query", cmd_query, "[--board B --scenario S --variant L --since 30d ...]",
	  "per-boot results from the database (table, json, csv)" },
	{ "campaigns", cmd_campaigns, "[--trigger T] [--job NAME] [--limit N]",
	  "list campaigns with boards and boot counts" },
	{ "calibrate", cmd_calibrate, "BOARD... [--boots N] [--batches M] [--kernel DIR]",
	  "A/A campaign: each scenario's noise, for the MDE in later reports" },
	{ "plan", cmd_plan,
	  "JOB | BOARD... [--effect PCT | --margin PCT] [--scenario S] [--format json]",
	  "boots, batches and wall time each board needs for an answer (from its calibration)" },
	{ "attempts", cmd_attempts, "[CAMPAIGN] [--failed] [--format table|json]",
	  "every attempt of a campaign: status, reason, retried or not" },
	{ "serve", cmd_serve, "[--listen ADDR:PORT] [--results DIR] [--host-name NAME]",
	  "read-only web UI, JSON API and /metrics over the results" },
	{ "compare", cmd_compare, "A B | A --previous", "two campaigns, kernel by kernel" },
	{ "trend", cmd_trend, "JOB --scenario S [--format text|svg]",
	  "per-night change with CI over a nightly job's campaigns" },
	{ "boards", cmd_boards, "[--phases [--since WHEN]] [--format text|json]",
	  "every board: backends, lock holder, last health check; --phases: median boot phases, boots per hour" },
	{ "power", cmd_power, "BOARD on|off|cycle | --stale-off", "switch a real board's power" },
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
	       "(board directory, default ./boards).  `ablab COMMAND --help` for details.\n\n"
	       "backends (board file):\n");
	backend_help(stdout);
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
