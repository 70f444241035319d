// SPDX-License-Identifier: GPL-2.0-only
/* Console backend tcp: ser2net or QEMU -serial tcp:HOST:PORT,server, raw or
 * telnet (RFC 854). */
#include "backend/console.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, SE = 240 };
enum { OPT_BINARY = 0, OPT_ECHO = 1, OPT_SGA = 3 };
enum { TN_DATA, TN_IAC, TN_OPT, TN_SB, TN_SB_IAC };

/* console.* of this backend (board->console_priv) */
struct tcp_conf {
	const char *host; /* the board file's string */
	long port;
	bool telnet; /* RFC 854 (ser2net "telnet"), else raw */
	long baud; /* the line behind the server (ser2net sets it): paces only */
};

static const struct tcp_conf *conf_of(const struct board *b)
{
	return b->console_priv;
}

static int tcp_open(struct console *c)
{
	const struct board *b = c->board;
	const struct tcp_conf *t = conf_of(b);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL, *a;
	char port[16];
	int r, e = ECONNREFUSED;

	snprintf(port, sizeof(port), "%ld", t->port);
	r = getaddrinfo(t->host, port, &hints, &ai);
	if (r) {
		console_set_err(c, "%s: console.host %s: %s", b->name, t->host, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	for (a = ai; a; a = a->ai_next) {
		struct pollfd p;
		socklen_t len = sizeof(e);

		c->fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			       a->ai_protocol);
		if (c->fd < 0) {
			e = errno;
			continue;
		}
		if (connect(c->fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		if (e == EINPROGRESS) {
			p = (struct pollfd){ .fd = c->fd, .events = POLLOUT };
			if (poll(&p, 1, (int)(b->t_power_s * 1000)) == 1 &&
			    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && e == 0)
				break;
			if (e == EINPROGRESS)
				e = ETIMEDOUT;
		}
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(ai);
	if (c->fd < 0) {
		console_set_err(c, "%s: console.host/port %s:%ld: %s", b->name, t->host, t->port,
				strerror(e));
		return -e;
	}
	c->telnet_state = TN_DATA;
	if (t->telnet) {
		const unsigned char hello[] = { IAC, WILL, OPT_BINARY, IAC, DO, OPT_BINARY,
						IAC, WILL, OPT_SGA,    IAC, DO, OPT_SGA };

		if (write(c->fd, hello, sizeof(hello)) < 0) {
			e = errno;
			console_set_err(c, "%s: console %s:%ld: %s", b->name, t->host, t->port,
					strerror(e));
			close(c->fd);
			c->fd = -1;
			return -e;
		}
	}
	return 0;
}

/* Telnet: strips commands from the stream, answers option negotiation
 * (binary and suppress-go-ahead accepted, the server's echo accepted,
 * everything else refused). */
static ssize_t telnet_read(struct console *c, char *p, size_t n)
{
	unsigned char raw[4096];
	ssize_t got, i;
	size_t out = 0;

	if (!conf_of(c->board)->telnet)
		return read(c->fd, p, n);
	got = read(c->fd, raw, n < sizeof(raw) ? n : sizeof(raw));
	if (got <= 0)
		return got;
	for (i = 0; i < got; i++) {
		unsigned char ch = raw[i];

		switch (c->telnet_state) {
		case TN_DATA:
			if (ch == IAC)
				c->telnet_state = TN_IAC;
			else
				p[out++] = (char)ch;
			break;
		case TN_IAC:
			if (ch == IAC) {
				p[out++] = (char)IAC;
				c->telnet_state = TN_DATA;
			} else if (ch >= WILL && ch <= DONT) {
				c->telnet_cmd = ch;
				c->telnet_state = TN_OPT;
			} else if (ch == SB) {
				c->telnet_state = TN_SB;
			} else {
				c->telnet_state = TN_DATA;
			}
			break;
		case TN_OPT: {
			bool ours = ch == OPT_BINARY || ch == OPT_SGA;
			unsigned char ans[3] = { IAC, 0, ch };

			if (c->telnet_cmd == DO && !ours)
				ans[1] = WONT;
			else if (c->telnet_cmd == WILL && !ours && ch != OPT_ECHO)
				ans[1] = DONT;
			else if (c->telnet_cmd == WILL && ch == OPT_ECHO)
				ans[1] = DO;
			if (ans[1] && write(c->fd, ans, 3) < 0)
				return -1;
			c->telnet_state = TN_DATA;
			break;
		}
		case TN_SB:
			if (ch == IAC)
				c->telnet_state = TN_SB_IAC;
			break;
		case TN_SB_IAC:
			c->telnet_state = ch == SE ? TN_DATA : TN_SB;
			break;
		}
	}
	if (!out) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)out;
}

static ssize_t telnet_write(struct console *c, const char *p, size_t n)
{
	size_t i;

	if (!conf_of(c->board)->telnet || !memchr(p, IAC, n))
		return write(c->fd, p, n);
	for (i = 0; i < n; i++) { /* rare: double every 0xff byte */
		unsigned char two[2] = { (unsigned char)p[i], IAC };
		ssize_t w = write(c->fd, two, two[0] == IAC ? 2 : 1);

		if (w < 0)
			return i ? (ssize_t)i : -1;
	}
	return (ssize_t)n;
}

/* dry run: no connection (it could steal the port from a user) */
static int tcp_check(const struct board *b, struct buf *out)
{
	const struct tcp_conf *t = conf_of(b);

	return check_line(out, true, "console.host", "%s:%ld (%s); not connected in a dry run",
			  t->host, t->port, t->telnet ? "telnet" : "raw");
}

/* "host:port", " telnet" after it */
static void tcp_describe(const struct board *b, char *out, size_t len)
{
	const struct tcp_conf *t = conf_of(b);

	snprintf(out, len, "%s:%ld%s", t->host, t->port, t->telnet ? " telnet" : "");
}

static long tcp_baud(const struct board *b)
{
	return conf_of(b)->baud;
}

static const struct jfield tcp_fields[] = { { "host", J_STRING },
					    { "port", J_INT, false, NULL, 1, 65535 },
					    { "protocol", J_STRING },
					    CONSOLE_BAUD_FIELD,
					    { NULL } };

static int tcp_parse(struct board *b, json_object *o)
{
	struct tcp_conf *t = xcalloc(1, sizeof(*t));
	const char *proto;

	b->console_priv = t;
	t->host = jstr(o, "host");
	t->port = jint(o, "port", 0);
	t->baud = jint(o, "baud", CONSOLE_BAUD);
	if (!t->host || !t->port)
		return board_field_error(b, "console", "type",
					 "console type tcp needs \"host\" and \"port\"");
	proto = jstr(o, "protocol");
	if (proto && strcmp(proto, "raw") && strcmp(proto, "telnet"))
		return board_field_error(b, "console", "protocol",
					 "\"%s\" is not one of raw, telnet", proto);
	t->telnet = proto && !strcmp(proto, "telnet");
	return 0;
}

static void tcp_free(struct board *b)
{
	free(b->console_priv);
	b->console_priv = NULL;
}

static char *tcp_lock_key(const struct board *b)
{
	return xasprintf("tcp:%s:%ld", conf_of(b)->host, conf_of(b)->port);
}

const struct console_ops console_tcp_ops = {
	.conf = { .fields = tcp_fields, .parse = tcp_parse, .free = tcp_free },
	.name = "tcp",
	.open = tcp_open,
	.read = telnet_read,
	.write = telnet_write,
	.close = console_fd_close,
	.check = tcp_check,
	.lock_key = tcp_lock_key,
	.describe = tcp_describe,
	.baud = tcp_baud,
};
