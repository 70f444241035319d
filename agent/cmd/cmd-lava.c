// SPDX-License-Identifier: GPL-2.0-only
/* `ablab lava` (DESIGN.md section 7): every boot of a job's campaign as one
 * LAVA job, in the board's alternation order.
 *
 *   ablab lava export JOB --out DIR     the job definitions, one YAML per boot
 *   ablab lava run JOB --server URL --token-file F
 *                                       a campaign whose boots are LAVA jobs
 *   ablab lava run JOB --local          the same jobs through lava-run here
 *
 * `run` is `ablab run` with the LAVA runner (lava-runner.c): the campaign
 * engine stores, spools and resumes its boots as any other campaign's. */
#include "campaign.h"
#include "cmd/cmds.h"
#include "lava/lava.h"
#include "lava/lava-api.h"
#include "runner.h"
#include "shared/util.h"
#include "variant.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lava_board {
	struct board b;
	struct kernel_art k[VARIANTS_MAX];
	bool loaded;
};

struct lava_opts {
	struct job_run_opts run;
	const char *out; /* export */
	const char *url_base;
	const char *server; /* run */
	bool local;
};

/* Loads the boards and their kernels (building them when needed). */
static int load_boards(const struct job *j, const struct job_run_opts *o, struct lava_board *lb)
{
	size_t i;
	int ret = 0, v;

	for (i = 0; i < j->nboards && !ret; i++) {
		if (o->boards && !o->boards[i])
			continue;
		ret = job_board_check(j, i);
		if (ret || (ret = board_load_by_name(&lb[i].b, j->boards[i])))
			break;
		lb[i].loaded = true;
		for (v = 0; v < j->vs.n && !ret; v++) {
			struct job_kernel jk;

			ret = job_kernel(j, j->boards[i], v, true, &jk);
			if (!ret)
				ret = kernel_load(&lb[i].k[v], jk.dir);
			job_kernel_free(&jk);
		}
	}
	return ret;
}

static void free_boards(const struct job *j, struct lava_board *lb)
{
	size_t i;
	int v;

	for (i = 0; i < j->nboards; i++) {
		if (!lb[i].loaded)
			continue;
		for (v = 0; v < j->vs.n; v++)
			kernel_free(&lb[i].k[v]);
		board_free(&lb[i].b);
	}
	free(lb);
}

static int lava_export(const struct job *j, const struct lava_opts *o)
{
	struct lava_board *lb = xcalloc(j->nboards, sizeof(*lb));
	int nslots = j->vs.n * o->run.boots, *order = xcalloc((size_t)nslots, sizeof(*order));
	int ret, i, n = 0;
	size_t bi;

	ret = load_boards(j, &o->run, lb);
	if (!ret)
		ret = mkdir_p(o->out, 0755);
	campaign_order_n(o->run.order, j->vs.n, o->run.boots, o->run.seed, order);
	for (bi = 0; bi < j->nboards && !ret; bi++) {
		if (!lb[bi].loaded)
			continue;
		for (i = 0; i < nslots && !ret; i++) {
			struct lava_boot b = {
				j,	&lb[bi].b,	&lb[bi].k[order[i]], order[i],	 i + 1,
				nslots, o->run.batches, o->run.params,	     o->url_base
			};
			char *y = lava_job_yaml(&b), *p;

			if (!y) {
				ret = -EINVAL;
				break;
			}
			p = xasprintf("%s/%s-%s-%03d-%s.yaml", o->out, j->name, lb[bi].b.name,
				      i + 1, j->vs.label[order[i]]);
			ret = write_file_atomic(p, y, strlen(y));
			if (ret)
				err_msg("%s: %s", p, strerror(-ret));
			else
				printf("%s\n", p);
			n++;
			free(p);
			free(y);
		}
	}
	if (!ret)
		info_msg("%d LAVA job(s) in %s, in alternation order", n, o->out);
	free(order);
	free_boards(j, lb);
	return ret;
}

