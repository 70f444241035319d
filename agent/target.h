/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_TARGET_H
#define ABLAB_TARGET_H

#include "console.h"

/* A shell session on the target: every command runs between unique markers
 * and its exit status is read back. */
struct target {
	struct console *con;
	const char *prompt;
	char id[9];
	unsigned int seq;
	regex_t prompt_re;
};

int target_init(struct target *t, struct console *con, const char *prompt);
void target_free(struct target *t);
/* After a prompt was seen: proves the shell executes (marker round trip)
 * and consumes the next prompt. */
int target_sync(struct target *t, int64_t deadline);
/* Runs cmd; out gets what it printed (CR removed), *status its exit code. */
int target_run(struct target *t, const char *cmd, int64_t deadline, struct buf *out, int *status);

#endif
