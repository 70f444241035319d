// SPDX-License-Identifier: GPL-2.0-only
/* The dma_map_benchmark kind: the kernel's own DMA map benchmark
 * (CONFIG_DMA_MAP_BENCHMARK), run by its tool (tools/dma/dma_map_benchmark) on the target. */
#include "bench/bench.h"
#include "bench/bench-int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- dma_map_benchmark: the kernel's streaming DMA mapping benchmark */

static const char *const dma_dirs[] = { "bidi", "to", "from" };

int bench_dma_map_params(const char *s, struct bench_dma_map_def *d, struct errtext *why)
{
	static const struct {
		const char *key;
		int max;
	} keys[] = {
		{ "threads", 1024 },
		{ "seconds", 300 },
		{ "granule", 1024 },
		{ "dir", 2 },
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
			errtext_set(
				why, 0,
				"\"%s\": expected threads=N, seconds=N, granule=N or dir=bidi|to|from",
				w);
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
				errtext_set(why, 0, "\"%s\": dir is one of bidi, to, from", w);
			else
				errtext_set(why, 0, "\"%s\": %s must be 1..%d", w, keys[k].key,
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

int bench_dma_map_parse(const struct bench_dma_map_def *d, const char *text, int batch,
			struct run_result *r, struct errtext *why)
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
			errtext_set(why, 0, "dma_map_benchmark: no valid \"%s\" line in its output",
				    pat);
			free(pat);
			r->malformed++;
			snprintf(r->first_error, sizeof(r->first_error), "%.*s",
				 (int)sizeof(r->first_error) - 1, why->msg);
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
		run_result_add(r, &s);
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
	const struct bench_dma_map_def *d = &p->def->dma_map;
	struct buf out = { 0 };
	struct errtext why = { "" };
	int status, ret, i;
	char *cmd;

	memset(o, 0, sizeof(*o));
	ret = bench_prologue(t, b, deadline, &out, o, NULL);
	if (ret)
		goto io;
	buf_reset(&out);
	ret = target_run(t, dma_map_setup, deadline, &out, &status);
	if (ret)
		goto io;
	if (status) {
		errtext_set(
			&o->error, 0,
			"dma_map_benchmark: no device could be bound (kernel without CONFIG_DMA_MAP_BENCHMARK, or no free platform device)");
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

			errtext_set(&o->error, 0, "dma_map_benchmark exited with status %d: %s",
				    status, msg);
			free(msg);
			free(cmd);
			buf_free(&out);
			return -EIO;
		}
		ret = bench_dma_map_parse(d, out.data ? out.data : "", i, &o->res, &why);
		if (ret) {
			errtext_set(&o->error, 0, "benchmark output rejected: %s", why.msg);
			free(cmd);
			buf_free(&out);
			return ret;
		}
	}
	o->t_start = t0;
	o->t_end = now_ms();
	o->run_ms = o->t_end - t0;
	free(cmd);
	if (ret)
		goto io;
	buf_free(&out);
	o->res.have_start = o->res.have_done = true;
	o->res.fmt = 3;
	return bench_accept(b, p, o, 0, NULL);
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

/* ---- the definition: its arguments are the job's (the campaign's) params */

static int dma_map_job(struct bench_def *d, json_object *t, const struct bench_job *j)
{
	struct errtext why;

	(void)t;
	if (bench_dma_map_params(j->params, &d->dma_map, &why)) {
		bench_job_error(j, "benchmark.params", "%s", why.msg);
		return -EINVAL;
	}
	return 0;
}

static int dma_map_cli(struct bench_def *d, const struct bench_cli *a)
{
	struct errtext why;

	if (bench_dma_map_params(a->params, &d->dma_map, &why)) {
		err_msg("--params: %s", why.msg);
		return 2;
	}
	return 0;
}

static int dma_map_record(struct bench_def *d, json_object *run, const char *modparams,
			  struct errtext *why)
{
	struct errtext e;

	(void)run;
	if (bench_dma_map_params(modparams, &d->dma_map, &e))
		return errtext_set(why, -EINVAL, "stored dma_map_benchmark parameters: %s", e.msg);
	return 0;
}

static int dma_map_set_params(struct bench_def *d, const char *params, struct errtext *why)
{
	return bench_dma_map_params(params, &d->dma_map, why);
}

const struct bench_ops bench_dma_map_ops = {
	.name = "dma_map_benchmark",
	.job_parse = dma_map_job,
	.own_params = true,
	.cli_parse = dma_map_cli,
	.record_read = dma_map_record,
	.set_params = dma_map_set_params,
	.run = bench_dma_map,
};
