// SPDX-License-Identifier: GPL-2.0-only
/* Target shell: prompt sync and commands between unique markers. */
#include "backend/target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int target_init(struct target *t, struct console *con, const char *prompt)
{
	memset(t, 0, sizeof(*t));
	t->con = con;
	t->prompt = prompt;
	random_hex(t->id, 8);
	/* a prompt is a literal (memmem); an empty one the regex that matches at once */
	return *prompt ? 0 : re_compile(&t->prompt_re, "");
}

static void fail_free(struct target *t)
{
	size_t i;

	for (i = 0; i < t->nfail; i++)
		console_pat_free(&t->fail_pats[i]);
	free(t->fail_pats);
	t->fail_pats = NULL;
	t->nfail = 0;
}

void target_free(struct target *t)
{
	if (!*t->prompt)
		regfree(&t->prompt_re);
	fail_free(t);
	free(t->banner);
	free(t->cmdline);
	t->banner = t->cmdline = NULL;
}

/* The last line of the console's input (its first `end` bytes) at or after `from` that
 * starts with k, at a line's start or after its "[    0.000000] " time stamp; NULL when
 * there is none or its end was not received before `end`.  *at: where the line was. */
static char *last_kernel_line(const char *d, size_t from, size_t end, const char *k, size_t *at)
{
	const char *p, *last = NULL, *e;
	size_t klen = strlen(k);

	for (p = d + from; (p = memmem(p, (size_t)(d + end - p), k, klen)); p++) {
		const char *a = p;

		/* the line's start, or its "[    0.000000] " time stamp before */
		if (a - d >= 2 && a[-1] == ' ' && a[-2] == ']') {
			const char *b = a - 2;

			while (b > d && *b != '[' && b[-1] != '\n' && b[-1] != '\r')
				b--;
			if (*b == '[')
				a = b;
		}
		if (a == d || a[-1] == '\n' || a[-1] == '\r')
			last = p;
	}
	if (!last)
		return NULL;
	e = last + strcspn(last, "\r\n");
	if (e >= d + end) /* its end not received before the prompt: not trusted */
		return NULL;
	*at = (size_t)(last - d);
	return strndup(last, (size_t)(e - last));
}

void target_banner(struct target *t)
{
	static const char kcl[] = "Kernel command line: ";
	const struct console *c = t->con;
	const char *d = c->in.data;
	size_t end, at = 0;
	char *cl;

	free(t->banner);
	free(t->cmdline);
	t->banner = t->cmdline = NULL;
	if (!d || c->consumed <= c->in_base)
		return;
	end = c->consumed - c->in_base < c->in.len ? c->consumed - c->in_base : c->in.len;
	t->banner = last_kernel_line(d, 0, end, "Linux version ", &at);
	/* this boot's command line: printed after its banner (not with `quiet`) */
	cl = t->banner ? last_kernel_line(d, at, end, kcl, &at) : NULL;
	if (cl) {
		t->cmdline = strdup(cl + sizeof(kcl) - 1);
		free(cl);
	}
}

int target_set_fail_patterns(struct target *t, char *const *patterns)
{
	size_t n = 0, i;

	fail_free(t);
	while (patterns && patterns[n])
		n++;
	t->fail_pats = xcalloc(n + 1, sizeof(*t->fail_pats)); /* + a marker, expect_marker() */
	for (i = 0; i < n; i++) {
		/* a plain string (most are: "Kernel panic - not syncing") is a literal,
		 * "^U-Boot SPL " a regex run only on a line that holds "U-Boot SPL ": no
		 * tables, no rescan of a partial line */
		if (console_pat_compile(&t->fail_pats[i], patterns[i])) {
			t->nfail = i;
			return -EINVAL;
		}
		t->nfail = i + 1;
	}
	t->fail_src = patterns;
	return 0;
}

/* The marker is the boot's random id, a letter and the command's number
 * (0123abcdB7), typed with '' between the id and the letter so that the echoed
 * command line never matches the marker the command prints; so it is
 * recognised anywhere in a line: after output without a final newline, a \r
 * progress line or a printk without its newline.  No fixed prefix: on a
 * 115,200-baud line each byte is 87 us, and the id alone is what tells this
 * boot's markers from an earlier boot's.  The status is 1-3 digits ended by
 * anything else (CR, LF, a printk glued after it).  A literal (memmem), not a
 * regex: the id is random per boot, so compiled tables could not be shared. */
struct console_pat target_marker(char *buf, size_t len, const char *id, const char *what,
				 unsigned int n, bool with_status)
{
	snprintf(buf, len, "%s%s%u%s", id, what, n, with_status ? " " : "");
	return console_pat_lit(buf, with_status ? CONSOLE_TAIL_STATUS : CONSOLE_TAIL_EOL);
}

static int expect_marker(struct target *t, const char *what, unsigned int n, int64_t deadline,
			 regmatch_t *m, bool with_status)
{
	struct console_pat one[1], *pats = t->fail_pats ? t->fail_pats : one;
	char marker[64];
	int ret;

	/* the marker after the fail patterns: index nfail (the room is there) */
	pats[t->nfail] = target_marker(marker, sizeof(marker), t->id, what, n, with_status);
	ret = console_expect_pats(t->con, pats, t->nfail + 1, deadline, m);
	if (ret >= 0 && (size_t)ret < t->nfail) {
		size_t a = (size_t)m[0].rm_so, b = (size_t)m[0].rm_so, len;
		const char *d;

		console_complete_line(t->con, a, now_ms() + 2000);
		d = t->con->in.data;

		while (a > 0 && d[a - 1] != '\n')
			a--;
		while (d[b] && d[b] != '\n' && d[b] != '\r')
			b++;
		len = b - a < sizeof(t->fail_line) - 1 ? b - a : sizeof(t->fail_line) - 1;
		memcpy(t->fail_line, d + a, len);
		t->fail_line[len] = '\0';
		return -EIO;
	}
	return ret < 0 ? ret : 0;
}

