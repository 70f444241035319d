// SPDX-License-Identifier: GPL-2.0-only
/* Benchmarks run on the target, one ops entry per kind.  dmabench: insmod
 * with the campaign's parameters, then read its lines from the kernel log (not
 * from the console stream, so console log levels and interleaved printk text do
 * not matter).  regex: a shell command whose output a job-defined POSIX ERE
 * turns into samples. */
#include "bench.h"
#include "variant.h"

#include <errno.h>
#include <math.h>
#include <openssl/evp.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Empties b, and its string: a command that prints nothing must not show
 * the previous one's output. */
static void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

static char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return strndup(s, n);
}

static bool param_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(" =,:._-+", *s)))
			return false;
	return true;
}

/* The board's failure patterns, and what the target runs: shared by every
 * benchmark kind. */
static int bench_prologue(struct target *t, const struct board *b, int64_t deadline,
			  struct buf *out, struct bench_out *o, const char *extra)
{
	char *cmd;
	int status, ret;

	if (!t->nfail) {
		/* a panic, or a reset (a new boot banner) while the benchmark runs */
		static const char *const dflt_reset[] = { "^U-Boot SPL ", "^U-Boot 20[0-9][0-9]",
							  NULL };
		const char **all;
		size_t n = 0, i;

		for (i = 0; b->fail_patterns && b->fail_patterns[i]; i++)
			n++;
		for (i = 0; b->ub_reset ? b->ub_reset[i] != NULL : dflt_reset[i] != NULL; i++)
			n++;
		all = xcalloc(n + 1, sizeof(*all));
		n = 0;
		for (i = 0; b->fail_patterns && b->fail_patterns[i]; i++)
			all[n++] = b->fail_patterns[i];
		for (i = 0; b->ub_reset ? b->ub_reset[i] != NULL : dflt_reset[i] != NULL; i++)
			all[n++] = b->ub_reset ? b->ub_reset[i] : dflt_reset[i];
		ret = target_set_fail_patterns(t, (char *const *)all);
		t->fail_src = NULL;
		free(all);
		if (ret) {
			snprintf(o->error, sizeof(o->error), "invalid boot.fail_patterns");
			return -EINVAL;
		}
	}
	/* the kernel running, and printk kept off the console while measuring,
	 * and what the benchmark kind asks before it starts (extra): one shell
	 * round trip (docs/BENCHMARKS.md, P1) */
	cmd = xasprintf("uname -r; cat /proc/version; dmesg -n 1%s%s", extra ? "; " : "",
			extra ? extra : "");
	ret = target_run(t, cmd, deadline, out, &status);
	free(cmd);
	if (ret)
		return ret;
	o->uname_r = first_line(out->data);
	{
		const char *v = strstr(out->data, "Linux version "), *nl = strchr(out->data, '\n');

		if (!v)
			v = nl ? nl + 1 : "";
		o->proc_version = first_line(v);
	}
	return 0;
}

/* The console went silent while a command ran: the stage, the deadline and what it said last. */
static void timed_out(struct target *t, const struct board *b, struct bench_out *o)
{
	char last[160];

	console_last_line(t->con, last, sizeof(last));
	snprintf(o->error, sizeof(o->error),
		 "%s: benchmark: target command timed out after %ld s (timeouts_s.command); last output %.1f s ago: %s",
		 b->name, b->t_command_s, (double)(now_ms() - t->con->t_last_rx) / 1000.0, last);
}

static void io_error(struct target *t, const struct board *b, int ret, struct bench_out *o)
{
	if (ret == -EIO && t->fail_line[0])
		snprintf(o->error, sizeof(o->error), "board failed during the benchmark: %s",
			 t->fail_line);
	else if (ret == -ETIMEDOUT)
		timed_out(t, b, o);
	else if (ret == -EINTR)
		snprintf(o->error, sizeof(o->error), "interrupted (signal %d)",
			 (int)stop_requested);
	else if (ret == -EPIPE)
		snprintf(o->error, sizeof(o->error), "console closed during the benchmark "
			 "(board reset?)");
	else if (ret == -EFBIG || ret == -EMSGSIZE)
		snprintf(o->error, sizeof(o->error), "%s", t->con->error);
	else if (!o->error[0])
		snprintf(o->error, sizeof(o->error), "target I/O: %s", strerror(-ret));
}


