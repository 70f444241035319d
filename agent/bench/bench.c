// SPDX-License-Identifier: GPL-2.0-only
/* Benchmarks run on the target: the registry of the kinds, one ops table each (the kinds:
 * bench-dmabench.c, bench-regex.c, bench-dma-map.c; what they share: bench-util.c), and the
 * calls the rest of ablab makes, each one the kind's op. */
#include "bench/bench.h"
#include "bench/bench-int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* in the order `ablab ab --help` names them */
static const struct bench_ops *const bench_kinds[] = {
	&bench_dmabench_ops,
	&bench_module_ops,
	&bench_regex_ops,
	&bench_dma_map_ops,
};

#define NKINDS (sizeof(bench_kinds) / sizeof(bench_kinds[0]))

static const struct bench_ops *ops_of(const struct bench_def *d)
{
	return d && d->ops ? d->ops : &bench_dmabench_ops;
}

static const struct bench_ops *find_kind(const char *name)
{
	for (size_t i = 0; name && i < NKINDS; i++)
		if (!strcmp(bench_kinds[i]->name, name))
			return bench_kinds[i];
	return NULL;
}

int bench_run(struct target *t, const struct board *b, const struct bench_params *p,
	      struct bench_out *o)
{
	return ops_of(p->def)->run(t, b, p, o);
}

const char *bench_name(const struct bench_def *d)
{
	return ops_of(d)->name;
}

void bench_def_free(struct bench_def *d)
{
	if (d && d->ops && d->ops->free)
		d->ops->free(d);
}

/* Keys only a benchmark of another kind has: each one present is an error. */
static int reject_keys(const struct bench_ops *k, json_object *t, const struct bench_job *j)
{
	int bad = 0;

	for (size_t i = 0; i < NKINDS; i++) {
		const char *const *key = bench_kinds[i]->job_keys;

		for (; bench_kinds[i] != k && key && *key; key++) {
			char *path = xasprintf("benchmark.%s", *key);

			if (jobj(t, *key)) {
				bench_job_error(j, path, "only a \"%s\" benchmark has a %s",
						bench_kinds[i]->name, *key);
				bad = 1;
			}
			free(path);
		}
	}
	return bad;
}

int bench_from_job(struct bench_def *d, json_object *t, const struct bench_job *j)
{
	const struct bench_ops *k = find_kind(j->name);
	int bad = reject_keys(k, t, j), ret;

	memset(d, 0, sizeof(*d));
	if (!k) {
		bench_job_error(
			j, "benchmark.name",
			"unknown benchmark \"%s\"; known: dmabench, regex, dma_map_benchmark, module",
			j->name);
		return -EINVAL;
	}
	d->ops = k;
	ret = k->job_parse ? k->job_parse(d, t, j) : 0;
	if (ret < 0)
		return ret;
	bad |= ret;
	if (!k->own_params && j->params && !modparams_ok(j->params)) {
		bench_job_error(j, "benchmark.params", "%s", MODPARAMS_RULE);
		bad = 1;
	}
	return bad ? -EINVAL : 0;
}

int bench_from_cli(struct bench_def *d, const struct bench_cli *a)
{
	const char *name = a->name;
	const struct bench_ops *k;

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; !name && i < NKINDS; i++)
		if (bench_kinds[i]->cli_given && bench_kinds[i]->cli_given(a))
			name = bench_kinds[i]->name;
	if (!name)
		name = bench_dmabench_ops.name;
	for (size_t i = 0; i < NKINDS; i++) {
		k = bench_kinds[i];
		if (k->cli_given && strcmp(name, k->name) && k->cli_given(a)) {
			err_msg("%s are for --benchmark %s, not %s", k->cli_opts, k->name, name);
			return 2;
		}
	}
	k = find_kind(name);
	if (!k) {
		err_msg("--benchmark: unknown benchmark \"%s\"; known: dmabench, module, regex, dma_map_benchmark",
			name);
		return 2;
	}
	d->ops = k;
	return k->cli_parse ? k->cli_parse(d, a) : 0;
}

void bench_record_write(const struct bench_def *d, json_object *run)
{
	const struct bench_ops *k = ops_of(d);

	json_object_object_add(run, "benchmark", json_object_new_string(k->name));
	if (k->record_write)
		k->record_write(d, run);
}

int bench_record_read(struct bench_def *d, json_object *run, const char *modparams,
		      struct errtext *why)
{
	const char *name = jstr(run, "benchmark");
	const struct bench_ops *k = name ? find_kind(name) : &bench_dmabench_ops;

	memset(d, 0, sizeof(*d));
	if (!k)
		return errtext_set(
			why, -EINVAL,
			"its stored benchmark \"%s\" is not one this ablab knows (dmabench, module, regex, dma_map_benchmark)",
			name);
	d->ops = k;
	return k->record_read ? k->record_read(d, run, modparams, why) : 0;
}

int bench_set_params(struct bench_def *d, const char *params, struct errtext *why)
{
	const struct bench_ops *k = ops_of(d);

	return k->set_params ? k->set_params(d, params, why) : 0;
}

int bench_check_kernel(const struct bench_def *d, const char *board, const struct kernel_art *k,
		       int v)
{
	const struct bench_ops *o = ops_of(d);

	return o->check_kernel ? o->check_kernel(d, board, k, v) : 0;
}

char *bench_kernel_file(const struct bench_def *d, const char *board, const char *kdir, int v)
{
	const struct bench_ops *k = ops_of(d);

	return k->kernel_file ? k->kernel_file(d, board, kdir, v) : NULL;
}

const char *bench_build_src(const struct bench_def *d)
{
	const struct bench_ops *k = ops_of(d);

	return k->build_src ? k->build_src(d) : NULL;
}

bool bench_pins_timing(const struct bench_def *d)
{
	return ops_of(d)->pin_timing;
}

bool bench_lava_ok(const struct bench_def *d)
{
	return ops_of(d)->lava;
}

bool bench_rows_known(const struct bench_def *d)
{
	return ops_of(d)->rows_known;
}

bool bench_prebuilt_file(const struct bench_def *d)
{
	return ops_of(d)->kernel_file && !bench_build_src(d);
}
