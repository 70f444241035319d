// SPDX-License-Identifier: GPL-2.0-only
/* One boot, from off to the shell prompt, whatever the method: power off, the method's
 * deploy (boot-direct.c, boot-uboot.c, boot-command.c: struct boot_ops), the console
 * attached, power on, the method's interact with the boot loader, then the shell prompt
 * or a failure pattern, whichever comes first. */
#include "backend/boot.h"
#include "backend/backends.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const boot_phase_names[PHASE__N] = {
	"first_byte", "bootloader", "loaded", "banner", "prompt", "bench_start", "bench_end", "off",
};

void boot_mark(struct boot_session *s, enum boot_phase p)
{
	s->phase[p] = now_ms();
}

int boot_fail(struct boot_session *s, int ret, bool fatal, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errtext_vset(&s->error, ret, fmt, ap);
	va_end(ap);
	s->fatal = fatal;
	return ret;
}

void boot_line_at(const struct console *c, size_t so, size_t eo, char *out, size_t len)
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

void boot_free_pats(struct console_pat *pats, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		console_pat_free(&pats[i]);
	free(pats);
}

bool boot_console_gone(const struct console *c)
{
	return c->fd < 0 && errtext_isset(&c->error);
}

void boot_add_pats(struct console_pat *pats, size_t from, char *const *extra)
{
	size_t i;

	for (i = 0; extra && extra[i]; i++)
		console_pat_compile(&pats[from + i], extra[i]); /* checked at load */
}

/* The banners of a boot loader starting: the board reset (U-Boot's, as uboot's default). */
char *const boot_reset_banners[] = { "^U-Boot SPL ", "^U-Boot 20[0-9][0-9]", NULL };

static const struct boot_ops *boot_ops_of(const struct board *b)
{
	const struct backend *bk = backend_find(BACKEND_BOOT, b->boot_method);

	return bk ? bk->ops : NULL;
}

char *const *boot_reset_patterns(const struct board *b, bool fallback)
{
	const struct boot_ops *bo = boot_ops_of(b);
	char *const *v = bo && bo->reset_patterns ? bo->reset_patterns(b) : NULL;

	return v || !fallback ? v : boot_reset_banners;
}

