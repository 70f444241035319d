// SPDX-License-Identifier: GPL-2.0-only
/* ablab bisect: the first commit of a kernel git tree that changes a board's timings
 * (bisect.c). */
#include "bisect.h"
#include "cmd/cmds.h"
#include "store/store.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bisect_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab bisect --tree DIR --good REF --bad REF --board BOARD [options]\n"
		"       ablab bisect --resume ID\n"
		"Finds the first commit on bad's first-parent history after good whose kernel\n"
		"BOARD measures differently from good's.  First one campaign of bad against\n"
		"good: unless bad is different (in a second campaign when the first is\n"
		"undecided) it ends \"no change between good and bad\".  Then each step builds\n"
		"a commit through the board's kernel recipe (a git source: one private work\n"
		"tree and object directory per board and history in the cache, so a step\n"
		"rebuilds what changed since the last built commit; every commit's kernel is\n"
		"cached) and runs one sequential A/B campaign of it (patched) against good\n"
		"(control): \"different\" moves the search before it, \"same\" after it; in\n"
		"the steps \"same\" is within +-max(--margin, half of bad's change, at most\n"
		"90%%): a commit that carries less than half of the change is on good's side.\n"
		"A commit that does not build is skipped (its compiler errors and log are\n"
		"stored); one still undecided at the budget gets a second campaign, then is\n"
		"skipped.  Steps, campaigns and the result are stored; `ablab report --bisect\n"
		"ID` prints the step table.  Interrupted (Ctrl-C, SIGTERM: the boards are left\n"
		"off), it continues with `ablab bisect --resume ID` or `ablab resume CAMPAIGN`\n"
		"of its last campaign, without running a finished step again.\n\n"
		"  --tree DIR          the kernel git tree (work tree or bare repository); only\n"
		"                      read: nothing is checked out in it\n"
		"  --good REF          a commit with the old behaviour (an ancestor of bad)\n"
		"  --bad REF           a commit with the new behaviour\n"
		"  --board NAME|FILE   the board (boards/NAME.json, with a kernel.recipe)\n"
		"  --scenario S        the row that decides (a dmabench scenario); default: any\n"
		"                      timing row (different when one is, same when all are)\n"
		"  --budget N          boots per kernel per campaign at most (2..24, default 8)\n"
		"  --first K           first look after K+K boots (default 4)\n"
		"  --margin PCT        \"same\" means no change beyond +-PCT %% (default 1)\n"
		"  --alpha A           false-alarm rate of each campaign (default 0.05)\n"
		"  --batches M         batches per scenario per boot (default 3)\n"
		"  --order abab|abba   boot order (default abab)\n"
		"  --params 'K=V ...'  module parameters of every boot (e.g. 'scenarios=...')\n"
		"  --results DIR       transcripts go to DIR/campaign-N (default ./results)\n"
		"  --resume ID         continue bisect ID after its last finished step\n"
		"  --undecidable-ok    run a design that can never say \"different\" or\n"
		"                      \"same\" (too few boots for its rows: exit 2 otherwise)\n"
		"Exit status: 0 when it ended with a result (found, no change, or ambiguous:\n"
		"skipped commits next to the change), 1 on an error, 130 when interrupted.\n");
}

/* `ablab bisect`'s command line. */
struct bisect_cli {
	struct design_opts d;
	const char *tree, *good, *bad, *scenario;
	double alpha;
	long resume;
};

/* One option of bisect's own (not DESIGN_OPTIONS): 0, 2 (said), or 3 for --help. */
static int bisect_opt(struct bisect_cli *b, int c, const char *arg)
{
	switch (c) {
	case 't':
		b->tree = arg;
		return 0;
	case 'g':
		b->good = arg;
		return 0;
	case 'b':
		b->bad = arg;
		return 0;
	case 'S':
		b->scenario = arg;
		return 0;
	case 'a':
		return parse_alpha_opt(arg, &b->alpha) ? 2 : 0;
	case 'R':
		return parse_int_opt("--resume", arg, 1, 0x7fffffffL, &b->resume) ? 2 : 0;
	case 'h':
		bisect_usage(stdout);
		return 3;
	}
	bisect_usage(stderr);
	return 2;
}

