// SPDX-License-Identifier: GPL-2.0-only
/* Console backend serial: real UARTs through libserialport, found by path,
 * /dev/serial/by-id name or USB serial number (libserialport 0.1.1 cannot
 * open ptys: DESIGN.md section 8). */
#include "backend/console.h"

#include <errno.h>
#include <fcntl.h>
#include <libserialport.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* console.* of this backend (board->console_priv) */
struct serial_conf {
	const char *device; /* path or /dev/serial/by-id name */
	const char *usb_serial; /* instead of device: the adapter's USB serial number */
	long baud;
};

static const struct serial_conf *conf_of(const struct board *b)
{
	return b->console_priv;
}

/* console.device / console.usb_serial to a device path (caller frees); -ENOENT with err
 * naming the field when there is none. */
static int serial_resolve(const struct board *b, char **path, struct errtext *err)
{
	const struct serial_conf *sc = conf_of(b);
	const char *d = sc->device;
	char real[PATH_MAX], *cand = NULL;

	*path = NULL;
	if (d) {
		if (d[0] == '/')
			cand = xstrdup(d);
		else
			cand = xasprintf("/dev/serial/by-id/%s", d);
		if (!realpath(cand, real) && d[0] != '/') {
			char *dev = xasprintf("/dev/%s", d);

			if (realpath(dev, real)) {
				free(cand);
				cand = dev;
			} else {
				free(dev);
			}
		}
		if (!realpath(cand, real)) {
			errtext_set(
				err, -ENOENT,
				"%s: console.device %s: %s (is the adapter plugged in and powered? `ablab ports` lists the serial adapters found)",
				b->name, cand, strerror(errno));
			free(cand);
			return -ENOENT;
		}
		free(cand);
		*path = xstrdup(real);
		return 0;
	} else {
		struct sp_port **list = NULL;
		size_t i;

		if (sp_list_ports(&list) != SP_OK) {
			return errtext_set(err, -EIO,
					   "%s: console.usb_serial: cannot list serial ports: %s",
					   b->name, sp_last_error_message());
		}
		for (i = 0; list[i]; i++) {
			const char *sn = sp_get_port_usb_serial(list[i]);

			if (sn && !strcmp(sn, sc->usb_serial)) {
				*path = xstrdup(sp_get_port_name(list[i]));
				break;
			}
		}
		sp_free_port_list(list);
		if (!*path) {
			return errtext_set(
				err, -ENOENT,
				"%s: console.usb_serial \"%s\": no USB serial adapter with this serial number (%zu serial port%s found; see `ablab ports`)",
				b->name, sc->usb_serial, i, i == 1 ? "" : "s");
		}
		return 0;
	}
}

static int serial_open(struct console *c)
{
	struct sp_port *port = NULL;
	struct termios t;
	int fd = -1, fl;

	if (!c->device) {
		int ret = serial_resolve(c->board, &c->device, &c->error);

		if (ret)
			return ret;
	}
	if (sp_get_port_by_name(c->device, &port) != SP_OK) {
		console_set_err(
			c,
			"%s: console.device %s: libserialport cannot use it (%s); a pty needs console type tty",
			c->board->name, c->device, sp_last_error_message());
		return -ENODEV;
	}
	if (sp_open(port, SP_MODE_READ_WRITE) != SP_OK) {
		console_set_err(c, "%s: console.device %s: cannot open: %s", c->board->name,
				c->device, sp_last_error_message());
		sp_free_port(port);
		return -EIO;
	}
	/* libserialport 0.1.1 opens without O_CLOEXEC: the flag right after the open, before
	 * anything else runs, so that power and deploy commands never inherit the UART */
	if (sp_get_port_handle(port, &fd) != SP_OK || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		console_set_err(c, "%s: console.device %s: cannot set close-on-exec: %s",
				c->board->name, c->device, strerror(errno));
		sp_close(port);
		sp_free_port(port);
		return -EIO;
	}
	if (sp_set_baudrate(port, (int)conf_of(c->board)->baud) != SP_OK ||
	    sp_set_bits(port, 8) != SP_OK || sp_set_parity(port, SP_PARITY_NONE) != SP_OK ||
	    sp_set_stopbits(port, 1) != SP_OK ||
	    sp_set_flowcontrol(port, SP_FLOWCONTROL_NONE) != SP_OK ||
	    sp_get_port_handle(port, &fd) != SP_OK) {
		console_set_err(c, "%s: console.baud %ld on %s: %s", c->board->name,
				conf_of(c->board)->baud, c->device, sp_last_error_message());
		sp_close(port);
		sp_free_port(port);
		return -EINVAL;
	}
	/* libserialport leaves VMIN = VTIME = 0, where read() returns 0 when
	 * no byte is waiting: console_read() takes 0 for the adapter going away
	 * and reopens the port, losing what the tty had buffered (found on the
	 * virtual lab's FTDI adapter, tests/t86-vlab.sh).  VMIN = 1 with
	 * O_NONBLOCK: EAGAIN when empty, 0 only on a hangup (unplug). */
	if (tcgetattr(fd, &t) < 0 ||
	    (t.c_cc[VMIN] = 1, t.c_cc[VTIME] = 0, tcsetattr(fd, TCSANOW, &t) < 0)) {
		console_set_err(c, "%s: console.device %s: termios: %s", c->board->name, c->device,
				strerror(errno));
		sp_close(port);
		sp_free_port(port);
		return -EIO;
	}
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	ioctl(fd, TIOCEXCL); /* a second open (cu, screen, another agent) gets EBUSY */
	c->port = port;
	c->fd = fd;
	return 0;
}

