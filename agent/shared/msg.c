// SPDX-License-Identifier: GPL-2.0-only
/* Messages: "ablab: ..." on stderr. */
#include "shared/msg.h"

#include <stdarg.h>
#include <stdio.h>

int verbose;

/* One line "ablab: ..." written at once, so lines of board threads never mix. */
static void vmsg(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "ablab: %s\n", line);
	fflush(stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void info_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}
