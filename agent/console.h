/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CONSOLE_H
#define ABLAB_CONSOLE_H

#include "board.h"
#include "util.h"

#include <regex.h>
#include <stdio.h>

struct console;

/* A backend: open() makes c->fd a non-blocking fd to poll on; read() and
 * write() may transform the byte stream (telnet); NULL means plain. */
struct console_ops {
	const char *name;
	int (*open)(struct console *c);
	ssize_t (*read)(struct console *c, char *p, size_t n);
	ssize_t (*write)(struct console *c, const char *p, size_t n);
	void (*close)(struct console *c);
};

/* A console: one fd, every byte received kept (NULs dropped) in `in` and
 * written to the transcript.  Matching is on whole lines (REG_NEWLINE), so a
 * multi-KB burst costs one scan of its new lines, not one per window. */
struct console {
	const struct console_ops *ops;
	const struct board *board;
	char *device;		/* tty/serial: the resolved path */
	int fd;
	void *port;		/* serial: struct sp_port * */
	int telnet_state;	/* tcp telnet: decoder state */
	unsigned char telnet_cmd;
	struct buf in;
	size_t consumed;	/* input before this offset has been matched */
	size_t scanned;		/* lines before this offset were scanned in this expect */
	FILE *log;
	long reopen_ms;		/* > 0: a vanished console is reopened within this */
	int reopens;
	int64_t t_open;
	int64_t t_last_rx;
	char error[300];	/* why open failed, naming the board and the field */
};

/* Opens the board's console (console.type); `device` overrides
 * console.device (a pty QEMU created).  On failure c->error says why. */
int console_open(struct console *c, const struct board *b, const char *device,
		 const char *transcript);
void console_close(struct console *c);
/* Closes and opens again until it works or the deadline passes (a USB serial
 * adapter powered by the board vanishes at power off; ser2net drops). */
int console_reopen(struct console *c, int64_t deadline);
int console_write(struct console *c, const char *s);
int console_write_n(struct console *c, const char *s, size_t n);
/* One non-blocking read into p (transcript written, `in` appended when
 * keep); 0 = nothing available, -EPIPE when the other side is gone. */
ssize_t console_read(struct console *c, char *p, size_t n, bool keep);

/* Waits until one of res[] matches in the input after `consumed`; returns the
 * index of the earliest match and moves `consumed` past it (m gets offsets
 * into c->in.data).  Returns -ETIMEDOUT at the deadline (monotonic ms),
 * -EPIPE when the other side is gone (after a failed reopen when reopen_ms
 * is set), -EINTR when a stop was requested. */
int console_expect(struct console *c, regex_t *const *res, size_t n, int64_t deadline,
		   regmatch_t *m);

/* After a match inside a line (an error message), waits up to the deadline
 * for the rest of that line, so that the message is quoted whole. */
int console_complete_line(struct console *c, size_t pos, int64_t deadline);

/* Compiles an extended, line-anchored regex; -EINVAL on error. */
int re_compile(regex_t *re, const char *pattern);
/* Escapes a literal string for re_compile (caller frees). */
char *re_quote(const char *s);

/* serial: resolves console.device / console.usb_serial to a device path
 * (caller frees); -ENOENT with err naming the field when there is none. */
int serial_resolve(const struct board *b, char **path, char *err, size_t elen);

#endif