/* ---- module: your own .ko, one per variant */

#define BENCH_CHUNK	(57 * 54)	/* bytes per command: 54 base64 lines of 76 */
#define BENCH_MODULE_MAX (16 << 20)

char *bench_module_file(const struct bench_def *d, const char *board, const char *kdir, int v)
{
	const char *t = d->ko[v], *p;
	struct buf b = { 0 };

	if (!t)
		return xasprintf("%s/%s.ko", kdir, d->module);
	for (p = t; *p; p++) {
		if (!strncmp(p, "{board}", 7)) {
			buf_printf(&b, "%s", board);
			p += 6;
		} else {
			buf_append(&b, p, 1);
		}
	}
	buf_append(&b, "", 1);
	return b.data;
}

/* The value of "\0KEY=" in a module's .modinfo strings (caller frees). */
static char *modinfo_get(const char *data, size_t len, const char *key)
{
	char *pat = xasprintf("%c%s=", '\0', key);
	size_t plen = strlen(key) + 2;
	const char *p = memmem(data, len, pat, plen), *end;

	free(pat);
	if (!p)
		return NULL;
	p += plen;
	end = memchr(p, '\0', len - (size_t)(p - data));
	return end ? strndup(p, (size_t)(end - p)) : NULL;
}

int bench_modinfo(const char *data, size_t len, char **release, char **name)
{
	char *vm;

	*release = *name = NULL;
	if (len < 64 || memcmp(data, "\177ELF", 4))
		return -EINVAL;
	vm = modinfo_get(data, len, "vermagic");
	if (!vm)
		return -EINVAL;
	*release = strndup(vm, strcspn(vm, " "));
	free(vm);
	*name = modinfo_get(data, len, "name");
	return 0;
}

int bench_check_kernel(const struct bench_def *d, const char *board, const struct kernel_art *k,
		       int v)
{
	const char *const *vn = variant_names;
	char *path, *data = NULL, *rel = NULL, *name = NULL;
	size_t len;
	int ret;

	if (!d || d->kind != BENCH_MODULE || (!d->ko[v] && d->module_src))
		return 0;	/* recipe-built: build.sh checked its vermagic */
	path = bench_module_file(d, board, k->dir, v);
	ret = read_file(path, &data, &len);
	if (ret) {
		err_msg("%s: %s module %s: %s (%s)", board, vn[v], path, strerror(-ret),
			d->ko[v] ? "the job's benchmark.ko, or --module " :
			"--module NAME takes NAME.ko from each kernel directory; name the files with --module control=FILE --module patched=FILE");
		goto out;
	}
	if (bench_modinfo(data, len, &rel, &name)) {
		err_msg("%s: %s module %s is not a Linux kernel module (no ELF .modinfo with vermagic=)",
			board, vn[v], path);
		ret = -EINVAL;
	} else if (!k->release || strcmp(rel, k->release)) {
		err_msg("%s: %s module %s was built for kernel %s (its vermagic), but the %s kernel is %s (%s): build the module against each variant's own tree",
			board, vn[v], path, rel, vn[v], k->release ? k->release : "?", k->dir);
		ret = -EINVAL;
	} else if (len > BENCH_MODULE_MAX) {
		err_msg("%s: %s module %s is %zu bytes, more than the %d MiB ablab copies over a console (strip its debug information: ${CROSS_COMPILE}strip --strip-debug %s)",
			board, vn[v], path, len, BENCH_MODULE_MAX >> 20, path);
		ret = -EFBIG;
	}
out:
	free(rel);
	free(name);
	free(data);
	free(path);
	return ret;
}

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

/* Makes the variant's module file present on the target and sets *tpath
 * to where it is: the copy already there (/lib/modules/NAME.ko, e.g. in a
 * recipe-built initramfs, or one copied earlier), if its sha256 is the
 * file's, else a copy sent over the console in base64 chunks and checked.
 * probed: the output of module_probe_cmd() when the prologue ran it. */
