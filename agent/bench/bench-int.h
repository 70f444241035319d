/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_INT_H
#define ABLAB_BENCH_INT_H

/*
 * What the benchmark kinds share and nothing outside bench/ includes (but the unit
 * tests): the ops of a kind, and the helpers below them.  bench.c (above: the registry
 * and the bench_*() calls) -> one file per kind: bench-dmabench.c (dmabench, module; the
 * module's definition in bench-module.c), bench-regex.c, bench-dma-map.c -> bench-util.c
 * (the prologue, the errors, the result checks).
 */
#include "bench/bench.h"

#include <stdbool.h>
#include <stdint.h>

/* One benchmark kind.  A NULL op: the kind has nothing to do there. */
struct bench_ops {
	const char *name;
	/* the keys of the job file's "benchmark" section only this kind has */
	const char *const *job_keys;
	/* the section into d: 0, -EINVAL (errors printed, nothing more to check), or 1
	 * (errors printed, the common checks follow) */
	int (*job_parse)(struct bench_def *d, json_object *t, const struct bench_job *j);
	/* the job's "params" are the kind's own (set_params), not module parameters */
	bool own_params;
	/* `ablab ab`'s options only this kind has ("--module and --parser"), whether any of
	 * them was given, and the options into d (0, or 2: a usage error, printed) */
	const char *cli_opts;
	bool (*cli_given)(const struct bench_cli *a);
	int (*cli_parse)(struct bench_def *d, const struct bench_cli *a);
	/* the stored run record: the kind's keys */
	void (*record_write)(const struct bench_def *d, json_object *run);
	int (*record_read)(struct bench_def *d, json_object *run, const char *modparams,
			   struct errtext *why);
	int (*set_params)(struct bench_def *d, const char *params, struct errtext *why);
	int (*check_kernel)(const struct bench_def *d, const char *board,
			    const struct kernel_art *k, int v);
	char *(*kernel_file)(const struct bench_def *d, const char *board, const char *kdir, int v);
	const char *(*build_src)(const struct bench_def *d);
	bool pin_timing, lava, rows_known;
	int (*run)(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o);
	void (*free)(struct bench_def *d);
};

extern const struct bench_ops bench_dmabench_ops, bench_module_ops, bench_regex_ops,
	bench_dma_map_ops;

/* ---- bench-util.c: what every kind shares */

/* Empties b, and its string: a command that prints nothing must not show the previous
 * one's output. */
void buf_reset(struct buf *b);
/* s up to its first newline, malloc'd */
char *first_line(const char *s);
/* module parameters: letters, digits, spaces and =,:._-+ only */
bool param_ok(const char *s);
/* The board's failure patterns set, the kernel asked for and printk kept off the console,
 * with the kind's own command (extra, or NULL) in the same round trip. */
int bench_prologue(struct target *t, const struct board *b, int64_t deadline, struct buf *out,
		   struct bench_out *o, const char *extra);
/* o->error for a target I/O error ret (a failure pattern, a timeout, a signal, ...) */
void io_error(struct target *t, const struct board *b, int ret, struct bench_out *o);
/* A run's result lines (o->res) checked: the kind's own verdict (ret, non-zero: rejected
 * for why_kind), complete and clean (run_check()), every scenario the same batches
 * (o->batches, said when not the ones asked for); else o->error and the negative errno. */
int bench_accept(const struct board *b, const struct bench_params *p, struct bench_out *o, int ret,
		 const char *why_kind);
/* The kind's command run on the target with its output in out (emptied first), timed in
 * o->run_ms; target_run()'s return. */
int bench_run_timed(struct target *t, const char *cmd, int64_t deadline, struct buf *out,
		    int *status, struct bench_out *o);
/* Prints "jpath: message" through j->error (printf-style). */
void bench_job_error(const struct bench_job *j, const char *jpath, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- bench-env.c: the target's side of the environment fingerprint */

/* The shell text the prologue runs to read the environment (pinning shell.governor
 * first), and the one that reads the thermal zones again after the run (needs the
 * first in the same shell); the parse of their output into *env (made when NULL):
 * cmdline, cpufreq, thermal_mc_start, thermal_mc_end, governor_pinned (every policy
 * read back the board's shell.governor).  A line not as printed is skipped: its key
 * is absent. */
char *bench_env_start_cmd(const struct board *b, bool cmdline);
const char *bench_env_end_cmd(void);
void bench_env_parse(const struct board *b, const char *out, json_object **env);

/* ---- the kinds' own calls (and the unit tests') */

/* bench-regex.c: 0, or -EINVAL with why: the regex and its groups. */
int bench_regex_check(const struct bench_regex_def *r, struct errtext *why);
/* Parses a regex benchmark's output into r (have_done set): one sample per match, batch =
 * the n-th match of its scenario.  -EINVAL with why for a match whose scenario, value or
 * unit does not parse, or is not a whole token: a group that ends (starts) the match must
 * not be followed (preceded) by more of its token ("mean_ns=123abc" with
 * "mean_ns=([0-9]+)" is rejected, not read as 123). */
int bench_regex_parse(const struct bench_regex_def *d, const char *text, struct run_result *r,
		      struct errtext *why);
/* What runs on the target for a regex benchmark's command: in a subshell with `set -e`,
 * so that a list (`cmd; dmesg`) fails with its first failing command's status (caller
 * frees). */
char *bench_regex_command(const char *command);

/* bench-dma-map.c: "threads=1 seconds=1 granule=1 dir=from" (any order, any subset;
 * defaults 1, 1, 1, bidi) into d; -EINVAL with why. */
int bench_dma_map_params(const char *s, struct bench_dma_map_def *d, struct errtext *why);
/* One run's output of tools/testing/selftests/dma/dma_map_benchmark: the map and unmap
 * samples (scenarios map-G / unmap-G, mean in ns) of batch. */
int bench_dma_map_parse(const struct bench_dma_map_def *d, const char *text, int batch,
			struct run_result *r, struct errtext *why);

/* bench-module.c: the module kind's definition (its run: bench-dmabench.c) */
char *bench_module_file(const struct bench_def *d, const char *board, const char *kdir, int v);
/* The "vermagic=" release and "name=" of a module image (caller frees); -EINVAL when it is
 * not a module. */
int bench_modinfo(const char *data, size_t len, char **release, char **name);
int bench_module_check_kernel(const struct bench_def *d, const char *board,
			      const struct kernel_art *k, int v);
int bench_module_job(struct bench_def *d, json_object *t, const struct bench_job *j);
bool bench_module_cli_given(const struct bench_cli *a);
int bench_module_cli(struct bench_def *d, const struct bench_cli *a);
void bench_module_write(const struct bench_def *d, json_object *run);
int bench_module_read(struct bench_def *d, json_object *run, const char *modparams,
		      struct errtext *why);
const char *bench_module_build_src(const struct bench_def *d);
void bench_module_free(struct bench_def *d);

#endif
