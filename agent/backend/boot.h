/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BOOT_H
#define ABLAB_BOOT_H

#include "board.h"
#include "backend/console.h"
#include "kernel.h"
#include "backend/power.h"
#include "backend/target.h"

#include <json-c/json.h>

/* One boot of a board: power, console and shell, from off to a prompt (boot.c).  The
 * methods (boot.method) are backends, one file each: boot-direct.c (QEMU -kernel),
 * boot-uboot.c (interrupt autoboot, type the board's commands, TFTP), boot-command.c (a
 * user command deploys, e.g. to an SD mux, then power on); listed in backends.c. */
/* The phases of an attempt (docs/DESIGN.md "Boot phases"): each one's end, stored as ms
 * after power on in the boot's phases column (power on itself is boot_session.t_on). */
enum boot_phase {
	PHASE_FIRST_BYTE, /* the console's first byte after power on */
	PHASE_BOOTLOADER, /* the boot loader reached (autoboot interrupted, its prompt) */
	PHASE_LOADED, /* the kernel and its files loaded (TFTP: load_bytes in load_ms) */
	PHASE_BANNER, /* the kernel's "Linux version" banner */
	PHASE_PROMPT, /* the shell prompt, answering */
	PHASE_BENCH_START, /* the benchmark command typed */
	PHASE_BENCH_END, /* its results read */
	PHASE_OFF, /* power off done */
	PHASE__N
};
extern const char *const boot_phase_names[PHASE__N];

struct boot_session {
	const struct board *board;
	struct power pw;
	struct console con;
	struct target tgt;
	bool powered, con_open, tgt_ready;
	char *tftp_dir; /* the TFTP root a method's deploy() used (power's {tftp_root}) */
	int64_t t_on, t_prompt; /* monotonic ms */
	int64_t phase[PHASE__N]; /* monotonic ms of each phase's end; 0: not reached */
	int64_t load_bytes, load_ms; /* what the boot loader transferred, in how long; 0: unknown */
	bool fatal; /* a setup error retrying cannot fix */
	struct errtext error;
};

/* How LAVA boots a board of this method (lava-yaml.c): its QEMU device type, U-Boot over
 * TFTP, or a flasher command. */
enum boot_lava { BOOT_LAVA_QEMU, BOOT_LAVA_UBOOT, BOOT_LAVA_FLASHER };

/* A boot method (boot.method), one file agent/boot-NAME.c defining boot_NAME_ops, one
 * line in backends.c.  Its own boot.* values go to a private struct in board->boot_priv
 * that conf.parse fills and conf.free frees.  deploy() (NULL: nothing) puts the kernel
 * where the board finds it, before power on (rel: the files' names for interact, if it
 * names any); interact() (NULL: nothing) talks to the boot loader after power on, before
 * the kernel's prompt; check() is the dry run; reset_patterns() (NULL: none) the console
 * regexes meaning the board reset once the kernel was started. */
struct boot_ops {
	struct backend_conf conf; /* its boot.* keys (backends.h) */
	const char *name;
	enum boot_lava lava;
	int (*deploy)(struct boot_session *s, const struct kernel_art *k, char *rel[3],
		      const char *rundir);
	int (*interact)(struct boot_session *s, char *const rel[3], const char *const src[3]);
	int (*check)(const struct board *b, struct buf *out);
	char *const *(*reset_patterns)(const struct board *b);
	/* NULL: none; else appends ", ..." of its settings to the check-board line */
	void (*summary)(const struct board *b, struct buf *out);
};

/* Boots kernel k; the transcript goes to `transcript`.  On failure returns
 * -errno with s->error set (and s->fatal when a retry cannot help). */
int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript);
/* Phase p ended now (the latest call counts). */
void boot_mark(struct boot_session *s, enum boot_phase p);

/* The phases s reached as docs/DESIGN.md "Boot phases" (ms after s->t_on; load_bytes and
 * load_ms when known), or NULL when the board was never powered on. */
json_object *boot_phases_json(const struct boot_session *s);

/* Powers off and releases everything (safe to call after a failed start). */
void boot_end(struct boot_session *s);

/* Dry-run checks of the console and boot configuration (one line per field
 * into out; returns the number of problems).  Nothing is opened or written
 * except a probe file in the TFTP root. */
int console_check(const struct board *b, struct buf *out);
int boot_check(const struct board *b, struct buf *out);
/* The method's settings worth a glance (`ablab check-board`): ", ..." appended to out. */
void boot_summary(const struct board *b, struct buf *out);

/* Pre-flight before a campaign or a night uses the board, nothing opened or switched:
 * each backend's own (power_ops.preflight: QEMU's binary is on PATH; console_ops.preflight:
 * a console device given by its path is present).  0, or a negative errno with e saying
 * why (the first problem found). */
int boot_preflight(const struct board *b, struct errtext *e);

/* The console regexes (NULL-terminated) that mean "the board reset" once its kernel runs:
 * the method's own (uboot: boot.reset_patterns), else with fallback the boot banners of
 * U-Boot (boot_reset_banners: what a benchmark watches on any board), else NULL. */
char *const *boot_reset_patterns(const struct board *b, bool fallback);
extern char *const boot_reset_banners[];

/* For the methods' files (boot-*.c): s->error set (s->fatal when a retry cannot help);
 * returns ret. */
int boot_fail(struct boot_session *s, int ret, bool fatal, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The text of the console line around input offsets so..eo. */
void boot_line_at(const struct console *c, size_t so, size_t eo, char *out, size_t len);
/* The console vanished (an unplugged adapter, a board-powered one at power off) and did
 * not come back in time: c->error says which and how long. */
bool boot_console_gone(const struct console *c);
/* extra[] (validated at load) as patterns pats[from..] (console_pat_compile) / frees
 * pats[0..n) and pats. */
void boot_add_pats(struct console_pat *pats, size_t from, char *const *extra);
void boot_free_pats(struct console_pat *pats, size_t n);

/* uboot: copies the artefacts into ROOT/BOARD/ atomically; rel[] get the names relative
 * to the TFTP root ("BOARD/zImage").  On failure -errno and err says why (boot-tftp.c). */
int tftp_deploy(const struct board *b, const char *root, const struct kernel_art *k, char *rel[3],
		struct errtext *err);

#endif