static int module_on_target(struct target *t, const struct board *b, const struct bench_params *p,
			    int64_t deadline, struct bench_out *o, char **tpath, const char *probed)
{
	char *path, *data = NULL, *base, *cmd, sha[65];
	struct buf out = { 0 }, c = { 0 };
	size_t len, off;
	int64_t t0;
	int status, ret;

	*tpath = NULL;
	if (!p->kernel) {	/* no kernel directory known: the module is on the target */
		*tpath = xasprintf("/lib/modules/%s.ko", p->def->module);
		return 0;
	}
	path = bench_module_file(p->def, b->name, p->kernel->dir, p->variant);
	ret = read_file(path, &data, &len);
	if (ret) {
		snprintf(o->error, sizeof(o->error), "module %s: %s", path, strerror(-ret));
		o->fatal = true;
		free(path);
		return ret;
	}
	sha256_hex(data, len, sha);
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
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
	/* not there: send it (echoed by the console; base64 keeps it one
	 * plain 76-column line at a time, a few KiB per command) */
	buf_reset(&out);
	cmd = xasprintf("mkdir -p /tmp/ablab && rm -f /tmp/ablab/%s && command -v base64 >/dev/null && command -v sha256sum >/dev/null",
			base);
	ret = target_run(t, cmd, deadline, &out, &status);
	free(cmd);
	if (ret)
		goto out;
	if (status) {
		snprintf(o->error, sizeof(o->error), "%s: the target cannot take %s over the console: it needs base64, sha256sum and a writable /tmp (busybox has them), or the file as /lib/modules/%s in its root filesystem",
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
			snprintf(o->error, sizeof(o->error), "copying %s to the target: base64 -d exited with status %d at byte %zu",
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
		snprintf(o->error, sizeof(o->error), "copying %s to the target: its sha256 there is %.64s, expected %s (bytes lost on the console?)",
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
	free(data);
	free(path);
	return ret;
}

int bench_format_check(const struct run_result *r, int expect_fmt, const char *hint, char *why,
		       size_t whylen)
{
	static const char *const names[] = { "seed-format", "dmabench v1" };
	size_t i, n[2] = { 0, 0 };

	for (i = 0; i < r->n; i++)
		if (r->v[i].fmt == 0 || r->v[i].fmt == 1)
			n[r->v[i].fmt]++;
	if (!n[!expect_fmt])
		return 0;
	snprintf(why, whylen, "expected %s lines, saw %s lines (%zu of %zu samples)%s%s",
		 names[expect_fmt], names[!expect_fmt], n[!expect_fmt], r->n, hint ? ": " : "",
		 hint ? hint : "");
	return -EINVAL;
}

int bench_batches(const struct run_result *r, char *why, size_t whylen)
{
	struct { const char *s; int max; } *sc = NULL;
	size_t i, j, n = 0;
	int ret = 0;

	for (i = 0; i < r->n; i++) {
		for (j = 0; j < n && strcmp(sc[j].s, r->v[i].scenario); j++)
			;
		if (j == n) {
			sc = xrealloc(sc, (n + 1) * sizeof(*sc));
			sc[n].s = r->v[i].scenario;
			sc[n++].max = 0;
		}
		if (r->v[i].batch > sc[j].max)
			sc[j].max = r->v[i].batch;
	}
	if (n)
		ret = sc[0].max;
	for (j = 1; j < n; j++)
		if (sc[j].max != sc[0].max) {
			snprintf(why, whylen, "scenario %s ran %d batch(es), scenario %s %d: every scenario must run the same number",
				 sc[0].s, sc[0].max, sc[j].s, sc[j].max);
			ret = -1;
			break;
		}
	free(sc);
	return ret;
}

/* After a run: the batches that ran, said when they are not the ones asked for. */
static void note_batches(const struct board *b, const struct bench_params *p, struct bench_out *o)
{
	char why[160];

	o->batches = bench_batches(&o->res, why, sizeof(why));
	if (o->batches > 0 && o->batches != p->batches)
		info_msg("%s: the benchmark ran %d batch%s per scenario, not the %d asked for; the campaign records %d",
			 b->name, o->batches, o->batches == 1 ? "" : "es", p->batches, o->batches);
}

int bench_dmabench(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	bool module = p->def && p->def->kind == BENCH_MODULE;
	struct buf out = { 0 };
	char *cmd, why[384], *tpath = NULL, *probe, *extra;
	const char *hint;
	int status, ret, attempt;

	memset(o, 0, sizeof(*o));
	if (p->modparams && !param_ok(p->modparams)) {
		snprintf(o->error, sizeof(o->error), "module parameters may only contain letters, "
			 "digits, spaces and =,:._-+");
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
			if (!o->error[0])
				goto io;
			buf_free(&out);
			return ret;
		}
		buf_reset(&out);
		/* the seed format has no batches: one batch per load */
		if (p->def->parser_fmt)
			cmd = xasprintf("insmod %s batches=%d%s%s 2>&1", tpath, p->batches,
					p->modparams ? " " : "", p->modparams ? p->modparams : "");
		else
			cmd = xasprintf("insmod %s%s%s 2>&1", tpath, p->modparams ? " " : "",
					p->modparams ? p->modparams : "");
		free(tpath);
	} else
		cmd = xasprintf("insmod %s batches=%d%s%s 2>&1", b->module_path, p->batches,
				p->modparams ? " " : "", p->modparams ? p->modparams : "");
	buf_reset(&out);
	t0 = now_ms();
	ret = target_run(t, cmd, deadline, &out, &status);
	o->run_ms = now_ms() - t0;
	free(cmd);
	if (ret)
		goto io;
	if (status) {
		char *msg = first_line(out.data);
		int insmod_status = status;

		buf_reset(&out);
		/* the done line says why, when the module got that far */
		if (!target_run(t, "dmesg", deadline, &out, &status)) {
			parse_log(out.data, out.len, &o->res);
			run_check(&o->res, why, sizeof(why));
		} else {
			why[0] = '\0';
		}
		snprintf(o->error, sizeof(o->error), "module failed to load (insmod exit %d: %s)%s%s",
			 insmod_status, msg, why[0] ? "; " : "", why);
		free(msg);
		buf_free(&out);
		o->fatal = true;
		return -EIO;
	}
	/* read the kernel log; when console text cut into a line on its way
	 * here, read it again: the ring itself is intact */
	for (attempt = 0; attempt < 3; attempt++) {
		buf_reset(&out);
		ret = target_run(t, "dmesg", deadline, &out, &status);
		if (ret)
			goto io;
		run_result_free(&o->res);
		parse_log(out.data ? out.data : "", out.len, &o->res);
		if (!o->res.malformed)
			break;
		info_msg("%s: %d malformed line(s) in the kernel log as read (%s); reading it again",
			 b->name, o->res.malformed, o->res.first_error);
	}
	buf_free(&out);
	/* a module printing another format prints it every time: said once,
	 * not retried, and the board is not to blame */
	if (!module)
		hint = "the module at shell.module_path is not the lab's dmabench; to run your own: --benchmark module --module NAME --parser seed";
	else if (p->def->parser_fmt)
		hint = "use --parser seed (job file: \"parser\": \"seed\")";
	else
		hint = "use --parser dmabench (job file: \"parser\": \"dmabench\")";
	ret = bench_format_check(&o->res, module ? p->def->parser_fmt : 1, hint, why, sizeof(why));
	if (ret) {
		o->fatal = true;
	} else {
		ret = run_check(&o->res, why, sizeof(why));
		if (!ret)
			note_batches(b, p, o);
	}
	if (ret)
		snprintf(o->error, sizeof(o->error), "benchmark output rejected: %s", why);
	return ret;
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

void bench_out_free(struct bench_out *o)
{
	free(o->uname_r);
	free(o->proc_version);
	run_result_free(&o->res);
	memset(o, 0, sizeof(*o));
}

/* ---- regex: a shell command whose output lines are matched by a POSIX ERE */

static bool scenario_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n >= sizeof(((struct sample *)0)->scenario))
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("._:+/-", s[i])))
			return false;
	return true;
}

