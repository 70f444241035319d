// SPDX-License-Identifier: GPL-2.0-only
/* The dmabench and module benchmark kinds: insmod with the campaign's parameters (a
 * module of the job's own copied to the target first), then its lines read from the kernel
 * log (not from the console stream, so console log levels and interleaved printk text do
 * not matter). */
#include "bench/bench.h"
#include "bench/bench-int.h"
#include "variant.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- module: your own .ko, one per variant */

#define BENCH_CHUNK (57 * 54) /* bytes per command: 54 base64 lines of 76 */
static void sha256_hex(const char *data, size_t len, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	for (i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
}

/* The target command that lists the sha256 of the copies of the variant's
 * module already there; NULL when no kernel directory is known. */
static char *module_probe_cmd(const struct board *b, const struct bench_params *p)
{
	char *path, *base, *cmd;

	if (!p->kernel)
		return NULL;
	path = bench_module_file(p->def, b->name, p->kernel->dir, p->variant);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	cmd = xasprintf("sha256sum /lib/modules/%s /tmp/ablab/%s 2>/dev/null; :", base, base);
	free(path);
	return cmd;
}

/* The module file (data, len, its sha256) sent over the console in base64 chunks to
 * /tmp/ablab/ and checked there; *tpath its path on the target. */
static int module_send(struct target *t, const struct board *b, const char *path, const char *data,
		       size_t len, const char *sha, int64_t deadline, struct bench_out *o,
		       char **tpath)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct buf out = { 0 }, c = { 0 };
	size_t off;
	int64_t t0;
	int status, ret;
	char *cmd;

	/* not there: send it (echoed by the console; base64 keeps it one
	 * plain 76-column line at a time, a few KiB per command) */
	cmd = xasprintf(
		"mkdir -p /tmp/ablab && rm -f /tmp/ablab/%s && command -v base64 >/dev/null && command -v sha256sum >/dev/null",
		base);
	ret = target_run(t, cmd, deadline, &out, &status);
	free(cmd);
	if (ret)
		goto out;
	if (status) {
		errtext_set(
			&o->error, 0,
			"%s: the target cannot take %s over the console: it needs base64, sha256sum and a writable /tmp (busybox has them), or the file as /lib/modules/%s in its root filesystem",
			b->name, base, base);
		o->fatal = true;
		ret = -ENOEXEC;
		goto out;
	}
	t0 = now_ms();
	for (off = 0; off < len && !ret; off += BENCH_CHUNK) {
		size_t n = len - off < BENCH_CHUNK ? len - off : BENCH_CHUNK, l;
		char line[80];

		buf_reset(&c);
		buf_printf(&c, "base64 -d >>/tmp/ablab/%s <<'ABLAB_EOF'\n", base);
		for (l = 0; l < n; l += 57) {
			int w = EVP_EncodeBlock((unsigned char *)line,
						(const unsigned char *)data + off + l,
						(int)(n - l < 57 ? n - l : 57));

			buf_append(&c, line, (size_t)w);
			buf_append(&c, "\n", 1);
		}
		buf_printf(&c, "ABLAB_EOF");
		buf_reset(&out);
		ret = target_run(t, c.data, deadline, &out, &status);
		if (!ret && status) {
			errtext_set(
				&o->error, 0,
				"copying %s to the target: base64 -d exited with status %d at byte %zu",
				base, status, off);
			ret = -EIO;
		}
	}
	if (ret)
		goto out;
	buf_reset(&out);
	cmd = xasprintf("sha256sum /tmp/ablab/%s", base);
	ret = target_run(t, cmd, deadline, &out, &status);
	free(cmd);
	if (ret)
		goto out;
	if (status || !out.data || strncmp(out.data, sha, 64)) {
		errtext_set(
			&o->error, 0,
			"copying %s to the target: its sha256 there is %.64s, expected %s (bytes lost on the console?)",
			base, out.data && !status ? out.data : "unknown", sha);
		ret = -EIO;
		goto out;
	}
	info_msg("%s: %s (%zu bytes, sha256 %.12s) copied to the target over the console in %.1f s",
		 b->name, path, len, sha, (double)(now_ms() - t0) / 1000.0);
	*tpath = xasprintf("/tmp/ablab/%s", base);
out:
	buf_free(&out);
	buf_free(&c);
	return ret;
}