static int wait_prompt(struct boot_session *s, int64_t deadline)
{
	const struct board *b = s->board;
	char *const *reset = boot_reset_patterns(b, false);
	size_t nfail = strv_len(b->fail_patterns), nreset = strv_len(reset);
	struct console_pat *pats = xcalloc(nfail + nreset + 2, sizeof(*pats));
	regmatch_t m[10];
	int ret;

	boot_add_pats(pats, 1, b->fail_patterns);
	boot_add_pats(pats, 1 + nfail, reset);
	pats[0] = target_prompt(&s->tgt);
	/* the kernel's banner marks its phase, then the wait goes on (no banner: no mark) */
	pats[nfail + nreset + 1] = console_pat_lit("Linux version ", CONSOLE_TAIL_NONE);
	ret = console_expect_pats(&s->con, pats, nfail + nreset + 2, deadline, m);
	if (ret == (int)(nfail + nreset + 1)) {
		boot_mark(s, PHASE_BANNER);
		ret = console_expect_pats(&s->con, pats, nfail + nreset + 1, deadline, m);
	}
	if (ret > 0) {
		char line[200];

		boot_line_at(&s->con, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
		if ((size_t)ret > nfail)
			ret = boot_fail(
				s, -EIO, false,
				"%s: board reset after the kernel was started (boot.reset_patterns \"%s\"): %s",
				b->name, reset[ret - 1 - nfail], line);
		else
			ret = boot_fail(s, -EIO, false,
					"boot failed: console matched failure pattern \"%s\": %s",
					b->fail_patterns[ret - 1], line);
	} else if (ret == -ETIMEDOUT) {
		char last[160];

		console_last_line(&s->con, last, sizeof(last));
		ret = boot_fail(
			s, ret, false,
			"%s: kernel boot: no shell prompt \"%s\" (shell.prompt) within %ld s (timeouts_s.kernel); last output %.1f s ago: %s",
			b->name, b->prompt, b->t_kernel_s,
			(double)(now_ms() - s->con.t_last_rx) / 1000.0, last);
	} else if (ret == -EPIPE && boot_console_gone(&s->con)) {
		ret = boot_fail(s, ret, false, "%s (waiting for the kernel)", s->con.error.msg);
	} else if (ret == -EPIPE) {
		ret = boot_fail(s, ret, false,
				"console closed while booting (board reset or QEMU exited)");
	} else if (ret == -EINTR) {
		ret = boot_fail(s, ret, true, "interrupted (signal %d)", (int)stop_requested);
	} else if (ret == -EFBIG) {
		ret = boot_fail(s, ret, false, "%s", s->con.error.msg);
	}
	pats[nfail + nreset + 1] = (struct console_pat){ 0 };
	boot_free_pats(pats, nfail + nreset + 1);
	return ret < 0 ? ret : 0;
}

/* --- the boot --- */

static int open_console(struct boot_session *s, const char *transcript)
{
	const struct board *b = s->board;
	const char *dev = NULL, *label = console_machine_label(b);
	int ret;

	if (label) /* a console the machine makes (QEMU's pty): where it is now */
		dev = s->pw.ops->console_path(&s->pw, label);
	ret = console_open(&s->con, b, dev, transcript);
	if (ret && backend_has(BACKEND_CONSOLE, b->console_type, CAP_NETWORK) &&
	    backend_has(BACKEND_POWER, b->power_type, CAP_MAKES_MACHINE)) {
		/* a TCP server the machine makes (QEMU's): it is listening once QMP answers */
		ret = console_open(&s->con, b, dev, transcript);
	}
	if (ret)
		return boot_fail(s, ret, true, "%s", s->con.error.msg);
	s->con_open = true;
	ret = target_init(&s->tgt, &s->con, b->prompt);
	if (ret)
		return boot_fail(s, ret, true, "%s: bad shell.prompt", b->name);
	s->tgt_ready = true;
	return 0;
}

int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript)
{
	const struct boot_ops *bo = boot_ops_of(b);
	/* the power backend makes the machine (QEMU): nothing to switch off before it, and
	 * its console exists once it runs */
	bool makes = backend_has(BACKEND_POWER, b->power_type, CAP_MAKES_MACHINE);
	char *rel[3] = { NULL, NULL, NULL };
	const char *src[3] = { k->zimage, k->initrd, k->dtb };
	int ret;

	memset(s, 0, sizeof(*s));
	s->board = b;
	s->con.fd = -1;
	ret = power_init(&s->pw, b, rundir);
	if (ret)
		return boot_fail(s, ret, true, "%s: unsupported power type %s", b->name,
				 b->power_type);
	if (!bo)
		return boot_fail(s, -EPROTONOSUPPORT, true, "%s: unsupported boot method %s",
				 b->name, b->boot_method);
	if (!makes) {
		/* a known state, and the board off while its kernel is replaced; off already
		 * when this process switched it off (the last boot's end) and not on since */
		s->pw.t_off = power_known_off(b->name);
		ret = s->pw.t_off ? 0 : power_off(&s->pw);
		if (ret)
			return boot_fail(s, ret, true, "%s", power_error(&s->pw, ret));
	}
	if (bo->deploy) {
		ret = bo->deploy(s, k, rel, rundir);
		if (ret)
			goto out;
	}
	if (!makes) {
		/* attached before power on: the first bytes (autoboot) are not lost */
		ret = open_console(s, transcript);
		if (ret)
			goto out;
	}
	s->t_on = now_ms();
	/* on() first waits out power.off_ms: that is not boot time */
	if (s->pw.t_off && s->pw.t_off + b->off_ms > s->t_on)
		s->t_on = s->pw.t_off + b->off_ms;
	s->con.t_first_rx = 0; /* what came before power on is not the board's first byte */
	ret = power_on(&s->pw, k);
	s->powered = true;
	if (ret) {
		ret = boot_fail(s, ret,
				ret == -ECHILD || ret == -EINVAL || ret == -ENOENT ||
					ret == -ENOTTY || ret == -ENODEV,
				"%s: power on: %s", b->name, power_error(&s->pw, ret));
		goto out;
	}
	if (makes) {
		ret = open_console(s, transcript);
		if (ret)
			goto out;
	}
	if (s->pw.ops->release) {
		ret = s->pw.ops->release(&s->pw);
		if (ret) {
			ret = boot_fail(s, ret, false, "%s: power release: %s", b->name,
					power_error(&s->pw, ret));
			goto out;
		}
	}
	if (bo->interact) {
		ret = bo->interact(s, rel, src);
		if (ret)
			goto out;
	}
	ret = wait_prompt(s, now_ms() + b->t_kernel_s * 1000);
	if (ret)
		goto out;
	ret = target_sync(&s->tgt, now_ms() + b->t_command_s * 1000);
	if (ret == -ETIMEDOUT) {
		char last[160];

		console_last_line(&s->con, last, sizeof(last));
		ret = boot_fail(
			s, ret, false,
			"%s: shell: no answer to a command within %ld s (timeouts_s.command) after the prompt \"%s\"; last output: %s",
			b->name, b->t_command_s, b->prompt, last);
		goto out;
	}
	if (ret) {
		ret = boot_fail(s, ret, false, "%s: shell did not answer after the prompt: %s",
				b->name, ret == -EFBIG ? s->con.error.msg : strerror(-ret));
		goto out;
	}
	s->t_prompt = now_ms();
	s->phase[PHASE_PROMPT] = s->t_prompt;
out:
	if (s->con.t_first_rx)
		s->phase[PHASE_FIRST_BYTE] = s->con.t_first_rx;
	free(rel[0]);
	free(rel[1]);
	free(rel[2]);
	return ret;
}