static void serial_close(struct console *c)
{
	if (c->port) {
		sp_close(c->port);
		sp_free_port(c->port);
	}
	c->port = NULL;
	c->fd = -1;
}

/* dry run: the adapter is plugged in (resolved to its device) */
static int serial_check(const struct board *b, struct buf *out)
{
	const struct serial_conf *sc = conf_of(b);
	const char *field = sc->device ? "console.device" : "console.usb_serial";
	struct errtext err = { "" };
	char *path = NULL;
	int bad;

	if (serial_resolve(b, &path, &err)) {
		/* "BOARD: console.FIELD X: why" -> "X: why" under the field */
		const char *why = strstr(err.msg, ": console.");

		why = why ? strchr(why + 2, ' ') : NULL;
		return check_line(out, false, field, "%s", why ? why + 1 : err.msg);
	}
	bad = check_line(out, true, field, "%s -> %s, %ld baud",
			 sc->device ? sc->device : sc->usb_serial, path, sc->baud);
	free(path);
	return bad;
}

static int serial_preflight(const struct board *b, struct errtext *e)
{
	return console_device_present(b, conf_of(b)->device, e);
}

static void serial_describe(const struct board *b, char *out, size_t len)
{
	const struct serial_conf *sc = conf_of(b);

	snprintf(out, len, "%s", sc->device ? sc->device : sc->usb_serial);
}

static long serial_baud(const struct board *b)
{
	return conf_of(b)->baud;
}

static const struct jfield serial_fields[] = { { "device", J_STRING },
					       { "usb_serial", J_STRING },
					       CONSOLE_BAUD_FIELD,
					       { NULL } };

static int serial_parse(struct board *b, json_object *o)
{
	struct serial_conf *sc = xcalloc(1, sizeof(*sc));

	b->console_priv = sc;
	sc->device = jstr(o, "device");
	sc->usb_serial = jstr(o, "usb_serial");
	sc->baud = jint(o, "baud", CONSOLE_BAUD);
	if (!sc->device && !sc->usb_serial)
		return board_field_error(
			b, "console", "type",
			"console type serial needs \"device\" (path or /dev/serial/by-id name) or \"usb_serial\" (see `ablab ports`)");
	if (sc->device && !strncmp(sc->device, "qemu:", 5))
		return board_field_error(b, "console", "device",
					 "\"qemu:LABEL\" is a pty: use console type tty");
	return 0;
}

static void serial_free(struct board *b)
{
	free(b->console_priv);
	b->console_priv = NULL;
}

/* the resolved device */
static char *serial_lock_key(const struct board *b)
{
	struct errtext err;
	char real[PATH_MAX], *path = NULL, *k;

	if (serial_resolve(b, &path, &err))
		return NULL; /* not plugged in: the open fails later, clearly */
	k = xstrdup(realpath(path, real) ? real : path);
	free(path);
	return k;
}

const struct console_ops console_serial_ops = {
	.conf = { .fields = serial_fields, .parse = serial_parse, .free = serial_free },
	.name = "serial",
	.open = serial_open,
	.close = serial_close,
	.check = serial_check,
	.lock_key = serial_lock_key,
	.describe = serial_describe,
	.baud = serial_baud,
	.preflight = serial_preflight,
};
