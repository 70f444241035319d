// SPDX-License-Identifier: GPL-2.0-only
/* Job files (jobs/NAME.json, jobs/README.md): load and validate with
 * file:line:col errors, and resolve each board's two kernels (prebuilt, or through
 * the board's kernel recipe: recipe.c).  Running a job is job-run.c, the command
 * cmd-run.c. */
#include "job.h"
#include "job-int.h"
#include "board.h"
#include "kernel.h"
#include "recipe.h"
#include "shared/util.h"
#include "variant.h"
#include "stats/stats.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct jfield group_fields[] = { { "scenario", J_INT, true, NULL, 1, 9 },
					      { "value", J_INT, true, NULL, 1, 9 },
					      { "unit", J_INT, false, NULL, 1, 9 },
					      { NULL } };

static const struct jfield ko_fields[] = { { "control", J_STRING,
					     true }, /* the control kernel's module file, {board} */
					   { "patched", J_STRING, true },
					   { NULL } };

static const struct jfield bench_fields[] = {
	{ "name", J_STRING, true }, /* dmabench | regex | dma_map_benchmark | module */
	{ "params", J_STRING }, /* dmabench: module parameters */
	{ "command", J_STRING }, /* regex: shell command run on the target */
	{ "regex", J_STRING }, /* regex: POSIX ERE, one match = one sample */
	{ "groups", J_OBJECT, false, group_fields },
	{ "src", J_STRING }, /* module: out-of-tree module source directory */
	{ "parser", J_STRING }, /* module: dmabench (default) | seed */
	{ "module", J_STRING }, /* module: NAME.ko in each kernel directory */
	{ "ko", J_OBJECT, false, ko_fields }, /* module: prebuilt files per variant */
	{ NULL }
};

static const struct jfield threshold_fields[] = { { "change_pct", J_ANY }, /* number > 0 */
						  { "alpha", J_ANY }, /* number in (0, 1) */
						  { NULL } };

static const struct jfield lava_fields[] = {
	{ "device_types", J_OBJECT }, /* board -> LAVA device type */
	{ "context", J_OBJECT }, /* board -> LAVA job context (qemu cpu, ...) */
	{ "tags", J_ARRAY_STRING },
	{ "priority", J_STRING },
	{ "visibility", J_STRING },
	{ "artifacts_url", J_STRING },
	{ "job_timeout_min", J_INT, false, NULL, 1, 1440 },
	{ NULL }
};

/* the campaign posts its own patchwork checks (patchwork.h: pw_auto) */
static const struct jfield patchwork_fields[] = {
	{ "url", J_STRING, true }, /* https://patchwork.kernel.org */
	{ "token_file", J_STRING, true }, /* relative to the job file */
	{ "web_url", J_STRING }, /* where `ablab serve` is: target_url */
	{ "insecure_http", J_BOOL },
	{ NULL }
};

static const struct jfield job_fields[] = {
	{ "name", J_STRING },
	{ "description", J_STRING },
	{ "boards", J_ARRAY_STRING, true },
	{ "variants", J_OBJECT, true }, /* control + any others: load_variants() */
	{ "series", J_STRING }, /* "prefixes": control, +1, +1-2, ... */
	{ "benchmark", J_OBJECT, true, bench_fields },
	{ "boots", J_INT, false, NULL, 1, 1000 },
	{ "budget", J_INT, false, NULL, 2, 24 },
	{ "first", J_INT, false, NULL, 2, 24 },
	{ "margin_pct", J_ANY }, /* number in (0, 50) */
	{ "batches", J_INT, false, NULL, 1, 1000 },
	{ "order", J_STRING },
	{ "seed", J_INT, false, NULL, 0, 0x7fffffffL },
	{ "nightly", J_BOOL },
	{ "bisect", J_BOOL }, /* nightly: bisect a change between two nights' commits */
	{ "threshold", J_OBJECT, false, threshold_fields },
	{ "lava", J_OBJECT, false, lava_fields },
	{ "patchwork", J_OBJECT, false, patchwork_fields },
	{ NULL }
};

/* A JSON number (integer or not) as a double; false if it is not one. */
static bool jnum(json_object *o, const char *key, double *v)
{
	json_object *x = jobj(o, key);

	if (!x)
		return true;
	if (!json_object_is_type(x, json_type_int) && !json_object_is_type(x, json_type_double))
		return false;
	*v = json_object_get_double(x);
	return isfinite(*v);
}

