/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RUN_RECORD_H
#define ABLAB_RUN_RECORD_H

/*
 * The run record: the JSON stored with each campaign (campaigns.run_json) that says how it
 * ran (its boards, kernel directories, design, benchmark and runner), written when the
 * campaign starts and read back by `ablab resume` (resume.c) to run the rest.
 */
#include "bench/bench.h"
#include "campaign.h"
#include "kernel.h"
#include "runner.h"
#include "variant.h"

#include <json-c/json.h>

/* The record of the campaign cs runs with runner rn on boards b with kernels k (caller
 * frees); results: where its transcripts and spool are. */
char *run_record_write(const struct campaign_spec *cs, const struct runner *rn,
		       const struct board *b, struct kernel_art (*k)[VARIANTS_MAX],
		       const struct variant_set *vs, const char *results);

/* A record read back: the campaign spec (its strings point into run) and what it holds. */
struct run_record {
	struct campaign_spec cs;
	const char *results; /* the campaign's own results directory, or NULL */
	struct runner rn;
	struct bench_def bench;
	struct campaign_board *cb;
	const char *(*dirs)[VARIANTS_MAX];
	struct variant_set vs;
	json_object *run;
};

/* Campaign id's record text into r: 0, or -EINVAL printed naming the campaign (no resume
 * data, an invalid variant set, an unknown or incomplete benchmark, a runner it cannot
 * rebuild).  run_record_free() either way. */
int run_record_read(struct run_record *r, long id, const char *text);
void run_record_free(struct run_record *r);

#endif
