// SPDX-License-Identifier: GPL-2.0-only
/* Text: CSV cells, the name and parameter rules, templates, random hex and UUIDs. */
#include "shared/text.h"
#include "shared/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

void csv_cell(FILE *f, const char *s)
{
	/* a cell a spreadsheet would read as a formula (=HYPERLINK(...), @SUM(...), a tab or
	 * CR before one, or + or - before anything but [A-Za-z0-9._+-]: a function, a DDE
	 * "|") is prefixed with ': it stays text.  A number (-35) and a series label
	 * (+1-2) are kept as they are. */
	bool formula = s[0] && strchr("=@\t\r", s[0]);
	static const char plain[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";

	if ((s[0] == '-' || s[0] == '+') && s[strspn(s, plain)])
		formula = true;
	if (!formula && !strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

bool modparams_ok(const char *s)
{
	return strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 =,:._-+") ==
	       strlen(s);
}

bool shell_word_ok(const char *s)
{
	size_t l = strlen(s);

	return l && s[0] != '-' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == l;
}

bool lab_name_ok(const char *s, size_t len)
{
	return len >= 1 && len <= LAB_NAME_MAX && strlen(s) == len && s[0] != '-' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
		       len;
}

int expand_template_flags(const char *tmpl, const char *const *keys, const char *const *vals,
			  size_t n, unsigned int flags, char **out, char **bad)
{
	struct buf b = { 0 };
	const char *p = tmpl;

	*bad = NULL;
	while (*p) {
		const char *open = strchr(p, '{'), *close;
		size_t i, klen;

		if (!open) {
			buf_append(&b, p, strlen(p));
			break;
		}
		close = strchr(open, '}');
		buf_append(&b, p, (size_t)(open - p));
		if (!close) {
			buf_append(&b, open, strlen(open));
			break;
		}
		if ((flags & TMPL_KEEP_DOLLAR) && open > p && open[-1] == '$') {
			buf_append(&b, open, (size_t)(close - open + 1));
			p = close + 1;
			continue;
		}
		klen = (size_t)(close - open - 1);
		for (i = 0; i < n; i++)
			if (strlen(keys[i]) == klen && !strncmp(keys[i], open + 1, klen))
				break;
		if (i == n || !vals[i]) {
			*bad = strndup(open + 1, klen);
			buf_free(&b);
			return i == n ? -ENOENT : -ENODATA;
		}
		buf_append(&b, vals[i], strlen(vals[i]));
		p = close + 1;
	}
	if (!b.data)
		buf_append(&b, "", 0);
	*out = b.data;
	return 0;
}

int expand_template(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
		    char **out, char **bad)
{
	return expand_template_flags(tmpl, keys, vals, n, 0, out, bad);
}

void random_hex(char *out, size_t nhex)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[64];
	size_t i;

	if (nhex > 2 * sizeof(r))
		nhex = 2 * sizeof(r);
	if (getrandom(r, (nhex + 1) / 2, 0) < 0) {
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(rand() ^ (int)getpid());
	}
	for (i = 0; i < nhex; i++)
		out[i] = hex[(r[i / 2] >> ((i & 1) ? 0 : 4)) & 0xf];
	out[nhex] = '\0';
}

void uuid_v4(char out[37])
{
	char h[33];

	random_hex(h, 32);
	h[12] = '4';
	h[16] = "89ab"[h[16] % 4];
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}
