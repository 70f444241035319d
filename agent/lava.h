/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_LAVA_H
#define ABLAB_LAVA_H

#include "board.h"
#include "job.h"
#include "kernel.h"
#include "parse.h"

#include <stdint.h>

/* One boot of a campaign as a LAVA job. */
struct lava_boot {
	const struct job *j;
	const struct board *b;
	const struct kernel_art *k;
	int variant;		/* 0 control, 1 patched */
	int seq, nslots;	/* 1-based position in the board's alternation order */
	int batches;
	const char *params;	/* extra dmabench parameters, or NULL */
	const char *url_base;	/* artefact URLs: BASE/BOARD/DIRNAME/FILE; NULL: file:// */
};

/* The LAVA job definition (YAML) of one boot; NULL after printing why. */
char *lava_job_yaml(const struct lava_boot *lb);

/* The console text of a LAVA log (lava-run's stderr, or the server's
 * /logs/): the "target" lines, YAML-unquoted, one per line. */
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

#endif
