// SPDX-License-Identifier: GPL-2.0-only
/* Boot method uboot: the artefacts are copied into TFTP_ROOT/BOARD/ (boot-tftp.c); after
 * power on the autoboot line is caught and interrupted and the board's boot.commands are
 * typed, each waiting for the prompt or a U-Boot error; the last one boots. */
#include "backend/boot.h"
#include "backend/backends.h"

#include "shared/msg.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* boot.* of this method (board->boot_priv) */
struct uboot_conf {
	const char *tftp_root; /* NULL: a per-session directory (a power backend serving TFTP) */
	const char *server_ip;
	const char *autoboot; /* regex of the autoboot countdown line */
	const char *interrupt; /* what to type to stop it */
	bool interrupt_early; /* typed from power on until the prompt, not after the line */
	const char *prompt; /* literal U-Boot prompt, e.g. "=> " */
	char **commands; /* typed in order; the last one boots */
	char **errors; /* regexes that fail a U-Boot command */
	char **reset; /* regexes meaning "the board reset" after boot */
	const char *started; /* regex: the kernel was entered */
	char **addr_keys, **addr_vals; /* boot.addrs: {kernel_addr} ... */
	long tftp_blocksize, tftp_windowsize; /* boot.tftp_*: set before boot.commands[0] */
	/* A transfer failed with those: 512 and 1 from then on.  Runtime state of the loaded
	 * board, so it lasts for the campaign (boards are loaded once per campaign) and no
	 * longer; only the board's own thread boots it, the atomic is for any reader. */
	atomic_bool tftp_fallback;
};

/* U-Boot's sizes without tftpblocksize and tftpwindowsize (RFC 1350's block, no window). */
#define UB_TFTP_SAFE_BLOCK 512
#define UB_TFTP_SAFE_WINDOW 1

static const struct uboot_conf *conf_of(const struct board *b)
{
	return b->boot_priv;
}

#define UB_FIXED_KEYS 8

