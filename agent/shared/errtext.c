// SPDX-License-Identifier: GPL-2.0-only
/* The error-text carrier: struct errtext. */
#include "shared/errtext.h"
#include "shared/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int errtext_vset(struct errtext *e, int ret, const char *fmt, va_list ap)
{
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return ret;
}

int errtext_set(struct errtext *e, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errtext_vset(e, ret, fmt, ap);
	va_end(ap);
	return ret;
}

void errtext_prefix(struct errtext *e, const char *fmt, ...)
{
	char *pre, *all;
	va_list ap;

	va_start(ap, fmt);
	pre = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	all = xasprintf("%s: %s", pre, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", all);
	free(all);
	free(pre);
}
