// SPDX-License-Identifier: GPL-2.0-only
/* A job file's "variants" (or "series": "prefixes"): each variant's kernel source
 * (recipe, prebuilt, git), its patch directory or b4 series, and the prefixes of a
 * series.  The rest of the job file is job.c. */
#include "job.h"
#include "job-int.h"
#include "shared/util.h"
#include "variant.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct jfield source_fields[] = {
	{ "type", J_STRING, true }, /* recipe | prebuilt | git */
	{ "dir", J_STRING }, /* prebuilt: directory with manifest.json, {board} */
	{ "tree", J_STRING }, /* git: the kernel git tree */
	{ "ref", J_STRING }, /* git: the commit to build (a ref git rev-parse takes) */
	{ NULL }
};

static const struct jfield variant_fields[] = {
	{ "source", J_OBJECT, true, source_fields },
	{ "patches", J_ANY }, /* patched + recipe: directory of *.patch, or a series */
	{ "description", J_STRING },
	{ NULL }
};

/* "patches": {"mbox": FILE, "msgid": ID}: the series b4 takes from the mailbox becomes
 * the patch directory. */
static int load_series(struct job *j, int v, const char *name, json_object *o, const char *jobdir)
{
	char *path = xasprintf("variants.%s.patches", name), *p, real[PATH_MAX];
	const char *mbox = NULL, *msgid = NULL;
	char why[1024];
	int bad = 0;

	if (!json_object_is_type(o, json_type_object)) {
		job_error(
			j, path,
			"must be a directory (a string) or a series {\"mbox\": FILE, \"msgid\": ID}");
		free(path);
		return -EINVAL;
	}
	json_object_object_foreach(o, key, val)
	{
		if (strcmp(key, "mbox") && strcmp(key, "msgid")) {
			job_error(j, path,
				  "unknown key \"%s\" (a series has \"mbox\" and \"msgid\")", key);
			bad = 1;
		} else if (!json_object_is_type(val, json_type_string) ||
			   !json_object_get_string(val)[0]) {
			job_error(j, path, "\"%s\" must be a non-empty string", key);
			bad = 1;
		} else if (!strcmp(key, "mbox")) {
			mbox = json_object_get_string(val);
		} else {
			msgid = json_object_get_string(val);
		}
	}
	if (!bad && !mbox) {
		job_error(
			j, path,
			"a series needs \"mbox\": the mailbox file b4 reads (ablab never fetches from lore: save the thread with `b4 mbox MSGID` first)");
		bad = 1;
	}
	if (bad) {
		free(path);
		return -EINVAL;
	}
	if (msgid) { /* "<id>", "id" or a lore link: the id */
		const char *q = strrchr(msgid, '/');
		size_t l;

		if (!strncmp(msgid, "https://", 8) && q && q[1])
			msgid = q + 1;
		else if (!strncmp(msgid, "https://", 8) && q) {
			while (q > msgid && q[-1] != '/')
				q--;
			msgid = q;
		}
		if (msgid[0] == '<')
			msgid++;
		l = strcspn(msgid, ">/");
		j->v[v].series.msgid = strndup(msgid, l);
		if (!l || strcspn(msgid, " \t\n") < l || msgid[0] == '-') {
			char *mp = xasprintf("%s.msgid", path);

			job_error(j, mp, "\"%s\" is not a message-id",
				  json_object_get_string(jobj(o, "msgid")));
			free(mp);
			free(path);
			return -EINVAL;
		}
	}
	p = mbox[0] == '/' ? xstrdup(mbox) : xasprintf("%s/%s", jobdir, mbox);
	free(path);
	path = xasprintf("variants.%s.patches.mbox", name);
	if (!realpath(p, real) || !is_file(real)) {
		job_error(j, path,
			  "%s is not a file (paths are relative to the job file's directory)", p);
		bad = 1;
	} else {
		char *id = j->v[v].series.msgid;

		j->v[v].series.msgid = NULL;
		if (series_from_mbox(real, id, &j->v[v].series, why, sizeof(why))) {
			char *mp = xasprintf("variants.%s.patches.msgid", name);

			job_error(j, id ? mp : path, "%s", why);
			free(mp);
			bad = 1;
		} else {
			j->v[v].mbox = xstrdup(real);
			j->v[v].patches = xstrdup(j->v[v].series.dir);
		}
		free(id);
	}
	free(p);
	free(path);
	return bad ? -EINVAL : 0;
}

