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
		"                      report states that the design could not decide\n"
		"  --patchwork-url URL  post the series' patchwork checks (`ablab patchwork`):\n"
		"                      pending per patch and board when the campaign starts,\n"
		"                      success, warning or fail when it ends; a check that\n"
		"                      cannot be posted is a warning, the campaign goes on and\n"
		"                      `ablab patchwork post N` posts it again (default: the\n"
		"                      job's \"patchwork\": {\"url\", \"token_file\", \"web_url\"})\n"
		"  --patchwork-token-file FILE  its API token (mode 600), sent to URL only\n"
		"  --patchwork-web-url URL  each check's target_url is URL/campaign/N\n"
		"  --patchwork-insecure-http  allow http:// to a server that is not loopback\n"
		"  --no-patchwork      post nothing, whatever the job says\n");
}

/* the plan of each selected board before the first boot (cmd-plan.c) */
static void run_plan_print(const struct job *j, const struct job_run_opts *o, struct store *st)
{
	const char **names = xcalloc(j->nboards + 1, sizeof(*names));
	struct plan_design pd;
	struct errtext why;
	size_t n = 0;

	job_plan(j, o, &pd, &why);
	for (size_t i = 0; i < j->nboards; i++)
		if (!o->boards || o->boards[i])
			names[n++] = j->boards[i];
	cli_plan_print(o->dry_run ? stdout : stderr, st, names, n, &pd, o->batches, j->vs.n);
	free(names);
}

struct run_plan_arg {
	const struct job *j;
	const struct job_run_opts *o;
};

/* the campaign's loaded hook: the plan once the boards and kernels are there */
static void run_plan_loaded(void *arg, struct store *st)
{
	const struct run_plan_arg *a = arg;

	run_plan_print(a->j, a->o, st);
}

/* `ablab run`'s command line. */
struct run_cli {
	const char *job, *boards, *results, *format;
	const char *pw_url, *pw_token, *pw_web;
	bool dry, undecidable_ok, pw_insecure, pw_off;
	/* options are applied after the job is loaded: remember them */
	struct job_overrides ov;
};

/* argv into r: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_run_opts(int argc, char **argv, struct run_cli *r)
{
	static const struct option lo[] = {
		{ "boards", 1, NULL, 'B' },
		{ "boots", 1, NULL, 'n' },
		{ "batches", 1, NULL, 'm' },
		{ "order", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' },
		{ "params", 1, NULL, 'P' },
		{ "results", 1, NULL, 'r' },
		{ "format", 1, NULL, 'f' },
		{ "budget", 1, NULL, 'U' },
		{ "first", 1, NULL, 'F' },
		{ "margin", 1, NULL, 'M' },
		{ "dry-run", 0, NULL, 'd' },
		{ "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' },
		{ "patchwork-url", 1, NULL, 1 },
		{ "patchwork-token-file", 1, NULL, 2 },
		{ "patchwork-web-url", 1, NULL, 3 },
		{ "patchwork-insecure-http", 0, NULL, 4 },
		{ "no-patchwork", 0, NULL, 5 },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'B':
			r->boards = optarg;
			break;
		case 'r':
			r->results = optarg;
			break;
		case 'f':
			r->format = optarg;
			break;
		case 'd':
			r->dry = true;
			break;
		case 'Y':
			r->undecidable_ok = true;
			break;
		case 1:
			r->pw_url = optarg;
			break;
		case 2:
			r->pw_token = optarg;
			break;
		case 3:
			r->pw_web = optarg;
			break;
		case 4:
			r->pw_insecure = true;
			break;
		case 5:
			r->pw_off = true;
			break;
		case 'h':
			run_usage(stdout);
			return 3;
		case 'n':
		case 'm':
		case 'o':
		case 's':
		case 'P':
		case 'U':
		case 'F':
		case 'M':
			job_override_add(&r->ov, c, optarg);
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
	if (r->format && strcmp(r->format, "text") && strcmp(r->format, "json")) {
		err_msg("--format: \"%s\" is not one of text, json", r->format);
		return 2;
	}
	r->job = argv[optind];
	return 0;
}

/* --dry-run: the job's design in one line. */
static void run_say_design(const struct job *j, const struct job_run_opts *o)
{
	if (j->vs.n > 2)
		printf("job %s (%s): %s%d rounds of one boot of each of %d variants, order %s, %d batches%s%s, nightly %s\n",
		       j->name, j->jf.path, o->budget ? "sequential, at most " : "",
		       o->budget ? o->budget : o->boots, j->vs.n, order_name(o->order), o->batches,
		       o->params ? ", params " : "", o->params ? o->params : "",
		       j->nightly ? "yes" : "no");
	else
		printf("job %s (%s): %s%d+%d boots, order %s, %d batches%s%s, nightly %s\n",
		       j->name, j->jf.path, o->budget ? "sequential, at most " : "",
		       o->budget ? o->budget : o->boots, o->budget ? o->budget : o->boots,
		       order_name(o->order), o->batches, o->params ? ", params " : "",
		       o->params ? o->params : "", j->nightly ? "yes" : "no");
}

/* The job loaded and run (or, --dry-run, shown): the exit status. */
static int run_job(const struct run_cli *r)
{
	struct job_run_opts o;
	struct job j;
	bool *mask = NULL;
	int ret = cli_job_load(r->job, &j, &o, &r->ov, r->boards, &mask);

	if (ret)
		return ret;
	if (r->pw_url)
		o.pw_url = r->pw_url;
	if (r->pw_token)
		o.pw_token_file = r->pw_token;
	if (r->pw_web)
		o.pw_web_url = r->pw_web;
	if (r->pw_insecure)
		o.pw_insecure = true;
	if (r->pw_off)
		o.pw_url = NULL;
	o.boards = mask;
	o.dry_run = r->dry;
	o.undecidable_ok = r->undecidable_ok;
	o.db = opt_db;
	if (r->results)
		o.results = r->results;
	if (r->format)
		o.format = r->format;
	if (r->dry)
		run_say_design(&j, &o);
	struct run_plan_arg pa = { &j, &o };

	if (r->dry) {
		run_plan_print(&j, &o, NULL);
	} else {
		o.loaded = run_plan_loaded;
		o.loaded_arg = &pa;
	}
	install_signal_handlers();
	ret = job_run(&j, &o, NULL);
	free(mask);
	job_free(&j);
	if (ret == -EINTR)
		return 130;
	return ret == -EDOM ? 2 : ret ? 1 : 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli r = { 0 };
	int ret = parse_run_opts(argc, argv, &r);

	if (ret)
		return ret == 3 ? 0 : ret;
	return run_job(&r);
}