/* argv into o (the bisect's settings) and *resume (--resume ID; 0: none); why holds
 * o->undecidable's text: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_bisect_opts(int argc, char **argv, struct bisect_opts *o, long *resume,
			     struct errtext *why)
{
	static const struct option lo[] = { DESIGN_OPTIONS,
					    { "tree", 1, NULL, 't' },
					    { "good", 1, NULL, 'g' },
					    { "bad", 1, NULL, 'b' },
					    { "scenario", 1, NULL, 'S' },
					    { "resume", 1, NULL, 'R' },
					    { "alpha", 1, NULL, 'a' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	struct bisect_cli b = { .d = { .budget = ABLAB_BISECT_BUDGET,
				       .first = ABLAB_FIRST_LOOK,
				       .batches = ABLAB_BISECT_BATCHES,
				       .order = ORDER_ABAB,
				       .results = "results",
				       .margin_pct = 1.0,
				       .rounds_only = true },
				.alpha = ABLAB_ALPHA };
	int c, r;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		r = parse_design_opt(c, optarg, &b.d);
		if (r == -ENOENT)
			r = bisect_opt(&b, c, optarg);
		if (r)
			return r;
	}
	*o = (struct bisect_opts){ .tree = b.tree,
				   .good = b.good,
				   .bad = b.bad,
				   .board = b.d.board,
				   .scenario = b.scenario,
				   .budget = b.d.budget,
				   .first = b.d.first,
				   .batches = b.d.batches,
				   .order = b.d.order,
				   .params = b.d.params,
				   .results = b.d.results,
				   .alpha = b.alpha,
				   .margin_pct = b.d.margin_pct };
	*resume = b.resume;
	if (optind != argc) {
		bisect_usage(stderr);
		return 2;
	}
	if (!b.resume && (!o->tree || !o->good || !o->bad || !o->board)) {
		err_msg("bisect: --tree, --good, --bad and --board are required (or --resume ID)");
		return 2;
	}
	if (b.resume && (o->tree || o->good || o->bad || o->board || o->scenario || o->params)) {
		err_msg("bisect --resume ID continues with the bisect's stored range and settings: give no --tree, --good, --bad, --board or --scenario");
		return 2;
	}
	if (o->first > o->budget) {
		if (b.d.first_set) {
			err_msg("--first %d is after the budget of %d boots per kernel", o->first,
				o->budget);
			return 2;
		}
		o->first = o->budget;
	}
	/* each step is one board's sequential campaign: it must be able to say
	 * "different" (bad's side) and "same" (good's side) */
	if (!b.resume) {
		struct campaign_spec cs = { .nboards = 1,
					    .boots = o->budget,
					    .first = o->first,
					    .alpha = o->alpha,
					    .beta = ABLAB_BETA,
					    .margin_pct = o->margin_pct,
					    .modparams = o->params };

		if (cli_plan(&cs, PLAN_NEED_DIFF | PLAN_NEED_SAME, b.d.undecidable_ok, why))
			return 2;
		o->undecidable = cs.undecidable; /* why.msg, or NULL */
	}
	return 0;
}

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts o;
	struct errtext why;
	int64_t id = 0;
	struct store st;
	long resume;
	int ret;

	ret = parse_bisect_opts(argc, argv, &o, &resume, &why);
	if (ret)
		return ret == 3 ? 0 : ret;
	o.db = opt_db;
	install_signal_handlers();
	if (resume) {
		id = resume;
		ret = bisect_resume(opt_db, id);
	} else {
		ret = bisect_run(&o, &id);
	}
	if (id && ret != -EINTR && !store_open(&st, opt_db)) {
		printf("\n");
		bisect_report(&st, id, stdout);
		store_close(&st);
	}
	return ret == -EINTR ? 130 : ret ? 1 : 0;
}