/* Makes the variant's module file present on the target and sets *tpath
 * to where it is: the copy already there (/lib/modules/NAME.ko, e.g. in a
 * recipe-built initramfs, or one copied earlier), if its sha256 is the
 * file's, else a copy sent over the console in base64 chunks and checked.
 * probed: the output of module_probe_cmd() when the prologue ran it. */
static int module_on_target(struct target *t, const struct board *b, const struct bench_params *p,
			    int64_t deadline, struct bench_out *o, char **tpath, const char *probed)
{
	char *path, *data = NULL, *cmd, sha[65];
	struct buf out = { 0 };
	size_t len;
	int status, ret;

	*tpath = NULL;
	if (!p->kernel) { /* no kernel directory known: the module is on the target */
		*tpath = xasprintf("/lib/modules/%s.ko", p->def->module.module);
		return 0;
	}
	path = bench_module_file(p->def, b->name, p->kernel->dir, p->variant);
	ret = read_file(path, &data, &len);
	if (ret) {
		errtext_set(&o->error, 0, "module %s: %s", path, strerror(-ret));
		o->fatal = true;
		free(path);
		return ret;
	}
	sha256_hex(data, len, sha);
	if (!probed) {
		cmd = module_probe_cmd(b, p);
		ret = target_run(t, cmd, deadline, &out, &status);
		free(cmd);
		if (ret)
			goto out;
		probed = out.data ? out.data : "";
	}
	for (const char *l = probed; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		if (!strncmp(l, sha, 64) && l[64] == ' ') {
			const char *f = l + 64 + strspn(l + 64, " ");

			*tpath = strndup(f, strcspn(f, "\n"));
			goto out;
		}
	}
	ret = module_send(t, b, path, data, len, sha, deadline, o, tpath);
out:
	buf_free(&out);
	free(data);
	free(path);
	return ret;
}

/* insmod of the module file (tpath) with the campaign's parameters; the seed format has
 * no batches: one batch per load */
static char *insmod_cmd(const char *tpath, const struct bench_params *p, bool module)
{
	const char *mp = p->modparams ? p->modparams : "";

	if (module && !p->def->module.parser_fmt)
		return xasprintf("insmod %s%s%s 2>&1", tpath, p->modparams ? " " : "", mp);
	return xasprintf("insmod %s batches=%d%s%s 2>&1", tpath, p->batches,
			 p->modparams ? " " : "", mp);
}

/* The fix to name when the module's lines are in the other format. */
static const char *format_hint(const struct bench_params *p, bool module)
{
	if (!module)
		return "the module at shell.module_path is not the lab's dmabench; to run your own: --benchmark module --module NAME --parser seed";
	if (p->def->module.parser_fmt)
		return "use --parser seed (job file: \"parser\": \"seed\")";
	return "use --parser dmabench (job file: \"parser\": \"dmabench\")";
}

/*
 * The benchmark (cmd), then the kernel log read with the temperatures at the end, in one
 * exchange: run_ms ends at the marker between them.  When console text cut into a line on
 * its way here, the log is read again: the ring itself is intact.  A module that failed to
 * load: -EIO with o->error and o->fatal set (its done line says why, when it got that far);
 * another error: the exchange's.
 */
static int run_and_read(struct target *t, const struct board *b, const char *cmd, int64_t deadline,
			struct bench_out *o, struct errtext *why)
{
	char *post = xasprintf("dmesg;%s", bench_env_end_cmd());
	struct buf out = { 0 }, log = { 0 };
	int status, st2, ret, attempt;

