// SPDX-License-Identifier: GPL-2.0-only
/* The one list of backends: type name -> ops, capabilities, help (backends.h).  It
 * holds data only and calls nothing, so every layer may read it. */
#include "backends.h"
#include "boot.h"
#include "console.h"
#include "power.h"
#include "util.h"

#include <string.h>

static const struct backend backends[] = {
	{ BACKEND_CONSOLE, "tty", CAP_DEVICE_PATH, &console_tty_ops,
	  "a tty device, or qemu:LABEL (a pty QEMU makes)" },
	{ BACKEND_CONSOLE, "serial", 0, &console_serial_ops,
	  "a serial adapter by device or usb_serial (libserialport)" },
	{ BACKEND_CONSOLE, "tcp", CAP_NETWORK, &console_tcp_ops,
	  "host:port, raw or telnet (ser2net, QEMU)" },
	{ BACKEND_POWER, "qemu", CAP_MAKES_MACHINE | CAP_LOADS_KERNEL | CAP_SERVES_TFTP |
	  CAP_MAKES_CONSOLE, &power_qemu_ops, "an emulated board: one QEMU process per boot" },
	{ BACKEND_POWER, "gpiod", 0, &power_gpiod_ops, "a relay on GPIO lines (libgpiod)" },
	{ BACKEND_POWER, "command", 0, &power_command_ops,
	  "your commands switch it (a PDU, a USB relay)" },
	{ BACKEND_POWER, "manual", 0, &power_manual_ops, "an operator switches it when asked" },
	{ BACKEND_BOOT, "direct", 0, &boot_direct_ops, "QEMU -kernel (power type qemu)" },
	{ BACKEND_BOOT, "uboot", 0, &boot_uboot_ops,
	  "interrupt U-Boot, type boot.commands, kernel over TFTP" },
	{ BACKEND_BOOT, "command", 0, &boot_command_ops,
	  "boot.deploy puts the kernel in place (an SD mux), then power on" },
};

static const char *const kind_names[] = { "console.type", "power.type", "boot.method" };

const struct backend *backend_find(enum backend_kind kind, const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind && !strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

bool backend_has(enum backend_kind kind, const char *name, unsigned int caps)
{
	const struct backend *b = backend_find(kind, name);

	return b && (b->caps & caps) == caps;
}

char *backend_names(enum backend_kind kind, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(backends) && n < len; i++)
		if (backends[i].kind == kind)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      backends[i].name);
	return buf;
}

void backend_help(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		fprintf(f, "  %-12s %-8s %s\n", i && backends[i - 1].kind == backends[i].kind ? "" :
			kind_names[backends[i].kind], backends[i].name, backends[i].help);
}
