/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BACKENDS_H
#define ABLAB_BACKENDS_H

/* The registry of a board's backends (backends.c): the type names a board file gives
 * in console.type, power.type and boot.method, each with its ops, its capabilities and
 * one line of help.  Callers test a capability, never a backend's name; the error for
 * an unknown type and `ablab --help` list the names from here.  A new backend: its own
 * file with its ops, and one line in backends-list.h.  backends.c holds the ops (above the
 * backends), backend-caps.c the capabilities and help (below them: the backends ask it). */
#include "shared/jsonfile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum backend_kind { BACKEND_CONSOLE, BACKEND_POWER, BACKEND_BOOT };

/* power: on() makes the machine (QEMU): it exists only during a boot, there is nothing
 * to switch off before it, and its console can be opened only once it runs */
#define CAP_MAKES_MACHINE (1u << 0)
/* power: on() loads the kernel itself (boot method direct: QEMU -kernel) */
#define CAP_LOADS_KERNEL (1u << 1)
/* power: serves a per-boot TFTP root itself (boot method uboot needs no tftp_root) */
#define CAP_SERVES_TFTP (1u << 2)
/* power: makes the consoles a console backend's machine_label() names (tty: console.device
 * "qemu:LABEL"), at power_ops.console_path() */
#define CAP_MAKES_CONSOLE (1u << 3)
/* power: the board stays as switched only while this process holds the backend's handle
 * (a GPIO line request: released, the line may fall back); `ablab power on` holds it until
 * Ctrl-C */
#define CAP_HOLDS_STATE (1u << 6)
/* console: a network endpoint (console.host, console.port), not a device */
#define CAP_NETWORK (1u << 4)

struct board;

/* What every backend's ops hold first (console_ops, power_ops, boot_ops: .conf): its keys
 * in the board file's section, besides the keys the section has for every backend, and how
 * it reads them.  board.c validates the section against the keys of all backends of the
 * kind (a key of another backend: "not used by type X (only by: Y)"), then calls parse()
 * with the section's object; parse() fills the board and reports a problem with
 * board_field_error() (file:line:col, the field, the fix) and returns -EINVAL.  free()
 * releases what parse() allocated in the board (board_free(), also after a failed load). */
struct backend_conf {
	const struct jfield *fields; /* NULL: none */
	int (*parse)(struct board *b, json_object *o);
	void (*free)(struct board *b);
};

struct backend {
	enum backend_kind kind;
	const char *name;
	unsigned int caps;
	const void *ops; /* struct console_ops, power_ops or boot_ops */
	const char *help;
};

/* The backend of that kind and name, or NULL (name NULL too). */
const struct backend *backend_find(enum backend_kind kind, const char *name);
/* The first backend of a kind (prev NULL), or the one after prev; NULL after the last. */
const struct backend *backend_next(enum backend_kind kind, const struct backend *prev);
/* The backend's board-file section keys and parser. */
const struct backend_conf *backend_conf(const struct backend *bk);
/* Whether the backend of that kind and name has every capability in caps (caps 0: whether
 * there is one). */
bool backend_has(enum backend_kind kind, const char *name, unsigned int caps);
/* "tty, serial, tcp": the names of a kind, for an error message; returns buf. */
char *backend_names(enum backend_kind kind, char *buf, size_t len);
/* The same, of the backends with every capability in caps. */
char *backend_names_with(enum backend_kind kind, unsigned int caps, char *buf, size_t len);
/* The backends, one line each, for `ablab --help`. */
void backend_help(FILE *f);

#endif
