// SPDX-License-Identifier: GPL-2.0-only
/* A board file's errors, "file:line:col: section.key: message", and its regexes checked:
 * what the backends' parsers (backend/) call below the board loader (board.c), which
 * parses each section through the backend registry. */
#include "board.h"
#include "shared/util.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Position of "key": inside the object "section" (top level when NULL). */
static void locate(const struct board *b, const char *section, const char *key, int *line, int *col)
{
	const char *t = b->jf.text, *from = t, *p;
	char *pat;
	size_t i;

	*line = 1;
	*col = 1;
	if (!t)
		return;
	if (section) {
		pat = xasprintf("\"%s\"", section);
		p = strstr(t, pat);
		free(pat);
		if (p)
			from = p;
	}
	pat = xasprintf("\"%s\"", key);
	p = strstr(from, pat);
	if (!p)
		p = from;
	free(pat);
	for (i = 0; t + i < p; i++) {
		if (t[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int board_field_error(const struct board *b, const char *section, const char *key, const char *fmt,
		      ...)
{
	va_list ap;
	char *msg;
	int line, col;

	va_start(ap, fmt);
	msg = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	locate(b, section, key, &line, &col);
	err_msg("%s:%d:%d: %s%s%s: %s", b->jf.path, line, col, section ? section : "",
		section ? "." : "", key, msg);
	free(msg);
	return -EINVAL;
}

int board_check_regexes(const struct board *b, const char *section, const char *key, char *const *v)
{
	size_t i;

	for (i = 0; v && v[i]; i++) {
		regex_t re;

		if (regcomp(&re, v[i], REG_EXTENDED | REG_NOSUB))
			return board_field_error(b, section, key,
						 "invalid regular expression \"%s\"", v[i]);
		regfree(&re);
	}
	return 0;
}

int check_line(struct buf *out, bool ok, const char *field, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	buf_printf(out, "  %-5s %s: %s\n", ok ? "ok" : "FAIL", field, msg);
	free(msg);
	return ok ? 0 : 1;
}
