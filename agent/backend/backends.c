// SPDX-License-Identifier: GPL-2.0-only
/* The one list of backends: type name -> ops, capabilities, help (backends.h).  It
 * holds data only and calls nothing, so every layer may read it. */
#include "backend/backends.h"
#include "backend/boot.h"
#include "backend/console.h"
#include "backend/power.h"
#include "shared/util.h"

#include <string.h>

/* One line a backend: kind, type name (its ops are KIND_NAME_ops, defined in its own
 * file), capabilities, help.  The order is the order of the error messages and --help. */
#define BACKENDS(X)                                                                                \
	X(console, tty, 0, "a tty device, or qemu:LABEL (a pty QEMU makes)")                       \
	X(console, serial, 0, "a serial adapter by device or usb_serial (libserialport)")          \
	X(console, tcp, CAP_NETWORK, "host:port, raw or telnet (ser2net, QEMU)")                   \
	X(power, qemu, CAP_MAKES_MACHINE | CAP_LOADS_KERNEL | CAP_SERVES_TFTP | CAP_MAKES_CONSOLE, \
	  "an emulated board: one QEMU process per boot")                                          \
	X(power, gpiod, CAP_HOLDS_STATE, "a relay on GPIO lines (libgpiod)")                       \
	X(power, command, 0, "your commands switch it (a PDU, a USB relay)")                       \
	X(power, manual, 0, "an operator switches it when asked")                                  \
	X(boot, direct, 0, "QEMU -kernel (power type qemu)")                                       \
	X(boot, uboot, 0, "interrupt U-Boot, type boot.commands, kernel over TFTP")                \
	X(boot, command, 0, "boot.deploy puts the kernel in place (an SD mux), then power on")

#define KIND_console BACKEND_CONSOLE
#define KIND_power BACKEND_POWER
#define KIND_boot BACKEND_BOOT

#define DECLARE(kind, name, caps, help) extern const struct kind##_ops kind##_##name##_ops;
BACKENDS(DECLARE)

#define ENTRY(kind, name, caps, help) { KIND_##kind, #name, caps, &kind##_##name##_ops, help },
static const struct backend backends[] = { BACKENDS(ENTRY) };

static const char *const kind_names[] = { "console.type", "power.type", "boot.method" };

const struct backend *backend_find(enum backend_kind kind, const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind && !strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

const struct backend *backend_next(enum backend_kind kind, const struct backend *prev)
{
	size_t i = prev ? (size_t)(prev - backends) + 1 : 0;

	for (; i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind)
			return &backends[i];
	return NULL;
}

const struct backend_conf *backend_conf(const struct backend *bk)
{
	switch (bk->kind) {
	case BACKEND_CONSOLE:
		return &((const struct console_ops *)bk->ops)->conf;
	case BACKEND_POWER:
		return &((const struct power_ops *)bk->ops)->conf;
	case BACKEND_BOOT:
		return &((const struct boot_ops *)bk->ops)->conf;
	}
	return NULL;
}

bool backend_has(enum backend_kind kind, const char *name, unsigned int caps)
{
	const struct backend *b = backend_find(kind, name);

	return b && (b->caps & caps) == caps;
}

char *backend_names(enum backend_kind kind, char *buf, size_t len)
{
	return backend_names_with(kind, 0, buf, len);
}

char *backend_names_with(enum backend_kind kind, unsigned int caps, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(backends) && n < len; i++)
		if (backends[i].kind == kind && (backends[i].caps & caps) == caps)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      backends[i].name);
	return buf;
}

void backend_help(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		fprintf(f, "  %-12s %-8s %s\n",
			i && backends[i - 1].kind == backends[i].kind ?
				"" :
				kind_names[backends[i].kind],
			backends[i].name, backends[i].help);
}
