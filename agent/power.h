/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_POWER_H
#define ABLAB_POWER_H

#include "board.h"
#include "kernel.h"

#include <sys/types.h>

struct power;

/* Backends: on() may leave the board held (QEMU: started with -S) until
 * release(), so that the console is attached before the first byte. */
struct power_ops {
	const char *name;
	int (*on)(struct power *p, const struct kernel_art *k);
	int (*release)(struct power *p);
	int (*off)(struct power *p);
	/* path of a console the backend created (QEMU pty), or NULL */
	const char *(*console_path)(struct power *p, const char *label);
};

struct power {
	const struct power_ops *ops;
	const struct board *board;
	char *rundir;		/* per-boot scratch (QMP socket, QEMU log) */
	/* qemu */
	pid_t pid;
	int qmp;
	char *qmp_path, *log_path, *pty_path;
	char *error;		/* last error, human readable */
};

int power_init(struct power *p, const struct board *b, const char *rundir);
void power_free(struct power *p);

#endif
