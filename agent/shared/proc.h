/* SPDX-License-Identifier: GPL-2.0-only */
/* Running a program (no shell) and waiting for it (shared/proc.c) */
#ifndef ABLAB_SHARED_PROC_H
#define ABLAB_SHARED_PROC_H

#include "shared/mem.h"

/* Run argv (no shell); wait for it.  Returns exit status (>= 0) or -errno.
 * With out != NULL, stdout is captured into it. */
int run_argv(char *const argv[], struct buf *out);

#endif
