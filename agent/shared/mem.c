// SPDX-License-Identifier: GPL-2.0-only
/* Allocation that never fails (abort on out of memory) and a growable buffer. */
#include "shared/mem.h"
#include "shared/msg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

char *xstrdup(const char *s)
{
	return s ? strcpy(xmalloc(strlen(s) + 1), s) : NULL;
}

char *xvasprintf(size_t *len, const char *fmt, va_list ap)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);

	if (n < 0) {
		err_msg("out of memory");
		abort();
	}
	if (len)
		*len = (size_t)n;
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	return s;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(&n, fmt, ap);
	va_end(ap);
	buf_append(b, s, n);
	free(s);
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