json_object *boot_phases_json(const struct boot_session *s)
{
	json_object *o;
	int p;

	if (!s->t_on)
		return NULL; /* never powered on: no phase */
	o = json_object_new_object();
	for (p = 0; p < PHASE__N; p++)
		if (s->phase[p])
			json_object_object_add(o, boot_phase_names[p],
					       json_object_new_int64(s->phase[p] - s->t_on));
	if (s->load_bytes > 0) {
		json_object_object_add(o, "load_bytes", json_object_new_int64(s->load_bytes));
		json_object_object_add(o, "load_ms", json_object_new_int64(s->load_ms));
	}
	return o;
}

void boot_end(struct boot_session *s)
{
	if (s->tgt_ready)
		target_free(&s->tgt);
	if (s->con_open)
		console_close(&s->con);
	if (s->powered && s->pw.ops && power_off(&s->pw))
		err_msg("%s", errtext_isset(&s->pw.error) ? s->pw.error.msg : "power off failed");
	power_free(&s->pw);
	free(s->tftp_dir);
	s->tftp_dir = NULL;
	s->tgt_ready = s->con_open = s->powered = false;
}

/* --- dry-run checks --- */

int console_check(const struct board *b, struct buf *out)
{
	const struct console_ops *co = console_ops_of(b);

	if (!co)
		return check_line(out, false, "console.type", "%s: unsupported", b->console_type);
	return co->check ? co->check(b, out) : 0;
}

int boot_preflight(const struct board *b, struct errtext *e)
{
	int ret = power_preflight(b, e);

	return ret ? ret : console_preflight(b, e);
}

int boot_check(const struct board *b, struct buf *out)
{
	const struct boot_ops *bo = boot_ops_of(b);

	if (!bo)
		return check_line(out, false, "boot.method", "%s: unsupported", b->boot_method);
	return bo->check ? bo->check(b, out) : 0;
}

void boot_summary(const struct board *b, struct buf *out)
{
	const struct boot_ops *bo = boot_ops_of(b);

	if (bo && bo->summary)
		bo->summary(b, out);
}