/* bench_job's error: "file:line:col: jpath: message" */
static void bench_error(const void *ctx, const char *jpath, const char *msg)
{
	job_error(ctx, jpath, "%s", msg);
}

/* "benchmark": its kind's keys (bench.h) */
static int load_bench(struct job *j, json_object *t, const char *jobdir)
{
	struct bench_job bj = { .name = jstr(t, "name"),
				.params = jstr(t, "params"),
				.jobdir = jobdir,
				.pair = variant_set_is_pair(&j->vs),
				.label = { j->vs.label[0], j->vs.label[1] },
				.error = bench_error,
				.ctx = j };

	j->benchmark = bj.name;
	j->params = bj.params;
	for (int v = 0; v < j->vs.n && !bj.not_recipe; v++)
		if (j->v[v].kind != SRC_RECIPE)
			bj.not_recipe = j->series ? "patched" : j->vs.label[v];
	return bench_from_job(&j->bench, t, &bj);
}

/* "threshold": the nightly comparison's change that matters and its alpha */
static int load_threshold(struct job *j, json_object *t)
{
	int bad = 0;

	j->threshold = ABLAB_NIGHTLY_THRESHOLD;
	j->alpha = ABLAB_ALPHA;
	if (!jnum(t, "change_pct", &j->threshold) ||
	    (jobj(t, "change_pct") && !(j->threshold > 0 && j->threshold < 1000))) {
		job_error(j, "threshold.change_pct",
			  "must be a number of percent above 0 (e.g. 5 for 5%%)");
		bad = 1;
	} else if (jobj(t, "change_pct")) {
		j->threshold /= 100.0;
	}
	if (!jnum(t, "alpha", &j->alpha) || !(j->alpha > 0 && j->alpha < 1)) {
		job_error(j, "threshold.alpha", "must be a number between 0 and 1 (e.g. 0.05)");
		bad = 1;
	}
	return bad;
}

/* "lava": validated (the section itself, by job_fields); j->lava */
static int load_lava(struct job *j, json_object *lava)
{
	json_object *dt = jobj(lava, "device_types");
	const char *s;
	size_t i;
	int bad = 0;

	j->lava = lava;
	if (!lava)
		return 0;
	s = jstr(lava, "priority");
	if (s && strcmp(s, "high") && strcmp(s, "medium") && strcmp(s, "low")) {
		job_error(j, "lava.priority", "\"%s\" is not one of high, medium, low", s);
		bad = 1;
	}
	s = jstr(lava, "visibility");
	if (s && strcmp(s, "public") && strcmp(s, "personal")) {
		job_error(j, "lava.visibility", "\"%s\" is not one of public, personal", s);
		bad = 1;
	}
	if (dt) {
		json_object_object_foreach(dt, key, val)
		{
			for (i = 0; i < j->nboards; i++)
				if (!strcmp(j->boards[i], key))
					break;
			if (i == j->nboards) {
				job_error(j, "lava.device_types",
					  "\"%s\" is not one of the job's boards", key);
				bad = 1;
			} else if (!json_object_is_type(val, json_type_string)) {
				job_error(j, "lava.device_types",
					  "\"%s\": must be a string (a LAVA device type)", key);
				bad = 1;
			}
		}
	}
	return bad;
}

