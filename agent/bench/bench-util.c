// SPDX-License-Identifier: GPL-2.0-only
/* What every benchmark kind shares (below the kinds, bench-int.h): the prologue on the
 * target, its errors, the checks of a run's result lines. */
#include "bench/bench.h"
#include "bench/bench-int.h"
#include "backend/boot.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

char *first_line(const char *s)
{
	size_t n = strcspn(s, "\n");

	return strndup(s, n);
}

bool param_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr(" =,:._-+", *s)))
			return false;
	return true;
}

/* The board's failure patterns, and what the target runs: shared by every
 * benchmark kind. */
int bench_prologue(struct target *t, const struct board *b, int64_t deadline, struct buf *out,
		   struct bench_out *o, const char *extra)
{
	char *cmd, *env;
	int status, ret;

	if (!t->nfail) {
		/* a panic, or a reset (a new boot banner) while the benchmark runs */
		char *const *reset = boot_reset_patterns(b, true);
		const char **all;
		size_t n = 0, i;

		all = xcalloc(strv_len(b->fail_patterns) + strv_len(reset) + 1, sizeof(*all));
		for (i = 0; b->fail_patterns && b->fail_patterns[i]; i++)
			all[n++] = b->fail_patterns[i];
		for (i = 0; reset[i]; i++)
			all[n++] = reset[i];
		ret = target_set_fail_patterns(t, (char *const *)all);
		t->fail_src = NULL;
		free(all);
		if (ret) {
			errtext_set(&o->error, 0, "invalid boot.fail_patterns");
			return -EINVAL;
		}
	}
	/*
	 * The kernel running, and printk kept off the console while measuring,
	 * and what the benchmark kind asks before it starts (extra): one shell
	 * round trip (docs/BENCHMARKS.md, P1).  The kernel's identity is the
	 * banner it printed at boot (t->banner, what /proc/version holds): no
	 * byte more on the line, where /proc/version's ~180 cost 16 ms at
	 * 115,200 baud.  Without one (a `quiet` kernel), /proc/version by the
	 * shell's own read: each program the target starts costs ~10 ms under
	 * QEMU's TCG.
	 */
	/* the environment read in the same round trip; /proc/cmdline only when the
	 * console did not show the kernel's "Kernel command line: " (t->cmdline) */
	env = bench_env_start_cmd(b, !t->cmdline);
	cmd = xasprintf("%sdmesg -n 1;%s%s%s",
			t->banner ? "" :
				    "read -r ablab_v </proc/version; printf '%s\\n' \"$ablab_v\"; ",
			env, extra ? "; " : "", extra ? extra : "");
	free(env);
	ret = target_run(t, cmd, deadline, out, &status);
	free(cmd);
	if (ret)
		return ret;
	bench_env_parse(b, out->data, &o->env);
	if (t->cmdline && !json_object_object_get_ex(o->env, "cmdline", NULL))
		json_object_object_add(o->env, "cmdline", json_object_new_string(t->cmdline));
	{
		const char *v = t->banner ? t->banner : strstr(out->data, "Linux version ");

		if (!v) {
			char *l = first_line(out->data);

			errtext_set(
				&o->error, 0,
				"%s: the target shell could not read /proc/version (is /proc mounted?): %.160s",
				b->name, l);
			free(l);
			o->fatal = true;
			return -ENOENT;
		}
		o->proc_version = first_line(v);
		v += strlen("Linux version ");
		o->uname_r = strndup(v, strcspn(v, " \n"));
	}
	return 0;
}

/* The console went silent while a command ran: the stage, the deadline and what it said last. */
static void timed_out(struct target *t, const struct board *b, struct bench_out *o)
{
	char last[160];

	console_last_line(t->con, last, sizeof(last));
	errtext_set(
		&o->error, 0,
		"%s: benchmark: target command timed out after %ld s (timeouts_s.command); last output %.1f s ago: %s",
		b->name, b->t_command_s, (double)(now_ms() - t->con->t_last_rx) / 1000.0, last);
}

void io_error(struct target *t, const struct board *b, int ret, struct bench_out *o)
{
	if (ret == -EIO && t->fail_line[0])
		errtext_set(&o->error, 0, "board failed during the benchmark: %s", t->fail_line);
	else if (ret == -ETIMEDOUT)
		timed_out(t, b, o);
	else if (ret == -EINTR)
		errtext_set(&o->error, 0, "interrupted (signal %d)", (int)stop_requested);
	else if (ret == -EPIPE)
		errtext_set(&o->error, 0, "console closed during the benchmark (board reset?)");
	else if (ret == -EFBIG || ret == -EMSGSIZE)
		errtext_set(&o->error, 0, "%s", t->con->error.msg);
	else if (!errtext_isset(&o->error))
		errtext_set(&o->error, 0, "target I/O: %s", strerror(-ret));
}

int bench_format_check(const struct run_result *r, int expect_fmt, const char *hint,
		       struct errtext *why)
{
	static const char *const names[] = { "seed-format", "dmabench v1" };
	size_t i, n[2] = { 0, 0 };

	for (i = 0; i < r->n; i++)
		if (r->v[i].fmt == 0 || r->v[i].fmt == 1)
			n[r->v[i].fmt]++;
	if (!n[!expect_fmt])
		return 0;
	return errtext_set(why, -EINVAL, "expected %s lines, saw %s lines (%zu of %zu samples)%s%s",
			   names[expect_fmt], names[!expect_fmt], n[!expect_fmt], r->n,
			   hint ? ": " : "", hint ? hint : "");
}

int bench_batches(const struct run_result *r, struct errtext *why)
{
	struct {
		const char *s;
		int max;
	} *sc = NULL;
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
			errtext_set(
				why, 0,
				"scenario %s ran %d batch(es), scenario %s %d: every scenario must run the same number",
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
	struct errtext why;

	o->batches = bench_batches(&o->res, &why);
	if (o->batches > 0 && o->batches != p->batches)
		info_msg(
			"%s: the benchmark ran %d batch%s per scenario, not the %d asked for; the campaign records %d",
			b->name, o->batches, o->batches == 1 ? "" : "es", p->batches, o->batches);
}

int bench_accept(const struct board *b, const struct bench_params *p, struct bench_out *o, int ret,
		 const char *why_kind)
{
	struct errtext why;

	if (ret) {
		errtext_set(&o->error, 0, "benchmark output rejected: %s", why_kind);
		return ret;
	}
	ret = run_check(&o->res, &why);
	/* one design per campaign: every scenario runs the same batches */
	if (!ret && bench_batches(&o->res, &why) < 0)
		ret = -EINVAL;
	if (ret) {
		errtext_set(&o->error, 0, "benchmark output rejected: %s", why.msg);
		return ret;
	}
	note_batches(b, p, o);
	return 0;
}

int bench_run_timed(struct target *t, const char *cmd, int64_t deadline, struct buf *out,
		    int *status, struct bench_out *o)
{
	int64_t t0 = now_ms();
	int ret;

	buf_reset(out);
	ret = target_run(t, cmd, deadline, out, status);
	o->t_start = t0;
	o->t_end = now_ms();
	o->run_ms = o->t_end - t0;
	return ret;
}

void bench_out_free(struct bench_out *o)
{
	free(o->uname_r);
	free(o->proc_version);
	run_result_free(&o->res);
	json_object_put(o->env);
	memset(o, 0, sizeof(*o));
}

void bench_job_error(const struct bench_job *j, const char *jpath, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	j->error(j->ctx, jpath, msg);
	free(msg);
}