	o->t_start = now_ms();
	ret = target_run_then(t, cmd, post, deadline, &out, &status, &o->t_end, &log, &st2);
	if (!o->t_end) /* no marker between: the run ended with the exchange */
		o->t_end = now_ms();
	o->run_ms = o->t_end - o->t_start;
	if (!ret && status) {
		char *msg = first_line(out.data);

		parse_log(log.data, log.len, &o->res);
		run_check(&o->res, why);
		errtext_set(&o->error, 0, "module failed to load (insmod exit %d: %s)%s%s", status,
			    msg, errtext_isset(why) ? "; " : "", why->msg);
		free(msg);
		o->fatal = true;
		ret = -EIO;
	}
	for (attempt = 0; !ret && !o->fatal && attempt < 3; attempt++) {
		if (attempt) {
			buf_reset(&log);
			ret = target_run(t, post, deadline, &log, &st2);
			if (ret)
				break;
		}
		bench_env_parse(b, log.data, &o->env);
		run_result_free(&o->res);
		parse_log(log.data ? log.data : "", log.len, &o->res);
		if (!o->res.malformed)
			break;
		info_msg(
			"%s: %d malformed line(s) in the kernel log as read (%s); reading it again",
			b->name, o->res.malformed, o->res.first_error);
	}
	free(post);
	buf_free(&out);
	buf_free(&log);
	return ret;
}

static int bench_dmabench(struct target *t, const struct board *b, const struct bench_params *p,
			  struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000;
	bool module = p->def && p->def->ops == &bench_module_ops;
	struct buf out = { 0 };
	char *cmd, *tpath = NULL, *probe, *extra;
	struct errtext why = { "" };
	int ret;

	memset(o, 0, sizeof(*o));
	if (p->modparams && !param_ok(p->modparams)) {
		errtext_set(
			&o->error, 0,
			"module parameters may only contain letters, digits, spaces and =,:._-+");
		return -EINVAL;
	}
	/*
	 * The kernel ring emptied before the run: the dmesg after it reads the
	 * benchmark's lines and nothing of the boot log (a second copy of the
	 * ~10 KB the console already showed at boot: 0.8 s at 115200 baud).  And
	 * that read is complete: all the ring holds came after this; a ring too
	 * small for the run loses its first lines (the start line, batch 1 of
	 * each scenario), which run_check() refuses.  busybox's dmesg has -c,
	 * not -C.  A module's presence on the target is asked in the same round
	 * trip.
	 */
	probe = module ? module_probe_cmd(b, p) : NULL;
	extra = xasprintf("dmesg -c >/dev/null%s%s", probe ? "; " : "", probe ? probe : "");
	free(probe);
	ret = bench_prologue(t, b, deadline, &out, o, extra);
	free(extra);
	if (ret)
		goto io;
	if (module) {
		const char *probed = p->kernel && out.data ? out.data : NULL;

		ret = module_on_target(t, b, p, deadline, o, &tpath, probed);
		if (ret) {
			if (!errtext_isset(&o->error))
				goto io;
			buf_free(&out);
			return ret;
		}
	}
	cmd = insmod_cmd(module ? tpath : b->module_path, p, module);
	free(tpath);
	ret = run_and_read(t, b, cmd, deadline, o, &why);
	free(cmd);
	buf_free(&out);
	if (ret == -EIO && o->fatal)
		return ret; /* the module failed to load: o->error says why */
	if (ret)
		goto io;
	/* a module printing another format prints it every time: said once,
	 * not retried, and the board is not to blame */
	ret = bench_format_check(&o->res, module ? p->def->module.parser_fmt : 1,
				 format_hint(p, module), &why);
	o->fatal = ret != 0;
	return bench_accept(b, p, o, ret, why.msg);
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

static const char *const module_keys[] = { "src", "parser", "module", "ko", NULL };

const struct bench_ops bench_dmabench_ops = {
	.name = "dmabench",
	.pin_timing = true,
	.lava = true,
	.rows_known = true,
	.run = bench_dmabench,
};

const struct bench_ops bench_module_ops = {
	.name = "module",
	.job_keys = module_keys,
	.job_parse = bench_module_job,
	.cli_opts = "--module and --parser",
	.cli_given = bench_module_cli_given,
	.cli_parse = bench_module_cli,
	.record_write = bench_module_write,
	.record_read = bench_module_read,
	.check_kernel = bench_module_check_kernel,
	.kernel_file = bench_module_file,
	.build_src = bench_module_build_src,
	.run = bench_dmabench,
	.free = bench_module_free,
};
