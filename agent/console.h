/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CONSOLE_H
#define ABLAB_CONSOLE_H

#include "util.h"

#include <regex.h>
#include <stdio.h>

struct console;

struct console_ops {
	const char *name;
	int (*open)(struct console *c, const char *device, long baud);
	void (*close)(struct console *c);
};

/* A console: one fd, every byte received kept (NULs dropped) in `in` and
 * written to the transcript.  Matching is on whole lines (REG_NEWLINE), so a
 * multi-KB burst costs one scan of its new lines, not one per window. */
struct console {
	const struct console_ops *ops;
	int fd;
	struct buf in;
	size_t consumed;	/* input before this offset has been matched */
	size_t scanned;		/* lines before this offset were already scanned */
	FILE *log;
	int64_t t_open;
	int64_t t_last_rx;
};

int console_open(struct console *c, const char *type, const char *device, long baud,
		 const char *transcript);
void console_close(struct console *c);
int console_write(struct console *c, const char *s);

/* Waits until one of res[] matches in the input after `consumed`; returns the
 * index of the earliest match and moves `consumed` past it (m gets offsets
 * into c->in.data).  Returns -ETIMEDOUT at the deadline (monotonic ms),
 * -EPIPE when the other side is gone, -EINTR when a stop was requested. */
int console_expect(struct console *c, regex_t *const *res, size_t n, int64_t deadline,
		   regmatch_t *m);

/* Compiles an extended, line-anchored regex; -EINVAL on error. */
int re_compile(regex_t *re, const char *pattern);

#endif