static void lava_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab lava export JOB --out DIR [options]\n"
		"       ablab lava run JOB --server URL --token-file FILE [options]\n"
		"       ablab lava run JOB --local [--device FILE] [options]\n"
		"export writes one LAVA job definition per boot, in each board's alternation\n"
		"order; run submits them one by one, waits for each, fetches the console log\n"
		"and the test cases, and stores every boot (trigger lava, LAVA job id kept);\n"
		"an Incomplete job is an infrastructure failure: stored without data and\n"
		"retried like a failed boot.  --local runs the jobs with lava-run here.\n\n"
		"  --boards A,B --boots N --batches M --order O --seed S --params P\n"
		"                        as for `ablab run`\n"
		"  --artifacts-url URL   kernel URLs: URL/BOARD/DIR/FILE, serving the kernel\n"
		"                        cache's kernels/ directory (default: file:// paths)\n"
		"  --server URL          LAVA server (https://lava.example.org)\n"
		"  --token-file FILE     file holding an API token of the submitting user; it\n"
		"                        is sent to the --server's scheme://host:port only\n"
		"                        (no redirects, no \"next\" page elsewhere); a file\n"
		"                        every user can read is refused (chmod o= FILE)\n"
		"  --insecure-http       allow an http:// server that is not on loopback (the\n"
		"                        token then crosses the network in clear text)\n"
		"  --device FILE         --local: device dictionary (.jinja2) or device .yaml;\n"
		"                        {board} is replaced (default JOBDIR/lava/devices/\n"
		"                        {board}.jinja2)\n"
		"  --results DIR         logs go to DIR/campaign-N (default ./results)\n"
		"  --format text|json|none  report printed at the end (default text)\n"
		"  --undecidable-ok      run: a design that can never say \"different\" (as for\n"
		"                        `ablab run`: refused with exit 2 otherwise)\n");
}

/* `ablab lava`'s command line. */
struct lava_cli {
	const char *action; /* export, run */
	const char *job, *boards, *token_file, *results, *format, *device;
	bool insecure_http, undecidable_ok;
	struct job_overrides ov;
	struct lava_opts o;
};

/* One option: 0, 2 (usage, printed) or 3 (--help, printed). */
static int lava_opt(struct lava_cli *l, int c, const char *arg)
{
	switch (c) {
	case 'B':
		l->boards = arg;
		return 0;
	case 'O':
		l->o.out = arg;
		return 0;
	case 'U':
		l->o.url_base = arg;
		return 0;
	case 'S':
		l->o.server = arg;
		return 0;
	case 'T':
		l->token_file = arg;
		return 0;
	case 'L':
		l->o.local = true;
		return 0;
	case 'D':
		l->device = arg;
		return 0;
	case 'I':
		l->insecure_http = true;
		return 0;
	case 'r':
		l->results = arg;
		return 0;
	case 'f':
		l->format = arg;
		return 0;
	case 'Y':
		l->undecidable_ok = true;
		return 0;
	case 'h':
		lava_usage(stdout);
		return 3;
	case 'n':
	case 'm':
	case 'o':
	case 's':
	case 'P':
		job_override_add(&l->ov, c, arg);
		return 0;
	}
	lava_usage(stderr);
	return 2;
}

/* What the options say together: 0, or 2 (said). */
static int lava_opts_check(const struct lava_cli *l)
{
	const struct lava_opts *o = &l->o;

	if (!strcmp(l->action, "export") && !o->out) {
		err_msg("lava export: --out DIR is required");
		return 2;
	}
	if (!strcmp(l->action, "run") && !o->local == !o->server) {
		err_msg("lava run: give either --server URL (with --token-file) or --local");
		return 2;
	}
	if (o->server && !l->token_file) {
		err_msg("lava run: --server needs --token-file FILE (an API token of the LAVA user that submits)");
		return 2;
	}
	if (o->server && lava_server_url_ok(o->server, l->insecure_http))
		return 2;
	if (strcmp(l->format, "text") && strcmp(l->format, "json") && strcmp(l->format, "none")) {
		err_msg("--format: \"%s\" is not one of text, json, none", l->format);
		return 2;
	}
	if (o->url_base && strncmp(o->url_base, "http://", 7) &&
	    strncmp(o->url_base, "https://", 8)) {
		err_msg("--artifacts-url: \"%s\" is not an http(s) URL", o->url_base);
		return 2;
	}
	return 0;
}

