// SPDX-License-Identifier: GPL-2.0-only
/* Benchmarks run on the target, one ops entry per kind.  dmabench: insmod
 * with the campaign's parameters, then read its lines from the kernel log (not
 * from the console stream, so console log levels and interleaved printk text do
 * not matter).  regex: a shell command whose output a job-defined POSIX ERE
 * turns into samples. */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
			  struct buf *out, struct bench_out *o)
{
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
	/* the kernel running, and printk kept off the console while measuring:
	 * one shell round trip, not three (docs/BENCHMARKS.md, P1) */
	ret = target_run(t, "uname -r; cat /proc/version; dmesg -n 1", deadline, out, &status);
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

int bench_dmabench(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	struct buf out = { 0 };
	char *cmd, why[256];
	int status, ret, attempt;

	memset(o, 0, sizeof(*o));
	if (p->modparams && !param_ok(p->modparams)) {
		snprintf(o->error, sizeof(o->error), "module parameters may only contain letters, "
			 "digits, spaces and =,:._-+");
		return -EINVAL;
	}
	ret = bench_prologue(t, b, deadline, &out, o);
	if (ret)
		goto io;
	out.len = 0;
	if (p->def && p->def->kind == BENCH_MODULE)
		cmd = xasprintf("insmod /lib/modules/%s.ko batches=%d%s%s 2>&1", p->def->module,
				p->batches, p->modparams ? " " : "",
				p->modparams ? p->modparams : "");
	else
		cmd = xasprintf("insmod %s batches=%d%s%s 2>&1", b->module_path, p->batches,
				p->modparams ? " " : "", p->modparams ? p->modparams : "");
	t0 = now_ms();
	ret = target_run(t, cmd, deadline, &out, &status);
	o->run_ms = now_ms() - t0;
	free(cmd);
	if (ret)
		goto io;
	if (status) {
		char *msg = first_line(out.data);
		int insmod_status = status;

		out.len = 0;
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
		out.len = 0;
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
	ret = run_check(&o->res, why, sizeof(why));
	if (!ret && p->def && p->def->kind == BENCH_MODULE && o->res.fmt != p->def->parser_fmt) {
		snprintf(why, sizeof(why), "%s printed %s lines, the job's parser is \"%s\"",
			 p->def->module, o->res.fmt ? "dmabench v1" : "seed-format",
			 p->def->parser_fmt ? "dmabench" : "seed");
		ret = -EINVAL;
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

static int bench_regex(struct target *t, const struct board *b, const struct bench_params *p,
		       struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	struct buf out = { 0 };
	char why[256];
	int status, ret;

	memset(o, 0, sizeof(*o));
	ret = bench_prologue(t, b, deadline, &out, o);
	if (ret)
		goto io;
	out.len = 0;
	t0 = now_ms();
	ret = target_run(t, p->def->command, deadline, &out, &status);
	o->run_ms = now_ms() - t0;
	if (ret)
		goto io;
	if (status) {
		char *msg = first_line(out.data ? out.data : "");

		snprintf(o->error, sizeof(o->error), "benchmark command exited with status %d "
			 "(first line: %s)", status, msg);
		free(msg);
		buf_free(&out);
		return -EIO;
	}
	ret = bench_regex_parse(p->def, out.data ? out.data : "", &o->res, why, sizeof(why));
	if (!ret)
		ret = run_check(&o->res, why, sizeof(why));
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
	ret = bench_prologue(t, b, deadline, &out, o);
	if (ret)
		goto io;
	out.len = 0;
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
		out.len = 0;
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
