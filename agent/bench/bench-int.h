/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_INT_H
#define ABLAB_BENCH_INT_H

/*
 * What the benchmark kinds share and nothing else includes: bench.c (the prologue, the
 * errors, the result checks, the ops table) and one file per kind: bench-dmabench.c
 * (dmabench, module), bench-regex.c, bench-dma-map.c.
 */
#include "bench/bench.h"

#include <stdbool.h>
#include <stdint.h>

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

/* the kinds' run functions (bench_dmabench: bench.h) */
int bench_regex(struct target *t, const struct board *b, const struct bench_params *p,
		struct bench_out *o);
int bench_dma_map(struct target *t, const struct board *b, const struct bench_params *p,
		  struct bench_out *o);

#endif
