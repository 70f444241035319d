/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_H
#define ABLAB_BENCH_H

#include "board.h"
#include "parse.h"
#include "target.h"

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
	/* BENCH_MODULE: the job's own module (built by the kernel recipe from
	 * module_src into /lib/modules/MODULE.ko), loaded like dmabench; its
	 * lines must be in parser_fmt (0 the seed module's, 1 dmabench v1) */
	const char *module_src, *module;
	int parser_fmt;
};

struct bench_params {
	int batches;
	const char *modparams;	/* extra dmabench parameters, e.g. "reps=100" */
	const struct bench_def *def;	/* NULL: dmabench */
};

struct bench_out {
	char *uname_r, *proc_version;
	struct run_result res;
	int64_t run_ms;
	bool fatal;	/* retrying cannot help (the module refuses to load) */
	char error[512];
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
int bench_dma_map_params(const char *s, struct bench_def *d, char *why, size_t whylen);
/* One run's output of tools/testing/selftests/dma/dma_map_benchmark: the map
 * and unmap samples (scenarios map-G / unmap-G, mean in ns) of batch. */
int bench_dma_map_parse(const struct bench_def *d, const char *text, int batch,
			struct run_result *r, char *why, size_t whylen);
/* 0, or -EINVAL with why: the definition's regex and groups. */
int bench_def_check(const struct bench_def *d, char *why, size_t whylen);
/* Parses a regex benchmark's output into r (have_done set): one sample per
 * match, batch = the n-th match of its scenario.  -EINVAL with why for a
 * match whose scenario or value does not parse. */
int bench_regex_parse(const struct bench_def *d, const char *text, struct run_result *r,
		      char *why, size_t whylen);

#endif
