/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_H
#define ABLAB_BENCH_H

#include "board.h"
#include "kernel.h"
#include "bench/parse.h"
#include "shared/util.h"
#include "backend/target.h"

#include <json-c/json.h>
#include <stdbool.h>

/*
 * What runs on the target (the job file's "benchmark" section, `ablab ab --benchmark`, the
 * stored run record): one kind, an ops table in bench/ (bench.c lists them, one file per
 * kind), and the kind's own data.  Only bench/ reads the kinds' structs; everything else
 * goes through the bench_*() calls below.  A NULL definition is dmabench.
 */
struct bench_ops;

/* regex: a shell command; every match of the POSIX ERE in its output is one sample: the
 * scenario, the value and its unit (ns, us, ms, s; group 0 = no unit group: values are ns)
 * from these groups */
struct bench_regex_def {
	const char *command, *regex;
	int g_scenario, g_value, g_unit;
};

/* dma_map_benchmark: the kernel's dma_map_benchmark (CONFIG_DMA_MAP_BENCHMARK) run once
 * per batch with these arguments; dir 0 bidi, 1 to, 2 from */
struct bench_dma_map_def {
	int threads, seconds, granule, dir;
};

/* module: your own module, one .ko per variant: built by the kernel recipe from
 * module_src (the kernel directory's MODULE.ko, also in its initramfs), or prebuilt: ko[v]
 * (a file; "{board}" is replaced by the board name), else MODULE.ko in the variant's kernel
 * directory.  A .ko the target does not have already is copied over the console.  Its lines
 * must be in parser_fmt (0 the seed module's, 1 dmabench v1); with the seed format no
 * batches= parameter is passed (one batch per load, as the seed module prints). */
struct bench_module_def {
	const char *module_src, *module;
	const char *ko[2];
	int parser_fmt;
};

struct bench_def {
	const struct bench_ops *ops; /* NULL: dmabench */
	union { /* the kind's own data (strings owned: bench_def_free()) */
		struct bench_regex_def regex;
		struct bench_dma_map_def dma_map;
		struct bench_module_def module;
	};
};

struct bench_params {
	int batches;
	const char *modparams; /* extra dmabench parameters, e.g. "reps=100" */
	const struct bench_def *def; /* NULL: dmabench */
	const struct kernel_art *kernel; /* the kernel this boot runs (module) */
	int variant; /* 0 control, 1 patched */
};

struct bench_out {
	char *uname_r, *proc_version;
	struct run_result res;
	int64_t run_ms;
	int64_t t_start, t_end; /* monotonic ms: the benchmark command typed, its output read */
	bool fatal; /* retrying cannot help (the module refuses to load, prints
			 * another format than the parser's) */
	int batches; /* batches per scenario that ran (every scenario the same),
			 * 0 when unknown */
	struct errtext error; /* why the run failed: board, what, the fix */
	/* what the target said of its environment (bench-env.c: cmdline, cpufreq,
	 * thermal_mc_start/end, governor_pinned), NULL: nothing read */
	json_object *env;
};

void bench_out_free(struct bench_out *o);

/* Runs the benchmark p->def names (dmabench when NULL) on a booted target. */
int bench_run(struct target *t, const struct board *b, const struct bench_params *p,
	      struct bench_out *o);
/* The kind's name ("dmabench", "regex", "dma_map_benchmark", "module"). */
const char *bench_name(const struct bench_def *d);
void bench_def_free(struct bench_def *d);

/* The job file's "benchmark" section t (its "name" and "params" already read): the kind's
 * keys into d.  What the kind needs of the rest of the job, and where its errors go. */
struct bench_job {
	const char *name, *params;
	const char *jobdir; /* relative paths are relative to it */
	bool pair; /* the variants are control and patched only */
	const char *label[2]; /* the first two variants' labels */
	const char *not_recipe; /* the first variant not built by the recipe, or NULL */
	/* prints "file:line:col: jpath: message" */
	void (*error)(const void *ctx, const char *jpath, const char *msg);
	const void *ctx;
};
/* 0, or -EINVAL: every problem printed through j->error. */
int bench_from_job(struct bench_def *d, json_object *t, const struct bench_job *j);

/* `ablab ab`'s benchmark options; NULL: not given. */
struct bench_cli {
	const char *name, *module, *ko[2], *parser, *command, *regex, *groups, *params;
};
/* 0, or 2 (a usage error, printed). */
int bench_from_cli(struct bench_def *d, const struct bench_cli *a);

/* The stored run record ("benchmark" and the kind's keys) of d, and back: 0, or -EINVAL
 * with why (an unknown kind, missing or invalid keys); modparams are the campaign's. */
void bench_record_write(const struct bench_def *d, json_object *run);
int bench_record_read(struct bench_def *d, json_object *run, const char *modparams,
		      struct errtext *why);

/* The campaign's --params for the kind: for dma_map_benchmark its arguments ("threads=1
 * seconds=1 granule=1 dir=from", any order, any subset); 0 or -EINVAL with why. */
int bench_set_params(struct bench_def *d, const char *params, struct errtext *why);
/* Before any boot: what the kind runs of kernel k is there and fits it (a module file
 * exists, is a kernel module, and was built for the kernel's release).  0 or -errno,
 * printed naming the board, the variant, the file and the fix. */
int bench_check_kernel(const struct bench_def *d, const char *board, const struct kernel_art *k,
		       int v);
/* The host file the kind loads for variant v of board on kernel directory kdir (caller
 * frees); NULL for a kind that loads none. */
char *bench_kernel_file(const struct bench_def *d, const char *board, const char *kdir, int v);
/* The kind loads a prebuilt file of each kernel (bench_kernel_file(), checked by
 * bench_check_kernel()). */
bool bench_prebuilt_file(const struct bench_def *d);
/* The source directory the kernel recipe builds with each kernel, or NULL. */
const char *bench_build_src(const struct bench_def *d);
/* The first ok boot's timing modes hold for the rest of the campaign (timing.h). */
bool bench_pins_timing(const struct bench_def *d);
/* LAVA jobs can run it. */
bool bench_lava_ok(const struct bench_def *d);
/* Its timing rows follow from the module parameters (scenarios=): known before a boot. */
bool bench_rows_known(const struct bench_def *d);

/* The batches per scenario in r: every scenario's count when they agree,
 * else -1 (why says which differ); 0 without samples. */
int bench_batches(const struct run_result *r, struct errtext *why);
/* The format check of a module's output: -EINVAL with why ("expected
 * dmabench v1 lines, saw seed-format lines ...") when r holds samples of
 * the other format (fmt 0 seed, 1 dmabench v1); hint is the fix to name. */
int bench_format_check(const struct run_result *r, int expect_fmt, const char *hint,
		       struct errtext *why);

#endif
