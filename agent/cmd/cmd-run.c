// SPDX-License-Identifier: GPL-2.0-only
/* ablab run JOB: one job's campaign on all its boards at once (job.c does the work). */
#include "cmd/cmd-plan.h"
#include "cmd/cmds.h"
#include "job.h"
#include "shared/util.h"
#include "stats/seqtest.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab run JOB [options]\n"
		"Runs the job's A/B campaign on all its boards at once (a thread per board),\n"
		"building kernels through each board's recipe when their inputs changed, and\n"
		"prints the report.  JOB is a file or a name in $ABLAB_JOBS (default ./jobs).\n\n"
		"  --boards A,B        only these of the job's boards\n"
		"  --boots N           boots per kernel (default: the job's)\n"
		"  --budget N          sequential design: boot in rounds of one control and one\n"
		"                      patched boot, look after each round, stop a board when\n"
		"                      every row is decided (different, or same within the\n"
		"                      margin), at most N boots per kernel (0: fixed --boots)\n"
		"  --first K           first look after K+K boots (default 4)\n"
		"  --margin PCT        \"same\" means within +-PCT %% (default: the job's, else 1)\n"
		"  --batches M         batches per scenario per boot\n"
		"  --order abab|abba|random|williams, --seed S, --params 'K=V ...' (a series\n"
		"                      campaign's default: williams)\n"
		"  --results DIR       transcripts go to DIR/campaign-N (default ./results)\n"
		"  --format text|json  report printed at the end (default text)\n"
		"  --dry-run           validate, show boards and kernels (cached or would\n"
		"                      build, and why); run nothing\n"
		"  --undecidable-ok    run a design that can never say \"different\" (too few\n"
		"                      boots for its rows: refused with exit 2 otherwise); the\n"
		"                      report states that the design could not decide\n");
}

/* the plan of each selected board before the first boot (cmd-plan.c) */
static void run_plan_print(const struct job *j, const struct job_run_opts *o)
{
	const char **names = xcalloc(j->nboards + 1, sizeof(*names));
	struct plan_design pd;
	struct errtext why;
	size_t n = 0;

	job_plan(j, o, &pd, &why);
	for (size_t i = 0; i < j->nboards; i++)
		if (!o->boards || o->boards[i])
			names[n++] = j->boards[i];
	cli_plan_print(o->dry_run ? stdout : stderr, names, n, &pd, o->batches, j->vs.n);
	free(names);
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "boards", 1, NULL, 'B' },  { "boots", 1, NULL, 'n' },
		{ "batches", 1, NULL, 'm' }, { "order", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' },    { "params", 1, NULL, 'P' },
		{ "results", 1, NULL, 'r' }, { "format", 1, NULL, 'f' },
		{ "budget", 1, NULL, 'U' },  { "first", 1, NULL, 'F' },
		{ "margin", 1, NULL, 'M' },  { "dry-run", 0, NULL, 'd' },
		{ "help", 0, NULL, 'h' },    { "undecidable-ok", 0, NULL, 'Y' },
		{ NULL, 0, NULL, 0 }
	};
	const char *boards = NULL, *results = NULL, *format = NULL;
	struct job_run_opts o;
	struct job j;
	bool *mask = NULL, dry = false, undecidable_ok = false;
	int c, ret;
	/* options are applied after the job is loaded: remember them */
	struct job_overrides ov = { 0 };

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'B':
			boards = optarg;
			break;
		case 'r':
			results = optarg;
			break;
		case 'f':
			format = optarg;
			break;
		case 'd':
			dry = true;
			break;
		case 'Y':
			undecidable_ok = true;
			break;
		case 'h':
			run_usage(stdout);
			return 0;
		case 'n':
		case 'm':
		case 'o':
		case 's':
		case 'P':
		case 'U':
		case 'F':
		case 'M':
			job_override_add(&ov, c, optarg);
			break;
		default:
			run_usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		run_usage(stderr);
		return 2;
	}
	if (format && strcmp(format, "text") && strcmp(format, "json")) {
		err_msg("--format: \"%s\" is not one of text, json", format);
		return 2;
	}
	ret = cli_job_load(argv[optind], &j, &o, &ov, boards, &mask);
	if (ret)
		return ret;
	o.boards = mask;
	o.dry_run = dry;
	o.undecidable_ok = undecidable_ok;
	o.db = opt_db;
	if (results)
		o.results = results;
	if (format)
		o.format = format;
	if (dry && j.vs.n > 2)
		printf("job %s (%s): %s%d rounds of one boot of each of %d variants, order %s, %d batches%s%s, nightly %s\n",
		       j.name, j.jf.path, o.budget ? "sequential, at most " : "",
		       o.budget ? o.budget : o.boots, j.vs.n, order_name(o.order), o.batches,
		       o.params ? ", params " : "", o.params ? o.params : "",
		       j.nightly ? "yes" : "no");
	else if (dry)
		printf("job %s (%s): %s%d+%d boots, order %s, %d batches%s%s, nightly %s\n", j.name,
		       j.jf.path, o.budget ? "sequential, at most " : "",
		       o.budget ? o.budget : o.boots, o.budget ? o.budget : o.boots,
		       order_name(o.order), o.batches, o.params ? ", params " : "",
		       o.params ? o.params : "", j.nightly ? "yes" : "no");
	run_plan_print(&j, &o);
	install_signal_handlers();
	ret = job_run(&j, &o, NULL);
	free(mask);
	job_free(&j);
	if (ret == -EINTR)
		return 130;
	return ret == -EDOM ? 2 : ret ? 1 : 0;
}
