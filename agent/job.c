// SPDX-License-Identifier: GPL-2.0-only
/* Job files (jobs/NAME.json, jobs/README.md): load and validate with
 * file:line:col errors, and resolve each board's two kernels, building them
 * through the board's kernel recipe (boards/kernel/build.sh) when needed. */
#include "job.h"
#include "board.h"
#include "kernel.h"
#include "cmds.h"
#include "util.h"
#include "variant.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const struct jfield source_fields[] = {
	{ "type", J_STRING, true },	/* recipe | prebuilt */
	{ "dir", J_STRING },		/* prebuilt: directory with manifest.json, {board} */
	{ NULL }
};

static const struct jfield variant_fields[] = {
	{ "source", J_OBJECT, true, source_fields },
	{ "patches", J_STRING },	/* patched + recipe: directory of *.patch */
	{ "description", J_STRING },
	{ NULL }
};

static const struct jfield variants_fields[] = {
	{ "control", J_OBJECT, true, variant_fields },
	{ "patched", J_OBJECT, true, variant_fields },
	{ NULL }
};

static const struct jfield group_fields[] = {
	{ "scenario", J_INT, true, NULL, 1, 9 },
	{ "value", J_INT, true, NULL, 1, 9 },
	{ "unit", J_INT, false, NULL, 1, 9 },
	{ NULL }
};

static const struct jfield ko_fields[] = {
	{ "control", J_STRING, true },	/* the control kernel's module file, {board} */
	{ "patched", J_STRING, true },
	{ NULL }
};

static const struct jfield bench_fields[] = {
	{ "name", J_STRING, true },	/* dmabench | regex | dma_map_benchmark | module */
	{ "params", J_STRING },		/* dmabench: module parameters */
	{ "command", J_STRING },	/* regex: shell command run on the target */
	{ "regex", J_STRING },		/* regex: POSIX ERE, one match = one sample */
	{ "groups", J_OBJECT, false, group_fields },
	{ "src", J_STRING },		/* module: out-of-tree module source directory */
	{ "parser", J_STRING },		/* module: dmabench (default) | seed */
	{ "module", J_STRING },		/* module: NAME.ko in each kernel directory */
	{ "ko", J_OBJECT, false, ko_fields },	/* module: prebuilt files per variant */
	{ NULL }
};

static const struct jfield threshold_fields[] = {
	{ "change_pct", J_ANY },	/* number > 0 */
	{ "alpha", J_ANY },		/* number in (0, 1) */
	{ NULL }
};

static const struct jfield lava_fields[] = {
	{ "device_types", J_OBJECT },	/* board -> LAVA device type */
	{ "context", J_OBJECT },	/* board -> LAVA job context (qemu cpu, ...) */
	{ "tags", J_ARRAY_STRING },
	{ "priority", J_STRING },
	{ "visibility", J_STRING },
	{ "artifacts_url", J_STRING },
	{ "job_timeout_min", J_INT, false, NULL, 1, 1440 },
	{ NULL }
};

static const struct jfield job_fields[] = {
	{ "name", J_STRING },
	{ "description", J_STRING },
	{ "boards", J_ARRAY_STRING, true },
	{ "variants", J_OBJECT, true, variants_fields },
	{ "benchmark", J_OBJECT, true, bench_fields },
	{ "boots", J_INT, false, NULL, 1, 1000 },
	{ "budget", J_INT, false, NULL, 2, 24 },
	{ "first", J_INT, false, NULL, 2, 24 },
	{ "margin_pct", J_ANY },	/* number in (0, 50) */
	{ "batches", J_INT, false, NULL, 1, 1000 },
	{ "order", J_STRING },
	{ "seed", J_INT, false, NULL, 0, 0x7fffffffL },
	{ "nightly", J_BOOL },
	{ "threshold", J_OBJECT, false, threshold_fields },
	{ "lava", J_OBJECT, false, lava_fields },
	{ NULL }
};

/* Finds "key": after offset from; returns the offset of the quote or -1. */
static long find_key(const char *text, const char *key, long from)
{
	char *pat = xasprintf("\"%s\"", key);
	const char *p = text + from;
	long r = -1;

	while ((p = strstr(p, pat))) {
		const char *q = p + strlen(pat);

		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q == ':') {
			r = p - text;
			break;
		}
		p++;
	}
	free(pat);
	return r;
}