struct console_pat target_prompt(const struct target *t)
{
	/* empty: the regex, which matches at once */
	return *t->prompt ? console_pat_lit(t->prompt, CONSOLE_TAIL_NONE) :
			    console_pat_re(&t->prompt_re);
}

static int expect_prompt(struct target *t, int64_t deadline, regmatch_t *m)
{
	struct console_pat p = target_prompt(t);

	return console_expect_pats(t->con, &p, 1, deadline, m);
}

int target_sync(struct target *t, int64_t deadline)
{
	regmatch_t m[10];
	char *cmd;
	int ret;

	target_banner(t); /* before the sync's own bytes */
	t->seq++;
	cmd = xasprintf("echo %s''S%u\n", t->id, t->seq);
	ret = console_write(t->con, cmd);
	free(cmd);
	if (!ret)
		ret = expect_marker(t, "S", t->seq, deadline, m, false);
	if (!ret)
		ret = expect_prompt(t, deadline, m);
	return ret < 0 ? ret : 0;
}

char *target_command_line(const char *id, unsigned int seq, const char *cmd)
{
	return xasprintf("{ echo %s''B%u;%s\n};echo %s''E%u $?\n", id, seq, cmd, id, seq);
}

void target_output(struct buf *out, const char *d, size_t len)
{
	size_t i;

	/* CR LF -> LF, a lone CR ends a line too */
	for (i = 0; i < len; i++) {
		if (d[i] != '\r')
			buf_append(out, d + i, 1);
		else if (i + 1 < len && d[i + 1] != '\r' && d[i + 1] != '\n')
			buf_append(out, "\n", 1);
	}
	if (!out->data)
		buf_append(out, "", 0);
}

/* Skips the CR/LF that end the marker line at d[i..len) */
static size_t after_eol(const char *d, size_t i, size_t len)
{
	while (i < len && (d[i] == '\r' || d[i] == '\n'))
		i++;
	return i;
}

/* One exchange: cmd1 between the B and E markers, or (cmd2 given) cmd1 between B and M
 * and cmd2 between M and E (target_run_then()); out1 (may be NULL) and out2 get what
 * each printed. */
static int exchange(struct target *t, const char *cmd1, const char *cmd2, int64_t deadline,
		    struct buf *out1, int *status1, int64_t *t_mid, struct buf *out2, int *status2)
{
	regmatch_t m[10];
	size_t mid_so = 0, mid_eo = 0, len;
	const char *d;
	char *line;
	int ret;

	t->seq++;
	line = cmd2 ? xasprintf("{ echo %s''B%u;%s\n};echo %s''M%u $?;{ %s\n};echo %s''E%u $?\n",
				t->id, t->seq, cmd1, t->id, t->seq, cmd2, t->id, t->seq) :
		      target_command_line(t->id, t->seq, cmd1);
	ret = console_write(t->con, line);
	free(line);
	if (ret)
		return ret;
	ret = expect_marker(t, "B", t->seq, deadline, m, false);
	if (ret)
		return ret;
	console_pin(t->con, (size_t)m[0].rm_eo);
	if (cmd2) {
		ret = expect_marker(t, "M", t->seq, deadline, m, true);
		if (!ret) {
			*t_mid = now_ms();
			*status1 = (int)strtol(t->con->in.data + m[1].rm_so, NULL, 10);
			/* stream offsets: the window moves */
			mid_so = t->con->in_base + (size_t)m[0].rm_so;
			mid_eo = t->con->in_base + (size_t)m[0].rm_eo;
		}
	}
	if (!ret)
		ret = expect_marker(t, "E", t->seq, deadline, m, true);
	d = ret ? NULL : console_pinned(t->con, (size_t)m[0].rm_so, &len);
	if (!ret && !d) {
		ret = errtext_set(&t->con->error, -EMSGSIZE,
				  "%s: the output of `%.80s` is larger than %u MiB",
				  t->con->board->name, cmd1, CONSOLE_PIN_MAX >> 20);
	}
	if (ret) {
		console_unpin(t->con);
		return ret;
	}
	*(cmd2 ? status2 : status1) = (int)strtol(t->con->in.data + m[1].rm_so, NULL, 10);
	if (cmd2) {
		mid_so -= t->con->pin;
		mid_eo = after_eol(d, mid_eo - t->con->pin, len);
		target_output(out2, d + mid_eo, len - mid_eo);
		len = mid_so;
	}
	if (out1)
		target_output(out1, d, len);
	console_unpin(t->con);
	/* consume the prompt that follows, so the next command starts clean */
	ret = expect_prompt(t, deadline, m);
	return ret < 0 ? ret : 0;
}

int target_run(struct target *t, const char *cmd, int64_t deadline, struct buf *out, int *status)
{
	return exchange(t, cmd, NULL, deadline, out, status, NULL, NULL, NULL);
}

int target_run_then(struct target *t, const char *cmd1, const char *cmd2, int64_t deadline,
		    struct buf *out1, int *status1, int64_t *t_mid, struct buf *out2, int *status2)
{
	return exchange(t, cmd1, cmd2, deadline, out1, status1, t_mid, out2, status2);
}
