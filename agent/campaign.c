// SPDX-License-Identifier: GPL-2.0-only
/* A/B campaigns: the order of boots, retries of a failed slot with the same
 * variant (so the alternation stays balanced), one stored record per attempt. */
#include "campaign.h"
#include "bench.h"
#include "boot.h"
#include "report.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const order_names[] = { "abab", "abba", "random" };
static const char *const variant_names[] = { "control", "patched" };

int order_parse(const char *s, enum order_kind *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order_names); i++) {
		if (!strcmp(s, order_names[i])) {
			*kind = (enum order_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *order_name(enum order_kind kind)
{
	return order_names[kind];
}

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int campaign_order(enum order_kind kind, int n, uint64_t seed, int *v)
{
	int i;

	if (n <= 0)
		return -EINVAL;
	for (i = 0; i < 2 * n; i++) {
		switch (kind) {
		case ORDER_ABAB:
			v[i] = i % 2;
			break;
		case ORDER_ABBA:	/* AB BA AB BA ...: counterbalanced */
			v[i] = (i / 2) % 2 ? 1 - i % 2 : i % 2;
			break;
		default:
			v[i] = i < n ? 0 : 1;
			break;
		}
	}
	if (kind == ORDER_RANDOM) {	/* seeded Fisher-Yates over a balanced list */
		uint64_t st = seed;

		for (i = 2 * n - 1; i > 0; i--) {
			int j = (int)(splitmix64(&st) % (uint64_t)(i + 1)), t = v[i];

			v[i] = v[j];
			v[j] = t;
		}
	}
	return 0;
}

static char *job_json(const struct ab_opts *o, const struct board *b, struct kernel_art *k)
{
	json_object *j = json_object_new_object();
	char *s;

	json_object_object_add(j, "kind", json_object_new_string("ab"));
	json_object_object_add(j, "board", json_object_new_string(b->name));
	json_object_object_add(j, "board_file", json_object_new_string(b->jf.path));
	json_object_object_add(j, "control", json_object_new_string(k[0].dir));
	json_object_object_add(j, "patched", json_object_new_string(k[1].dir));
	json_object_object_add(j, "boots", json_object_new_int(o->boots));
	json_object_object_add(j, "batches", json_object_new_int(o->batches));
	json_object_object_add(j, "order", json_object_new_string(order_name(o->order)));
	json_object_object_add(j, "seed", json_object_new_int64((int64_t)o->seed));
	json_object_object_add(j, "benchmark", json_object_new_string("dmabench"));
	if (o->modparams)
		json_object_object_add(j, "modparams", json_object_new_string(o->modparams));
	s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

/* One attempt at one slot: boot, benchmark, power off; fills rec. */
static int run_attempt(const struct board *b, const struct kernel_art *k,
		       const struct bench_params *bp, const char *rundir, const char *transcript,
		       struct bench_out *bo, struct boot_rec *rec, char *error, size_t elen,
		       bool *fatal)
{
	struct boot_session s;
	int ret;

	*fatal = false;
	memset(bo, 0, sizeof(*bo));
	ret = boot_start(&s, b, k, rundir, transcript);
	if (ret) {
		snprintf(error, elen, "%s", s.error);
		*fatal = s.fatal;
		boot_end(&s);
		return ret;
	}
	rec->boot_ms = s.t_prompt - s.t_on;
	ret = bench_dmabench(&s.tgt, b, bp, bo);
	rec->run_ms = bo->run_ms;
	*fatal = bo->fatal;
	if (ret)
		snprintf(error, elen, "%s", bo->error);
	else if (bo->uname_r && k->release && strcmp(bo->uname_r, k->release)) {
		/* the board did not run the kernel we deployed */
		snprintf(error, elen, "wrong kernel: target runs %s, expected %s (%s)",
			 bo->uname_r, k->release, k->dir);
		ret = -EIO;
	}
	boot_end(&s);
	return ret;
}

int campaign_ab(const struct ab_opts *o)
{
	struct kernel_art k[2];
	struct board b;
	struct store st;
	struct bench_params bp = { .batches = o->batches, .modparams = o->modparams };
	char rundir[] = "/tmp/ablab.XXXXXX";
	char *dirs[2], *resdir = NULL, *js;
	int *order = NULL, i, ret, nslots, failed_slots = 0;
	int64_t cid = 0, t_start = now_ms();
	char abs_results[PATH_MAX];

	memset(k, 0, sizeof(k));
	ret = board_load_by_name(&b, o->board);
	if (ret)
		return ret;
	dirs[0] = o->control_dir ? xstrdup(o->control_dir) : kernel_default_dir(b.name, "control");
	dirs[1] = o->patched_dir ? xstrdup(o->patched_dir) : kernel_default_dir(b.name, "patched");
	for (i = 0; i < 2; i++) {
		ret = kernel_load(&k[i], dirs[i]);
		if (ret)
			goto out;
	}
	if (k[0].zimage_sha256 && k[1].zimage_sha256 &&
	    !strcmp(k[0].zimage_sha256, k[1].zimage_sha256))
		info_msg("warning: control and patched kernels are the same image (%s)",
			 k[0].zimage_sha256);
	nslots = 2 * o->boots;
	order = xcalloc((size_t)nslots, sizeof(*order));
	campaign_order(o->order, o->boots, o->seed, order);
	if (mkdir_p(o->results, 0755) || !realpath(o->results, abs_results)) {
		err_msg("cannot create results directory %s", o->results);
		ret = -EIO;
		goto out;
	}
	if (!mkdtemp(rundir)) {
		ret = -errno;
		err_msg("mkdtemp: %s", strerror(errno));
		goto out;
	}
	ret = store_open(&st, o->db);
	if (ret)
		goto out_rundir;
	js = job_json(o, &b, k);
	{
		struct campaign_def cd = { "cli", order_name(o->order), o->seed, o->boots,
					   o->batches, js };

		ret = store_campaign_new(&st, &cd, &cid);
	}
	free(js);
	if (ret)
		goto out_store;
	resdir = xasprintf("%s/campaign-%" PRId64, abs_results, cid);
	mkdir_p(resdir, 0755);
	info_msg("campaign %" PRId64 ": %s, %d control + %d patched boots, order %s, %d batches; "
		 "transcripts in %s", cid, b.name, o->boots, o->boots, order_name(o->order),
		 o->batches, resdir);

	for (i = 0; i < nslots && !stop_requested; i++) {
		const struct kernel_art *kv = &k[order[i]];
		int attempt;

		for (attempt = 1; attempt <= b.retries + 1; attempt++) {
			struct boot_rec rec = { 0 };
			struct bench_out bo;
			char error[512] = "", *transcript;
			bool fatal;
			int r, sr;

			transcript = xasprintf("%s/%03d-%s-a%d.log", resdir, i + 1,
					       variant_names[order[i]], attempt);
			uuid_v4(rec.uuid);
			rec.campaign = cid;
			rec.board = &b;
			rec.variant = variant_names[order[i]];
			rec.seq = i + 1;
			rec.attempt = attempt;
			rec.k = kv;
			rec.started_wall_ms = wall_ms();
			rec.boot_ms = rec.run_ms = -1;
			rec.log_path = transcript;
			info_msg("[%d/%d] %s %s (%s)%s", i + 1, nslots, b.name, rec.variant,
				 kv->release, attempt > 1 ? ", retry" : "");
			r = run_attempt(&b, kv, &bp, rundir, transcript, &bo, &rec, error,
					sizeof(error), &fatal);
			rec.status = r ? "failed" : "ok";
			rec.error = r ? error : NULL;
			rec.uname_r = bo.uname_r;
			rec.proc_version = bo.proc_version;
			rec.res = &bo.res;
			sr = store_boot(&st, &rec);
			if (!r)
				info_msg("[%d/%d] ok: prompt after %.1f s, %zu samples in %.1f s",
					 i + 1, nslots, (double)rec.boot_ms / 1000.0, bo.res.n,
					 (double)rec.run_ms / 1000.0);
			else
				err_msg("[%d/%d] %s attempt %d failed: %s (transcript %s)", i + 1,
					nslots, rec.variant, attempt, error, transcript);
			bench_out_free(&bo);
			free(transcript);
			if (sr) {
				err_msg("could not store the boot; stopping the campaign");
				ret = sr;
				goto finish;
			}
			if (!r)
				break;
			if (fatal || stop_requested) {
				ret = r;
				goto finish;
			}
		}
		if (attempt > b.retries + 1) {
			failed_slots++;
			err_msg("%s: slot %d (%s) failed %ld times: board unhealthy, stopping",
				b.name, i + 1, variant_names[order[i]], b.retries + 1);
			ret = -EIO;
			goto finish;
		}
	}
finish:
	if (stop_requested) {
		err_msg("interrupted (signal %d): board powered off, campaign %" PRId64
			" marked interrupted", (int)stop_requested, cid);
		store_campaign_set_status(&st, cid, "interrupted");
		ret = -EINTR;
	} else {
		store_campaign_set_status(&st, cid, ret || failed_slots ? "failed" : "complete");
	}
	info_msg("campaign %" PRId64 " %s after %.1f s", cid, ret ? "stopped" : "complete",
		 (double)(now_ms() - t_start) / 1000.0);
	if (!ret)
		ret = report_campaign(&st, cid, o->format ? o->format : "text", 0.05);
out_store:
	store_close(&st);
out_rundir:
	rmdir(rundir);
out:
	for (i = 0; i < 2; i++) {
		kernel_free(&k[i]);
		free(dirs[i]);
	}
	free(order);
	free(resdir);
	board_free(&b);
	return ret;
}