/* source {"type": "git", "tree": DIR, "ref": REF}: the tree relative to the job file */
static int load_git_source(struct job *j, int v, const char *name, json_object *src,
			   const char *jobdir)
{
	const char *tree = jstr(src, "tree"), *ref = jstr(src, "ref");
	char *path, real[PATH_MAX], *p;
	int bad = 0;

	if (j->v[v].kind != SRC_GIT) {
		path = xasprintf("variants.%s.source.%s", name, tree ? "tree" : "ref");
		if (tree || ref) {
			job_error(j, path, "only a \"git\" source has a tree and a ref");
			bad = 1;
		}
		free(path);
		return bad ? -EINVAL : 0;
	}
	path = xasprintf("variants.%s.source.tree", name);
	if (!tree) {
		job_error(
			j, path,
			"required for source type \"git\": the kernel git tree (a work tree or a bare repository; relative to the job file's directory)");
		bad = 1;
	} else {
		p = tree[0] == '/' ? xstrdup(tree) : xasprintf("%s/%s", jobdir, tree);
		if (!realpath(p, real) || !is_dir(real)) {
			job_error(j, path, "%s is not a directory", p);
			bad = 1;
		} else {
			j->v[v].git_tree = xstrdup(real);
		}
		free(p);
	}
	free(path);
	path = xasprintf("variants.%s.source.ref", name);
	if (!ref || !*ref) {
		job_error(
			j, path,
			"required for source type \"git\": the commit to build (a branch, tag or commit id)");
		bad = 1;
	}
	j->v[v].git_ref = ref;
	free(path);
	return bad ? -EINVAL : 0;
}

