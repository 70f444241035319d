// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the console-log parser and the run checks take any
 * bytes (NULs, CRs, huge lines, corrupted numbers) without crashing, and a
 * run they accept only holds values that pass the parser's own checks. */
#include "bench/parse.h"
#include "shared/util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run_result r;
	struct errtext why;
	size_t i;

	parse_log((const char *)data, size, &r);
	if (run_check(&r, &why) == 0) {
		for (i = 0; i < r.n; i++) {
			const struct sample *s = &r.v[i];

			if (s->batch < 1 || s->reps < 1 || s->size < 0 ||
			    (s->kind == SAMPLE_PRESERVE && (s->lost < 0 || s->lost > s->size)) ||
			    (s->min_ns >= 0 && s->max_ns >= 0 &&
			     (s->mean_ns < (double)s->min_ns || s->mean_ns > (double)s->max_ns)))
				abort();	/* an accepted value the checks should have refused */
		}
	}
	run_result_free(&r);
	return 0;
}
