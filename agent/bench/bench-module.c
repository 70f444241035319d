// SPDX-License-Identifier: GPL-2.0-only
/* The module benchmark kind's definition: your own .ko, one per variant (built by the
 * kernel recipe from its source, or prebuilt), from the job file, the command line and the
 * run record, and its checks before any boot.  Its run is dmabench's (bench-dmabench.c). */
#include "bench/bench.h"
#include "bench/bench-int.h"
#include "variant.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MODULE_MAX (16 << 20)

char *bench_module_file(const struct bench_def *d, const char *board, const char *kdir, int v)
{
	const char *t = d->module.ko[v], *p;
	struct buf b = { 0 };

	if (!t)
		return xasprintf("%s/%s.ko", kdir, d->module.module);
	for (p = t; *p; p++) {
		if (!strncmp(p, "{board}", 7)) {
			buf_printf(&b, "%s", board);
			p += 6;
		} else {
			buf_append(&b, p, 1);
		}
	}
	buf_append(&b, "", 1);
	return b.data;
}

/* The value of "\0KEY=" in a module's .modinfo strings (caller frees). */
static char *modinfo_get(const char *data, size_t len, const char *key)
{
	char *pat = xasprintf("%c%s=", '\0', key);
	size_t plen = strlen(key) + 2;
	const char *p = memmem(data, len, pat, plen), *end;

	free(pat);
	if (!p)
		return NULL;
	p += plen;
	end = memchr(p, '\0', len - (size_t)(p - data));
	return end ? strndup(p, (size_t)(end - p)) : NULL;
}

int bench_modinfo(const char *data, size_t len, char **release, char **name)
{
	char *vm;

	*release = *name = NULL;
	if (len < 64 || memcmp(data, "\177ELF", 4))
		return -EINVAL;
	vm = modinfo_get(data, len, "vermagic");
	if (!vm)
		return -EINVAL;
	*release = strndup(vm, strcspn(vm, " "));
	free(vm);
	*name = modinfo_get(data, len, "name");
	return 0;
}

