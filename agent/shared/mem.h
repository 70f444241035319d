/* SPDX-License-Identifier: GPL-2.0-only */
/* Allocation that never fails (abort on out of memory) and a growable buffer (shared/mem.c) */
#ifndef ABLAB_SHARED_MEM_H
#define ABLAB_SHARED_MEM_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t sz);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same with a va_list; *len (when len is not NULL) the length. */
char *xvasprintf(size_t *len, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Growable byte buffer. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_append(struct buf *b, const void *p, size_t n);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(struct buf *b);

#endif