int bench_def_check(const struct bench_def *d, char *why, size_t whylen)
{
	regex_t re;
	int ret;

	if (d->kind != BENCH_REGEX)
		return 0;
	ret = regcomp(&re, d->regex, REG_EXTENDED);
	if (ret) {
		char msg[128];

		regerror(ret, &re, msg, sizeof(msg));
		snprintf(why, whylen, "invalid POSIX extended regular expression: %s", msg);
		return -EINVAL;
	}
	if ((size_t)d->g_scenario > re.re_nsub || (size_t)d->g_value > re.re_nsub ||
	    (size_t)d->g_unit > re.re_nsub) {
		snprintf(why, whylen, "the regex has %zu group(s); groups must name one of them",
			 re.re_nsub);
		regfree(&re);
		return -EINVAL;
	}
	regfree(&re);
	return 0;
}

static int unit_scale(const char *u, size_t n, double *scale)
{
	static const struct { const char *name; double scale; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == n && !strncmp(u, units[i].name, n)) {
			*scale = units[i].scale;
			return 0;
		}
	return -EINVAL;
}

static void add_sample(struct run_result *r, const struct sample *s)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
	}
	r->v[r->n++] = *s;
}

/* Whether group g, where it starts or ends the match m0, runs on into more
 * characters of its token (letters, digits and extra) outside the match. */