static int job_load_one(struct job *j, const char *path)
{
	json_object *r, *t;
	char *jobdir, *base, *dot, real[PATH_MAX];
	const char *s;
	size_t i, k;
	int ret, bad = 0;

	memset(j, 0, sizeof(*j));
	ret = jfile_load(&j->jf, path);
	if (ret)
		return ret;
	r = j->jf.root;
	if (jfile_validate(&j->jf, r, "", job_fields))
		return -EINVAL;
	jobdir = realpath(path, real) ? xdirname(real) : xdirname(path);
	s = jstr(r, "name");
	base = xstrdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	dot = strstr(base, ".json");
	if (dot)
		*dot = '\0';
	j->name = xstrdup(s ? s : base);
	free(base);
	if (!lab_name_ok(j->name, s ? (size_t)json_object_get_string_len(jobj(r, "name")) :
				      strlen(j->name))) {
		job_error(
			j, "name",
			"\"%.64s%s\" is not a job name: %s (it names report directories; a NUL is refused)",
			j->name, strlen(j->name) > 64 ? "..." : "", LAB_NAME_RULE);
		bad = 1;
	}
	j->boards = jstrv(r, "boards", &j->nboards);
	if (!j->nboards) {
		job_error(j, "boards", "needs at least one board");
		bad = 1;
	}
	for (i = 0; i < j->nboards; i++)
		for (k = 0; k < i; k++)
			if (!strcmp(j->boards[i], j->boards[k])) {
				job_error(j, "boards", "board \"%s\" is listed twice",
					  j->boards[i]);
				bad = 1;
			}
	if (load_variants(j, jobdir))
		bad = 1;
	t = jobj(r, "benchmark");
	if (load_bench(j, t, jobdir))
		bad = 1;
	t = jobj(r, "patchwork");
	if (t) {
		s = jstr(t, "token_file");
		j->pw_url = jstr(t, "url");
		j->pw_web_url = jstr(t, "web_url");
		j->pw_insecure = jbool(t, "insecure_http", false);
		j->pw_token_file = s[0] == '/' ? xstrdup(s) : xasprintf("%s/%s", jobdir, s);
		if (!j->v[1].mbox) {
			job_error(
				j, "patchwork",
				"checks need a series from a mailbox (variants.patched.patches {\"mbox\": FILE}): patchwork finds each patch by the Message-ID b4 intake records");
			bad = 1;
		}
	}
	free(jobdir);
	j->boots = (int)jint(r, "boots", 0); /* 0: the fewest that can decide (job-run.c) */
	j->budget = (int)jint(r, "budget", 0);
	j->first = (int)jint(r, "first", 0);
	if (!jnum(r, "margin_pct", &j->margin_pct) ||
	    (jobj(r, "margin_pct") && !(j->margin_pct > 0 && j->margin_pct < 50))) {
		job_error(
			j, "margin_pct",
			"must be a number of percent between 0 and 50 (e.g. 1 for \"same within +-1%%\")");
		bad = 1;
	}
	if (j->first && !j->budget) {
		job_error(j, "first",
			  "is the first look of a sequential design: set \"budget\" too");
		bad = 1;
	}
	j->batches = (int)jint(r, "batches", 5);
	j->seed = (uint64_t)jint(r, "seed", 1);
	j->nightly = jbool(r, "nightly", false);
	j->bisect = jbool(r, "bisect", false);
	if (j->bisect && !j->nightly) {
		job_error(j, "bisect",
			  "bisects a change between two nights: set \"nightly\": true too");
		bad = 1;
	}
	s = jstr(r, "order");
	if (!s && j->vs.n > NVARIANTS)
		j->order = ORDER_WILLIAMS; /* balanced for carry-over (jobs/README.md) */
	if (s && order_parse(s, &j->order)) {
		job_error(j, "order", "\"%s\" is not one of abab, abba, random, williams", s);
		bad = 1;
	}
	if (load_threshold(j, jobj(r, "threshold")))
		bad = 1;
	if (load_lava(j, jobj(r, "lava")))
		bad = 1;
	return bad ? -EINVAL : 0;
}

int job_load(struct job *j, const char *path)
{
	int ret = job_load_one(j, path);

	if (ret)
		job_free(j); /* nothing half-loaded is left to the caller */
	return ret;
}

void job_free(struct job *j)
{
	int v;

	for (v = 0; v < VARIANTS_MAX; v++) {
		free(j->v[v].prebuilt);
		free(j->v[v].patches);
		free(j->v[v].git_tree);
		free(j->v[v].mbox);
		free(j->v[v].adds);
		series_free(&j->v[v].series);
	}
	strv_free(j->boards);
	bench_def_free(&j->bench);
	free(j->name);
	free(j->pw_token_file);
	jfile_free(&j->jf);
	memset(j, 0, sizeof(*j));
}

