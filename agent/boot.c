// SPDX-License-Identifier: GPL-2.0-only
/* Boot methods.  direct: the power backend loads the kernel itself (QEMU
 * -kernel); we attach the console, release the board and wait for the shell
 * prompt or a failure pattern, whichever comes first, until the deadline. */
#include "boot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct boot_session *s, int ret, bool fatal, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct boot_session *s, int ret, bool fatal, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	s->fatal = fatal;
	return ret;
}

/* The text of the line around offset `at` in the console input. */
static void line_at(const struct console *c, size_t so, size_t eo, char *out, size_t len)
{
	const char *d = c->in.data;
	size_t a = so, b = eo, n;

	while (a > 0 && d[a - 1] != '\n')
		a--;
	while (d[b] && d[b] != '\n' && d[b] != '\r')
		b++;
	n = b - a < len - 1 ? b - a : len - 1;
	memcpy(out, d + a, n);
	out[n] = '\0';
}

static int wait_prompt(struct boot_session *s, int64_t deadline)
{
	const struct board *b = s->board;
	size_t nfail = 0, i;
	regex_t **res;
	regmatch_t m[10];
	int ret;

	while (b->fail_patterns[nfail])
		nfail++;
	res = xcalloc(nfail + 1, sizeof(*res));
	res[0] = &s->tgt.prompt_re;
	for (i = 0; i < nfail; i++) {
		res[i + 1] = xmalloc(sizeof(regex_t));
		re_compile(res[i + 1], b->fail_patterns[i]);	/* validated at load */
	}
	ret = console_expect(&s->con, res, nfail + 1, deadline, m);
	if (ret > 0) {
		char line[200];

		line_at(&s->con, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
		ret = fail(s, -EIO, false, "boot failed: console matched failure pattern \"%s\": %s",
			   b->fail_patterns[ret - 1], line);
	} else if (ret == -ETIMEDOUT) {
		ret = fail(s, ret, false, "no shell prompt \"%s\" within %ld s (timeouts_s.kernel); "
			   "last output %.1f s ago", b->prompt, b->t_kernel_s,
			   (double)(now_ms() - s->con.t_last_rx) / 1000.0);
	} else if (ret == -EPIPE) {
		ret = fail(s, ret, false, "console closed while booting (board reset or QEMU exited)");
	} else if (ret == -EINTR) {
		ret = fail(s, ret, true, "interrupted");
	}
	for (i = 0; i < nfail; i++) {
		regfree(res[i + 1]);
		free(res[i + 1]);
	}
	free(res);
	return ret < 0 ? ret : 0;
}

int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript)
{
	const char *dev = b->console_device;
	int ret;

	memset(s, 0, sizeof(*s));
	s->board = b;
	s->con.fd = -1;
	ret = power_init(&s->pw, b, rundir);
	if (ret)
		return fail(s, ret, true, "%s: unsupported power type %s", b->name, b->power_type);
	s->t_on = now_ms();
	ret = s->pw.ops->on(&s->pw, k);
	s->powered = true;
	if (ret)
		return fail(s, ret, ret == -ECHILD || ret == -EINVAL, "%s: power on: %s", b->name,
			    s->pw.error ? s->pw.error : strerror(-ret));
	if (!strncmp(dev, "qemu:", 5))
		dev = s->pw.ops->console_path(&s->pw, dev + 5);
	ret = console_open(&s->con, b->console_type, dev, b->baud, transcript);
	if (ret)
		return fail(s, ret, true, "%s: cannot open console %s: %s", b->name, dev,
			    strerror(-ret));
	s->con_open = true;
	ret = target_init(&s->tgt, &s->con, b->prompt);
	if (ret)
		return fail(s, ret, true, "%s: bad shell.prompt", b->name);
	s->tgt_ready = true;
	if (s->pw.ops->release) {
		ret = s->pw.ops->release(&s->pw);
		if (ret)
			return fail(s, ret, false, "%s: power release: %s", b->name,
				    s->pw.error ? s->pw.error : strerror(-ret));
	}
	ret = wait_prompt(s, s->t_on + b->t_kernel_s * 1000);
	if (ret)
		return ret;
	ret = target_sync(&s->tgt, now_ms() + b->t_command_s * 1000);
	if (ret)
		return fail(s, ret, false, "%s: shell did not answer after the prompt: %s", b->name,
			    strerror(-ret));
	s->t_prompt = now_ms();
	return 0;
}

void boot_end(struct boot_session *s)
{
	if (s->tgt_ready)
		target_free(&s->tgt);
	if (s->con_open)
		console_close(&s->con);
	if (s->powered && s->pw.ops)
		s->pw.ops->off(&s->pw);
	power_free(&s->pw);
	s->tgt_ready = s->con_open = s->powered = false;
}