static bool runs_on(const char *line, const regmatch_t *m0, const regmatch_t *g,
		    const char *extra, size_t *tail)
{
	const char *e = line + g->rm_eo;
	size_t n = 0;

#define TOKCH(c) (((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || \
		  ((c) >= '0' && (c) <= '9') || ((c) && strchr(extra, (c))))
	if (g->rm_eo == m0->rm_eo)
		while (TOKCH(e[n]))
			n++;
	*tail = n;
	if (n)
		return true;
	return g->rm_so == m0->rm_so && g->rm_so > 0 && TOKCH(line[g->rm_so - 1]);
#undef TOKCH
}

static int run_on_error(const char *what, const char *line, const regmatch_t *m0,
			const regmatch_t *g, const char *extra, char *why, size_t whylen)
{
	size_t tail;

	if (!runs_on(line, m0, g, extra, &tail))
		return 0;
	snprintf(why, whylen, "%s \"%.*s\" in \"%.60s\" is %s more of its token%s%.*s%s: the group must capture a whole token (end the regex with $ or a separator)",
		 what, (int)(g->rm_eo - g->rm_so > 40 ? 40 : g->rm_eo - g->rm_so), line + g->rm_so,
		 line, tail ? "followed by" : "preceded by", tail ? " \"" : "",
		 (int)(tail > 20 ? 20 : tail), line + g->rm_eo, tail ? "\"" : "");
	return -EINVAL;
}

/* One matching line into a sample; -EINVAL with why when it does not parse. */
static int regex_sample(const struct bench_def *d, const char *line, const regmatch_t *m,
			struct run_result *r, char *why, size_t whylen)
{
	const regmatch_t *gs = &m[d->g_scenario], *gv = &m[d->g_value];
	double v, scale = 1;
	char num[64], *end;
	struct sample s;
	size_t n, i;
	int batch = 1;

