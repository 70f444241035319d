/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_LAVA_H
#define ABLAB_LAVA_H

#include "board.h"
#include "job.h"
#include "kernel.h"
#include "bench/parse.h"

#include <json-c/json.h>
#include <stdint.h>

struct runner;

/* One boot of a campaign as a LAVA job. */
struct lava_boot {
	const struct job *j;
	const struct board *b;
	const struct kernel_art *k;
	int variant; /* position in j->vs: 0 control, 1 patched (or +1 ...) */
	int seq, nslots; /* 1-based position in the board's alternation order */
	int batches;
	const char *params; /* extra dmabench parameters, or NULL */
	const char *url_base; /* artefact URLs: BASE/BOARD/DIRNAME/FILE; NULL: file:// */
};

/* The LAVA job definition (YAML) of one boot; NULL after printing why. */
char *lava_job_yaml(const struct lava_boot *lb);

/* The console text of a LAVA log (lava-run's stderr, or the server's
 * /logs/): the "target" and "feedback" lines (the one console of an ablab
 * job, read in a test or after it), YAML-unquoted, one per line. */
char *lava_log_target_text(const char *log, size_t len);
/* Why a LAVA job failed, from its log (NUL-terminated): the result
 * record's error_msg, else the first error line; NULL if neither. */
char *lava_log_failure(const char *data);

/* What ablab takes from a boot's console text. */
struct lava_output {
	char *uname_r, *proc_version;
	struct run_result res;
};
void lava_output_parse(const char *text, struct lava_output *o);
void lava_output_free(struct lava_output *o);

/* The LAVA runner (lava-runner.c, runner.h): every attempt of a campaign's
 * slot is one LAVA job through server (with the API token in token_file),
 * or with lava-run here when server is NULL (device: the device dictionary
 * template, {board} replaced; NULL: JOBDIR/lava/devices/{board}.jinja2). */
struct lava_runner_opts {
	const char *server, *token_file;
	const char *device;
	const char *url_base; /* artefact URLs (--artifacts-url); NULL: file:// */
};
/* r becomes a LAVA runner of job j (which must outlive it).  0 or -errno
 * (printed); lava_runner_free(r) either way. */
int lava_runner_new(struct runner *r, const struct job *j, const struct lava_runner_opts *o);
/* The runner of a campaign's run JSON "lava" object (`ablab resume`): its
 * job file loaded again, its token read again from its file. */
int lava_runner_from_run(json_object *lava, struct runner *r);
void lava_runner_free(struct runner *r);

#endif