void job_error(const struct job *j, const char *jpath, const char *fmt, ...)
{
	char *path = xstrdup(jpath), *save = NULL, *seg, *msg;
	long off = 0, at = -1;
	int line = 1, col = 1;
	va_list ap;

	/* key by key: "variants.patched.patches" finds the patches key after
	 * the patched key after the variants key */
	for (seg = strtok_r(path, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
		long r = find_key(j->jf.text, seg, off);

		if (r < 0)
			break;
		at = r;
		off = r + 1;
	}
	if (at >= 0)
		jfile_offset_linecol(j->jf.text, (size_t)at, &line, &col);
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	err_msg("%s:%d:%d: %s: %s", j->jf.path, line, col, jpath, msg ? msg : fmt);
	free(msg);
	free(path);
}

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

static char *dir_of(const char *path)
{
	char *tmp = xstrdup(path), *d = xstrdup(dirname(tmp));

	free(tmp);
	return d;
}

static int load_variant(struct job *j, int v, char *const jobdir)
{
	json_object *o = jobj(jobj(j->jf.root, "variants"), variant_names[v]);
	json_object *src = jobj(o, "source");
	const char *type = jstr(src, "type"), *dir = jstr(src, "dir"), *patches;
	char *path;
	int bad = 0;

	path = xasprintf("variants.%s.source.type", variant_names[v]);
	if (!strcmp(type, "recipe")) {
		j->v[v].kind = SRC_RECIPE;
	} else if (!strcmp(type, "prebuilt")) {
		j->v[v].kind = SRC_PREBUILT;
	} else if (!strcmp(type, "git") || !strcmp(type, "tarball") || !strcmp(type, "dir")) {
		job_error(j, path, "source type \"%s\" is not supported yet: the kernel recipe "
			  "(boards/kernel/BOARD.conf) names its source tarball; use \"recipe\", "
			  "or build elsewhere and use \"prebuilt\"", type);
		bad = 1;
	} else {
		job_error(j, path, "unknown source type \"%s\"; expected \"recipe\" (the "
			  "board's kernel recipe) or \"prebuilt\" (a built directory)", type);
		bad = 1;
	}
	free(path);
	path = xasprintf("variants.%s.source.dir", variant_names[v]);
	if (j->v[v].kind == SRC_PREBUILT && !bad) {
		if (!dir) {
			job_error(j, path, "required for source type \"prebuilt\" (a directory "
				  "with manifest.json; \"{board}\" is replaced by the board name)");
			bad = 1;
		} else {
			j->v[v].prebuilt = dir[0] == '/' ? xstrdup(dir)
							 : xasprintf("%s/%s", jobdir, dir);
		}
	} else if (dir && !bad) {
		job_error(j, path, "only a \"prebuilt\" source has a directory");
		bad = 1;
	}
	free(path);
	patches = jstr(o, "patches");
	path = xasprintf("variants.%s.patches", variant_names[v]);
	if (patches && (v == 0 || j->v[v].kind != SRC_RECIPE)) {
		job_error(j, path, v == 0 ? "the control variant is the pristine source: move the "
			  "patch series to variants.patched" : "a prebuilt kernel cannot take "
			  "patches: build it with them, or use source type \"recipe\"");
		bad = 1;
	} else if (v == 1 && j->v[v].kind == SRC_RECIPE) {
		if (!patches) {
			job_error(j, path, "required: the patch series directory (*.patch, applied "
				  "in name order) for a recipe-built patched kernel");
			bad = 1;
		} else {
			char *p = patches[0] == '/' ? xstrdup(patches)
						    : xasprintf("%s/%s", jobdir, patches);
			char real[PATH_MAX];

			if (!realpath(p, real) || !is_dir(real)) {
				job_error(j, path, "%s is not a directory (paths are relative to "
					  "the job file's directory)", p);
				bad = 1;
			} else {
				j->v[v].patches = xstrdup(real);
			}
			free(p);
		}
	}
	free(path);
	return bad ? -EINVAL : 0;
}

/* The module name of an out-of-tree module directory: the first
 * "obj-m := NAME.o" (or +=, =) line of its Kbuild, else of its Makefile. */
static char *module_name(const char *dir)
{
	static const char *const files[] = { "Kbuild", "Makefile", NULL };
	char *name = NULL;
	int i;

	for (i = 0; files[i] && !name; i++) {
		char *p = xasprintf("%s/%s", dir, files[i]), *text = NULL, *line, *save = NULL;
		size_t len;

		if (!read_file(p, &text, &len)) {
			for (line = strtok_r(text, "\n", &save); line && !name;
			     line = strtok_r(NULL, "\n", &save)) {
				static const char *const forms[] = {
					"obj-m := %63[A-Za-z0-9_-]%2[.o] %n",
					"obj-m += %63[A-Za-z0-9_-]%2[.o] %n",
					"obj-m = %63[A-Za-z0-9_-]%2[.o] %n",
				};
				char n[64], dot[3];
				size_t f;
				int end;

				for (f = 0; f < ARRAY_SIZE(forms) && !name; f++) {
					end = 0;
					if (sscanf(line, forms[f], n, dot, &end) == 2 &&
					    !strcmp(dot, ".o") && end && !line[end])
						name = xstrdup(n);
				}
			}
		}
		free(text);
		free(p);
	}
	return name;
}

static bool module_name_ok(const char *s)
{
	return s[0] && strlen(s) < 64 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
	       strlen(s);
}

/* "module": built from "src" with recipe kernels, or prebuilt: "module"
 * (NAME.ko in each kernel directory) or "ko" (a file per variant). */
static int load_module(struct job *j, json_object *t, const char *jobdir)
{
	const char *src = jstr(t, "src"), *parser = jstr(t, "parser"), *name = jstr(t, "module");
	json_object *ko = jobj(t, "ko");
	char real[PATH_MAX], *p;
	int bad = 0, v;

	j->bench.kind = BENCH_MODULE;
	if (!!src + !!name + !!ko != 1) {
		job_error(j, src || name || ko ? "benchmark.ko" : "benchmark.name", "a \"module\" benchmark needs one of \"src\" (its source directory, built with recipe kernels), \"module\" (NAME: NAME.ko in each kernel directory) or \"ko\" ({\"control\": FILE, \"patched\": FILE}, prebuilt)");
		return -EINVAL;
	}
	j->bench.parser_fmt = 1;
	if (parser && !strcmp(parser, "seed")) {
		j->bench.parser_fmt = 0;
	} else if (parser && strcmp(parser, "dmabench")) {
		job_error(j, "benchmark.parser", "\"%s\" is not one of dmabench (v1 lines), seed "
			  "(the seed module's lines)", parser);
		bad = 1;
	}
	if (name) {
		if (!module_name_ok(name)) {
			job_error(j, "benchmark.module", "\"%s\": a module name (letters, digits, _ and -, without .ko); the file NAME.ko is taken from each kernel directory", name);
			return -EINVAL;
		}
		j->module = xstrdup(name);
		j->bench.module = j->module;
		return bad ? -EINVAL : 0;
	}
	if (ko) {
		for (v = 0; v < 2; v++) {
			const char *f = jstr(ko, variant_names[v]);
			size_t l = strlen(f);

			if (l < 4 || strcmp(f + l - 3, ".ko")) {
				char *path = xasprintf("benchmark.ko.%s", variant_names[v]);

				job_error(j, path, "\"%s\" is not a .ko file", f);
				free(path);
				bad = 1;
			}
			j->ko[v] = f[0] == '/' ? xstrdup(f) : xasprintf("%s/%s", jobdir, f);
			j->bench.ko[v] = j->ko[v];
		}
		if (bad)
			return -EINVAL;
		p = strrchr(j->ko[0], '/') + 1;
		j->module = strndup(p, strlen(p) - 3);
		j->bench.module = j->module;
		return 0;
	}
	p = src[0] == '/' ? xstrdup(src) : xasprintf("%s/%s", jobdir, src);
	if (!realpath(p, real) || !is_dir(real)) {
		job_error(j, "benchmark.src", "%s is not a directory (paths are relative to the "
			  "job file's directory)", p);
		free(p);
		return -EINVAL;
	}
	free(p);
	j->module_src = xstrdup(real);
	j->module = module_name(real);
	if (!j->module) {
		job_error(j, "benchmark.src", "%s has no \"obj-m := NAME.o\" line in a Kbuild or "
			  "Makefile", real);
		bad = 1;
	} else if (!strcmp(j->module, "dmabench")) {
		job_error(j, "benchmark.src", "the module is called dmabench, as the lab's own: "
			  "rename it, or use benchmark \"dmabench\"");
		bad = 1;
	}
	j->bench.module_src = j->module_src;
	j->bench.module = j->module;
	for (v = 0; v < 2; v++)
		if (j->v[v].kind != SRC_RECIPE) {
			job_error(j, "benchmark.src", "the module is built against each variant's "
				  "kernel tree: variants.%s.source.type must be \"recipe\" (for prebuilt kernels give the built modules: \"module\": NAME for NAME.ko in each kernel directory, or \"ko\": {\"control\": FILE, \"patched\": FILE})",
				  variant_names[v]);
			bad = 1;
			break;
		}
	return bad ? -EINVAL : 0;
}

/* Keys only a benchmark of another kind has: each one present is an error. */
static int reject_keys(struct job *j, json_object *t, const char *const *keys, const char *kind)
{
	int bad = 0;

	for (; *keys; keys++) {
		if (jobj(t, *keys)) {
			char *path = xasprintf("benchmark.%s", *keys);

			job_error(j, path, "only a \"%s\" benchmark has a %s", kind, *keys);
			free(path);
			bad = 1;
		}
	}
	return bad;
}

static int load_bench(struct job *j, json_object *t, const char *jobdir)
{
	static const char *const regex_only[] = { "command", "regex", "groups", NULL };
	static const char *const module_only[] = { "src", "parser", "module", "ko", NULL };
	json_object *g = jobj(t, "groups");
	char why[256];
	int bad = 0;

	j->benchmark = jstr(t, "name");
	j->params = jstr(t, "params");
	if (strcmp(j->benchmark, "module") && reject_keys(j, t, module_only, "module"))
		bad = 1;
	if (!strcmp(j->benchmark, "module")) {
		if (load_module(j, t, jobdir))
			bad = 1;
		if (reject_keys(j, t, regex_only, "regex"))
			bad = 1;
	} else if (!strcmp(j->benchmark, "dmabench")) {
		j->bench.kind = BENCH_DMABENCH;
		if (reject_keys(j, t, regex_only, "regex"))
			bad = 1;
	} else if (!strcmp(j->benchmark, "regex")) {
		j->bench.kind = BENCH_REGEX;
		j->bench.command = jstr(t, "command");
		j->bench.regex = jstr(t, "regex");
		if (!j->bench.command || !j->bench.command[0]) {
			job_error(j, "benchmark.command", "required for a \"regex\" benchmark: the "
				  "shell command run on the target");
			bad = 1;
		}
		if (!j->bench.regex || !g) {
			job_error(j, j->bench.regex ? "benchmark.name" : "benchmark.regex",
				  "a \"regex\" benchmark needs \"regex\" (a POSIX ERE) and "
				  "\"groups\" ({\"scenario\": N, \"value\": N, \"unit\": N})");
			return -EINVAL;
		}
		j->bench.g_scenario = (int)jint(g, "scenario", 0);
		j->bench.g_value = (int)jint(g, "value", 0);
		j->bench.g_unit = (int)jint(g, "unit", 0);
		if (j->bench.g_scenario == j->bench.g_value ||
		    j->bench.g_unit == j->bench.g_scenario || j->bench.g_unit == j->bench.g_value) {
			job_error(j, "benchmark.groups", "scenario, value and unit must be "
				  "different groups");
			bad = 1;
		} else if (bench_def_check(&j->bench, why, sizeof(why))) {
			job_error(j, "benchmark.regex", "%s", why);
			bad = 1;
		}
		if (j->params) {
			job_error(j, "benchmark.params", "a \"regex\" benchmark has no module "
				  "parameters: put its arguments in \"command\"");
			bad = 1;
		}
	} else if (!strcmp(j->benchmark, "dma_map_benchmark")) {
		j->bench.kind = BENCH_DMA_MAP;
		if (reject_keys(j, t, regex_only, "regex"))
			bad = 1;
		if (bench_dma_map_params(j->params, &j->bench, why, sizeof(why))) {
			job_error(j, "benchmark.params", "%s", why);
			return -EINVAL;
		}
		return bad ? -EINVAL : 0;
	} else {
		job_error(j, "benchmark.name", "unknown benchmark \"%s\"; known: dmabench, regex, "
			  "dma_map_benchmark, module", j->benchmark);
		return -EINVAL;
	}
	if (j->params && strspn(j->params, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "0123456789 =,:._-+") != strlen(j->params)) {
		job_error(j, "benchmark.params", "module parameters may only contain letters, "
			  "digits, spaces and =,:._-+");
		bad = 1;
	}
	return bad ? -EINVAL : 0;
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
	jobdir = realpath(path, real) ? dir_of(real) : dir_of(path);
	s = jstr(r, "name");
	base = xstrdup(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	dot = strstr(base, ".json");
	if (dot)
		*dot = '\0';
	j->name = xstrdup(s ? s : base);
	free(base);
	for (s = j->name; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s))
			break;
	if (*s || !j->name[0] || j->name[0] == '.') {
		job_error(j, "name", "\"%s\" must be letters, digits, '.', '_' or '-' (it names "
			  "report directories)", j->name);
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
				job_error(j, "boards", "board \"%s\" is listed twice", j->boards[i]);
				bad = 1;
			}
	for (i = 0; i < 2; i++)
		if (load_variant(j, (int)i, jobdir))
			bad = 1;
	t = jobj(r, "benchmark");
	if (load_bench(j, t, jobdir))
		bad = 1;
	free(jobdir);
	j->boots = (int)jint(r, "boots", 3);
	j->budget = (int)jint(r, "budget", 0);
	j->first = (int)jint(r, "first", 0);
	if (!jnum(r, "margin_pct", &j->margin_pct) ||
	    (jobj(r, "margin_pct") && !(j->margin_pct > 0 && j->margin_pct < 50))) {
		job_error(j, "margin_pct", "must be a number of percent between 0 and 50 (e.g. 1 for \"same within +-1%%\")");
		bad = 1;
	}
	if (j->first && !j->budget) {
		job_error(j, "first", "is the first look of a sequential design: set \"budget\" too");
		bad = 1;
	}
	j->batches = (int)jint(r, "batches", 5);
	j->seed = (uint64_t)jint(r, "seed", 1);
	j->nightly = jbool(r, "nightly", false);
	s = jstr(r, "order");
	if (s && order_parse(s, &j->order)) {
		job_error(j, "order", "\"%s\" is not one of abab, abba, random", s);
		bad = 1;
	}
	t = jobj(r, "threshold");
	j->threshold = 0.05;
	j->alpha = 0.05;
	if (!jnum(t, "change_pct", &j->threshold) || (jobj(t, "change_pct") &&
						       !(j->threshold > 0 && j->threshold < 1000))) {
		job_error(j, "threshold.change_pct", "must be a number of percent above 0 "
			  "(e.g. 5 for 5%%)");
		bad = 1;
	} else if (jobj(t, "change_pct")) {
		j->threshold /= 100.0;
	}
	if (!jnum(t, "alpha", &j->alpha) || !(j->alpha > 0 && j->alpha < 1)) {
		job_error(j, "threshold.alpha", "must be a number between 0 and 1 (e.g. 0.05)");
		bad = 1;
	}
	j->lava = jobj(r, "lava");
	if (j->lava) {
		json_object *dt = jobj(j->lava, "device_types");

		s = jstr(j->lava, "priority");
		if (s && strcmp(s, "high") && strcmp(s, "medium") && strcmp(s, "low")) {
			job_error(j, "lava.priority", "\"%s\" is not one of high, medium, low", s);
			bad = 1;
		}
		s = jstr(j->lava, "visibility");
		if (s && strcmp(s, "public") && strcmp(s, "personal")) {
			job_error(j, "lava.visibility", "\"%s\" is not one of public, personal", s);
			bad = 1;
		}
		if (dt) {
			json_object_object_foreach(dt, key, val) {
				for (i = 0; i < j->nboards; i++)
					if (!strcmp(j->boards[i], key))
						break;
				if (i == j->nboards) {
					job_error(j, "lava.device_types", "\"%s\" is not one of the "
						  "job's boards", key);
					bad = 1;
				} else if (!json_object_is_type(val, json_type_string)) {
					job_error(j, "lava.device_types", "\"%s\": must be a string "
						  "(a LAVA device type)", key);
					bad = 1;
				}
			}
		}
	}
	return bad ? -EINVAL : 0;
}

int job_load(struct job *j, const char *path)
{
	int ret = job_load_one(j, path);

	if (ret)
		job_free(j);	/* nothing half-loaded is left to the caller */
	return ret;
}

void job_free(struct job *j)
{
	int v;

	for (v = 0; v < 2; v++) {
		free(j->v[v].prebuilt);
		free(j->v[v].patches);
	}
	strv_free(j->boards);
	free(j->module_src);
	free(j->module);
	free(j->ko[0]);
	free(j->ko[1]);
	free(j->name);
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

/* sha256 of a file as 64 hex digits, or NULL */
static char *file_sha256(const char *path)
{
	char *argv[] = { "sha256sum", "--", (char *)path, NULL };
	struct buf out = { 0 };
	char *s = NULL;

	if (is_file(path) && run_argv(argv, &out) == 0 && out.len >= 64)
		s = strndup(out.data, 64);
	buf_free(&out);
	return s;
}

/* The recipe of a board: its build script, the recipe name and directory. */
struct recipe {
	char *script, *name, *kdir, *repo;
	const char *module_src;	/* a "module" job's module, built with the kernel */
};

static void recipe_free(struct recipe *r)
{
	free(r->script);
	free(r->name);
	free(r->kdir);
	free(r->repo);
}

static int board_recipe(const char *board, struct recipe *r)
{
	struct board b;
	char real[PATH_MAX], *bdir, *conf, *base, *dot;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = board_load_by_name(&b, board);
	if (ret) {
		board_free(&b);
		return ret;
	}
	if (!b.kernel_recipe) {
		err_msg("%s: board %s has no kernel.recipe, so the job cannot build its kernels: "
			"use source type \"prebuilt\" for it", b.jf.path, b.name);
		board_free(&b);
		return -EINVAL;
	}
	bdir = realpath(b.jf.path, real) ? dir_of(real) : dir_of(b.jf.path);
	conf = b.kernel_recipe[0] == '/' ? xstrdup(b.kernel_recipe)
					 : xasprintf("%s/%s", bdir, b.kernel_recipe);
	free(bdir);
	if (!realpath(conf, real)) {
		err_msg("%s: kernel.recipe %s: %s", b.jf.path, conf, strerror(errno));
		free(conf);
		board_free(&b);
		return -ENOENT;
	}
	free(conf);
	r->kdir = dir_of(real);
	base = xstrdup(strrchr(real, '/') + 1);
	dot = strstr(base, ".conf");
	if (dot)
		*dot = '\0';
	r->name = base;
	r->script = xasprintf("%s/build.sh", r->kdir);
	r->repo = xasprintf("%s/../..", r->kdir);
	if (realpath(r->repo, real)) {
		free(r->repo);
		r->repo = xstrdup(real);
	}
	board_free(&b);
	if (!is_file(r->script)) {
		err_msg("%s: no kernel build script next to the recipe", r->script);
		recipe_free(r);
		return -ENOENT;
	}
	return 0;
}

/* The job's own module as recorded in a manifest ("module": name, src,
 * files) against the source directory now: NULL when they agree. */
static char *module_mismatch(json_object *mod, const char *src)
{
	json_object *a = jobj(mod, "files");
	size_t n = a && json_object_is_type(a, json_type_array) ?
		   json_object_array_length(a) : 0;
	size_t i, have = 0;
	struct dirent *de;
	char *why = NULL;
	DIR *d;

	if (!src)
		return mod ? xasprintf("built with the benchmark module %s", jstr(mod, "name"))
			   : NULL;
	/* the same files, not the same path: build.sh keys the build by them */
	if (!mod || !n)
		return xasprintf("benchmark module %s not in this build", src);
	for (i = 0; i < n && !why; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		char *p = xasprintf("%s/%s", src, jstr(e, "name") ? jstr(e, "name") : "?");
		char *sha = file_sha256(p);

		if (!sha || !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256")))
			why = xasprintf("benchmark module source %s changed", p);
		free(sha);
		free(p);
	}
	/* a file added since: the same selection as build.sh's */
	d = why ? NULL : opendir(src);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		const char *ext = l > 2 ? de->d_name + l - 2 : "";

		if (!strcmp(de->d_name, "Kbuild") || !strcmp(de->d_name, "Makefile") ||
		    ((!strcmp(ext, ".c") || !strcmp(ext, ".h")) &&
		     !(l > 6 && !strcmp(de->d_name + l - 6, ".mod.c"))))
			have++;
	}
	if (d)
		closedir(d);
	if (!why && have != n)
		why = xasprintf("benchmark module %s: files added or removed", src);
	return why;
}

/* Does the manifest in dir record the inputs we have now?  NULL if it
 * does, else why not (caller frees). */
static char *manifest_mismatch(const char *dir, const struct recipe *rc, const char *patches,
			       int v)
{
	char *mpath = xasprintf("%s/manifest.json", dir), *why = NULL, *sha = NULL, *p;
	json_object *m, *a;
	struct jfile jf;
	size_t i, n;

	if (!is_file(mpath)) {
		free(mpath);
		return xstrdup("no complete build");
	}
	if (jfile_load(&jf, mpath)) {
		jfile_free(&jf);
		free(mpath);
		return xstrdup("unreadable manifest");
	}
	free(mpath);
	m = jf.root;
#define DIFF(file, recorded, what) do {						\
		sha = file_sha256(file);					\
		if (!sha || !(recorded) || strcmp(sha, (recorded))) {		\
			why = xstrdup(what);					\
			goto out;						\
		}								\
		free(sha);							\
		sha = NULL;							\
	} while (0)
	DIFF(rc->script, jstr(m, "build_script_sha256"), "build script changed");
	p = xasprintf("%s/%s", rc->kdir, jstr(jobj(m, "fragment"), "name") ?
		      jstr(jobj(m, "fragment"), "name") : "?");
	sha = file_sha256(p);
	free(p);
	if (!sha || !jstr(jobj(m, "fragment"), "sha256") ||
	    strcmp(sha, jstr(jobj(m, "fragment"), "sha256"))) {
		why = xstrdup("config fragment changed");
		goto out;
	}
	free(sha);
	sha = NULL;
	p = xasprintf("%s/init.sh", rc->kdir);
	DIFF(p, jstr(jobj(m, "initramfs"), "init_sha256"), "initramfs /init changed");
	free(p);
	a = jobj(m, "kmod");
	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		p = xasprintf("%s/kmod/%s", rc->repo, jstr(e, "name") ? jstr(e, "name") : "?");
		sha = file_sha256(p);
		if (!sha || !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256"))) {
			why = xasprintf("benchmark module source %s changed", jstr(e, "name"));
			free(p);
			goto out;
		}
		free(p);
		free(sha);
		sha = NULL;
	}
	if (!n) {
		why = xstrdup("no benchmark module recorded");
		goto out;
	}
	why = module_mismatch(jobj(m, "module"), rc->module_src);
	if (why)
		goto out;
	a = jobj(m, "patches");
	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	if (v == 1) {
		struct dirent **de = NULL;
		int nd = patches ? scandir(patches, &de, NULL, alphasort) : -1, k;
		size_t np = 0;

		for (k = 0; k < nd; k++) {
			const char *f = de[k]->d_name;
			size_t l = strlen(f);

			if (!why && l > 6 && !strcmp(f + l - 6, ".patch")) {
				json_object *e = np < n ? json_object_array_get_idx(a, np) : NULL;

				p = xasprintf("%s/%s", patches, f);
				sha = file_sha256(p);
				free(p);
				if (!e || !jstr(e, "name") || strcmp(jstr(e, "name"), f) ||
				    !sha || !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256")))
					why = xasprintf("patch series differs at %s", f);
				free(sha);
				sha = NULL;
				np++;
			}
			free(de[k]);
		}
		free(de);
		if (!why && np != n)
			why = xstrdup("patch series differs (number of patches)");
	} else if (n) {
		why = xstrdup("control build has patches");
	}
out:
#undef DIFF
	free(sha);
	jfile_free(&jf);
	return why;
}

/* Without building: which VARIANT-* directory of the recipe's cache holds
 * a build of the current inputs (build.sh keys them the same way; the
 * recipe .conf and the source tarball are not recorded in manifests, so a
 * change of those is found only by build.sh itself). */
static int recipe_probe(const struct recipe *rc, const char *patches, int v,
			struct job_kernel *out)
{
	char *cache = cache_dir(), *kd, *prefix, *first_why = NULL, *link, pub[PATH_MAX];
	struct dirent *de;
	bool have_pub;
	DIR *d;

	if (!cache)
		return -ENOENT;	/* cache_dir() said why */
	kd = xasprintf("%s/kernels/%s", cache, rc->name);
	prefix = xasprintf("%s-", variant_names[v]);
	link = xasprintf("%s/%s", kd, variant_names[v]);
	have_pub = realpath(link, pub) != NULL;
	d = opendir(kd);

	while (d && (de = readdir(d))) {
		char *dir, *why;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		dir = xasprintf("%s/%s", kd, de->d_name);
		why = manifest_mismatch(dir, rc, patches, v);
		if (!why) {
			out->dir = dir;
			out->state = xstrdup("cached");
			break;
		}
		/* the reason that matters: what differs from the current build */
		if (!first_why || (have_pub && !strcmp(dir, pub))) {
			free(first_why);
			first_why = why;
		} else {
			free(why);
		}
		free(dir);
	}
	free(link);
	if (d)
		closedir(d);
	if (!out->dir)
		out->state = xasprintf("would build (%s)", first_why ? first_why : "never built");
	free(first_why);
	free(cache);
	free(kd);
	free(prefix);
	return 0;
}

/* Runs the build script; its progress goes to stderr; the artefact
 * directory is read from its last "cached (DIR)" / "done: ... -> DIR" line. */
static int recipe_build(const struct recipe *rc, const char *patches, int v,
			struct job_kernel *out)
{
	char *argv[] = { "bash", rc->script, rc->name, (char *)variant_names[v], NULL };
	char *pd = patches ? xasprintf("PATCHES_DIR=%s", patches) : NULL;
	char *ms = rc->module_src ? xasprintf("ABLAB_MODULE_SRC=%s", rc->module_src) : NULL;
	struct buf line = { 0 };
	char *dir = NULL, **envp;
	bool cached = false;
	size_t n = 0, i;
	int pfd[2], status;
	pid_t pid;
	FILE *f;

	while (environ[n])
		n++;
	envp = xcalloc(n + 3, sizeof(*envp));
	for (i = 0, n = 0; environ[i]; i++)
		if ((!pd || strncmp(environ[i], "PATCHES_DIR=", 12)) &&
		    strncmp(environ[i], "ABLAB_MODULE_SRC=", 17))
			envp[n++] = environ[i];
	if (pd)
		envp[n++] = pd;
	if (ms)
		envp[n++] = ms;
	fflush(stderr);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		free(envp);
		free(pd);
		free(ms);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		free(envp);
		free(pd);
		free(ms);
		return -e;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		execve("/bin/bash", argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	free(envp);
	f = fdopen(pfd[0], "r");
	if (f) {
		char *l = NULL;
		size_t cap = 0;
		ssize_t len;

		while ((len = getline(&l, &cap, f)) > 0) {
			char *p;

			fprintf(stderr, "  | %s", l);
			if (l[len - 1] == '\n')
				l[--len] = '\0';
			if ((p = strstr(l, ": cached (")) && len > 0 && l[len - 1] == ')') {
				free(dir);
				dir = strndup(p + 10, (size_t)(l + len - 1 - (p + 10)));
				cached = true;
			} else if (strstr(l, ": done: ") && (p = strstr(l, " -> "))) {
				free(dir);
				dir = xstrdup(p + 4);
				cached = false;
			}
		}
		free(l);
		fclose(f);
	} else {
		close(pfd[0]);
	}
	buf_free(&line);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	free(pd);
	free(ms);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		err_msg("%s %s %s failed (exit %d); see its messages above", rc->script, rc->name,
			variant_names[v], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		free(dir);
		return -EIO;
	}
	if (!dir) {
		err_msg("%s did not say where it put the %s kernel", rc->script, variant_names[v]);
		return -EIO;
	}
	out->dir = dir;
	out->state = xstrdup(cached ? "cached" : "built");
	return 0;
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
		if (ret)
			err_msg("%s: variants.%s.source.dir: %s has no manifest.json (not a "
				"complete kernel build)", j->jf.path, variant_names[v], out->dir);
		free(m);
		out->state = xstrdup("prebuilt");
		return ret;
	}
	ret = board_recipe(board, &rc);
	if (ret)
		return ret;
	rc.module_src = j->bench.kind == BENCH_MODULE ? j->module_src : NULL;
	ret = build ? recipe_build(&rc, j->v[v].patches, v, out)
		    : recipe_probe(&rc, j->v[v].patches, v, out);
	recipe_free(&rc);
	return ret;
}

/* ---- running a job ---- */

/* --dry-run of a prebuilt "module": the variant's .ko checked as a campaign
 * checks it before its first boot (present, a module, built for the kernel). */
static int dry_run_module(const struct job *j, const char *board, int v, const char *kdir)
{
	struct kernel_art ka = { 0 };
	struct board b;
	int ret = board_load_by_name(&b, board);

	if (!ret)
		ret = kernel_load(&ka, kdir);
	if (!ret)
		ret = bench_check_kernel(&j->bench, b.name, &ka, v);
	if (!ret) {
		char *f = bench_module_file(&j->bench, b.name, ka.dir, v);

		printf("  %-16s %-8s module %s (built for %s)\n", board, variant_names[v], f,
		       ka.release);
		free(f);
	}
	kernel_free(&ka);
	board_free(&b);
	return ret;
}

int job_run(const struct job *j, const struct job_run_opts *o, int64_t *cid)
{
	struct campaign_board *cb = xcalloc(j->nboards, sizeof(*cb));
	struct job_kernel (*k)[2] = xcalloc(j->nboards, sizeof(*k));
	struct campaign_spec cs = { 0 };
	struct bench_def bd = j->bench;
	char why[256];
	size_t i, nb = 0;
	char *js = NULL;
	int ret = 0, v;

	if (cid)
		*cid = 0;
	for (i = 0; i < j->nboards; i++) {
		char *bp;

		if (o->boards && !o->boards[i])
			continue;	/* not selected */
		bp = job_board_path(j->boards[i]);
		if (!is_file(bp)) {
			job_error(j, "boards", "board \"%s\": %s does not exist (add the board "
				  "file, or leave the board out with --boards)", j->boards[i], bp);
			free(bp);
			ret = -ENOENT;
			continue;
		}
		free(bp);
		cb[nb].board = j->boards[i];
		for (v = 0; v < 2 && !ret; v++) {
			ret = job_kernel(j, j->boards[i], v, !o->dry_run, &k[nb][v]);
			if (!ret && o->dry_run)
				printf("  %-16s %-8s %s%s%s\n", j->boards[i], variant_names[v],
				       k[nb][v].state, k[nb][v].dir ? ": " : "",
				       k[nb][v].dir ? k[nb][v].dir : "");
			if (!ret && o->dry_run && j->bench.kind == BENCH_MODULE && !j->module_src)
				ret = dry_run_module(j, j->boards[i], v, k[nb][v].dir);
		}
		cb[nb].control_dir = k[nb][0].dir;
		cb[nb].patched_dir = k[nb][1].dir;
		nb++;
	}
	if (ret || o->dry_run || !nb) {
		if (!ret && !nb) {
			err_msg("%s: no board left to run", j->jf.path);
			ret = -ENOENT;
		}
		goto out;
	}
	if (bd.kind == BENCH_DMA_MAP && bench_dma_map_params(o->params, &bd, why, sizeof(why))) {
		err_msg("--params: %s", why);
		ret = -EINVAL;
		goto out;
	}
	js = job_json(j);
	if (o->budget && o->order == ORDER_RANDOM) {
		err_msg("--budget: a sequential design boots in rounds of one control and one patched boot; use --order abab or abba, not random");
		ret = -EINVAL;
		goto out;
	}
	cs = (struct campaign_spec){ .boards = cb, .nboards = nb, .boots = o->boots,
				     .batches = o->batches, .order = o->order, .seed = o->seed,
				     .modparams = o->params, .bench = &bd,
				     .trigger = o->trigger,
				     .job_name = j->name, .job_json = js, .db = o->db,
				     .results = o->results, .format = o->format,
				     .margin_pct = o->margin_pct, .runner = o->runner };
	if (o->budget) {
		cs.boots = o->budget;
		cs.first = o->first ? o->first : 4;
		cs.alpha = j->alpha > 0 ? j->alpha : 0.05;
		cs.beta = 0.05;
		if (cs.first > cs.boots)
			cs.first = cs.boots;
	}
	ret = campaign_run(&cs, cid);
out:
	for (i = 0; i < j->nboards; i++) {
		job_kernel_free(&k[i][0]);
		job_kernel_free(&k[i][1]);
	}
	free(k);
	free(cb);
	free(js);
	return ret;
}

void job_run_defaults(const struct job *j, struct job_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->boots = j->boots;
	o->budget = j->budget;
	o->first = j->first;
	o->margin_pct = j->margin_pct;
	o->batches = j->batches;
	o->order = j->order;
	o->seed = j->seed;
	o->params = j->params;
	o->trigger = "cli";
	o->results = "results";
	o->format = "text";
}

char *job_path(const char *name)
{
	const char *d = getenv("ABLAB_JOBS");

	if (strchr(name, '/') || strstr(name, ".json"))
		return xstrdup(name);
	return xasprintf("%s/%s.json", d && *d ? d : "jobs", name);
}

/* --boards a,b: a mask over the job's boards; -EINVAL for a board not in it */
int job_select_boards(const struct job *j, const char *list, bool **mask)
{
	char *copy = xstrdup(list), *save = NULL, *b;
	bool *m = xcalloc(j->nboards, sizeof(*m));
	size_t i;
	int ret = 0;

	for (b = strtok_r(copy, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < j->nboards; i++)
			if (!strcmp(j->boards[i], b))
				break;
		if (i == j->nboards) {
			struct buf known = { 0 };

			for (i = 0; i < j->nboards; i++)
				buf_printf(&known, "%s%s", i ? ", " : "", j->boards[i]);
			err_msg("--boards: \"%s\" is not a board of job %s (%s)", b, j->name,
				known.data);
			buf_free(&known);
			ret = -EINVAL;
			break;
		}
		m[i] = true;
	}
	free(copy);
	if (ret)
		free(m);
	else
		*mask = m;
	return ret;
}

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
		"  --order abab|abba|random, --seed S, --params 'K=V ...'\n"
		"  --results DIR       transcripts go to DIR/campaign-N (default ./results)\n"
		"  --format text|json  report printed at the end (default text)\n"
		"  --dry-run           validate, show boards and kernels (cached or would\n"
		"                      build, and why); run nothing\n");
}