char *job_json(const struct job *j)
{
	json_object *o = NULL;
	char *s;

	/* a deep copy of the definition, plus what identifies the job */
	json_object_deep_copy(j->jf.root, &o, NULL);
	json_object_object_add(o, "kind", json_object_new_string("ab"));
	json_object_object_add(o, "job", json_object_new_string(j->name));
	json_object_object_add(o, "job_file", json_object_new_string(j->jf.path));
	if (j->v[1].mbox) { /* the series b4 took: what the report names */
		const struct series *se = &j->v[1].series;
		json_object *sr = json_object_new_object(), *a = json_object_new_array();
		size_t i;

		json_object_object_add(sr, "msgid", json_object_new_string(se->msgid));
		json_object_object_add(sr, "subject", json_object_new_string(se->subject));
		json_object_object_add(sr, "version", json_object_new_int(se->version));
		json_object_object_add(sr, "mbox", json_object_new_string(j->v[1].mbox));
		for (i = 0; i < se->n; i++)
			json_object_array_add(a, json_object_new_string(se->subjects[i]));
		json_object_object_add(sr, "patches", a);
		a = json_object_new_array(); /* each patch's own (patchwork finds it by it) */
		for (i = 0; i < se->n; i++)
			json_object_array_add(a, json_object_new_string(se->msgids[i]));
		json_object_object_add(sr, "msgids", a);
		json_object_object_add(o, "series", sr);
	}
	s = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

char *job_board_path(const char *board)
{
	const char *d = getenv("ABLAB_BOARDS");

	if (strchr(board, '/'))
		return xstrdup(board);
	return xasprintf("%s/%s.json", d && *d ? d : "boards", board);
}

int job_board_check(const struct job *j, size_t i)
{
	char *bp = job_board_path(j->boards[i]);
	int ret = 0;

	if (!is_file(bp)) {
		job_error(
			j, "boards",
			"board \"%s\": %s does not exist (add the board file, or leave the board out with --boards)",
			j->boards[i], bp);
		ret = -ENOENT;
	}
	free(bp);
	return ret;
}

/* ---- kernels ---- */

void job_kernel_free(struct job_kernel *k)
{
	free(k->dir);
	free(k->state);
	memset(k, 0, sizeof(*k));
}

static char *replace_board(const char *tmpl, const char *board)
{
	struct buf b = { 0 };
	const char *p = tmpl, *q;
	char *s;

	while ((q = strstr(p, "{board}"))) {
		buf_append(&b, p, (size_t)(q - p));
		buf_append(&b, board, strlen(board));
		p = q + 7;
	}
	buf_append(&b, p, strlen(p) + 1);
	s = b.data;
	return s;
}

int job_kernel(const struct job *j, const char *board, int v, bool build, struct job_kernel *out)
{
	struct recipe rc;
	int ret;

	memset(out, 0, sizeof(*out));
	if (j->v[v].kind == SRC_PREBUILT) {
		char *m;

		out->dir = replace_board(j->v[v].prebuilt, board);
		m = xasprintf("%s/manifest.json", out->dir);
		ret = is_file(m) ? 0 : -ENOENT;
		free(m);
		m = xasprintf("%s/metadata.json", out->dir); /* TuxMake's (kernel_load_board) */
		if (ret && is_file(m))
			ret = 1;
		if (ret < 0)
			err_msg("%s: variants.%s.source.dir: %s has no manifest.json (not a complete kernel build) nor TuxMake's metadata.json",
				j->jf.path, j->vs.label[v], out->dir);
		free(m);
		out->state = xstrdup(ret > 0 ? "prebuilt by TuxMake" : "prebuilt");
		ret = ret < 0 ? ret : 0;
		return ret;
	}
	ret = recipe_of_board(board, &rc);
	if (ret)
		return ret;
	rc.module_src = bench_build_src(&j->bench);
	if (j->v[v].kind == SRC_GIT) {
		rc.git_tree = j->v[v].git_tree;
		rc.git_ref = j->v[v].git_ref;
	}
	if (j->v[v].kind != SRC_GIT && !variant_set_is_pair(&j->vs) && v > 0)
		/* build.sh's patched, by its patches */
		ret = recipe_variant(&rc, j->v[v].patches, j->v[v].npatches, build, &out->dir,
				     &out->state);
	else if (build)
		ret = recipe_build(&rc, j->v[v].patches,
				   j->v[v].kind == SRC_GIT ? "git" : variant_names[v], &out->dir,
				   &out->state);
	else
		ret = recipe_probe(&rc, j->v[v].patches,
				   j->v[v].kind == SRC_GIT ? "git" : variant_names[v], &out->dir,
				   &out->state);
	recipe_free(&rc);
	return ret;
}