	if (gs->rm_so < 0 || gv->rm_so < 0) {
		snprintf(why, whylen, "a scenario or value group did not take part in the match "
			 "of \"%.60s\"", line);
		return -EINVAL;
	}
	if (run_on_error("scenario", line, m, gs, "._:+/-", why, whylen) ||
	    run_on_error("value", line, m, gv, "._+-", why, whylen) ||
	    (d->g_unit && m[d->g_unit].rm_so >= 0 &&
	     run_on_error("unit", line, m, &m[d->g_unit], "._+-", why, whylen)))
		return -EINVAL;
	n = (size_t)(gs->rm_eo - gs->rm_so);
	if (!scenario_ok(line + gs->rm_so, n)) {
		snprintf(why, whylen, "scenario \"%.*s\" in \"%.60s\": must be 1..63 letters, "
			 "digits or ._:+/-", (int)(n > 63 ? 63 : n), line + gs->rm_so, line);
		return -EINVAL;
	}
	if (d->g_unit) {
		const regmatch_t *gu = &m[d->g_unit];

		if (gu->rm_so < 0 || unit_scale(line + gu->rm_so, (size_t)(gu->rm_eo - gu->rm_so),
						&scale)) {
			snprintf(why, whylen, "unit \"%.*s\" in \"%.60s\": expected ns, us, ms "
				 "or s",
				 gu->rm_so < 0 ? 0 : (int)(gu->rm_eo - gu->rm_so),
				 gu->rm_so < 0 ? "" : line + gu->rm_so, line);
			return -EINVAL;
		}
	}
	n = (size_t)(gv->rm_eo - gv->rm_so);
	snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1),
		 line + gv->rm_so);
	errno = 0;
	v = strtod(num, &end);
	if (n >= sizeof(num) || !n || *end || errno || !isfinite(v) || v < 0) {
		snprintf(why, whylen, "value \"%s\" in \"%.60s\" is not a non-negative number",
			 num, line);
		return -EINVAL;
	}
	memset(&s, 0, sizeof(s));
	s.kind = SAMPLE_RESULT;
	s.fmt = 2;
	memcpy(s.scenario, line + gs->rm_so, (size_t)(gs->rm_eo - gs->rm_so));
	/* the latest sample of this scenario has the batch before this one
	 * (scenarios usually take turns, so this stops after a few steps) */
	for (i = r->n; i-- > 0;)
		if (!strcmp(r->v[i].scenario, s.scenario)) {
			batch = r->v[i].batch + 1;
			break;
		}
	s.batch = batch;
	s.size = s.reps = -1;
	s.mean_ns = v * scale;
	s.min_ns = s.max_ns = s.raw_ns = s.base_ns = s.lost = -1;
	s.ns_per_kib = 0;
	add_sample(r, &s);
	return 0;
}

int bench_regex_parse(const struct bench_def *d, const char *text, struct run_result *r,
		      char *why, size_t whylen)
{
	regmatch_t m[10];
	const char *p = text;
	regex_t re;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (bench_def_check(d, why, whylen))
		return -EINVAL;
	regcomp(&re, d->regex, REG_EXTENDED);
	while (*p && !ret) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (!regexec(&re, line, 10, m, 0))
			ret = regex_sample(d, line, m, r, why, whylen);
		free(line);
		p += n;
		if (*p)
			p++;
	}
	regfree(&re);
	if (ret) {
		r->malformed = 1;
		snprintf(r->first_error, sizeof(r->first_error), "%s", why);
		return ret;
	}
	r->have_start = r->have_done = true;
	r->fmt = 2;
	return 0;
}

char *bench_regex_command(const char *command)
{
	/* a subshell: `set -e` must not end the target's login shell */
	return xasprintf("( set -e\n%s\n)", command);
}

