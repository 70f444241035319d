/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BOOT_H
#define ABLAB_BOOT_H

#include "board.h"
#include "console.h"
#include "kernel.h"
#include "power.h"
#include "target.h"

/* One boot of a board: power, console and shell, from off to a prompt. */
struct boot_session {
	const struct board *board;
	struct power pw;
	struct console con;
	struct target tgt;
	bool powered, con_open, tgt_ready;
	int64_t t_on, t_prompt;		/* monotonic ms */
	bool fatal;			/* a setup error retrying cannot fix */
	char error[512];
};

/* Boots kernel k; the transcript goes to `transcript`.  On failure returns
 * -errno with s->error set (and s->fatal when a retry cannot help). */
int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript);
/* Powers off and releases everything (safe to call after a failed start). */
void boot_end(struct boot_session *s);

#endif
