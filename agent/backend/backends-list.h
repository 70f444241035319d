/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_BACKENDS_LIST_H
#define ABLAB_BACKENDS_LIST_H

/* Inside backend/ only: the list backends.c (the ops) and backend-caps.c (capabilities,
 * help) make their tables from. */
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

#endif
