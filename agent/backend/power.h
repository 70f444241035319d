/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_POWER_H
#define ABLAB_POWER_H

#include "backend/backends.h"
#include "board.h"
#include "kernel.h"
#include "shared/util.h"

#include <sys/types.h>

struct power;
struct gpio_relay;

/* Backends: on() may leave the board held (QEMU: started with -S) until
 * release(), so that the console is attached before the first byte.
 * cycle() NULL: off, wait off_ms, on.  check() (dry run) appends one line
 * per field to out and returns the number of problems; it touches no
 * hardware state. */
struct power_ops {
	struct backend_conf conf; /* its power.* keys (backends.h) */
	const char *name;
	int (*on)(struct power *p, const struct kernel_art *k);
	int (*release)(struct power *p);
	int (*off)(struct power *p);
	int (*cycle)(struct power *p);
	/* path of a console the backend created (QEMU pty), or NULL */
	const char *(*console_path)(struct power *p, const char *label);
	int (*check)(const struct board *b, struct buf *out);
	/* optional: what must hold on this host before a campaign or a night uses the
	 * board (QEMU: its binary is on PATH); e says why not */
	int (*preflight)(const struct board *b, struct errtext *e);
	/* optional, a backend that makes the machine: the value after the first of
	 * names ("-M", "-machine") in the machine's command line, or NULL */
	const char *(*machine_arg)(const struct board *b, const char *const *names);
	/* optional: the machine is still on as far as the backend knows (QEMU: its process
	 * lives); power_free() switches it off first */
	bool (*running)(struct power *p);
	void (*close)(struct power *p); /* end of session: let go, free priv */
};

/* The power backends (power-qemu.c, power-gpiod.c, power-command.c, power-manual.c),
 * listed in backends.c. */
extern const struct power_ops power_qemu_ops, power_gpiod_ops, power_command_ops, power_manual_ops;

struct power {
	const struct power_ops *ops;
	const struct board *board;
	char *rundir; /* per-boot scratch (QMP socket, QEMU log) */
	const char *tftp_dir; /* qemu: {tftp_root} in power.args */
	int64_t t_off; /* when the board was last switched off (0: unknown) */
	/* the backend's session state, private to it (qemu: its process and QMP socket;
	 * gpiod: the line request, held for the whole session); ops->close frees it */
	void *priv;
	struct errtext error; /* the last power_on/off/cycle's error: board, field, fix */
};

int power_init(struct power *p, const struct board *b, const char *rundir);
/* ops->on and ops->off, recording which boards may be on (power_left_on).
 * power_off() runs to completion after a first signal: only a second one
 * (off_aborted) or its deadline stops it. */
int power_on(struct power *p, const struct kernel_art *k);
int power_off(struct power *p);
/* Waits (interruptibly) until the board has been off for power.off_ms. */
int power_wait_off_time(struct power *p);
/* Runs ops->cycle or off + off_ms + on. */
int power_cycle(struct power *p);
/* When this process last switched the board off, if it has not switched it on (or failed
 * to switch it off) since: the monotonic ms of power_off(), else 0. */
int64_t power_known_off(const char *board);
/* Forgets that: a lock on the board taken anew (another process may have switched it). */
void power_forget(const char *board);
/* Boards switched on by this process and not (successfully) off since:
 * "BOARD: why" joined by "; " into out; returns how many. */
size_t power_left_on(struct buf *out);
void power_free(struct power *p);
/* Dry-run check of the board's power configuration (see power_ops.check). */
int power_check(const struct board *b, struct buf *out);

/* Pre-flight before a campaign or a night (power_ops.preflight): 0, or a negative
 * errno with e saying why (file, field, fix). */
int power_preflight(const struct board *b, struct errtext *e);
/* The machine's option value (power_ops.machine_arg), NULL when the backend has none. */
const char *power_machine_arg(const struct board *b, const char *const *names);

/* For the backends: p->error = the message (naming the board and the field). */
void power_set_error(struct power *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* For the callers: p->error's message, or strerror(-ret) when the backend set none. */
const char *power_error(const struct power *p, int ret);

/* Runs argv (no shell) with a deadline; output (stdout+stderr) into out.
 * Returns the exit status (>= 0), -ENOENT when the program cannot be
 * executed (exec_errno set), -ETIMEDOUT (process group killed). */
int run_argv_deadline(char *const argv[], int64_t deadline, struct buf *out, int *exec_errno);
/* Is `prog` an executable file, or found in PATH? */
bool program_exists(const char *prog);

#endif
