// SPDX-License-Identifier: GPL-2.0-only
/* Boot methods.
 *   direct:  the power backend loads the kernel itself (QEMU -kernel).
 *   uboot:   the artefacts are copied into TFTP_ROOT/BOARD/; after power
 *            on we catch the autoboot line, interrupt it and type the
 *            board's commands, each waiting for the prompt or a U-Boot
 *            error; the last one boots (the TFTP copy: boot-tftp.c).
 *   command: the board's deploy argv puts the kernel in place (SD mux...)
 *            while the board is off, then power on.
 * Then: the shell prompt or a failure pattern, whichever comes first. */
#include "boot.h"
#include "backends.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The text of the line around offset `so` in the console input. */
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

/* The last non-empty line received, for "never seen" errors. */
static void last_output(const struct console *c, char *out, size_t len)
{
	console_last_line(c, out, len);
}

static void free_res(regex_t **res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (res[i])
			regfree(res[i]);
		free(res[i]);
	}
	free(res);
}

/* The console vanished (an unplugged adapter, a board-powered one at power
 * off) and did not come back in time: c->error says which and how long. */
static bool console_gone(const struct console *c)
{
	return c->fd < 0 && errtext_isset(&c->error);
}

/* Compiles extra[] (validated at load) into res[from..]. */
static void add_res(regex_t **res, size_t from, char *const *extra)
{
	size_t i;

	for (i = 0; extra && extra[i]; i++) {
		res[from + i] = xmalloc(sizeof(regex_t));
		re_compile(res[from + i], extra[i]);
	}
}

static size_t strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

