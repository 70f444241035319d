// SPDX-License-Identifier: GPL-2.0-only
/* The patterns the expect engine matches (console_expect_pats): a plain string is a
 * literal for memmem; a regex whose matches cannot cross a line is kept with its longest
 * literal and compiled only where a line holds that literal (console_pat_compile); the
 * regex helpers (re_compile, re_quote).  No console state: the scan is console.c's. */
#include "backend/console.h"
#include "backend/console-int.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

int re_compile(regex_t *re, const char *pattern)
{
	return regcomp(re, pattern, REG_EXTENDED | REG_NEWLINE) ? -EINVAL : 0;
}

char *re_quote(const char *s)
{
	struct buf b = { 0 };

	for (; *s; s++) {
		if (strchr("\\^$.|?*+()[]{}", *s))
			buf_append(&b, "\\", 1);
		buf_append(&b, s, 1);
	}
	buf_append(&b, "", 1);
	return b.data;
}

struct console_pat console_pat_re(const regex_t *re)
{
	return (struct console_pat){ .re = re };
}

struct console_pat console_pat_lit(const char *lit, enum console_tail tail)
{
	return (struct console_pat){ .lit = lit, .len = strlen(lit), .tail = tail };
}

bool console_is_literal(const char *pattern)
{
	return *pattern && !strpbrk(pattern, "\\^$.|?*+()[]{}");
}

/* The run of plain bytes ends: the longest so far is kept */
static void run_end(struct buf *run, struct buf *best)
{
	if (run->len > best->len) {
		buf_free(best);
		*best = *run;
	} else {
		buf_free(run);
	}
	*run = (struct buf){ 0 };
}

/* An interval {m}, {m,} or {m,n} at s (after the '{'): its end (the '}'), the least
 * count in *min; NULL when it is none */
static const char *interval(const char *s, long *min)
{
	char *e;

	if (*s < '0' || *s > '9')
		return NULL;
	*min = strtol(s, &e, 10);
	if (*e == ',')
		for (e++; *e >= '0' && *e <= '9'; e++)
			;
	return *e == '}' ? e : NULL;
}

/* The end of the bracket expression at s (its '['): the ']'; NULL when it could hold a
 * newline ([:space:], [:cntrl:], an equivalence class or collating element) or has
 * no end */
static const char *bracket_end(const char *s)
{
	s++;
	if (*s == '^')
		s++; /* a list that excludes: never a newline under REG_NEWLINE */
	if (*s == ']')
		s++;
	for (; *s && *s != ']'; s++) {
		if (s[0] != '[' || (s[1] != ':' && s[1] != '=' && s[1] != '.'))
			continue;
		if (s[1] != ':' || !strncmp(s + 2, "space:]", 7) || !strncmp(s + 2, "cntrl:]", 7))
			return NULL;
		s = strstr(s + 2, ":]");
		if (!s)
			return NULL;
		s++;
	}
	return *s ? s : NULL;
}

char *console_re_literal(const char *src)
{
	struct buf run = { 0 }, best = { 0 };
	const char *s;
	int depth = 0;
	bool last = false; /* the byte before is run's last, a quantifier would take it */
	long min;

	for (s = src; *s; s++)
		if ((unsigned char)*s < 0x20)
			return NULL; /* a newline or a control byte: a match may cross lines */
	for (s = src; *s; s++) {
		char ch = *s;
		bool lit = false;

		switch (ch) {
		case '\\':
			ch = *++s;
			if (!ch || ch == 's' || ch == 'W')
				goto cross; /* \s and \W match a newline */
			lit = !((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
				(ch >= 'A' && ch <= 'Z') || ch == '`' || ch == '\'');
			break;
		case '[':
			s = bracket_end(s);
			if (!s)
				goto cross;
			break;
		case '(':
			depth++;
			break;
		case ')':
			if (--depth < 0)
				goto cross;
			break;
		case '|':
			if (!depth)
				goto cross; /* each side alone may match */
			break;
		case '*':
		case '?':
		case '{':
			if (ch == '{') {
				s = interval(s + 1, &min);
				if (!s)
					goto cross;
				if (min > 0)
					break; /* the byte before is there at least once */
			}
			/* the byte (a UTF-8 character: all its bytes) before may be absent */
			if (last && depth == 0) {
				while (run.len &&
				       ((unsigned char)run.data[run.len - 1] & 0xc0) == 0x80)
					run.len--;
				if (run.len)
					run.data[--run.len] = '\0';
			}
			break;
		case '.':
		case '^':
		case '$':
		case '+':
			break;
		default:
			lit = true;
		}
		if (lit && depth == 0) {
			buf_append(&run, &ch, 1);
			last = true;
			continue;
		}
		last = false;
		run_end(&run, &best);
	}
	run_end(&run, &best);
	if (best.len)
		return best.data;
	buf_free(&best);
	return NULL;
cross:
	buf_free(&run);
	buf_free(&best);
	return NULL;
}

int console_pat_compile(struct console_pat *pt, const char *src)
{
	struct console_rx *rx = xcalloc(1, sizeof(*rx));

	*pt = (struct console_pat){ .rx = rx, .tail = CONSOLE_TAIL_NONE };
	rx->src = xstrdup(src);
	if (console_is_literal(src)) {
		pt->lit = rx->src;
		pt->len = strlen(src);
		return 0;
	}
	rx->regex = true;
	if (re_compile(&rx->re, src)) {
		console_pat_free(pt);
		return -EINVAL;
	}
	rx->lit = console_re_literal(src);
	if (rx->lit) { /* checked (~7 us); compiled again where a line holds the literal */
		regfree(&rx->re);
		pt->lit = rx->lit;
		pt->len = strlen(rx->lit);
		return 0;
	}
	rx->compiled = true;
	pt->re = &rx->re;
	return 0;
}

void console_pat_free(struct console_pat *pt)
{
	struct console_rx *rx = pt->rx;

	if (rx) {
		if (rx->compiled)
			regfree(&rx->re);
		free(rx->src);
		free(rx->lit);
		free(rx);
	}
	*pt = (struct console_pat){ 0 };
}
