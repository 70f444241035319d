/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BOARD_H
#define ABLAB_BOARD_H

#include "shared/jsonfile.h"

#include <sys/types.h>

/* A board definition (boards/NAME.json, documented in boards/README.md).
 * Every timing, prompt and command lives in the file, not in code. */
struct board {
	struct jfile jf;
	const char *name, *cpu, *family, *description;
	bool emulated;
	/* QEMU's precise instruction counting: one guest instruction is 2^shift ns of
	 * virtual time (-icount shift=N,sleep=off,align=off); -1: wall clock */
	long icount_shift;

	/* console: "tty" | "serial" | "tcp" (a backend's own keys, device, baud...: console_priv) */
	const char *console_type;
	long console_reopen_ms; /* reconnect a vanished console within this */
	long console_transcript_mb; /* a boot sending more is a console flood (0: 64) */

	/* power: "qemu" | "gpiod" | "command" | "manual" (their own keys: power_priv) */
	const char *power_type;
	long off_ms; /* minimum off time of a cycle */

	/* boot: "direct" | "uboot" | "command" (a method's own boot.* keys: boot_priv) */
	const char *boot_method;
	const char *append; /* kernel command line */
	char **fail_patterns; /* console regexes that fail a boot at once */

	const char *prompt; /* shell prompt on the target */
	const char *module_path; /* where the initramfs keeps dmabench.ko */
	/* the cpufreq governor written to every policy before the benchmark; NULL: none */
	const char *governor;

	/* what a backend's conf.parse() keeps that has no field above (backends.h); its
	 * conf.free() frees it */
	void *console_priv, *power_priv, *boot_priv;

	long t_power_s, t_bootloader_s, t_kernel_s, t_command_s, t_deploy_s;
	long retries;
	const char *kernel_recipe; /* boards/kernel/NAME.conf, for make kernels */
};

/* Loads and validates; prints file:line:col errors and returns -EINVAL. */
int board_load(struct board *b, const char *path);
/* NAME or a path: NAME resolves to DIR/NAME.json (DIR: ABLAB_BOARDS or ./boards). */
int board_load_by_name(struct board *b, const char *name_or_path);
void board_free(struct board *b);
/* kernel.recipe as a path: absolute, or relative to the board file's (real) directory;
 * the caller frees it.  b->kernel_recipe must be set. */
char *board_recipe_path(const struct board *b);
/* The board directory (ABLAB_BOARDS or ./boards). */
const char *board_dir(void);

/* board-field.c (below the backends, which report with them): */
/* Prints "file:line:col: section.key: msg" with the position of `key` inside
 * `section` (NULL: top level); returns -EINVAL. */
int board_field_error(const struct board *b, const char *section, const char *key, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

/* Each of v[] compiles as an extended regex, else "section.key: invalid regular expression"
 * (board_field_error) and -EINVAL. */
int board_check_regexes(const struct board *b, const char *section, const char *key,
			char *const *v);

/* Dry-run report line: "  ok    field: message" or "  FAIL  field: ..."
 * appended to out; returns 0 when ok, 1 otherwise (to count problems). */
struct buf;
int check_line(struct buf *out, bool ok, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A board lock: DIR/NAME.lock holding "pid host purpose", and one for the
 * board's console (DIR/console-ID.lock, ID the resolved tty/serial device or
 * tcp host:port), so that two board files for one console exclude each
 * other.  Write locks with F_OFD_SETLK: the kernel drops them when the holder
 * dies, so there are no stale locks.  Files are 0600 (0660 when DIR is group
 * writable: a lab group), so no other user can open one to block a board.
 * DIR is ABLAB_LOCK_DIR, else /run/ablab when writable, else DATA/locks. */
struct board_lock {
	int fd, cfd;
	char *path, *cpath;
};
/* -EBUSY ("in use by" the holder printed) when another process holds either. */
int board_lock(struct board_lock *l, const struct board *b, const char *purpose);
void board_unlock(struct board_lock *l);
/* Who holds it: "pid 123 on host (purpose)" into out, or "" when free.
 * Probes with F_OFD_GETLK: takes nothing, never makes a board_lock() fail. */
int board_lock_holder(const struct board *b, char *out, size_t len);

#endif
