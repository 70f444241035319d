// SPDX-License-Identifier: GPL-2.0-only
/* Console backends and the expect engine (deadlines, no fixed windows). */
#include "console.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static speed_t baud_to_speed(long baud)
{
	switch (baud) {
	case 9600: return B9600;
	case 19200: return B19200;
	case 38400: return B38400;
	case 57600: return B57600;
	case 230400: return B230400;
	case 460800: return B460800;
	case 921600: return B921600;
	case 1500000: return B1500000;
	default: return B115200;
	}
}

/* tty: any terminal device through termios (QEMU -serial pty, /dev/ttyUSB0). */
static int tty_open(struct console *c, const char *device, long baud)
{
	struct termios t;

	c->fd = open(device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0)
		return -errno;
	if (tcgetattr(c->fd, &t) < 0) {
		int e = errno;

		close(c->fd);
		c->fd = -1;
		return -e;
	}
	cfmakeraw(&t);
	t.c_cflag |= CLOCAL | CREAD;
	cfsetispeed(&t, baud_to_speed(baud));
	cfsetospeed(&t, baud_to_speed(baud));
	if (tcsetattr(c->fd, TCSANOW, &t) < 0) {
		int e = errno;

		close(c->fd);
		c->fd = -1;
		return -e;
	}
	return 0;
}

static void fd_close(struct console *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static const struct console_ops tty_ops = {
	.name = "tty",
	.open = tty_open,
	.close = fd_close,
};

static const struct console_ops *const backends[] = { &tty_ops };

int console_open(struct console *c, const char *type, const char *device, long baud,
		 const char *transcript)
{
	size_t i;
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	for (i = 0; i < ARRAY_SIZE(backends); i++)
		if (!strcmp(backends[i]->name, type))
			c->ops = backends[i];
	if (!c->ops)
		return -EPROTONOSUPPORT;
	if (transcript) {
		c->log = fopen(transcript, "ae");
		if (!c->log)
			return -errno;
	}
	ret = c->ops->open(c, device, baud);
	if (ret) {
		if (c->log)
			fclose(c->log);
		c->log = NULL;
		return ret;
	}
	c->t_open = c->t_last_rx = now_ms();
	return 0;
}

void console_close(struct console *c)
{
	if (c->ops)
		c->ops->close(c);
	if (c->log)
		fclose(c->log);
	c->log = NULL;
	buf_free(&c->in);
	c->ops = NULL;
}

int console_write(struct console *c, const char *s)
{
	size_t len = strlen(s);
	int64_t deadline = now_ms() + 5000;

	while (len) {
		ssize_t n = write(c->fd, s, len);

		if (n < 0) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			if (now_ms() > deadline)
				return -ETIMEDOUT;
			poll(&p, 1, 100);
			continue;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

int re_compile(regex_t *re, const char *pattern)
{
	return regcomp(re, pattern, REG_EXTENDED | REG_NEWLINE) ? -EINVAL : 0;
}

/* Appends received bytes, dropping NULs (they would end regexec's string). */
static void take_input(struct console *c, const char *p, size_t n)
{
	size_t i, start = 0;

	if (c->log) {
		fwrite(p, 1, n, c->log);
		fflush(c->log);
	}
	for (i = 0; i <= n; i++) {
		if (i == n || p[i] == '\0') {
			if (i > start)
				buf_append(&c->in, p + start, i - start);
			start = i + 1;
		}
	}
	c->t_last_rx = now_ms();
}

static int scan(struct console *c, regex_t *const *res, size_t n, regmatch_t *m)
{
	size_t from = c->scanned > c->consumed ? c->scanned : c->consumed;
	const char *base;
	int best = -1;
	regoff_t best_so = 0;
	size_t i;

	if (!c->in.data)
		return -1;
	/* back up to the start of the line that was incomplete last time */
	while (from > c->consumed && c->in.data[from - 1] != '\n')
		from--;
	base = c->in.data + from;
	for (i = 0; i < n; i++) {
		regmatch_t mm[10];

		if (regexec(res[i], base, 10, mm, from == c->consumed ? 0 : 0) == 0 &&
		    (best < 0 || mm[0].rm_so < best_so)) {
			size_t k;

			best = (int)i;
			best_so = mm[0].rm_so;
			for (k = 0; k < 10; k++) {
				m[k] = mm[k];
				if (m[k].rm_so >= 0) {
					m[k].rm_so += (regoff_t)from;
					m[k].rm_eo += (regoff_t)from;
				}
			}
		}
	}
	if (best >= 0)
		c->consumed = (size_t)m[0].rm_eo;
	c->scanned = c->in.len;
	return best;
}

int console_expect(struct console *c, regex_t *const *res, size_t n, int64_t deadline,
		   regmatch_t *m)
{
	char chunk[65536];

	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int64_t left;
		int idx, r;

		idx = scan(c, res, n, m);
		if (idx >= 0)
			return idx;
		if (stop_requested)
			return -EINTR;
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			continue;
		for (;;) {
			ssize_t got = read(c->fd, chunk, sizeof(chunk));

			if (got > 0) {
				take_input(c, chunk, (size_t)got);
				if ((size_t)got < sizeof(chunk))
					break;
				continue;
			}
			if (got < 0 && (errno == EAGAIN || errno == EINTR))
				break;
			/* EOF or EIO: the peer (QEMU, the adapter) went away */
			return -EPIPE;
		}
	}
}