/* The placeholder table of boot.commands: fixed keys, then boot.addrs. */
static size_t ub_keys(const struct board *b, char *const rel[3], const char **keys,
		      const char **vals)
{
	const struct uboot_conf *u = conf_of(b);
	const char *fk[UB_FIXED_KEYS] = { "kernel",    "ramdisk",  "initrd", "dtb",
					  "server_ip", "bootargs", "append", "board" };
	const char *fv[UB_FIXED_KEYS] = {
		rel[0],	   rel[1],    rel[1], rel[2], u->server_ip ? u->server_ip : "",
		b->append, b->append, b->name
	};
	size_t n, i;

	for (i = 0; i < UB_FIXED_KEYS; i++) {
		keys[i] = fk[i];
		vals[i] = fv[i];
	}
	for (n = UB_FIXED_KEYS; u->addr_keys[n - UB_FIXED_KEYS]; n++) {
		keys[n] = u->addr_keys[n - UB_FIXED_KEYS];
		vals[n] = u->addr_vals[n - UB_FIXED_KEYS];
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
static int ub_wait(struct boot_session *s, const char *type, const struct console_pat *pat,
		   regmatch_t *m, const char *noun, const char *what, const char *after)
{
	const struct board *b = s->board;
	struct console *c = &s->con;
	char last[160];
	int ret = type ? console_write(c, type) : 0;

	if (!ret)
		ret = console_expect_pats(c, pat, 1, now_ms() + b->t_bootloader_s * 1000, m);
	if (ret == -EFBIG)
		return boot_fail(s, ret, false, "%s", c->error.msg);
	if (ret == -EPIPE && boot_console_gone(c))
		return boot_fail(s, ret, false, "%s (waiting for U-Boot's %s)", c->error.msg, noun);
	if (ret < 0) {
		console_last_line(c, last, sizeof(last));
		/* a board-powered adapter: the console came back during the wait */
		return boot_fail(
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

/* What boot.commands[i] (cmd, written at console offset start) ended with (ret: the index of
 * the pattern matched in m, or the error): 0 (its prompt again, a TFTP transfer of the
 * right size), or the boot's failure. */
static int ub_outcome(struct boot_session *s, int ret, bool boots, const char *cmd, size_t i,
		      size_t start, const regmatch_t *m, char *const rel[3],
		      const char *const src[3])
{
	const struct board *b = s->board;
	const struct uboot_conf *u = conf_of(b);
	struct console *c = &s->con;
	char line[200], last[160];
	int fi;

	if (ret == 0 && boots) {
		size_t e = (size_t)m[0].rm_so;
		size_t from = (size_t)(console_at(c, start) - c->in.data);

		while (e > from && (c->in.data[e - 1] == '\n' || c->in.data[e - 1] == '\r'))
			e--;
		boot_line_at(c, e, e, line, sizeof(line));
		ret = boot_fail(
			s, -EIO, false,
			"%s: U-Boot returned to its prompt after `%s` (boot.commands[%zu]) instead of starting the kernel (/%s/, boot.kernel_started): %s",
			b->name, cmd, i, u->started, line);
	} else if (ret >= 2) {
		console_complete_line(c, (size_t)m[0].rm_so, now_ms() + 2000);
		boot_line_at(c, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
		ret = boot_fail(s, -EIO, false,
				"%s: U-Boot command `%s` (boot.commands[%zu]) failed: %s", b->name,
				cmd, i, line);
	} else if (ret == -EFBIG) {
		ret = boot_fail(s, ret, false, "%s", c->error.msg);
	} else if (ret < 0) {
		console_last_line(c, last, sizeof(last));
		ret = boot_fail(
			s, ret, false,
			"%s: U-Boot command `%s` (boot.commands[%zu]): %s within %ld s (timeouts_s.bootloader); last output: %s",
			b->name, cmd, i,
			ret == -EPIPE ? "console closed" :
			boots	      ? "kernel not started" :
					"no prompt",
			b->t_bootloader_s, last);
	} else {
		/* a TFTP transfer of one of our files: check its size */
		long long got = bytes_transferred(console_at(c, start), c->in.data + m[0].rm_so);

		ret = 0;
		if (got > 0)
			s->load_bytes += got; /* boot phases: what was transferred */
		for (fi = 0; fi < 3 && got >= 0; fi++) {
			struct stat st;

			if (rel[fi] && strstr(cmd, rel[fi]) && !stat(src[fi], &st) &&
			    st.st_size != got) {
				ret = boot_fail(s, -EIO, false,
						"%s: `%s` transferred %lld bytes, %s has %lld",
						b->name, cmd, got, src[fi], (long long)st.st_size);
				break;
			}
		}
	}
	return ret;
}

/* Types boot.commands[i] (cmd), after setting U-Boot's TFTP block and window sizes in the same
 * line (no round trip of its own) when sizes: the first command, and one typed again after a
 * failed transfer (then 512 and 1). */
static int ub_type(struct boot_session *s, const char *cmd, bool sizes)
{
	struct uboot_conf *u = s->board->boot_priv;
	bool fb = atomic_load(&u->tftp_fallback);
	char pre[96] = "", *line;
	int ret;

	if (sizes)
		snprintf(pre, sizeof(pre), "setenv tftpblocksize %ld; setenv tftpwindowsize %ld; ",
			 fb ? UB_TFTP_SAFE_BLOCK : u->tftp_blocksize,
			 fb ? UB_TFTP_SAFE_WINDOW : u->tftp_windowsize);
	line = xasprintf("%s%s\n", pre, cmd);
	ret = console_write(&s->con, line);
	free(line);
	return ret;
}

/* boot.commands[i] (cmd) met U-Boot's error at m[0].  A TFTP transfer that timed out or was
 * refused (not a missing file) with sizes other than 512 and 1: waits for the prompt, says so,
 * and keeps 512 and 1 for this board's campaign; true when cmd is to be typed again. */
static bool ub_tftp_fallback(struct boot_session *s, const char *cmd, size_t i, const regmatch_t *m)
{
	const struct board *b = s->board;
	struct uboot_conf *u = b->boot_priv;
	struct console *c = &s->con;
	struct console_pat prompt = console_pat_lit(u->prompt, CONSOLE_TAIL_NONE);
	char line[200], what[300];
	regmatch_t pm[10];

	if (!strstr(cmd, "tftp") || atomic_load(&u->tftp_fallback) ||
	    (u->tftp_blocksize == UB_TFTP_SAFE_BLOCK && u->tftp_windowsize == UB_TFTP_SAFE_WINDOW))
		return false;
	console_complete_line(c, (size_t)m[0].rm_so, now_ms() + 2000);
	boot_line_at(c, (size_t)m[0].rm_so, (size_t)m[0].rm_eo, line, sizeof(line));
	if (!strstr(line, "TIMEOUT") && !strstr(line, "Retry count exceeded") &&
	    (!strstr(line, "TFTP error") || strstr(line, "File not found")))
		return false;
	snprintf(what, sizeof(what), "prompt \"%s\" (boot.prompt)", u->prompt);
	if (ub_wait(s, NULL, &prompt, pm, "prompt", what, " after a failed TFTP transfer") < 0)
		return false;
	atomic_store(&u->tftp_fallback, true);
	info_msg(
		"%s: `%s` (boot.commands[%zu]) failed with TFTP block size %ld and window size %ld (%s): typing it again with %d and %d, as every later boot of this campaign will; if this board needs them, set boot.tftp_blocksize %d and boot.tftp_windowsize %d in its board file",
		b->name, cmd, i, u->tftp_blocksize, u->tftp_windowsize, line, UB_TFTP_SAFE_BLOCK,
		UB_TFTP_SAFE_WINDOW, UB_TFTP_SAFE_BLOCK, UB_TFTP_SAFE_WINDOW);
	return true;
}

#define UB_EARLY_MS 10 /* boot.interrupt_early: U-Boot polls for a key every 10 ms */

/* boot.interrupt_early: boot.interrupt typed every UB_EARLY_MS from power on until the prompt
 * (a U-Boot that takes a key before its countdown stops at the countdown's first byte), then
 * Ctrl-C clears what reached the prompt's line, and the prompt after it is awaited. */
static int ub_interrupt_early(struct boot_session *s, const struct console_pat *prompt,
			      regmatch_t *m)
{
	const struct board *b = s->board;
	const struct uboot_conf *u = conf_of(b);
	struct console *c = &s->con;
	int64_t deadline = now_ms() + b->t_bootloader_s * 1000, next;
	char last[160], what[300];
	int ret;

	do {
		/* a console not there yet (a board-powered adapter) gets the next one */
		(void)console_write(c, u->interrupt);
		next = now_ms() + UB_EARLY_MS;
		ret = console_expect_pats(c, prompt, 1, next < deadline ? next : deadline, m);
	} while (ret == -ETIMEDOUT && now_ms() < deadline);
	if (ret == -ETIMEDOUT) {
		console_last_line(c, last, sizeof(last));
		return boot_fail(
			s, ret, false,
			"%s: U-Boot prompt \"%s\" (boot.prompt) never seen within %ld s (timeouts_s.bootloader) of typing boot.interrupt every %d ms from power on (boot.interrupt_early); last output: %s",
			b->name, u->prompt, b->t_bootloader_s, UB_EARLY_MS, last);
	}
	snprintf(what, sizeof(what), "prompt \"%s\" (boot.prompt)", u->prompt);
	if (ret < 0) /* console gone, flood, stop: ub_wait says which */
		return ub_wait(s, NULL, prompt, m, "prompt", what, "");
	return ub_wait(s, "\x03", prompt, m, "prompt", what,
		       " after Ctrl-C (boot.interrupt_early clears the line)");
}

static int uboot_interact(struct boot_session *s, char *const rel[3], const char *const src[3])
{
	const struct board *b = s->board;
	const struct uboot_conf *u = conf_of(b);
	struct console *c = &s->con;
	size_t nerr = strv_len(u->errors), ncmd = strv_len(u->commands), i, nk;
	size_t nres = nerr + 2;
	const char **keys = xcalloc(UB_FIXED_KEYS + strv_len(u->addr_keys) + 1, sizeof(char *));
	const char **vals = xcalloc(UB_FIXED_KEYS + strv_len(u->addr_keys) + 1, sizeof(char *));
	/* literals where the sources are plain strings (console_pat_compile): no tables */
	struct console_pat *pats = xcalloc(nres, sizeof(*pats)), autoboot, started;
	struct console_pat prompt = console_pat_lit(u->prompt, CONSOLE_TAIL_NONE);
	char what[300];
	regmatch_t m[10];
	int64_t t_cmd, t_load = 0, loaded;
	int ret;

	console_pat_compile(&autoboot, u->autoboot); /* checked at load */
	console_pat_compile(&started, u->started);
	nk = ub_keys(b, rel, keys, vals);
	boot_add_pats(pats, 2, u->errors);

	if (u->interrupt_early) {
		ret = ub_interrupt_early(s, &prompt, m);
		if (ret < 0)
			goto out;
	} else {
		snprintf(what, sizeof(what), "autoboot line /%s/ (boot.autoboot)", u->autoboot);
		ret = ub_wait(s, NULL, &autoboot, m, "autoboot line", what, "");
		if (ret < 0)
			goto out;
		snprintf(what, sizeof(what), "prompt \"%s\" (boot.prompt)", u->prompt);
		ret = ub_wait(s, u->interrupt, &prompt, m, "prompt", what,
			      " after typing boot.interrupt");
		if (ret < 0)
			goto out;
	}
	boot_mark(s, PHASE_BOOTLOADER);
	for (i = 0; i < ncmd; i++) {
		bool boots = i == ncmd - 1;
		char *cmd = NULL, *bad = NULL;
		bool again = false;
		size_t start;

		ret = expand_template_flags(u->commands[i], keys, vals, nk, TMPL_KEEP_DOLLAR, &cmd,
					    &bad);
		if (ret) {
			ret = boot_fail(
				s, -EINVAL, true,
				ret == -ENODATA ?
					"%s: boot.commands[%zu]: {%s}: the kernel directory has none" :
					"%s: boot.commands[%zu]: unknown placeholder {%s}",
				b->name, i, bad);
			free(bad);
			goto out;
		}
retype:
		start = console_tell(c);
		t_cmd = now_ms();
		if (boots)
			s->phase[PHASE_LOADED] = t_cmd; /* what it boots is loaded */
		ret = ub_type(s, cmd, i == 0 || again);
		pats[0] = prompt;
		pats[1] = boots ? started : prompt;
		if (!ret)
			ret = console_expect_pats(c, pats + (boots ? 0 : 1), nres - (boots ? 0 : 1),
						  now_ms() + b->t_bootloader_s * 1000, m);
		if (ret >= 0 && !boots)
			ret++; /* indices as in res[] */
		if (ret >= 2 && !again && ub_tftp_fallback(s, cmd, i, m)) {
			again = true;
			goto retype;
		}
		if (ret == 1 && boots) {
			ret = 0;
			free(cmd);
			break;
		}
		loaded = s->load_bytes;
		ret = ub_outcome(s, ret, boots, cmd, i, start, m, rel, src);
		if (!ret && s->load_bytes > loaded) { /* a transfer: load_ms from the first */
			t_load = t_load ? t_load : t_cmd;
			s->load_ms = now_ms() - t_load;
		}
		free(cmd);
		if (ret)
			goto out;
	}
out:
	console_pat_free(&autoboot);
	console_pat_free(&started);
	pats[0] = pats[1] = (struct console_pat){ 0 };
	boot_free_pats(pats, nres);
	free(keys);
	free(vals);
	return ret;
}

static int uboot_deploy(struct boot_session *s, const struct kernel_art *k, char *rel[3],
			const char *rundir)
{
	const struct board *b = s->board;
	const struct uboot_conf *u = conf_of(b);
	struct errtext err;
	int ret;

	if (u->tftp_root) {
		s->tftp_dir = xstrdup(u->tftp_root);
	} else {
		s->tftp_dir = xasprintf("%s/tftp", rundir);
		mkdir_p(s->tftp_dir, 0755);
	}
	ret = tftp_deploy(b, s->tftp_dir, k, rel, &err);
	if (ret)
		return boot_fail(s, ret, true, "%s", err.msg);
	s->pw.tftp_dir = s->tftp_dir;
	return 0;
}

static int commands_check(const struct board *b, struct buf *out)
{
	const struct uboot_conf *u = conf_of(b);
	char *rel[3] = { "B/zImage", "B/initramfs.cpio.gz", "B/x.dtb" };
	const char **keys = xcalloc(UB_FIXED_KEYS + strv_len(u->addr_keys) + 1, sizeof(char *));
	const char **vals = xcalloc(UB_FIXED_KEYS + strv_len(u->addr_keys) + 1, sizeof(char *));
	size_t nk = ub_keys(b, rel, keys, vals), i;
	int bad = 0;

	for (i = 0; u->commands[i]; i++) {
		char *cmd = NULL, *unknown = NULL;

		if (expand_template_flags(u->commands[i], keys, vals, nk, TMPL_KEEP_DOLLAR, &cmd,
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
	const struct uboot_conf *u = conf_of(b);
	int bad = 0;

	if (!u->tftp_root) {
		bad += check_line(out, true, "boot.tftp_root",
				  "(none: a per-boot directory served by QEMU)");
	} else if (!is_dir(u->tftp_root)) {
		bad += check_line(out, false, "boot.tftp_root", "%s: no such directory",
				  u->tftp_root);
	} else if (access(u->tftp_root, W_OK)) {
		bad += check_line(out, false, "boot.tftp_root", "%s: not writable (%s)",
				  u->tftp_root, strerror(errno));
	} else {
		bad += check_line(out, true, "boot.tftp_root", "%s is writable", u->tftp_root);
	}
	bad += check_line(
		out, true, "boot.tftp_blocksize",
		"%ld, window %ld (boot.tftp_windowsize): U-Boot tftpblocksize and tftpwindowsize, set with boot.commands[0]; %d and %d after a failed transfer",
		u->tftp_blocksize, u->tftp_windowsize, UB_TFTP_SAFE_BLOCK, UB_TFTP_SAFE_WINDOW);
	bad += commands_check(b, out);
	return bad;
}

static const struct jfield uboot_fields[] = { { "tftp_root", J_STRING },
					      { "server_ip", J_STRING },
					      { "autoboot", J_STRING },
					      { "interrupt", J_STRING },
					      { "interrupt_early", J_BOOL },
					      { "prompt", J_STRING },
					      { "commands", J_ARRAY_STRING },
					      { "errors", J_ARRAY_STRING },
					      { "reset_patterns", J_ARRAY_STRING },
					      { "kernel_started", J_STRING },
					      { "addrs", J_OBJECT },
					      { "tftp_blocksize", J_INT, false, NULL, 8, 65464 },
					      { "tftp_windowsize", J_INT, false, NULL, 1, 64 },
					      { NULL } };

/* Defaults of the U-Boot method: what U-Boot prints when a command fails; the banners
 * that mean the board reset after the kernel was entered are boot_reset_banners. */
static const char *const ub_default_errors[] = { "TIMEOUT",
						 "Retry count exceeded",
						 "Bad (Linux ARM (z)?Image )?magic",
						 "Wrong (Ramdisk )?Image Format",
						 "[Rr]amdisk image is corrupt",
						 "TFTP error",
						 "Unknown command",
						 "## Error",
						 "No ethernet found",
						 "ERROR: ",
						 "[Ii]nvalid (image|format)",
						 "Could not find",
						 NULL };

static char **strv_from_const(const char *const *v)
{
	size_t n = 0, i;
	char **r;

	while (v[n])
		n++;
	r = xcalloc(n + 1, sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = xstrdup(v[i]);
	return r;
}

static int load_addrs(struct board *b, struct uboot_conf *u, json_object *o)
{
	json_object *a = jobj(o, "addrs");
	size_t n = 0;

	u->addr_keys = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	u->addr_vals = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	if (!a)
		return 0;
	json_object_object_foreach(a, key, val)
	{
		if (!json_object_is_type(val, json_type_string))
			return board_field_error(b, "addrs", key,
						 "must be a string (e.g. \"0x40400000\")");
		u->addr_keys[n] = xstrdup(key);
		u->addr_vals[n++] = xstrdup(json_object_get_string(val));
	}
	return 0;
}

static int uboot_parse(struct board *b, json_object *o)
{
	struct uboot_conf *u = xcalloc(1, sizeof(*u));
	size_t n;

	b->boot_priv = u;
	u->tftp_root = jstr(o, "tftp_root");
	u->server_ip = jstr(o, "server_ip");
	u->autoboot = jstr(o, "autoboot");
	u->interrupt = jstr(o, "interrupt");
	u->prompt = jstr(o, "prompt");
	u->interrupt_early = jbool(o, "interrupt_early", false);
	u->started = jstr(o, "kernel_started");
	/* 1,468: the largest block in one 1,500-byte Ethernet frame (no IP fragments) */
	u->tftp_blocksize = jint(o, "tftp_blocksize", 1468);
	u->tftp_windowsize = jint(o, "tftp_windowsize", 8);
	if (!u->started)
		u->started = "Starting kernel";
	if (!u->autoboot || !u->interrupt || !u->prompt || !*u->prompt)
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"autoboot\" (regex), \"interrupt\" and a non-empty \"prompt\"");
	if (u->interrupt_early && (!*u->interrupt || strpbrk(u->interrupt, "\r\n\x03")))
		return board_field_error(
			b, "boot", "interrupt_early",
			"needs a boot.interrupt without newline or Ctrl-C (typed every %d ms until the prompt; a newline there would run commands), e.g. \" \"",
			UB_EARLY_MS);
	if (!u->tftp_root && !backend_has(BACKEND_POWER, b->power_type, CAP_SERVES_TFTP))
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"tftp_root\" (the TFTP server's directory) unless power type is qemu");
	if (u->tftp_root && u->tftp_root[0] != '/')
		return board_field_error(b, "boot", "tftp_root", "must be an absolute path");
	u->commands = jstrv(o, "commands", &n);
	if (!n)
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"commands\" (the last one boots, e.g. \"bootz ...\")");
	if (json_object_object_get_ex(o, "errors", NULL))
		u->errors = jstrv(o, "errors", NULL);
	else
		u->errors = strv_from_const(ub_default_errors);
	if (json_object_object_get_ex(o, "reset_patterns", NULL))
		u->reset = jstrv(o, "reset_patterns", NULL);
	else
		u->reset = strv_from_const((const char *const *)boot_reset_banners);
	if (board_check_regexes(b, "boot", "autoboot", (char *[]){ (char *)u->autoboot, NULL }) ||
	    board_check_regexes(b, "boot", "kernel_started",
				(char *[]){ (char *)u->started, NULL }) ||
	    board_check_regexes(b, "boot", "errors", u->errors) ||
	    board_check_regexes(b, "boot", "reset_patterns", u->reset))
		return -EINVAL;
	return load_addrs(b, u, o);
}

static void uboot_free(struct board *b)
{
	struct uboot_conf *u = b->boot_priv;

	if (!u)
		return;
	strv_free(u->commands);
	strv_free(u->errors);
	strv_free(u->reset);
	strv_free(u->addr_keys);
	strv_free(u->addr_vals);
	free(u);
	b->boot_priv = NULL;
}

static char *const *uboot_reset_patterns(const struct board *b)
{
	return conf_of(b)->reset;
}

static void uboot_summary(const struct board *b, struct buf *out)
{
	const struct uboot_conf *u = conf_of(b);

	buf_printf(out,
		   ", TFTP block size %ld window %ld (boot.tftp_blocksize, boot.tftp_windowsize)",
		   u->tftp_blocksize, u->tftp_windowsize);
}

const struct boot_ops boot_uboot_ops = {
	.conf = { .fields = uboot_fields, .parse = uboot_parse, .free = uboot_free },
	.name = "uboot",
	.lava = BOOT_LAVA_UBOOT,
	.deploy = uboot_deploy,
	.interact = uboot_interact,
	.check = uboot_check,
	.reset_patterns = uboot_reset_patterns,
	.summary = uboot_summary,
};
