// SPDX-License-Identifier: GPL-2.0-only
/* Console backend tty: any terminal device through termios (QEMU -serial
 * pty; a UART by path when libserialport is not wanted). */
#include "backend/console.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

/* console.* of this backend (board->console_priv) */
struct tty_conf {
	const char *device; /* the board file's string: a path or "qemu:LABEL" */
	long baud;
	speed_t speed; /* baud as termios has it */
};

static const struct tty_conf *conf_of(const struct board *b)
{
	return b->console_priv;
}

/* The rates termios sets (Linux), in the order the error lists them. */
static const struct {
	long baud;
	speed_t speed;
} speeds[] = {
	{ 50, B50 },	       { 75, B75 },	      { 110, B110 },	     { 134, B134 },
	{ 150, B150 },	       { 200, B200 },	      { 300, B300 },	     { 600, B600 },
	{ 1200, B1200 },       { 1800, B1800 },	      { 2400, B2400 },	     { 4800, B4800 },
	{ 9600, B9600 },       { 19200, B19200 },     { 38400, B38400 },     { 57600, B57600 },
	{ 115200, B115200 },   { 230400, B230400 },   { 460800, B460800 },   { 500000, B500000 },
	{ 576000, B576000 },   { 921600, B921600 },   { 1000000, B1000000 }, { 1152000, B1152000 },
	{ 1500000, B1500000 }, { 2000000, B2000000 }, { 2500000, B2500000 }, { 3000000, B3000000 },
	{ 3500000, B3500000 }, { 4000000, B4000000 },
};

static int tty_open(struct console *c)
{
	struct termios t;
	int e;

	if (!c->device) /* else the pty QEMU made for "qemu:LABEL" */
		c->device = xstrdup(conf_of(c->board)->device);
	c->fd = open(c->device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		e = errno;
		console_set_err(c, "%s: console.device %s: %s", c->board->name, c->device,
				strerror(e));
		return -e;
	}
	if (tcgetattr(c->fd, &t) < 0)
		goto fail;
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	cfsetispeed(&t, conf_of(c->board)->speed);
	cfsetospeed(&t, conf_of(c->board)->speed);
	if (tcsetattr(c->fd, TCSANOW, &t) < 0)
		goto fail;
	ioctl(c->fd, TIOCEXCL); /* a second open (cu, screen, another agent) gets EBUSY */
	return 0;
fail:
	e = errno;
	console_set_err(c, "%s: console.device %s is not a terminal: %s", c->board->name, c->device,
			strerror(e));
	close(c->fd);
	c->fd = -1;
	return -e;
}

/* LABEL of "qemu:LABEL", else NULL */
static const char *tty_machine_label(const struct board *b)
{
	const char *d = conf_of(b)->device;

	return !strncmp(d, "qemu:", 5) ? d + 5 : NULL;
}

/* dry run: the device exists (a qemu: pty is made at power on) */
static int tty_check(const struct board *b, struct buf *out)
{
	const char *d = conf_of(b)->device;

	if (tty_machine_label(b))
		return check_line(out, true, "console.device", "%s: a pty QEMU creates at power on",
				  d);
	if (!access(d, R_OK | W_OK))
		return check_line(out, true, "console.device", "%s exists", d);
	return check_line(out, false, "console.device", "%s: %s", d, strerror(errno));
}

static int tty_preflight(const struct board *b, struct errtext *e)
{
	return tty_machine_label(b) ? 0 : console_device_present(b, conf_of(b)->device, e);
}

static void tty_describe(const struct board *b, char *out, size_t len)
{
	snprintf(out, len, "%s", conf_of(b)->device);
}

static long tty_baud(const struct board *b)
{
	return conf_of(b)->baud;
}

static const struct jfield tty_fields[] = { { "device", J_STRING }, CONSOLE_BAUD_FIELD, { NULL } };

static int tty_parse(struct board *b, json_object *o)
{
	struct tty_conf *t = xcalloc(1, sizeof(*t));
	const char *power;
	struct buf rates = { 0 };
	char names[64];
	size_t i;

	b->console_priv = t;
	t->device = jstr(o, "device");
	if (!t->device)
		return board_field_error(
			b, "console", "type",
			"console type tty needs \"device\" (a tty path or \"qemu:LABEL\")");
	/* the pty of "qemu:LABEL" is made by the power backend (its section is validated,
	 * not parsed yet: an unknown type is its own error) */
	power = jstr(jobj(b->jf.root, "power"), "type");
	if (tty_machine_label(b) && backend_has(BACKEND_POWER, power, 0) &&
	    !backend_has(BACKEND_POWER, power, CAP_MAKES_CONSOLE))
		return board_field_error(
			b, "console", "device", "\"qemu:LABEL\" needs power type %s",
			backend_names_with(BACKEND_POWER, CAP_MAKES_CONSOLE, names, sizeof(names)));
	t->baud = jint(o, "baud", CONSOLE_BAUD);
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].baud == t->baud) {
			t->speed = speeds[i].speed;
			return 0;
		}
	for (i = 0; i < ARRAY_SIZE(speeds); i++)
		buf_printf(&rates, "%s%ld", i ? ", " : "", speeds[i].baud);
	board_field_error(
		b, "console", "baud",
		"%ld is not a rate termios sets (one of: %s); console type serial sets others",
		t->baud, rates.data);
	buf_free(&rates);
	return -EINVAL;
}

static void tty_free(struct board *b)
{
	free(b->console_priv);
	b->console_priv = NULL;
}

/* the resolved device; a qemu: pty exists only inside its own QEMU */
static char *tty_lock_key(const struct board *b)
{
	char real[PATH_MAX];
	const char *d = conf_of(b)->device;

	if (tty_machine_label(b))
		return NULL;
	return xstrdup(realpath(d, real) ? real : d);
}

const struct console_ops console_tty_ops = {
	.conf = { .fields = tty_fields, .parse = tty_parse, .free = tty_free },
	.name = "tty",
	.open = tty_open,
	.close = console_fd_close,
	.check = tty_check,
	.lock_key = tty_lock_key,
	.describe = tty_describe,
	.baud = tty_baud,
	.machine_label = tty_machine_label,
	.preflight = tty_preflight,
};
