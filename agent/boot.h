/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BOOT_H
#define ABLAB_BOOT_H

#include "board.h"
#include "console.h"
#include "kernel.h"
#include "power.h"
#include "target.h"

/* One boot of a board: power, console and shell, from off to a prompt.
 * Methods (board boot.method): direct (QEMU -kernel), uboot (interrupt
 * autoboot, type the board's commands, TFTP), command (a user command
 * deploys, e.g. to an SD mux, then power on). */
struct boot_session {
	const struct board *board;
	struct power pw;
	struct console con;
	struct target tgt;
	bool powered, con_open, tgt_ready;
	char *tftp_dir; /* uboot: the TFTP root used */
	int64_t t_on, t_prompt; /* monotonic ms */
	bool fatal; /* a setup error retrying cannot fix */
	char error[512];
};

/* A boot method (boot.method), listed in backends.c.  deploy() (NULL: nothing) puts
 * the kernel where the board finds it, before power on (rel: the files' names for
 * interact, if it names any); interact() (NULL: nothing) talks to the boot loader
 * after power on, before the kernel's prompt; check() is the dry run. */
/* How LAVA boots a board of this method (lava-yaml.c): its QEMU device type, U-Boot over
 * TFTP, or a flasher command. */
enum boot_lava { BOOT_LAVA_QEMU, BOOT_LAVA_UBOOT, BOOT_LAVA_FLASHER };

struct boot_ops {
	struct backend_conf conf; /* its boot.* keys (backends.h) */
	const char *name;
	enum boot_lava lava;
	int (*deploy)(struct boot_session *s, const struct kernel_art *k, char *rel[3],
		      const char *rundir);
	int (*interact)(struct boot_session *s, char *const rel[3], const char *const src[3]);
	int (*check)(const struct board *b, struct buf *out);
};
extern const struct boot_ops boot_direct_ops, boot_uboot_ops, boot_command_ops;

/* The methods' boot.* keys and parsers (boot-conf.c), their ops' .conf. */
extern const struct jfield boot_uboot_fields[], boot_command_fields[];
int boot_direct_parse(struct board *b, json_object *o);
int boot_uboot_parse(struct board *b, json_object *o);
void boot_uboot_free(struct board *b);
int boot_command_parse(struct board *b, json_object *o);
void boot_command_free(struct board *b);

/* Boots kernel k; the transcript goes to `transcript`.  On failure returns
 * -errno with s->error set (and s->fatal when a retry cannot help). */
int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript);
/* Powers off and releases everything (safe to call after a failed start). */
void boot_end(struct boot_session *s);

/* Dry-run checks of the console and boot configuration (one line per field
 * into out; returns the number of problems).  Nothing is opened or written
 * except a probe file in the TFTP root. */
int console_check(const struct board *b, struct buf *out);
int boot_check(const struct board *b, struct buf *out);

/* uboot: copies the artefacts into TFTP_ROOT/BOARD/ atomically; rel[] get
 * the names relative to the TFTP root ("BOARD/zImage").  Exposed for tests. */
int tftp_deploy(const struct board *b, const char *root, const struct kernel_art *k, char *rel[3],
		char *err, size_t elen);

#endif
