// SPDX-License-Identifier: GPL-2.0-only
/* A job file's semantic errors, "file:line:col: jpath: message" (job_error()): below
 * the job loader (job.c) and its variants (job-variants.c), which both report with it. */
#include "job.h"
#include "shared/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Finds "key": after offset from; returns the offset of the quote or -1. */
static long find_key(const char *text, const char *key, long from)
{
	char *pat = xasprintf("\"%s\"", key);
	const char *p = text + from;
	long r = -1;

	while ((p = strstr(p, pat))) {
		const char *q = p + strlen(pat);

		while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
			q++;
		if (*q == ':') {
			r = p - text;
			break;
		}
		p++;
	}
	free(pat);
	return r;
}

void job_error(const struct job *j, const char *jpath, const char *fmt, ...)
{
	char *path = xstrdup(jpath), *save = NULL, *seg, *msg;
	long off = 0, at = -1;
	int line = 1, col = 1;
	va_list ap;

	/* key by key: "variants.patched.patches" finds the patches key after
	 * the patched key after the variants key */
	for (seg = strtok_r(path, ".", &save); seg; seg = strtok_r(NULL, ".", &save)) {
		long r = find_key(j->jf.text, seg, off);

		if (r < 0)
			break;
		at = r;
		off = r + 1;
	}
	if (at >= 0)
		jfile_offset_linecol(j->jf.text, (size_t)at, &line, &col);
	va_start(ap, fmt);
	msg = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	err_msg("%s:%d:%d: %s: %s", j->jf.path, line, col, jpath, msg);
	free(msg);
	free(path);
}
