// SPDX-License-Identifier: GPL-2.0-only
/* Benchmarks run on the target.  dmabench: insmod with the campaign's
 * parameters, then read its lines from the kernel log (not from the console
 * stream, so console log levels and interleaved printk text do not matter). */
#include "bench.h"

#include <errno.h>
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

int bench_dmabench(struct target *t, const struct board *b, const struct bench_params *p,
		   struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000, t0;
	struct buf out = { 0 };
	char *cmd, why[256];
	int status, ret, attempt;

	memset(o, 0, sizeof(*o));
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
	if (p->modparams && !param_ok(p->modparams)) {
		snprintf(o->error, sizeof(o->error), "module parameters may only contain letters, "
			 "digits, spaces and =,:._-+");
		return -EINVAL;
	}
	/* the kernel running, and printk kept off the console while measuring:
	 * one shell round trip, not three (docs/BENCHMARKS.md, P1) */
	ret = target_run(t, "uname -r; cat /proc/version; dmesg -n 1", deadline, &out, &status);
	if (ret)
		goto io;
	o->uname_r = first_line(out.data);
	{
		const char *v = strstr(out.data, "Linux version "), *nl = strchr(out.data, '\n');

		if (!v)
			v = nl ? nl + 1 : "";
		o->proc_version = first_line(v);
	}
	out.len = 0;
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
	if (ret)
		snprintf(o->error, sizeof(o->error), "benchmark output rejected: %s", why);
	return ret;
io:
	buf_free(&out);
	if (ret == -EIO && t->fail_line[0])
		snprintf(o->error, sizeof(o->error), "board failed during the benchmark: %s",
			 t->fail_line);
	else if (ret == -ETIMEDOUT)
		snprintf(o->error, sizeof(o->error), "target command timed out after %ld s "
			 "(timeouts_s.command)", b->t_command_s);
	else if (ret == -EPIPE)
		snprintf(o->error, sizeof(o->error), "console closed during the benchmark "
			 "(board reset?)");
	else
		snprintf(o->error, sizeof(o->error), "target I/O: %s", strerror(-ret));
	return ret;
}

void bench_out_free(struct bench_out *o)
{
	free(o->uname_r);
	free(o->proc_version);
	run_result_free(&o->res);
	memset(o, 0, sizeof(*o));
}
