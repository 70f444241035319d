// SPDX-License-Identifier: GPL-2.0-only
/* Throughput of agent/bench/parse.c parse_log() on large console logs.
 *
 *   parse_bench CONSOLE_LOG [MIB]
 *
 * Two inputs of MIB MiB each (default 64), built in memory:
 *   boots:  CONSOLE_LOG (one whole boot: kernel log, shell, dmabench lines)
 *           repeated; every copy's `start` line resets the run, as a module
 *           loaded again does;
 *   dense:  one `start` line, then only dmabench v1 result lines (the worst
 *           case: every line is parsed field by field and stored).
 * Best of 5 passes each; one JSON object on stdout. */
#include "bench/parse.h"
#include "shared/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Best wall time of 5 parse_log passes over text; *samples: of the last. */
static double best_of_5(const char *text, size_t len, size_t *samples)
{
	double best = 1e30;
	int i;

	for (i = 0; i < 5; i++) {
		struct run_result r = { 0 };
		double t0 = now_s(), dt;

		parse_log(text, len, &r);
		dt = now_s() - t0;
		if (dt < best)
			best = dt;
		*samples = r.n;
		run_result_free(&r);
	}
	return best;
}

int main(int argc, char **argv)
{
	static const char *const scen[] = { "null", "small-dirty-256B", "large-dirty-1MiB",
					     "large-clean-1MiB" };
	size_t want, len = 0, nb = 0, nd = 0;
	struct buf boots = { 0 }, dense = { 0 };
	char *log = NULL;
	double tb, td, mib;
	int ret, batch;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: parse_bench CONSOLE_LOG [MIB]\n");
		return 2;
	}
	mib = argc == 3 ? atof(argv[2]) : 64;
	if (mib <= 0 || mib > 4096) {
		fprintf(stderr, "parse_bench: MIB %s: want 0 < MIB <= 4096\n", argv[2]);
		return 2;
	}
	want = (size_t)(mib * 1048576.0);
	ret = read_file(argv[1], &log, &len);
	if (ret || !len) {
		fprintf(stderr, "parse_bench: %s: %s\n", argv[1], ret ? strerror(-ret) : "empty");
		return 1;
	}
	while (boots.len < want)
		buf_append(&boots, log, len);
	buf_printf(&dense, "[    1.000000] dmabench: v1 start clock_res_ns=41 timing=auto "
		   "batches=1000000 scenarios=4\n");
	for (batch = 1; dense.len < want; batch++) {
		size_t s;

		for (s = 0; s < 4; s++)
			buf_printf(&dense, "[  %4d.%06d] dmabench: v1 result scenario=%s batch=%d "
				   "size=%d reps=5000 dir=from op=map_unmap state=dirty timing=iter "
				   "mean_ns=%d min_ns=%d max_ns=%d ns_per_KiB=%d\n",
				   batch / 1000, batch % 1000000, scen[s], batch,
				   s ? 1048576 : 256, 73840 + batch % 97, 70000, 200000, 72);
	}
	tb = best_of_5(boots.data, boots.len, &nb);
	td = best_of_5(dense.data, dense.len, &nd);
	printf("{\"boots_mib\": %.1f, \"boots_s\": %.4f, \"boots_mb_s\": %.1f, "
	       "\"boots_samples_last_boot\": %zu, "
	       "\"dense_mib\": %.1f, \"dense_s\": %.4f, \"dense_mb_s\": %.1f, \"dense_samples\": %zu, "
	       "\"dense_lines_s\": %.0f}\n",
	       (double)boots.len / 1048576.0, tb, (double)boots.len / 1e6 / tb, nb,
	       (double)dense.len / 1048576.0, td, (double)dense.len / 1e6 / td, nd,
	       (double)nd / td);
	buf_free(&boots);
	buf_free(&dense);
	free(log);
	return 0;
}