static int wait_prompt(struct boot_session *s, int64_t deadline)
{
	const struct board *b = s->board;
	char *const *reset = b->ub_reset; /* uboot's reset patterns; NULL otherwise */
	size_t nfail = strv_len(b->fail_patterns), nreset = strv_len(reset);
	regex_t **res = xcalloc(nfail + nreset + 1, sizeof(*res));
	regmatch_t m[10];
	int ret;

	add_res(res, 1, b->fail_patterns);
	add_res(res, 1 + nfail, reset);
	res[0] = &s->tgt.prompt_re;
	ret = console_expect(&s->con, res, nfail + nreset + 1, deadline, m);
	res[0] = NULL;
	if (ret > 0) {
		char line[200];

		line_at(&s->con, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
		if ((size_t)ret > nfail)
			ret = fail(
				s, -EIO, false,
				"%s: board reset after the kernel was started (boot.reset_patterns \"%s\"): %s",
				b->name, reset[ret - 1 - nfail], line);
		else
			ret = fail(s, -EIO, false,
				   "boot failed: console matched failure pattern \"%s\": %s",
				   b->fail_patterns[ret - 1], line);
	} else if (ret == -ETIMEDOUT) {
		char last[160];

		last_output(&s->con, last, sizeof(last));
		ret = fail(
			s, ret, false,
			"%s: kernel boot: no shell prompt \"%s\" (shell.prompt) within %ld s (timeouts_s.kernel); last output %.1f s ago: %s",
			b->name, b->prompt, b->t_kernel_s,
			(double)(now_ms() - s->con.t_last_rx) / 1000.0, last);
	} else if (ret == -EPIPE && console_gone(&s->con)) {
		ret = fail(s, ret, false, "%s (waiting for the kernel)", s->con.error.msg);
	} else if (ret == -EPIPE) {
		ret = fail(s, ret, false,
			   "console closed while booting (board reset or QEMU exited)");
	} else if (ret == -EINTR) {
		ret = fail(s, ret, true, "interrupted (signal %d)", (int)stop_requested);
	} else if (ret == -EFBIG) {
		ret = fail(s, ret, false, "%s", s->con.error.msg);
	}
	free_res(res, nfail + nreset + 1);
	return ret < 0 ? ret : 0;
}

/* --- U-Boot --- */

#define UB_FIXED_KEYS 8

/* The placeholder table of boot.commands: fixed keys, then boot.addrs. */
static size_t ub_keys(const struct board *b, char *const rel[3], const char **keys,
		      const char **vals)
{
	const char *fk[UB_FIXED_KEYS] = { "kernel",    "ramdisk",  "initrd", "dtb",
					  "server_ip", "bootargs", "append", "board" };
	const char *fv[UB_FIXED_KEYS] = {
		rel[0],	   rel[1],    rel[1], rel[2], b->server_ip ? b->server_ip : "",
		b->append, b->append, b->name
	};
	size_t n, i;

	for (i = 0; i < UB_FIXED_KEYS; i++) {
		keys[i] = fk[i];
		vals[i] = fv[i];
	}
	for (n = UB_FIXED_KEYS; b->addr_keys[n - UB_FIXED_KEYS]; n++) {
		keys[n] = b->addr_keys[n - UB_FIXED_KEYS];
		vals[n] = b->addr_vals[n - UB_FIXED_KEYS];
	}
	return n;
}

/* "Bytes transferred = N" in what the command printed. */
static long long bytes_transferred(const char *from, const char *to)
{
	const char *p = from, *key = "Bytes transferred = ";
	long long v = -1;

	while ((p = strstr(p, key)) && p < to) {
		v = strtoll(p + strlen(key), NULL, 10);
		p++;
	}
	return v;
}

/* What to type (or NULL), then one U-Boot line (re) awaited within timeouts_s.bootloader; a
 * miss says what was awaited (what, after typing: after) and the last output in s->error. */
static int ub_wait(struct boot_session *s, const char *type, regex_t *re, regmatch_t *m,
		   const char *noun, const char *what, const char *after)
{
	const struct board *b = s->board;
	struct console *c = &s->con;
	regex_t *res[1] = { re };
	char last[160];
	int ret = type ? console_write(c, type) : 0;

	if (!ret)
		ret = console_expect(c, res, 1, now_ms() + b->t_bootloader_s * 1000, m);
	if (ret == -EFBIG)
		return fail(s, ret, false, "%s", c->error.msg);
	if (ret == -EPIPE && console_gone(c))
		return fail(s, ret, false, "%s (waiting for U-Boot's %s)", c->error.msg, noun);
	if (ret < 0) {
		last_output(c, last, sizeof(last));
		/* a board-powered adapter: the console came back during the wait */
		return fail(
			s, ret, false,
			"%s: U-Boot %s %s within %ld s%s (timeouts_s.bootloader); last output: %s%s",
			b->name, what, ret == -EPIPE ? "not seen: console closed" : "never seen",
			b->t_bootloader_s, after, last,
			!type && c->reopens ?
				"; the console appeared only after power on (a board-powered adapter): U-Boot's countdown may have run out before it, raise U-Boot's bootdelay" :
				"");
	}
	return ret;
}

static int uboot_interact(struct boot_session *s, char *const rel[3], const char *const src[3])
{
	const struct board *b = s->board;
	struct console *c = &s->con;
	size_t nerr = strv_len(b->ub_errors), ncmd = strv_len(b->ub_commands), i, nk;
	size_t nres = nerr + 2;
	const char **keys = xcalloc(UB_FIXED_KEYS + strv_len(b->addr_keys) + 1, sizeof(char *));
	const char **vals = xcalloc(UB_FIXED_KEYS + strv_len(b->addr_keys) + 1, sizeof(char *));
	regex_t **res = xcalloc(nres, sizeof(*res));
	regex_t autoboot, prompt, started;
	char *q = re_quote(b->ub_prompt), last[160], what[300];
	regmatch_t m[10];
	int ret;

	re_compile(&autoboot, b->ub_autoboot);
	re_compile(&prompt, q);
	re_compile(&started, b->ub_started);
	free(q);
	nk = ub_keys(b, rel, keys, vals);
	add_res(res, 2, b->ub_errors);

	snprintf(what, sizeof(what), "autoboot line /%s/ (boot.autoboot)", b->ub_autoboot);
	ret = ub_wait(s, NULL, &autoboot, m, "autoboot line", what, "");
	if (ret < 0)
		goto out;
	snprintf(what, sizeof(what), "prompt \"%s\" (boot.prompt)", b->ub_prompt);
	ret = ub_wait(s, b->ub_interrupt, &prompt, m, "prompt", what,
		      " after typing boot.interrupt");
	if (ret < 0)
		goto out;
	for (i = 0; i < ncmd; i++) {
		bool boots = i == ncmd - 1;
		char *cmd = NULL, *bad = NULL, line[200];
		size_t start;
		int fi;

		ret = expand_template_flags(b->ub_commands[i], keys, vals, nk, TMPL_KEEP_DOLLAR,
					    &cmd, &bad);
		if (ret) {
			ret = fail(
				s, -EINVAL, true,
				ret == -ENODATA ?
					"%s: boot.commands[%zu]: {%s}: the kernel directory has none" :
					"%s: boot.commands[%zu]: unknown placeholder {%s}",
				b->name, i, bad);
			free(bad);
			goto out;
		}
		start = console_tell(c);
		ret = console_write(c, cmd);
		if (!ret)
			ret = console_write(c, "\n");
		res[0] = &prompt;
		res[1] = boots ? &started : &prompt;
		if (!ret)
			ret = console_expect(c, res + (boots ? 0 : 1), nres - (boots ? 0 : 1),
					     now_ms() + b->t_bootloader_s * 1000, m);
		if (ret >= 0 && !boots)
			ret++; /* indices as in res[] */
		if (ret == 1 && boots) {
			ret = 0;
			free(cmd);
			break;
		}
		if (ret == 0 && boots) {
			size_t e = (size_t)m[0].rm_so;
			size_t from = (size_t)(console_at(c, start) - c->in.data);

			while (e > from && (c->in.data[e - 1] == '\n' || c->in.data[e - 1] == '\r'))
				e--;
			line_at(c, e, e, line, sizeof(line));
			ret = fail(
				s, -EIO, false,
				"%s: U-Boot returned to its prompt after `%s` (boot.commands[%zu]) instead of starting the kernel (/%s/, boot.kernel_started): %s",
				b->name, cmd, i, b->ub_started, line);
		} else if (ret >= 2) {
			console_complete_line(c, (size_t)m[0].rm_so, now_ms() + 2000);
			line_at(c, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
			ret = fail(s, -EIO, false,
				   "%s: U-Boot command `%s` (boot.commands[%zu]) failed: %s",
				   b->name, cmd, i, line);
		} else if (ret == -EFBIG) {
			ret = fail(s, ret, false, "%s", c->error.msg);
		} else if (ret < 0) {
			last_output(c, last, sizeof(last));
			ret = fail(
				s, ret, false,
				"%s: U-Boot command `%s` (boot.commands[%zu]): %s within %ld s (timeouts_s.bootloader); last output: %s",
				b->name, cmd, i,
				ret == -EPIPE ? "console closed" :
				boots	      ? "kernel not started" :
						"no prompt",
				b->t_bootloader_s, last);
		} else {
			/* a TFTP transfer of one of our files: check its size */
			long long got =
				bytes_transferred(console_at(c, start), c->in.data + m[0].rm_so);

			ret = 0;
			for (fi = 0; fi < 3 && got >= 0; fi++) {
				struct stat st;

				if (rel[fi] && strstr(cmd, rel[fi]) && !stat(src[fi], &st) &&
				    st.st_size != got) {
					ret = fail(s, -EIO, false,
						   "%s: `%s` transferred %lld bytes, %s has %lld",
						   b->name, cmd, got, src[fi],
						   (long long)st.st_size);
					break;
				}
			}
		}
		free(cmd);
		if (ret)
			goto out;
	}
out:
	regfree(&autoboot);
	regfree(&prompt);
	regfree(&started);
	res[0] = res[1] = NULL;
	free_res(res, nres);
	free(keys);
	free(vals);
	return ret;
}

/* --- deploy by command --- */

static int deploy_command(struct boot_session *s, const struct kernel_art *k)
{
	const struct board *b = s->board;
	const char *keys[] = { "kernel", "dtb", "initrd", "ramdisk", "module", "append", "board" };
	const char *vals[] = { k->zimage, k->dtb,    k->initrd, k->initrd,
			       k->module, b->append, b->name };
	size_t n = strv_len(b->deploy), i;
	char **argv = xcalloc(n + 1, sizeof(*argv));
	struct buf out = { 0 };
	int ret = 0, e;

	for (i = 0; i < n && !ret; i++) {
		char *bad = NULL;

		e = expand_template(b->deploy[i], keys, vals, ARRAY_SIZE(keys), &argv[i], &bad);
		if (e == -ENODATA) {
			ret = fail(s, -EINVAL, true,
				   "%s: boot.deploy: {%s}: the kernel directory has none", b->name,
				   bad);
			free(bad);
		} else if (e) {
			ret = fail(
				s, -EINVAL, true,
				"%s: boot.deploy: unknown placeholder {%s}; known: {kernel} {dtb} {initrd} {module} {append} {board}",
				b->name, bad);
			free(bad);
		}
	}
	if (!ret) {
		ret = run_argv_deadline(argv, now_ms() + b->t_deploy_s * 1000, &out, &e);
		if (ret == -ENOENT) {
			ret = fail(s, ret, true, "%s: boot.deploy: cannot run %s: %s", b->name,
				   argv[0], strerror(e));
		} else if (ret == -ETIMEDOUT) {
			ret = fail(
				s, ret, false,
				"%s: boot.deploy: %s did not finish within %ld s (timeouts_s.deploy); killed",
				b->name, argv[0], b->t_deploy_s);
		} else if (ret > 0) {
			while (out.len &&
			       (out.data[out.len - 1] == '\n' || out.data[out.len - 1] == '\r'))
				out.data[--out.len] = '\0';
			ret = fail(s, -EIO, false, "%s: boot.deploy: %s exited with status %d: %s",
				   b->name, argv[0], ret,
				   out.len ?
					   (strrchr(out.data, '\n') ? strrchr(out.data, '\n') + 1 :
								      out.data) :
					   "(no output)");
		} else if (ret < 0) {
			ret = fail(s, ret, false, "%s: boot.deploy: %s", b->name, strerror(-ret));
		}
	}
	buf_free(&out);
	strv_free(argv);
	return ret;
}

/* --- the boot methods (boot.method): what happens before and after power on --- */

static int uboot_deploy(struct boot_session *s, const struct kernel_art *k, char *rel[3],
			const char *rundir)
{
	const struct board *b = s->board;
	char err[400];
	int ret;

	if (b->tftp_root) {
		s->tftp_dir = xstrdup(b->tftp_root);
	} else {
		s->tftp_dir = xasprintf("%s/tftp", rundir);
		mkdir_p(s->tftp_dir, 0755);
	}
	ret = tftp_deploy(b, s->tftp_dir, k, rel, err, sizeof(err));
	if (ret)
		return fail(s, ret, true, "%s", err);
	s->pw.tftp_dir = s->tftp_dir;
	return 0;
}

static int command_deploy(struct boot_session *s, const struct kernel_art *k, char *rel[3],
			  const char *rundir)
{
	(void)rel;
	(void)rundir;
	return deploy_command(s, k);
}

static int direct_check(const struct board *b, struct buf *out);
static int uboot_check(const struct board *b, struct buf *out);
static int command_check(const struct board *b, struct buf *out);

const struct boot_ops boot_direct_ops = {
	.conf = { .parse = boot_direct_parse },
	.name = "direct",
	.lava = BOOT_LAVA_QEMU,
	.check = direct_check,
};

const struct boot_ops boot_uboot_ops = {
	.conf = { .fields = boot_uboot_fields, .parse = boot_uboot_parse, .free = boot_uboot_free },
	.name = "uboot",
	.lava = BOOT_LAVA_UBOOT,
	.deploy = uboot_deploy,
	.interact = uboot_interact,
	.check = uboot_check,
};

const struct boot_ops boot_command_ops = {
	.conf = { .fields = boot_command_fields,
		  .parse = boot_command_parse,
		  .free = boot_command_free },
	.name = "command",
	.lava = BOOT_LAVA_FLASHER,
	.deploy = command_deploy,
	.check = command_check,
};

/* --- the boot --- */

static int open_console(struct boot_session *s, const char *transcript)
{
	const struct board *b = s->board;
	const char *dev = NULL;
	int ret;

	if (b->console_device && !strncmp(b->console_device, "qemu:", 5))
		dev = s->pw.ops->console_path(&s->pw, b->console_device + 5);
	ret = console_open(&s->con, b, dev, transcript);
	if (ret && backend_has(BACKEND_CONSOLE, b->console_type, CAP_NETWORK) &&
	    backend_has(BACKEND_POWER, b->power_type, CAP_MAKES_MACHINE)) {
		/* a TCP server the machine makes (QEMU's): it is listening once QMP answers */
		ret = console_open(&s->con, b, dev, transcript);
	}
	if (ret)
		return fail(s, ret, true, "%s", s->con.error.msg);
	s->con_open = true;
	ret = target_init(&s->tgt, &s->con, b->prompt);
	if (ret)
		return fail(s, ret, true, "%s: bad shell.prompt", b->name);
	s->tgt_ready = true;
	return 0;
}

int boot_start(struct boot_session *s, const struct board *b, const struct kernel_art *k,
	       const char *rundir, const char *transcript)
{
	const struct backend *bk = backend_find(BACKEND_BOOT, b->boot_method);
	const struct boot_ops *bo = bk ? bk->ops : NULL;
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
		return fail(s, ret, true, "%s: unsupported power type %s", b->name, b->power_type);
	if (!bo)
		return fail(s, -EPROTONOSUPPORT, true, "%s: unsupported boot method %s", b->name,
			    b->boot_method);
	if (!makes) {
		/* a known state, and the board off while its kernel is replaced */
		ret = power_off(&s->pw);
		if (ret)
			return fail(s, ret, true, "%s", s->pw.error);
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
	ret = power_on(&s->pw, k);
	s->powered = true;
	if (ret) {
		ret = fail(s, ret,
			   ret == -ECHILD || ret == -EINVAL || ret == -ENOENT || ret == -ENOTTY ||
				   ret == -ENODEV,
			   "%s: power on: %s", b->name, s->pw.error ? s->pw.error : strerror(-ret));
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
			ret = fail(s, ret, false, "%s: power release: %s", b->name,
				   s->pw.error ? s->pw.error : strerror(-ret));
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

		last_output(&s->con, last, sizeof(last));
		ret = fail(
			s, ret, false,
			"%s: shell: no answer to a command within %ld s (timeouts_s.command) after the prompt \"%s\"; last output: %s",
			b->name, b->t_command_s, b->prompt, last);
		goto out;
	}
	if (ret) {
		ret = fail(s, ret, false, "%s: shell did not answer after the prompt: %s", b->name,
			   ret == -EFBIG ? s->con.error.msg : strerror(-ret));
		goto out;
	}
	s->t_prompt = now_ms();
out:
	free(rel[0]);
	free(rel[1]);
	free(rel[2]);
	return ret;
}

void boot_end(struct boot_session *s)
{
	if (s->tgt_ready)
		target_free(&s->tgt);
	if (s->con_open)
		console_close(&s->con);
	if (s->powered && s->pw.ops && power_off(&s->pw))
		err_msg("%s", s->pw.error ? s->pw.error : "power off failed");
	power_free(&s->pw);
	free(s->tftp_dir);
	s->tftp_dir = NULL;
	s->tgt_ready = s->con_open = s->powered = false;
}

/* --- dry-run checks --- */

int console_check(const struct board *b, struct buf *out)
{
	const struct backend *bk = backend_find(BACKEND_CONSOLE, b->console_type);
	const struct console_ops *co = bk ? bk->ops : NULL;

	if (!co)
		return check_line(out, false, "console.type", "%s: unsupported", b->console_type);
	return co->check ? co->check(b, out) : 0;
}

static int commands_check(const struct board *b, struct buf *out)
{
	char *rel[3] = { "B/zImage", "B/initramfs.cpio.gz", "B/x.dtb" };
	const char **keys = xcalloc(UB_FIXED_KEYS + strv_len(b->addr_keys) + 1, sizeof(char *));
	const char **vals = xcalloc(UB_FIXED_KEYS + strv_len(b->addr_keys) + 1, sizeof(char *));
	size_t nk = ub_keys(b, rel, keys, vals), i;
	int bad = 0;

	for (i = 0; b->ub_commands[i]; i++) {
		char *cmd = NULL, *unknown = NULL;

		if (expand_template_flags(b->ub_commands[i], keys, vals, nk, TMPL_KEEP_DOLLAR, &cmd,
					  &unknown)) {
			char field[40];

			snprintf(field, sizeof(field), "boot.commands[%zu]", i);
			bad += check_line(
				out, false, field,
				"unknown placeholder {%s} (known: {kernel} {ramdisk} {dtb} {server_ip} {bootargs} {board} and boot.addrs keys)",
				unknown);
			free(unknown);
		}
		free(cmd);
	}
	if (!bad)
		bad = check_line(out, true, "boot.commands", "%zu commands, placeholders known", i);
	free(keys);
	free(vals);
	return bad;
}

static int uboot_check(const struct board *b, struct buf *out)
{
	int bad = 0;

	if (!b->tftp_root) {
		bad += check_line(out, true, "boot.tftp_root",
				  "(none: a per-boot directory served by QEMU)");
	} else if (!is_dir(b->tftp_root)) {
		bad += check_line(out, false, "boot.tftp_root", "%s: no such directory",
				  b->tftp_root);
	} else if (access(b->tftp_root, W_OK)) {
		bad += check_line(out, false, "boot.tftp_root", "%s: not writable (%s)",
				  b->tftp_root, strerror(errno));
	} else {
		bad += check_line(out, true, "boot.tftp_root", "%s is writable", b->tftp_root);
	}
	bad += commands_check(b, out);
	return bad;
}

static int command_check(const struct board *b, struct buf *out)
{
	if (program_exists(b->deploy[0]))
		return check_line(out, true, "boot.deploy", "%s found", b->deploy[0]);
	return check_line(out, false, "boot.deploy", "%s: not found%s", b->deploy[0],
			  strchr(b->deploy[0], '/') ? "" : " in PATH");
}

static int direct_check(const struct board *b, struct buf *out)
{
	(void)b;
	return check_line(out, true, "boot.method", "direct (QEMU -kernel)");
}

int boot_check(const struct board *b, struct buf *out)
{
	const struct backend *bk = backend_find(BACKEND_BOOT, b->boot_method);
	const struct boot_ops *bo = bk ? bk->ops : NULL;

	if (!bo)
		return check_line(out, false, "boot.method", "%s: unsupported", b->boot_method);
	return bo->check ? bo->check(b, out) : 0;
}