static int bench_regex(struct target *t, const struct board *b, const struct bench_params *p,
		       struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	struct buf out = { 0 };
	char why[256], *cmd;
	int status, ret;

	memset(o, 0, sizeof(*o));
	ret = bench_prologue(t, b, deadline, &out, o, NULL);
	if (ret)
		goto io;
	buf_reset(&out);
	cmd = bench_regex_command(p->def->command);
	t0 = now_ms();
	ret = target_run(t, cmd, deadline, &out, &status);
	o->run_ms = now_ms() - t0;
	free(cmd);
	if (ret)
		goto io;
	if (status) {
		char *msg = first_line(out.data ? out.data : "");

		snprintf(o->error, sizeof(o->error), "benchmark command exited with status %d (it runs under set -e: the first failing command ends it; %s%s)",
			 status, msg[0] ? "first line: " : "no output", msg);
		free(msg);
		buf_free(&out);
		return -EIO;
	}
	ret = bench_regex_parse(p->def, out.data ? out.data : "", &o->res, why, sizeof(why));
	if (!ret)
		ret = run_check(&o->res, why, sizeof(why));
	/* one design per campaign: every scenario runs the same batches */
	if (!ret && bench_batches(&o->res, why, sizeof(why)) < 0)
		ret = -EINVAL;
	if (!ret)
		note_batches(b, p, o);
	if (ret)
		snprintf(o->error, sizeof(o->error), "benchmark output rejected: %s", why);
	buf_free(&out);
	return ret;
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

/* ---- dma_map_benchmark: the kernel's streaming DMA mapping benchmark */

static const char *const dma_dirs[] = { "bidi", "to", "from" };

int bench_dma_map_params(const char *s, struct bench_def *d, char *why, size_t whylen)
{
	static const struct { const char *key; int max; } keys[] = {
		{ "threads", 1024 }, { "seconds", 300 }, { "granule", 1024 }, { "dir", 2 },
	};
	char *copy = xstrdup(s ? s : ""), *save = NULL, *w;
	int ret = 0;

	d->threads = d->seconds = d->granule = 1;
	d->dir = 0;
	for (w = strtok_r(copy, " ,", &save); w && !ret; w = strtok_r(NULL, " ,", &save)) {
		char *eq = strchr(w, '='), *end;
		long v = -1;
		size_t k;

		for (k = 0; eq && k < ARRAY_SIZE(keys); k++)
			if ((size_t)(eq - w) == strlen(keys[k].key) &&
			    !strncmp(w, keys[k].key, (size_t)(eq - w)))
				break;
		if (!eq || k == ARRAY_SIZE(keys)) {
			snprintf(why, whylen, "\"%s\": expected threads=N, seconds=N, granule=N or "
				 "dir=bidi|to|from", w);
			ret = -EINVAL;
			break;
		}
		if (k == 3) {
			for (v = 0; v < 3; v++)
				if (!strcmp(eq + 1, dma_dirs[v]))
					break;
			if (v == 3)
				v = -1;
		} else {
			errno = 0;
			v = strtol(eq + 1, &end, 10);
			if (errno || end == eq + 1 || *end)
				v = -1;
		}
		if (v < (k == 3 ? 0 : 1) || v > keys[k].max) {
			if (k == 3)
				snprintf(why, whylen, "\"%s\": dir is one of bidi, to, from", w);
			else
				snprintf(why, whylen, "\"%s\": %s must be 1..%d", w, keys[k].key,
					 keys[k].max);
			ret = -EINVAL;
			break;
		}
		if (k == 0)
			d->threads = (int)v;
		else if (k == 1)
			d->seconds = (int)v;
		else if (k == 2)
			d->granule = (int)v;
		else
			d->dir = (int)v;
	}
	free(copy);
	return ret;
}

int bench_dma_map_parse(const struct bench_def *d, const char *text, int batch,
			struct run_result *r, char *why, size_t whylen)
{
	static const char *const what[] = { "map", "unmap" };
	int i;

	for (i = 0; i < 2; i++) {
		char *pat = xasprintf("average %s latency(us):", what[i]);
		const char *p = strstr(text, pat);
		double us, sd;
		struct sample s;
		int n = -1;

		if (p)
			p += strlen(pat);
		if (!p || sscanf(p, "%lf standard deviation:%lf%n", &us, &sd, &n) != 2 || n < 0 ||
		    !isfinite(us) || !isfinite(sd) || us < 0 || sd < 0) {
			snprintf(why, whylen, "dma_map_benchmark: no valid \"%s\" line in its "
				 "output", pat);
			free(pat);
			r->malformed++;
			snprintf(r->first_error, sizeof(r->first_error), "%s", why);
			return -EINVAL;
		}
		free(pat);
		memset(&s, 0, sizeof(s));
		s.kind = SAMPLE_RESULT;
		s.fmt = 3;
		snprintf(s.scenario, sizeof(s.scenario), "%s-%d", what[i], d->granule);
		s.batch = batch;
		s.size = -1;
		s.reps = -1;
		snprintf(s.dir, sizeof(s.dir), "%s", dma_dirs[d->dir]);
		snprintf(s.op, sizeof(s.op), "%s", what[i]);
		s.mean_ns = us * 1000.0;
		s.min_ns = s.max_ns = s.raw_ns = s.base_ns = s.lost = -1;
		add_sample(r, &s);
	}
	return 0;
}

/* Binds the first platform device without a driver to dma_map_benchmark
 * (the driver only benchmarks a device bound to it), with debugfs mounted. */
static const char dma_map_setup[] =
	"grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug; "
	"D=/sys/bus/platform/drivers/dma_map_benchmark; "
	"if [ ! -e /sys/kernel/debug/dma_map_benchmark ]; then "
	"for d in /sys/bus/platform/devices/*; do [ -e $d/driver ] && continue; "
	"echo dma_map_benchmark >$d/driver_override 2>/dev/null || continue; "
	"echo ${d##*/} >$D/bind 2>/dev/null && break; echo >$d/driver_override; done; fi; "
	"[ -e /sys/kernel/debug/dma_map_benchmark ] && "
	"echo device: $(ls $D | grep -v -e '^bind$' -e '^unbind$' -e '^uevent$')";

static int bench_dma_map(struct target *t, const struct board *b, const struct bench_params *p,
			 struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	const struct bench_def *d = p->def;
	struct buf out = { 0 };
	char why[256], *cmd;
	int status, ret, i;

	memset(o, 0, sizeof(*o));
	ret = bench_prologue(t, b, deadline, &out, o, NULL);
	if (ret)
		goto io;
	buf_reset(&out);
	ret = target_run(t, dma_map_setup, deadline, &out, &status);
	if (ret)
		goto io;
	if (status) {
		snprintf(o->error, sizeof(o->error), "dma_map_benchmark: no device could be bound "
			 "(kernel without CONFIG_DMA_MAP_BENCHMARK, or no free platform device)");
		o->fatal = true;
		buf_free(&out);
		return -ENODEV;
	}
	if (out.data && strstr(out.data, "device: ")) {
		char *dev = first_line(strstr(out.data, "device: ") + 8);

		info_msg("%s: dma_map_benchmark bound to platform device %s", b->name, dev);
		free(dev);
	}
	cmd = xasprintf("dma_map_benchmark -t %d -s %d -g %d -d %d 2>&1", d->threads, d->seconds,
			d->granule, d->dir);
	t0 = now_ms();
	for (i = 1; i <= p->batches && !ret; i++) {
		buf_reset(&out);
		ret = target_run(t, cmd, deadline, &out, &status);
		if (ret)
			break;
		if (status) {
			char *msg = first_line(out.data ? out.data : "");

			snprintf(o->error, sizeof(o->error), "dma_map_benchmark exited with status "
				 "%d: %s", status, msg);
			free(msg);
			free(cmd);
			buf_free(&out);
			return -EIO;
		}
		ret = bench_dma_map_parse(d, out.data ? out.data : "", i, &o->res, why,
					  sizeof(why));
		if (ret) {
			snprintf(o->error, sizeof(o->error), "benchmark output rejected: %s", why);
			free(cmd);
			buf_free(&out);
			return ret;
		}
	}
	o->run_ms = now_ms() - t0;
	free(cmd);
	if (ret)
		goto io;
	buf_free(&out);
	o->res.have_start = o->res.have_done = true;
	o->res.fmt = 3;
	ret = run_check(&o->res, why, sizeof(why));
	if (!ret)
		note_batches(b, p, o);
	if (ret)
		snprintf(o->error, sizeof(o->error), "benchmark output rejected: %s", why);
	return ret;
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

static const struct bench_ops {
	const char *name;
	int (*run)(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o);
} bench_ops[] = {
	[BENCH_DMABENCH] = { "dmabench", bench_dmabench },
	[BENCH_REGEX] = { "regex", bench_regex },
	[BENCH_DMA_MAP] = { "dma_map_benchmark", bench_dma_map },
	[BENCH_MODULE] = { "module", bench_dmabench },
};

const char *bench_kind_name(enum bench_kind k)
{
	return bench_ops[k].name;
}

int bench_run(struct target *t, const struct board *b, const struct bench_params *p,
	      struct bench_out *o)
{
	return bench_ops[p->def ? p->def->kind : BENCH_DMABENCH].run(t, b, p, o);
}