static int load_variant(struct job *j, int v, const char *name, char *const jobdir)
{
	json_object *o = jobj(jobj(j->jf.root, "variants"), name);
	json_object *src = jobj(o, "source"), *series;
	const char *type = jstr(src, "type"), *dir = jstr(src, "dir"), *patches;
	char *path;
	int bad = 0;

	path = xasprintf("variants.%s", name);
	if (jfile_validate(&j->jf, o, path, variant_fields)) {
		free(path);
		return -EINVAL;
	}
	free(path);
	path = xasprintf("variants.%s.source.type", name);
	if (!strcmp(type, "recipe")) {
		j->v[v].kind = SRC_RECIPE;
	} else if (!strcmp(type, "prebuilt")) {
		j->v[v].kind = SRC_PREBUILT;
	} else if (!strcmp(type, "git")) {
		j->v[v].kind = SRC_GIT;
	} else if (!strcmp(type, "tarball") || !strcmp(type, "dir")) {
		job_error(
			j, path,
			"source type \"%s\" is not supported yet: the kernel recipe (boards/kernel/BOARD.conf) names its source tarball; use \"recipe\", or build elsewhere and use \"prebuilt\"",
			type);
		bad = 1;
	} else {
		job_error(
			j, path,
			"unknown source type \"%s\"; expected \"recipe\" (the board's kernel recipe), \"prebuilt\" (a built directory) or \"git\" (a commit of a git tree, built through the board's recipe)",
			type);
		bad = 1;
	}
	free(path);
	path = xasprintf("variants.%s.source.dir", name);
	if (j->v[v].kind == SRC_PREBUILT && !bad) {
		if (!dir) {
			job_error(
				j, path,
				"required for source type \"prebuilt\" (a directory with manifest.json; \"{board}\" is replaced by the board name)");
			bad = 1;
		} else {
			j->v[v].prebuilt = dir[0] == '/' ? xstrdup(dir) :
							   xasprintf("%s/%s", jobdir, dir);
		}
	} else if (dir && !bad) {
		job_error(j, path, "only a \"prebuilt\" source has a directory");
		bad = 1;
	}
	free(path);
	if (!bad && load_git_source(j, v, name, src, jobdir))
		bad = 1;
	series = jobj(o, "patches");
	if (series && json_object_is_type(series, json_type_string)) {
		series = NULL;
		patches = jstr(o, "patches");
	} else {
		patches = NULL;
	}
	path = xasprintf("variants.%s.patches", name);
	if ((patches || series) && (v == 0 || j->v[v].kind != SRC_RECIPE)) {
		job_error(
			j, path,
			v == 0 ?
				"the control variant is the pristine source: move the patch series to variants.patched" :
			j->v[v].kind == SRC_GIT ?
				"a git source takes no patches: commit them and name that commit in \"ref\"" :
				"a prebuilt kernel cannot take patches: build it with them, or use source type \"recipe\"");
		bad = 1;
	} else if (v >= 1 && j->v[v].kind == SRC_RECIPE) {
		if (!patches && !series) {
			job_error(
				j, path,
				"required: the patch series directory (*.patch, applied in name order) for a recipe-built patched kernel, or {\"mbox\": FILE, \"msgid\": ID}");
			bad = 1;
		} else if (series) {
			if (load_series(j, v, name, series, jobdir))
				bad = 1;
		} else {
			char *p = patches[0] == '/' ? xstrdup(patches) :
						      xasprintf("%s/%s", jobdir, patches);
			char real[PATH_MAX];

			if (!realpath(p, real) || !is_dir(real)) {
				job_error(
					j, path,
					"%s is not a directory (paths are relative to the job file's directory)",
					p);
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

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.patch files of dir, in byte order of their names (as build.sh globs them under
 * LC_ALL=C); NULL-terminated, *n of them. */
static char **patch_files(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = xcalloc(1, sizeof(*v));

	*n = 0;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= 6 || strcmp(de->d_name + l - 6, ".patch"))
			continue;
		v = xrealloc(v, (*n + 2) * sizeof(*v));
		v[(*n)++] = xstrdup(de->d_name);
		v[*n] = NULL;
	}
	if (d)
		closedir(d);
	qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

/* "variants": control first, then the others in the file's order; "series": "prefixes"
 * turns control + patched into control, +1, +1-2, ... over patched's patches. */
int load_variants(struct job *j, char *const jobdir)
{
	json_object *vo = jobj(j->jf.root, "variants");
	const char *series = jstr(j->jf.root, "series");
	char **files, label[VARIANT_LABEL_MAX];
	int bad = 0, v;
	size_t n, k;

	if (!jobj(vo, "control")) {
		job_error(
			j, "variants",
			"required key \"control\" missing (the pristine kernel every other variant is compared with)");
		return -EINVAL;
	}
	variant_set_add(&j->vs, "control");
	json_object_object_foreach(vo, key, val)
	{
		(void)val;
		if (!strcmp(key, "control"))
			continue;
		if (!variant_label_ok(key)) {
			job_error(
				j, "variants",
				"\"%s\": a variant name is 1-31 letters, digits, '+', '.', '_' or '-', not starting with '-' (it names transcripts and database rows)",
				key);
			bad = 1;
		} else if (variant_set_add(&j->vs, key)) {
			job_error(
				j, "variants",
				"more than %d variants (control included): one campaign compares at most %d kernels",
				VARIANTS_MAX, VARIANTS_MAX);
			return -EINVAL;
		}
	}
	if (!bad && j->vs.n < 2) {
		job_error(
			j, "variants",
			"needs a variant to compare with control: \"patched\" (or any number of named variants, or \"series\": \"prefixes\")");
		return -EINVAL;
	}
	for (v = 0; v < j->vs.n; v++)
		if (load_variant(j, v, j->vs.label[v], jobdir))
			bad = 1;
	if (bad || !series)
		return bad ? -EINVAL : 0;
	if (strcmp(series, "prefixes")) {
		job_error(
			j, "series",
			"\"%s\" is not \"prefixes\" (control, +patch 1, +patches 1-2, ... of variants.patched.patches)",
			series);
		return -EINVAL;
	}
	if (j->vs.n != 2 || strcmp(j->vs.label[1], "patched") || j->v[1].kind != SRC_RECIPE) {
		job_error(
			j, "series",
			"\"prefixes\" takes its patches from variants.patched: give exactly the variants control and patched, both of source type \"recipe\"");
		return -EINVAL;
	}
	files = patch_files(j->v[1].patches, &n);
	if (!n || n + 1 > VARIANTS_MAX) {
		job_error(
			j, "series",
			n ? "%s has %zu patches: a series campaign has at most %d variants (control and %d prefixes); split the series" :
			    "%s has no *.patch",
			j->v[1].patches, n, VARIANTS_MAX, VARIANTS_MAX - 1);
		strv_free(files);
		return -EINVAL;
	}
	j->series = true;
	j->vs.n = 1;
	for (k = 1; k <= n; k++) {
		struct job_variant *jv = &j->v[k];

		if (k > 1) {
			jv->kind = SRC_RECIPE;
			jv->patches = xstrdup(j->v[1].patches);
		}
		jv->npatches = (int)k;
		jv->adds = xstrdup(files[k - 1]);
		variant_prefix_label((int)k, label, sizeof(label));
		variant_set_add(&j->vs, label);
	}
	strv_free(files);
	return 0;
}
