/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_H
#define ABLAB_BENCH_H

#include "board.h"
#include "kernel.h"
#include "bench/parse.h"
#include "shared/util.h"
#include "backend/target.h"

/* What runs on the target (the job file's "benchmark" section). */
enum bench_kind { BENCH_DMABENCH, BENCH_REGEX, BENCH_DMA_MAP, BENCH_MODULE };

struct bench_def {
	enum bench_kind kind;
	/* BENCH_REGEX: a shell command; every match of the POSIX ERE in its
	 * output is one sample: the scenario, the value and its unit (ns, us,
	 * ms, s; group 0 = no unit group: values are ns) from these groups */
	const char *command, *regex;
	int g_scenario, g_value, g_unit;
	/* BENCH_DMA_MAP: the kernel's dma_map_benchmark (CONFIG_DMA_MAP_BENCHMARK)
	 * run once per batch with these arguments; dir 0 bidi, 1 to, 2 from */
	int threads, seconds, granule, dir;
	/* BENCH_MODULE: your own module, one .ko per variant: built by the
	 * kernel recipe from module_src (the kernel directory's MODULE.ko, also
	 * in its initramfs), or prebuilt: ko[v] (a file; "{board}" is replaced
	 * by the board name), else MODULE.ko in the variant's kernel directory.
	 * A .ko the target does not have already is copied over the console.
	 * Its lines must be in parser_fmt (0 the seed module's, 1 dmabench v1);
	 * with the seed format no batches= parameter is passed (one batch per
	 * load, as the seed module prints). */
	const char *module_src, *module;
	const char *ko[2];
	int parser_fmt;
};

struct bench_params {
	int batches;
	const char *modparams; /* extra dmabench parameters, e.g. "reps=100" */
	const struct bench_def *def; /* NULL: dmabench */
	const struct kernel_art *kernel; /* the kernel this boot runs (BENCH_MODULE) */
	int variant; /* 0 control, 1 patched */
};

struct bench_out {
	char *uname_r, *proc_version;
	struct run_result res;
	int64_t run_ms;
	bool fatal; /* retrying cannot help (the module refuses to load, prints
			 * another format than the parser's) */
	int batches; /* batches per scenario that ran (every scenario the same),
			 * 0 when unknown */
	struct errtext error; /* why the run failed: board, what, the fix */
};

/* Runs dmabench on a booted target: records uname -r and /proc/version,
 * insmods the module, reads its lines back from dmesg and checks them. */
int bench_dmabench(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o);
void bench_out_free(struct bench_out *o);

/* Runs the benchmark p->def names (dmabench when NULL). */
int bench_run(struct target *t, const struct board *b, const struct bench_params *p,
	      struct bench_out *o);
const char *bench_kind_name(enum bench_kind k);
/* "threads=1 seconds=1 granule=1 dir=from" (any order, any subset; defaults
 * 1, 1, 1, bidi) into d; -EINVAL with why. */
int bench_dma_map_params(const char *s, struct bench_def *d, struct errtext *why);
/* One run's output of tools/testing/selftests/dma/dma_map_benchmark: the map
 * and unmap samples (scenarios map-G / unmap-G, mean in ns) of batch. */
int bench_dma_map_parse(const struct bench_def *d, const char *text, int batch,
			struct run_result *r, struct errtext *why);
/* The host file of a BENCH_MODULE benchmark's module for variant v of
 * board on kernel directory kdir (caller frees). */
char *bench_module_file(const struct bench_def *d, const char *board, const char *kdir, int v);
/* Before any boot: that file exists, is a kernel module, and was built for
 * the kernel's release (its vermagic).  0 or -errno, printed naming the
 * board, the variant, the file and the fix.  0 for other benchmarks. */
int bench_check_kernel(const struct bench_def *d, const char *board, const struct kernel_art *k,
		       int v);
/* The "vermagic=" release and "name=" of a module image (caller frees);
 * -EINVAL when it is not a module. */
int bench_modinfo(const char *data, size_t len, char **release, char **name);
/* 0, or -EINVAL with why: the definition's regex and groups. */
int bench_def_check(const struct bench_def *d, struct errtext *why);
/* Parses a regex benchmark's output into r (have_done set): one sample per
 * match, batch = the n-th match of its scenario.  -EINVAL with why for a
 * match whose scenario, value or unit does not parse, or is not a whole
 * token: a group that ends (starts) the match must not be followed
 * (preceded) by more of its token ("mean_ns=123abc" with "mean_ns=([0-9]+)"
 * is rejected, not read as 123). */
int bench_regex_parse(const struct bench_def *d, const char *text, struct run_result *r,
		      struct errtext *why);
/* The batches per scenario in r: every scenario's count when they agree,
 * else -1 (why says which differ); 0 without samples. */
int bench_batches(const struct run_result *r, struct errtext *why);
/* The format check of a module's output: -EINVAL with why ("expected
 * dmabench v1 lines, saw seed-format lines ...") when r holds samples of
 * the other format (fmt 0 seed, 1 dmabench v1); hint is the fix to name. */
int bench_format_check(const struct run_result *r, int expect_fmt, const char *hint,
		       struct errtext *why);
/* What runs on the target for a regex benchmark's command: in a subshell
 * with `set -e`, so that a list (`cmd; dmesg`) fails with its first failing
 * command's status (caller frees). */
char *bench_regex_command(const char *command);

#endif