/* argv (lava ACTION [options] JOB) into l: 0; 2: a usage error (said); 3: help (printed). */
static int parse_lava_opts(int argc, char **argv, struct lava_cli *l)
{
	static const struct option lo[] = { { "boards", 1, NULL, 'B' },
					    { "boots", 1, NULL, 'n' },
					    { "batches", 1, NULL, 'm' },
					    { "order", 1, NULL, 'o' },
					    { "seed", 1, NULL, 's' },
					    { "params", 1, NULL, 'P' },
					    { "out", 1, NULL, 'O' },
					    { "artifacts-url", 1, NULL, 'U' },
					    { "server", 1, NULL, 'S' },
					    { "token-file", 1, NULL, 'T' },
					    { "local", 0, NULL, 'L' },
					    { "device", 1, NULL, 'D' },
					    { "insecure-http", 0, NULL, 'I' },
					    { "results", 1, NULL, 'r' },
					    { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },
					    { "undecidable-ok", 0, NULL, 'Y' },
					    { NULL, 0, NULL, 0 } };
	int c, r;

	if (argc < 2 || (strcmp(argv[1], "export") && strcmp(argv[1], "run"))) {
		bool help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));

		lava_usage(help ? stdout : stderr);
		return help ? 3 : 2;
	}
	l->action = argv[1];
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		r = lava_opt(l, c, optarg);
		if (r)
			return r;
	}
	if (optind + 1 != argc) {
		lava_usage(stderr);
		return 2;
	}
	l->job = argv[optind];
	return lava_opts_check(l);
}

/* The job exported, or run through LAVA: the exit status. */
static int lava_cmd_run(struct lava_cli *l)
{
	struct lava_opts *o = &l->o;
	bool *mask = NULL;
	struct job j;
	int ret;

	ret = cli_job_load(l->job, &j, &o->run, &l->ov, l->boards, &mask);
	if (ret)
		return ret;
	if (!bench_lava_ok(&j.bench)) {
		job_error(&j, "benchmark.name",
			  "LAVA jobs run dmabench only; run this job with `ablab run`");
		free(mask);
		job_free(&j);
		return 1;
	}
	o->run.boards = mask;
	o->run.db = opt_db;
	o->run.results = l->results;
	o->run.format = strcmp(l->format, "none") ? l->format : NULL;
	o->run.trigger = "lava";
	install_signal_handlers();
	if (!strcmp(l->action, "export")) {
		ret = lava_export(&j, o);
	} else {
		struct lava_runner_opts ro = { o->server, l->token_file, l->device, o->url_base };
		struct runner rn = { 0 };

		ret = lava_runner_new(&rn, &j, &ro);
		if (ret) {
			free(mask);
			job_free(&j);
			return 2;
		}
		o->run.runner = &rn;
		o->run.undecidable_ok = l->undecidable_ok;
		ret = job_run(&j, &o->run, NULL);
		lava_runner_free(&rn);
	}
	free(mask);
	job_free(&j);
	if (ret == -EINTR)
		return 130;
	return ret == -EDOM ? 2 : ret ? 1 : 0;
}

int cmd_lava(int argc, char **argv)
{
	struct lava_cli l = { .results = "results", .format = "text" };
	int ret = parse_lava_opts(argc, argv, &l);

	if (ret)
		return ret == 3 ? 0 : ret;
	return lava_cmd_run(&l);
}
