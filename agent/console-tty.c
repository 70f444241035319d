// SPDX-License-Identifier: GPL-2.0-only
/* Console backend tty: any terminal device through termios (QEMU -serial
 * pty; a UART by path when libserialport is not wanted). */
#include "console.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static speed_t baud_to_speed(long baud)
{
	switch (baud) {
	case 9600:
		return B9600;
	case 19200:
		return B19200;
	case 38400:
		return B38400;
	case 57600:
		return B57600;
	case 230400:
		return B230400;
	case 460800:
		return B460800;
	case 921600:
		return B921600;
	case 1500000:
		return B1500000;
	case 3000000:
		return B3000000;
	default:
		return B115200;
	}
}

static int tty_open(struct console *c)
{
	struct termios t;
	int e;

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
	cfsetispeed(&t, baud_to_speed(c->board->baud));
	cfsetospeed(&t, baud_to_speed(c->board->baud));
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

/* dry run: the device exists (a qemu: pty is made at power on) */
static int tty_check(const struct board *b, struct buf *out)
{
	if (!strncmp(b->console_device, "qemu:", 5))
		return check_line(out, true, "console.device", "%s: a pty QEMU creates at power on",
				  b->console_device);
	if (!access(b->console_device, R_OK | W_OK))
		return check_line(out, true, "console.device", "%s exists", b->console_device);
	return check_line(out, false, "console.device", "%s: %s", b->console_device,
			  strerror(errno));
}

static const struct jfield tty_fields[] = { { "device", J_STRING }, { NULL } };

static int tty_parse(struct board *b, json_object *o)
{
	b->console_device = jstr(o, "device");
	if (!b->console_device)
		return board_field_error(
			b, "console", "type",
			"console type tty needs \"device\" (a tty path or \"qemu:LABEL\")");
	return 0;
}

/* the resolved device; a qemu: pty exists only inside its own QEMU */
static char *tty_lock_key(const struct board *b)
{
	char real[PATH_MAX];

	if (!b->console_device || !strncmp(b->console_device, "qemu:", 5))
		return NULL;
	return xstrdup(realpath(b->console_device, real) ? real : b->console_device);
}

const struct console_ops console_tty_ops = {
	.conf = { .fields = tty_fields, .parse = tty_parse },
	.name = "tty",
	.open = tty_open,
	.close = console_fd_close,
	.check = tty_check,
	.lock_key = tty_lock_key,
};