int parse_job_opt(int c, const char *arg, struct job_run_opts *o)
{
	long v;

	switch (c) {
	case 'n':
		if (parse_int_opt("--boots", arg, 1, 1000, &v))
			return -EINVAL;
		o->boots = (int)v;
		return 0;
	case 'm':
		if (parse_int_opt("--batches", arg, 1, 1000, &v))
			return -EINVAL;
		o->batches = (int)v;
		return 0;
	case 'o':
		if (order_parse(arg, &o->order)) {
			err_msg("--order: \"%s\" is not one of abab, abba, random", arg);
			return -EINVAL;
		}
		return 0;
	case 's':
		if (parse_int_opt("--seed", arg, 0, 0x7fffffffL, &v))
			return -EINVAL;
		o->seed = (uint64_t)v;
		return 0;
	case 'P':
		o->params = arg;
		return 0;
	case 'U':
		if (parse_int_opt("--budget", arg, 0, 24, &v))
			return -EINVAL;
		o->budget = (int)v;
		return 0;
	case 'F':
		if (parse_int_opt("--first", arg, 2, 24, &v))
			return -EINVAL;
		o->first = (int)v;
		return 0;
	case 'M': {
		char *end;
		double d = strtod(arg, &end);

		if (*arg == '\0' || *end || !(d > 0 && d < 50)) {
			err_msg("--margin: \"%s\" is not a percentage between 0 and 50", arg);
			return -EINVAL;
		}
		o->margin_pct = d;
		return 0;
	}
	}
	return -ENOENT;
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "boards", 1, NULL, 'B' }, { "boots", 1, NULL, 'n' },
		{ "batches", 1, NULL, 'm' }, { "order", 1, NULL, 'o' },
		{ "seed", 1, NULL, 's' }, { "params", 1, NULL, 'P' },
		{ "results", 1, NULL, 'r' }, { "format", 1, NULL, 'f' },
		{ "budget", 1, NULL, 'U' }, { "first", 1, NULL, 'F' }, { "margin", 1, NULL, 'M' },
		{ "dry-run", 0, NULL, 'd' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *boards = NULL, *results = NULL, *format = NULL;
	struct job_run_opts o;
	struct job j;
	bool *mask = NULL, dry = false;
	char *path;
	int c, ret;
	/* options are applied after the job is loaded: remember them */
	struct { int c; const char *arg; } ov[16];
	size_t nov = 0, i;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'B': boards = optarg; break;
		case 'r': results = optarg; break;
		case 'f': format = optarg; break;
		case 'd': dry = true; break;
		case 'h': run_usage(stdout); return 0;
		case 'n': case 'm': case 'o': case 's': case 'P': case 'U': case 'F': case 'M':
			if (nov < ARRAY_SIZE(ov)) {
				ov[nov].c = c;
				ov[nov++].arg = optarg;
			}
			break;
		default: run_usage(stderr); return 2;
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
	path = job_path(argv[optind]);
	ret = job_load(&j, path);
	free(path);
	if (ret) {
		job_free(&j);
		return 1;
	}
	job_run_defaults(&j, &o);
	for (i = 0; i < nov; i++)
		if (parse_job_opt(ov[i].c, ov[i].arg, &o)) {
			job_free(&j);
			return 2;
		}
	if (boards && job_select_boards(&j, boards, &mask)) {
		job_free(&j);
		return 2;
	}
	o.boards = mask;
	o.dry_run = dry;
	o.db = opt_db;
	if (results)
		o.results = results;
	if (format)
		o.format = format;
	if (dry)
		printf("job %s (%s): %s%d+%d boots, order %s, %d batches%s%s, nightly %s\n",
		       j.name, j.jf.path, o.budget ? "sequential, at most " : "",
		       o.budget ? o.budget : o.boots, o.budget ? o.budget : o.boots,
		       order_name(o.order), o.batches,
		       o.params ? ", params " : "", o.params ? o.params : "",
		       j.nightly ? "yes" : "no");
	install_signal_handlers();
	ret = job_run(&j, &o, NULL);
	free(mask);
	job_free(&j);
	if (ret == -EINTR)
		return 130;
	return ret ? 1 : 0;
}
