/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_JOB_INT_H
#define ABLAB_JOB_INT_H

#include "job.h"

/* Inside job*.c only. */

/* job-variants.c: "variants" (or "series") of the job file into j->v[] and j->vs;
 * jobdir is the job file's directory.  0 or -EINVAL (printed with job_error()). */
int load_variants(struct job *j, char *const jobdir);

#endif
