/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RUNNER_ENV_H
#define ABLAB_RUNNER_ENV_H

#include "backend/console.h"
#include "runner.h"

/* The boot's environment fingerprint (docs/DESIGN.md "Environment fingerprint") into
 * r->env.  After the boot (ok or not): the boot loader's version line from the console
 * text since power on (con's window, while it holds it all), and the sha256 of the files
 * deployed: the DTB, the initramfs (rootfs_sha256; dmabench's module is inside it) and a
 * module kind's .ko (module_sha256). */
void runner_env_boot(const struct runner_slot *sl, const struct console *con,
		     struct runner_result *r);
/* After the benchmark: what the target said (r->bo.env, taken: bench-env.c).  A board
 * whose shell.governor did not take gets one warning per process. */
void runner_env_target(const struct runner_slot *sl, struct runner_result *r);

#endif
