// SPDX-License-Identifier: GPL-2.0-only
/* The run record (run-record.h): written when a campaign starts, read by `ablab resume`. */
#include "run-record.h"
#include "board.h"
#include "shared/util.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *run_record_write(const struct campaign_spec *cs, const struct runner *rn,
		       const struct board *b, struct kernel_art (*k)[VARIANTS_MAX],
		       const struct variant_set *vs, const char *results)
{
	json_object *j = json_object_new_object(), *boards = json_object_new_array();
	size_t i;
	char *s;

	json_object_object_add(j, "kind", json_object_new_string("ab"));
	if (cs->job_name)
		json_object_object_add(j, "job", json_object_new_string(cs->job_name));
	for (i = 0; i < cs->nboards; i++) {
		json_object *o = json_object_new_object();
		int v;

		json_object_object_add(o, "board", json_object_new_string(b[i].name));
		char real[PATH_MAX];

		json_object_object_add(
			o, "board_file",
			json_object_new_string(realpath(b[i].jf.path, real) ? real : b[i].jf.path));
		for (v = 0; v < vs->n; v++)
			json_object_object_add(o, vs->label[v],
					       json_object_new_string(k[i][v].dir));
		json_object_array_add(boards, o);
	}
	json_object_object_add(j, "boards", boards);
	if (!variant_set_is_pair(vs)) { /* a series campaign: its variants in order */
		json_object *a = json_object_new_array();
		int v;

		for (v = 0; v < vs->n; v++)
			json_object_array_add(a, json_object_new_string(vs->label[v]));
		json_object_object_add(j, "variants", a);
	}
	json_object_object_add(j, "boots", json_object_new_int(cs->boots));
	json_object_object_add(j, "batches", json_object_new_int(cs->batches));
	json_object_object_add(j, "order", json_object_new_string(order_name(cs->order)));
	json_object_object_add(j, "seed", json_object_new_int64((int64_t)cs->seed));
	bench_record_write(cs->bench, j);
	if (cs->modparams)
		json_object_object_add(j, "modparams", json_object_new_string(cs->modparams));
	if (cs->margin_pct > 0)
		json_object_object_add(j, "margin_pct", json_object_new_double(cs->margin_pct));
	if (cs->first > 0) {
		json_object *q = json_object_new_object();

		json_object_object_add(q, "first", json_object_new_int(cs->first));
		json_object_object_add(q, "budget", json_object_new_int(cs->boots));
		json_object_object_add(q, "alpha", json_object_new_double(cs->alpha));
		json_object_object_add(q, "beta", json_object_new_double(cs->beta));
		json_object_object_add(q, "boards", json_object_new_int((int)cs->nboards));
		json_object_object_add(j, "sequential", q);
	}
	if (cs->undecidable) /* ran anyway (--undecidable-ok): the report says so */
		json_object_object_add(j, "undecidable", json_object_new_string(cs->undecidable));
	json_object_object_add(j, "trigger",
			       json_object_new_string(cs->trigger ? cs->trigger : "cli"));
	/* what ran the boots, and what it needs to run the rest again */
	if (rn->ops != local_runner.ops)
		json_object_object_add(j, "runner", json_object_new_string(rn->ops->name));
	if (rn->ops->describe)
		rn->ops->describe(rn->priv, j);
	/* where its transcripts and its spool are: `ablab resume` loads that spool */
	json_object_object_add(j, "results", json_object_new_string(results));
	s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

/* "variants": a series campaign's labels in order (none: control, patched) */
static int read_variants(struct run_record *r, long id)
{
	json_object *va = jobj(r->run, "variants");
	bool bad = false;

	for (size_t i = 0;
	     va && json_object_is_type(va, json_type_array) && i < json_object_array_length(va);
	     i++) {
		const char *l = json_object_get_string(json_object_array_get_idx(va, i));

		if (!l || variant_set_add(&r->vs, l)) {
			bad = true;
			break;
		}
	}
	if (bad || (va && r->vs.n < 2)) {
		err_msg("campaign %ld: its stored variants are not a valid variant set", id);
		return -EINVAL;
	}
	return 0;
}

/* "boards": each board's file and its kernel directory of each variant */
static void read_boards(struct run_record *r, json_object *boards)
{
	size_t i, n = json_object_array_length(boards);

	r->cb = xcalloc(n, sizeof(*r->cb));
	if (r->vs.n) {
		r->dirs = xcalloc(n, sizeof(*r->dirs));
		r->cs.variants = &r->vs;
	}
	for (i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(boards, i);

		r->cb[i].board = jstr(o, "board_file");
		r->cb[i].control_dir = jstr(o, "control");
		r->cb[i].patched_dir = jstr(o, "patched");
		for (int v = 0; v < r->vs.n; v++)
			r->dirs[i][v] = jstr(o, r->vs.label[v]);
		r->cb[i].dirs = r->vs.n ? r->dirs[i] : NULL;
	}
	r->cs.boards = r->cb;
	r->cs.nboards = n;
}

/* the design: boots, batches, order, seed, parameters, sequential, margin */
static void read_design(struct campaign_spec *cs, json_object *run)
{
	json_object *q;

	cs->boots = (int)jint(run, "boots", 1);
	cs->batches = (int)jint(run, "batches", 5);
	if (order_parse(jstr(run, "order") ? jstr(run, "order") : "", &cs->order))
		cs->order = ORDER_ABAB;
	cs->seed = (uint64_t)jint(run, "seed", 1);
	cs->modparams = jstr(run, "modparams");
	if (json_object_object_get_ex(run, "sequential", &q)) {
		cs->first = (int)jint(q, "first", 0);
		cs->boots = (int)jint(q, "budget", cs->boots);
		cs->alpha = json_object_get_double(json_object_object_get(q, "alpha"));
		cs->beta = json_object_get_double(json_object_object_get(q, "beta"));
	}
	if (json_object_object_get_ex(run, "margin_pct", &q))
		cs->margin_pct = json_object_get_double(q);
}

int run_record_read(struct run_record *r, long id, const char *text)
{
	json_object *boards;
	struct errtext why;

	memset(r, 0, sizeof(*r));
	r->run = text ? json_tokener_parse(text) : NULL;
	boards = jobj(r->run, "boards");
	if (!r->run || !boards || !json_object_is_type(boards, json_type_array)) {
		err_msg("campaign %ld has no resume data (made by an older ablab or by ingest)",
			id);
		return -EINVAL;
	}
	if (read_variants(r, id))
		return -EINVAL;
	read_boards(r, boards);
	read_design(&r->cs, r->run);
	if (bench_record_read(&r->bench, r->run, r->cs.modparams, &why)) {
		err_msg("campaign %ld: %s", id, why.msg);
		return -EINVAL;
	}
	r->cs.bench = &r->bench;
	r->results = jstr(r->run, "results");
	r->cs.trigger = jstr(r->run, "trigger");
	r->cs.job_name = jstr(r->run, "job");
	r->cs.resume_id = id;
	if (runner_from_run(r->run, &r->rn))
		return -EINVAL;
	r->cs.runner = &r->rn;
	return 0;
}

void run_record_free(struct run_record *r)
{
	runner_release(&r->rn);
	bench_def_free(&r->bench);
	json_object_put(r->run);
	free(r->cb);
	free(r->dirs);
	memset(r, 0, sizeof(*r));
}
