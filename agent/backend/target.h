/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_TARGET_H
#define ABLAB_TARGET_H

#include "backend/console.h"

/* A shell session on the target: every command runs between unique markers
 * and its exit status is read back. */
struct target {
	struct console *con;
	const char *prompt;
	char id[9];
	unsigned int seq;
	regex_t prompt_re; /* an empty prompt's (target_prompt()) */
	/* console patterns that fail any command at once (panic, reset) */
	struct console_pat *fail_pats; /* nfail + 1: console_pat_compile()d, the marker */
	char *const *fail_src;
	size_t nfail;
	char fail_line[200]; /* the line that matched, after -EIO */
	char *banner; /* the kernel's "Linux version ..." line of this boot, or NULL */
	char *cmdline; /* its "Kernel command line: " (what /proc/cmdline holds), or NULL */
};

/* Watch for these patterns (board boot.fail_patterns) while commands run;
 * a match makes target_run() return -EIO with fail_line set. */
int target_set_fail_patterns(struct target *t, char *const *patterns);

int target_init(struct target *t, struct console *con, const char *prompt);
/* The shell prompt as a console pattern: its literal (valid while t is) */
struct console_pat target_prompt(const struct target *t);
void target_free(struct target *t);
/* After a prompt was seen: the kernel banner noted (target_banner()), then proves the
 * shell executes (marker round trip) and consumes the next prompt. */
int target_sync(struct target *t, int64_t deadline);
/* After the shell prompt: t->banner from the console input before it, the last kernel
 * banner ("Linux version ...", what /proc/version holds; at a line's start or after its
 * "[    0.000000] " time stamp) the window still holds; NULL when there is none (a
 * `quiet` kernel, a boot log longer than the window); t->cmdline the same way from the
 * "Kernel command line: " line after that banner. */
void target_banner(struct target *t);
/* Runs cmd; out gets what it printed (CR removed), *status its exit code.
 * -EMSGSIZE (con->error says so) when it printed more than CONSOLE_PIN_MAX. */
int target_run(struct target *t, const char *cmd, int64_t deadline, struct buf *out, int *status);
/* cmd1, then cmd2, in one exchange (one round trip, one framing fewer than two
 * target_run()s): `{ echo IDBn;CMD1<newline>};echo IDMn $?;{ CMD2<newline>};echo IDEn $?`;
 * *t_mid is when the M marker (cmd1's end) arrived; out1 and status1 are cmd1's, out2 and status2
 * cmd2's. */
int target_run_then(struct target *t, const char *cmd1, const char *cmd2, int64_t deadline,
		    struct buf *out1, int *status1, int64_t *t_mid, struct buf *out2, int *status2);

/* What target_run() types: cmd on a line of its own inside { }, so that a
 * `#` comment in it ends at its newline, not at the end marker; $? after
 * the group is cmd's status (caller frees). */
char *target_command_line(const char *id, unsigned int seq, const char *cmd);
/* The pattern of marker `what` (S, B, E) number n, its literal in buf; E:
 * group 1 is the status. */
struct console_pat target_marker(char *buf, size_t len, const char *id, const char *what,
				 unsigned int n, bool with_status);
/* Appends a command's raw console output to out: CR LF and a lone CR -> LF. */
void target_output(struct buf *out, const char *d, size_t len);

#endif