int bench_module_check_kernel(const struct bench_def *dm, const char *board,
			      const struct kernel_art *k, int v)
{
	const struct bench_module_def *d = &dm->module;
	const char *const *vn = variant_names;
	char *path, *data = NULL, *rel = NULL, *name = NULL;
	size_t len;
	int ret;

	/* the module's name and file name go into target shell commands unquoted */
	if (!d->module || !shell_word_ok(d->module)) {
		err_msg("%s: module name \"%s\": only letters, digits, . _ + - (not starting with - or .): it goes into target shell commands",
			board, d->module ? d->module : "");
		return -EINVAL;
	}
	path = bench_module_file(dm, board, k->dir, v);
	if (!shell_word_ok(strrchr(path, '/') ? strrchr(path, '/') + 1 : path)) {
		err_msg("%s: %s module file %s: its name may hold only letters, digits, . _ + - (not starting with - or .): it goes into target shell commands; rename the file",
			board, vn[v], path);
		free(path);
		return -EINVAL;
	}
	if (!d->ko[v] && d->module_src) {
		free(path);
		return 0; /* recipe-built: build.sh checked its vermagic */
	}
	ret = read_file(path, &data, &len);
	if (ret) {
		err_msg("%s: %s module %s: %s (%s)", board, vn[v], path, strerror(-ret),
			d->ko[v] ?
				"the job's benchmark.ko, or --module " :
				"--module NAME takes NAME.ko from each kernel directory; name the files with --module control=FILE --module patched=FILE");
		goto out;
	}
	if (bench_modinfo(data, len, &rel, &name)) {
		err_msg("%s: %s module %s is not a Linux kernel module (no ELF .modinfo with vermagic=)",
			board, vn[v], path);
		ret = -EINVAL;
	} else if (!k->release || strcmp(rel, k->release)) {
		err_msg("%s: %s module %s was built for kernel %s (its vermagic), but the %s kernel is %s (%s): build the module against each variant's own tree",
			board, vn[v], path, rel, vn[v], k->release ? k->release : "?", k->dir);
		ret = -EINVAL;
	} else if (len > BENCH_MODULE_MAX) {
		err_msg("%s: %s module %s is %zu bytes, more than the %d MiB ablab copies over a console (strip its debug information: ${CROSS_COMPILE}strip --strip-debug %s)",
			board, vn[v], path, len, BENCH_MODULE_MAX >> 20, path);
		ret = -EFBIG;
	}
out:
	free(rel);
	free(name);
	free(data);
	free(path);
	return ret;
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
int bench_module_job(struct bench_def *d, json_object *t, const struct bench_job *j)
{
	struct bench_module_def *m = &d->module;
	const char *src = jstr(t, "src"), *parser = jstr(t, "parser"), *name = jstr(t, "module");
	json_object *ko = jobj(t, "ko");
	char real[PATH_MAX], *p, *mod;
	int bad = 0, v;

	if (!!src + !!name + !!ko != 1) {
		bench_job_error(
			j, src || name || ko ? "benchmark.ko" : "benchmark.name",
			"a \"module\" benchmark needs one of \"src\" (its source directory, built with recipe kernels), \"module\" (NAME: NAME.ko in each kernel directory) or \"ko\" ({\"control\": FILE, \"patched\": FILE}, prebuilt)");
		return 1;
	}
	m->parser_fmt = 1;
	if (parser && !strcmp(parser, "seed")) {
		m->parser_fmt = 0;
	} else if (parser && strcmp(parser, "dmabench")) {
		bench_job_error(
			j, "benchmark.parser",
			"\"%s\" is not one of dmabench (v1 lines), seed (the seed module's lines)",
			parser);
		bad = 1;
	}
	if (name) {
		if (!module_name_ok(name)) {
			bench_job_error(
				j, "benchmark.module",
				"\"%s\": a module name (letters, digits, _ and -, without .ko); the file NAME.ko is taken from each kernel directory",
				name);
			return 1;
		}
		m->module = xstrdup(name);
		return bad;
	}
	if (ko && !j->pair) {
		bench_job_error(
			j, "benchmark.ko",
			"prebuilt module files name the control and the patched kernel only: a campaign of the variants %s, %s, ... builds its module from \"src\" (recipe kernels) or takes NAME.ko from each kernel directory (\"module\": NAME)",
			j->label[0], j->label[1]);
		return 1;
	}
	if (ko) {
		for (v = 0; v < 2; v++) {
			const char *f = jstr(ko, variant_names[v]);
			size_t l = strlen(f);

			if (l < 4 || strcmp(f + l - 3, ".ko")) {
				char *path = xasprintf("benchmark.ko.%s", variant_names[v]);

				bench_job_error(j, path, "\"%s\" is not a .ko file", f);
				free(path);
				bad = 1;
			}
			m->ko[v] = f[0] == '/' ? xstrdup(f) : xasprintf("%s/%s", j->jobdir, f);
		}
		if (bad)
			return 1;
		p = strrchr(m->ko[0], '/') + 1;
		m->module = strndup(p, strlen(p) - 3);
		return 0;
	}
	p = src[0] == '/' ? xstrdup(src) : xasprintf("%s/%s", j->jobdir, src);
	if (!realpath(p, real) || !is_dir(real)) {
		bench_job_error(
			j, "benchmark.src",
			"%s is not a directory (paths are relative to the job file's directory)",
			p);
		free(p);
		return 1;
	}
	free(p);
	m->module_src = xstrdup(real);
	m->module = mod = module_name(real);
	if (!mod) {
		bench_job_error(j, "benchmark.src",
				"%s has no \"obj-m := NAME.o\" line in a Kbuild or Makefile", real);
		bad = 1;
	} else if (!strcmp(mod, "dmabench")) {
		bench_job_error(
			j, "benchmark.src",
			"the module is called dmabench, as the lab's own: rename it, or use benchmark \"dmabench\"");
		bad = 1;
	}
	if (j->not_recipe) {
		bench_job_error(
			j, "benchmark.src",
			"the module is built against each variant's kernel tree: variants.%s.source.type must be \"recipe\" (for prebuilt kernels give the built modules: \"module\": NAME for NAME.ko in each kernel directory, or \"ko\": {\"control\": FILE, \"patched\": FILE})",
			j->not_recipe);
		bad = 1;
	}
	return bad;
}

bool bench_module_cli_given(const struct bench_cli *a)
{
	return a->module || a->ko[0] || a->ko[1] || a->parser;
}

int bench_module_cli(struct bench_def *d, const struct bench_cli *a)
{
	struct bench_module_def *m = &d->module;

	m->parser_fmt = 1;
	if (a->parser && !strcmp(a->parser, "seed")) {
		m->parser_fmt = 0;
	} else if (a->parser && strcmp(a->parser, "dmabench")) {
		err_msg("--parser: \"%s\" is not one of dmabench (v1 lines), seed (the seed module's lines)",
			a->parser);
		return 2;
	}
	if (a->module && (a->ko[0] || a->ko[1])) {
		err_msg("--module: give NAME (NAME.ko in each kernel directory) or control=FILE and patched=FILE, not both");
		return 2;
	}
	if (!a->module && (!a->ko[0] || !a->ko[1])) {
		err_msg("--benchmark module needs --module NAME (NAME.ko in each kernel directory) or --module control=FILE --module patched=FILE (%s missing)",
			a->ko[0] ? "patched=FILE" :
			a->ko[1] ? "control=FILE" :
				   "both");
		return 2;
	}
	if (a->module) {
		m->module = xstrdup(a->module);
	} else {
		const char *b = strrchr(a->ko[0], '/') ? strrchr(a->ko[0], '/') + 1 : a->ko[0];

		m->module = strndup(b, strlen(b) - 3);
		m->ko[0] = xstrdup(a->ko[0]);
		m->ko[1] = xstrdup(a->ko[1]);
	}
	return 0;
}

void bench_module_write(const struct bench_def *d, json_object *run)
{
	const struct bench_module_def *m = &d->module;

	json_object_object_add(run, "module", json_object_new_string(m->module));
	if (m->module_src)
		json_object_object_add(run, "module_src", json_object_new_string(m->module_src));
	if (m->ko[0] && m->ko[1]) {
		json_object *ko = json_object_new_object();

		json_object_object_add(ko, "control", json_object_new_string(m->ko[0]));
		json_object_object_add(ko, "patched", json_object_new_string(m->ko[1]));
		json_object_object_add(run, "ko", ko);
	}
	json_object_object_add(run, "parser",
			       json_object_new_string(m->parser_fmt ? "dmabench" : "seed"));
}

static const char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int bench_module_read(struct bench_def *d, json_object *run, const char *modparams,
		      struct errtext *why)
{
	struct bench_module_def *m = &d->module;
	const char *parser = jstr(run, "parser");

	(void)modparams;
	m->module = dup_or_null(jstr(run, "module"));
	m->module_src = dup_or_null(jstr(run, "module_src"));
	m->ko[0] = dup_or_null(jstr(jobj(run, "ko"), "control"));
	m->ko[1] = dup_or_null(jstr(jobj(run, "ko"), "patched"));
	m->parser_fmt = parser && !strcmp(parser, "seed") ? 0 : 1;
	if (!m->module)
		return errtext_set(why, -EINVAL, "its stored module benchmark has no module name");
	return 0;
}

const char *bench_module_build_src(const struct bench_def *d)
{
	return d->module.module_src;
}

void bench_module_free(struct bench_def *d)
{
	struct bench_module_def *m = &d->module;

	free((char *)m->module_src);
	free((char *)m->module);
	free((char *)m->ko[0]);
	free((char *)m->ko[1]);
	memset(m, 0, sizeof(*m));
}
