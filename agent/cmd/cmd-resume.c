// SPDX-License-Identifier: GPL-2.0-only
/* `ablab resume CAMPAIGN`: the campaign's stored run JSON back into a
 * campaign_spec (and its runner), then the engine again with resume_id. */
#include "bench/bench.h"
#include "bisect.h"
#include "campaign.h"
#include "cmd/cmds.h"
#include "runner.h"
#include "spool.h"
#include "store/store-bisect.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void resume_usage(FILE *f)
{
	fprintf(f, "usage: ablab resume CAMPAIGN [--results DIR] [--format text|json]\n"
		   "Continues an interrupted, failed or stale (its agent died) campaign after\n"
		   "its last stored boot, with the same boards, kernels, order and parameters;\n"
		   "a slot whose attempt died with its agent gets the next attempt and its own\n"
		   "transcript.  Refused while a live agent still runs the campaign.  Boots\n"
		   "the campaign spooled are loaded first, from the results directory it\n"
		   "recorded (the default for --results), so no slot is run twice.  A campaign\n"
		   "of an `ablab bisect` continues its bisect (`ablab bisect --resume ID`).\n");
}

int cmd_resume(int argc, char **argv)
{
	static const struct option lo[] = { { "results", 1, NULL, 'r' },
					    { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	struct campaign_spec cs = { .results = "results", .format = "text" };
	struct runner rn = { 0 };
	const char *results_opt = NULL, *rec_results;
	struct bench_def bd = { 0 };
	struct errtext why;
	struct campaign_board *cb = NULL;
	const char *(*dirs)[VARIANTS_MAX] = NULL;
	struct variant_set vs = { 0 };
	json_object *run = NULL, *boards, *va;
	struct store st;
	char *runtext = NULL, status[32];
	size_t i, n;
	long id;
	int c, ret = 1;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			results_opt = optarg;
			break;
		case 'f':
			cs.format = optarg;
			break;
		case 'h':
			resume_usage(stdout);
			return 0;
		default:
			resume_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || parse_int_opt("CAMPAIGN", argv[optind], 1, 0x7fffffff, &id)) {
		resume_usage(stderr);
		return 2;
	}
	if (store_open(&st, opt_db))
		return 1;
	if (store_bisect_of_campaign(&st, id)) {
		int64_t bid = store_bisect_of_campaign(&st, id);

		store_close(&st);
		info_msg("campaign %ld is a step of bisect %" PRId64 ": continuing the bisect", id,
			 bid);
		install_signal_handlers();
		c = bisect_resume(opt_db, bid);
		if (c != -EINTR && !store_open(&st, opt_db)) {
			bisect_report(&st, bid, stdout);
			store_close(&st);
		}
		return c == -EINTR ? 130 : c ? 1 : 0;
	}
	if (store_campaign_run(&st, id, &runtext, status, sizeof(status))) {
		err_msg("no campaign %ld in the database (`ablab campaigns` lists them)", id);
		goto out;
	}
	if (!strcmp(status, "complete")) {
		info_msg("campaign %ld is already complete; nothing to resume", id);
		ret = 0;
		goto out;
	}
	run = runtext ? json_tokener_parse(runtext) : NULL;
	free(runtext);
	runtext = NULL;
	boards = jobj(run, "boards");
	if (!run || !boards || !json_object_is_type(boards, json_type_array)) {
		err_msg("campaign %ld has no resume data (made by an older ablab or by ingest)",
			id);
		goto out;
	}
	n = json_object_array_length(boards);
	cb = xcalloc(n, sizeof(*cb));
	/* a series campaign: its variants in order, each board's kernel under its label */
	va = jobj(run, "variants");
	for (i = 0;
	     va && json_object_is_type(va, json_type_array) && i < json_object_array_length(va);
	     i++) {
		const char *l = json_object_get_string(json_object_array_get_idx(va, i));

		if (!l || variant_set_add(&vs, l)) {
			err_msg("campaign %ld: its stored variants are not a valid variant set",
				id);
			goto out;
		}
	}
	if (va && vs.n < 2) {
		err_msg("campaign %ld: its stored variants are not a valid variant set", id);
		goto out;
	}
	if (vs.n) {
		dirs = xcalloc(n, sizeof(*dirs));
		cs.variants = &vs;
	}
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(boards, i);

		cb[i].board = jstr(o, "board_file");
		cb[i].control_dir = jstr(o, "control");
		cb[i].patched_dir = jstr(o, "patched");
		for (int v = 0; v < vs.n; v++)
			dirs[i][v] = jstr(o, vs.label[v]);
		cb[i].dirs = vs.n ? dirs[i] : NULL;
	}
	cs.boards = cb;
	cs.nboards = n;
	cs.boots = (int)jint(run, "boots", 1);
	cs.batches = (int)jint(run, "batches", 5);
	if (order_parse(jstr(run, "order") ? jstr(run, "order") : "", &cs.order))
		cs.order = ORDER_ABAB;
	cs.seed = (uint64_t)jint(run, "seed", 1);
	cs.modparams = jstr(run, "modparams");
	{
		json_object *q;

		if (json_object_object_get_ex(run, "sequential", &q)) {
			cs.first = (int)jint(q, "first", 0);
			cs.boots = (int)jint(q, "budget", cs.boots);
			cs.alpha = json_object_get_double(json_object_object_get(q, "alpha"));
			cs.beta = json_object_get_double(json_object_object_get(q, "beta"));
		}
		if (json_object_object_get_ex(run, "margin_pct", &q))
			cs.margin_pct = json_object_get_double(q);
	}
	if (jstr(run, "benchmark") && !strcmp(jstr(run, "benchmark"), "regex")) {
		json_object *g = jobj(run, "groups");

		bd.kind = BENCH_REGEX;
		bd.command = jstr(run, "command");
		bd.regex = jstr(run, "regex");
		bd.g_scenario = (int)jint(g, "scenario", 1);
		bd.g_value = (int)jint(g, "value", 2);
		bd.g_unit = (int)jint(g, "unit", 0);
		if (!bd.command || !bd.regex || bench_def_check(&bd, &why)) {
			err_msg("campaign %ld: its stored regex benchmark is incomplete or invalid",
				id);
			goto out;
		}
		cs.bench = &bd;
	} else if (jstr(run, "benchmark") && !strcmp(jstr(run, "benchmark"), "module")) {
		bd.kind = BENCH_MODULE;
		bd.module = jstr(run, "module");
		bd.module_src = jstr(run, "module_src");
		bd.ko[0] = jstr(jobj(run, "ko"), "control");
		bd.ko[1] = jstr(jobj(run, "ko"), "patched");
		bd.parser_fmt = jstr(run, "parser") && !strcmp(jstr(run, "parser"), "seed") ? 0 : 1;
		if (!bd.module) {
			err_msg("campaign %ld: its stored module benchmark has no module name", id);
			goto out;
		}
		cs.bench = &bd;
	} else if (jstr(run, "benchmark") && !strcmp(jstr(run, "benchmark"), "dma_map_benchmark")) {
		bd.kind = BENCH_DMA_MAP;
		if (bench_dma_map_params(cs.modparams, &bd, &why)) {
			err_msg("campaign %ld: stored dma_map_benchmark parameters: %s", id,
				why.msg);
			goto out;
		}
		cs.bench = &bd;
	}
	/* the spool of the campaign's own results directory, whatever --results says */
	rec_results = jstr(run, "results");
	cs.results = results_opt ? results_opt : rec_results ? rec_results : "results";
	if (rec_results && results_opt) {
		char real[PATH_MAX];

		if (!realpath(results_opt, real) || strcmp(real, rec_results)) {
			char *sd = xasprintf("%s/spool", rec_results);
			int nl, nf;

			if (!spool_flush(&st, sd, &nl, &nf) && (nl || nf))
				info_msg("spool %s: %d boot(s) loaded into the database, %d left",
					 sd, nl, nf);
			free(sd);
		}
	}
	cs.trigger = jstr(run, "trigger");
	cs.job_name = jstr(run, "job");
	cs.db = opt_db;
	cs.resume_id = id;
	if (runner_from_run(run, &rn))
		goto out;
	cs.runner = &rn;
	store_close(&st);
	install_signal_handlers();
	c = campaign_run(&cs, NULL);
	ret = c == -EINTR ? 130 : c ? 1 : 0;
	runner_release(&rn);
	json_object_put(run);
	free(cb);
	free(dirs);
	return ret;
out:
	free(runtext);
	runner_release(&rn);
	json_object_put(run);
	free(cb);
	free(dirs);
	store_close(&st);
	return ret;
}
