/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BOARD_H
#define ABLAB_BOARD_H

#include "jsonfile.h"

/* A board definition (boards/NAME.json).  Every timing, prompt and command
 * lives in the file, not in code. */
struct board {
	struct jfile jf;
	const char *name, *cpu, *family, *description;
	bool emulated;

	const char *console_type;	/* "tty" */
	const char *console_device;	/* path, or "qemu:LABEL" for a QEMU chardev pty */
	long baud;

	const char *power_type;		/* "qemu" */
	const char *qemu_binary;
	char **qemu_args;		/* with {kernel} {dtb} {initrd} {append} */

	const char *boot_method;	/* "direct" */
	const char *append;		/* kernel command line */
	char **fail_patterns;		/* console regexes that fail a boot at once */

	const char *prompt;		/* shell prompt on the target */
	const char *module_path;	/* where the initramfs keeps dmabench.ko */

	long t_power_s, t_kernel_s, t_command_s;
	long retries;
	const char *kernel_recipe;	/* boards/kernel/NAME.conf, for make kernels */
};

/* Loads and validates; prints file:line:col errors and returns -EINVAL. */
int board_load(struct board *b, const char *path);
/* NAME or a path: NAME resolves to DIR/NAME.json (DIR: ABLAB_BOARDS or ./boards). */
int board_load_by_name(struct board *b, const char *name_or_path);
void board_free(struct board *b);

#endif
