/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BENCH_H
#define ABLAB_BENCH_H

#include "board.h"
#include "parse.h"
#include "target.h"

struct bench_params {
	int batches;
	const char *modparams;	/* extra dmabench parameters, e.g. "reps=100" */
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

#endif
