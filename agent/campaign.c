// SPDX-License-Identifier: GPL-2.0-only
/* A/B campaigns: the order of boots, retries of a failed slot with the same
 * variant (so the alternation stays balanced), one stored record per attempt. */
#include "campaign.h"
#include "bench/bench.h"
#include "backend/boot.h"
#include "spool.h"
#include "report/report.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "runner.h"
#include "run-record.h"
#include "timing.h"
#include "shared/util.h"
#include "variant.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The part of a campaign that one board runs, in its own thread. */
struct board_run {
	const struct campaign_spec *cs;
	const struct runner *rn;
	struct board *b;
	struct kernel_art *k; /* [vs->n] */
	const struct variant_set *vs;
	const int *order; /* the variant of each slot */
	int nslots;
	int64_t cid;
	const char *resdir, *rundir, *conninfo, *spooldir;
	int ret; /* 0: all slots done */
	int ok_boots, failed_attempts, spooled, logs_lost;
};

/* a campaign is refused on a results file system with less free (ABLAB_MIN_FREE_MB) */
#define CAMPAIGN_MIN_FREE_MB 64

static char *transcript_path(const char *resdir, const char *board, int seq, const char *variant,
			     int attempt)
{
	return xasprintf("%s/%s-%03d-%s-a%d.log", resdir, board, seq, variant, attempt);
}

static bool transcript_exists(const char *resdir, const char *board, int seq, const char *variant,
			      int attempt)
{
	char *p = transcript_path(resdir, board, seq, variant, attempt);
	bool e = !access(p, F_OK);

	free(p);
	return e;
}

/* After the ok boot of slot `done` (1-based): is this board's part decided?
 * The one place that says when a board stops before its last slot: a
 * sequential campaign (cs->first > 0) looks after every round of one boot
 * per variant from `first` rounds on (report_seq_board).  1: stop, 0: go on. */
static int board_decided(const struct board_run *br, struct store *st, int done)
{
	const struct campaign_spec *cs = br->cs;
	const char *name = br->b->name;
	int nv = br->vs->n, rounds = done / nv, d;
	struct errtext why = { "" };
	char each[32];

	if (cs->first <= 0 || done % nv || rounds < cs->first || rounds >= cs->boots)
		return 0;
	d = report_seq_board(st, br->cid, name, &why);
	if (nv == NVARIANTS)
		snprintf(each, sizeof(each), "%d+%d", rounds, rounds);
	else
		snprintf(each, sizeof(each), "%d rounds of %d", rounds, nv);
	if (d > 0) {
		info_msg("%s: every row decided after %s boots (%s); this board stops", name, each,
			 why.msg);
		return 1;
	}
	if (d == 0)
		info_msg("%s: after %s boots: %s", name, each, why.msg);
	else
		err_msg("%s: cannot look at the boots so far (%s); the board goes on to its budget",
			name, strerror(-d));
	return 0;
}

/* The reason of an attempt a signal cut short, whatever the wait it cut
 * short said (a timeout, EINTR from a read, a bootloader line "never seen"). */
static int interrupted(struct errtext *error)
{
	if (stop_requested)
		return errtext_set(error, -EINTR, "interrupted (signal %d)", (int)stop_requested);
	return errtext_set(error, -EINTR, "interrupted");
}

/* Stores one attempt, or spools it when the database is away.  0, or the
 * error that stops the board (printed by the caller). */
static int keep_boot(struct board_run *br, struct store *st, const struct boot_rec *rec)
{
	int sr = store_boot(st, rec);

	if (sr == -ENOTCONN || sr == -EBUSY) {
		/* the database is away (go on), or the board lock was lost in a
		 * reconnect (stop): the boot is kept either way */
		int wr = spool_write(br->spooldir, rec);

		if (wr)
			err_msg("%s [%d] %s: %s and the spool write to %s failed: %s (%s): boot lost",
				br->b->name, rec->seq, rec->variant,
				sr == -EBUSY ? "board lock lost" : "results database unreachable",
				br->spooldir, strerror(-wr), strerrorname_np(-wr));
		if (!wr) {
			br->spooled++;
			err_msg("%s: %s; boot spooled to %s/%s.json (loaded by the next run or `ablab spool load`)",
				br->b->name,
				sr == -EBUSY ? "board lock lost" : "results database unreachable",
				br->spooldir, rec->uuid);
		}
		if (sr == -ENOTCONN || wr)
			sr = wr;
	}
	return sr;
}

static void *board_thread(void *arg)
{
	struct board_run *br = arg;
	const struct board *b = br->b;
	const struct runner *rn = br->rn;
	struct bench_params bp = { .batches = br->cs->batches,
				   .modparams = br->cs->modparams,
				   .def = br->cs->bench };
	struct store st;
	int i;
	/* dmabench: the first ok boot's timing modes hold for the rest (timing.h) */
	bool pinning = bench_pins_timing(br->cs->bench);
	char *pin = NULL, *pinned_params = NULL;

	int first = 0, done_attempts = 0;

	br->ret = store_open(&st, br->conninfo);
	if (br->ret) {
		err_msg("%s: no database connection; board skipped", b->name);
		return NULL;
	}
	/* with a shared database, a second guard across hosts (store_lock_board) */
	if ((rn->ops->flags & RUNNER_HOLDS_BOARD) && store_lock_board(&st, b->name)) {
		err_msg("%s: another agent holds this board on the shared database; board skipped",
			b->name);
		br->ret = -EBUSY;
		goto out;
	}
	/* this connection too holds the campaign, so that it is not shown stale
	 * while the main thread's idle connection was lost to a server restart */
	br->ret = store_campaign_hold(&st, br->cid);
	if (br->ret)
		goto out;
	if (br->cs->resume_id) {
		br->ret = store_resume_point(&st, br->cid, b->name, &first, &done_attempts);
		if (br->ret)
			goto out;
		if (first >= br->nslots)
			info_msg("%s: all %d boots already stored", b->name, br->nslots);
		else if (first)
			info_msg("%s: resuming after boot %d of %d", b->name, first, br->nslots);
	}
	if (pinning) {
		br->ret = store_timing_pin(&st, br->cid, b->name, &pin);
		if (br->ret)
			goto out;
	}
	for (i = first; i < br->nslots && !stop_requested; i++) {
		int v = br->order[i], attempt, base = i == first ? done_attempts : 0;
		const struct kernel_art *kv = &br->k[v];
		const char *label = br->vs->label[v];

		bp.kernel = kv;
		/* which of a module benchmark's .ko files (bench.h) */
		bp.variant = v ? VARIANT_PATCHED : VARIANT_CONTROL;

		/* an attempt killed with its agent left a transcript and no record:
		 * the next attempt gets the next number and a file of its own */
		while (transcript_exists(br->resdir, b->name, i + 1, label, base + 1)) {
			info_msg(
				"%s [%d/%d]: attempt %d left a transcript but no record (its agent died); continuing with attempt %d",
				b->name, i + 1, br->nslots, base + 1, base + 2);
			base++;
		}
		for (attempt = base + 1; attempt <= b->retries + 1 + base; attempt++) {
			struct boot_rec rec = { 0 };
			struct runner_result res = { .boot_ms = -1, .bo.run_ms = -1 };
			struct runner_slot sl = { b,	      kv,      &bp,	   v,	 i + 1,
						  br->nslots, attempt, br->rundir, NULL, label };
			char *error = res.bo.error.msg, *transcript, *logerr = NULL;
			bool fatal;
			int r, sr;

			transcript = transcript_path(br->resdir, b->name, i + 1, label, attempt);
			sl.transcript = transcript;
			uuid_v4(rec.uuid);
			rec.campaign = br->cid;
			rec.board = b;
			rec.variant = label;
			rec.seq = i + 1;
			rec.attempt = attempt;
			rec.k = kv;
			rec.started_wall_ms = wall_ms();
			info_msg("%s [%d/%d] %s (%s)%s", b->name, i + 1, br->nslots, rec.variant,
				 kv->release, attempt > 1 ? ", retry" : "");
			if (pinning && pin) {
				free(pinned_params);
				pinned_params = timing_pin_params(br->cs->modparams, pin);
				bp.modparams = pinned_params;
			}
			r = rn->ops->attempt(rn->priv, &sl, &res);
			if (r && (r == -EINTR || stop_requested))
				r = interrupted(&res.bo.error);
			fatal = res.bo.fatal;
			if (!r && pinning && !pin) {
				r = timing_pin_of(&res.bo.res, &pin, &res.bo.error);
				if (!r && pin)
					info_msg("%s: timing modes pinned for this campaign: %s",
						 b->name, pin);
				fatal = fatal || r;
			} else if (!r && pinning) {
				/* the module did not obey: retrying cannot help */
				r = timing_pin_check(pin, &res.bo.res, &res.bo.error);
				fatal = fatal || r;
			}
			rec.boot_ms = res.boot_ms;
			rec.run_ms = res.bo.run_ms;
			rec.log_path = res.log_written ? transcript : NULL;
			rec.status = r ? "failed" : "ok";
			rec.error = r ? error : NULL;
			if (res.log_err) { /* a full disk: the boot says so, in the database too */
				logerr = xasprintf("%s%stranscript incomplete: %s (%s)",
						   r ? error : "", r ? "; " : "",
						   strerror(res.log_err),
						   strerrorname_np(res.log_err));
				rec.error = logerr;
				br->logs_lost++;
				err_msg("%s [%d/%d] %s: %s: transcript incomplete: %s (%s)",
					b->name, i + 1, br->nslots, rec.variant, transcript,
					strerror(res.log_err), strerrorname_np(res.log_err));
			}
			rec.uname_r = res.bo.uname_r;
			rec.proc_version = res.bo.proc_version;
			/* an infrastructure failure is not data: no samples */
			rec.res = r && res.no_data ? NULL : &res.bo.res;
			rec.lava_server = res.lava_server;
			rec.lava_job_id = res.lava_job_id;
			sr = keep_boot(br, &st, &rec);
			if (!r) {
				br->ok_boots++;
				if (res.boot_ms >= 0)
					info_msg(
						"%s [%d/%d] ok: prompt after %.1f s, %zu samples in %.1f s",
						b->name, i + 1, br->nslots,
						(double)rec.boot_ms / 1000.0, res.bo.res.n,
						(double)rec.run_ms / 1000.0);
				else
					info_msg("%s [%d/%d] ok: %s%s%zu samples", b->name, i + 1,
						 br->nslots, res.where, res.where[0] ? ", " : "",
						 res.bo.res.n);
			} else {
				br->failed_attempts++;
				err_msg("%s [%d/%d] %s attempt %d failed: %s%s%s%s", b->name, i + 1,
					br->nslots, rec.variant, attempt, error,
					rec.log_path ? " (transcript " : "",
					rec.log_path ? rec.log_path : "", rec.log_path ? ")" : "");
			}
			bench_out_free(&res.bo);
			free(transcript);
			free(logerr);
			if (sr) {
				err_msg("%s: could not store the boot; stopping this board",
					b->name);
				br->ret = sr;
				goto out;
			}
			if (!r && board_decided(br, &st, i + 1))
				goto out;
			if (!r)
				break;
			if (fatal || stop_requested) {
				br->ret = r;
				goto out;
			}
		}
		if (attempt > b->retries + 1 + base) {
			err_msg("%s: slot %d (%s) failed %ld times: board unhealthy, its part of the campaign stops here",
				b->name, i + 1, label, b->retries + 1);
			br->ret = -EIO;
			goto out;
		}
	}
	if (stop_requested)
		br->ret = -EINTR;
out:
	free(pin);
	free(pinned_params);
	store_close(&st);
	return NULL;
}

/* A series campaign's variants: label, position and what each adds (campaign_variants). */
static int store_variants(struct store *st, int64_t cid, const struct variant_set *vs,
			  const char *const *patch)
{
	int v;

	for (v = 0; v < vs->n; v++)
		if (store_campaign_variant_add(st, cid, v, vs->label[v], patch ? patch[v] : NULL))
			return -EIO;
	return 0;
}

/* No kernel directory given and none built: say which option gives one
 * (`make kernels` only builds boards with a recipe). */
static int no_default_kernel(const struct board *b, const char *variant, const char *dir)
{
	if (b->kernel_recipe)
		err_msg("%s: no %s kernel in %s: build it with `make kernels` (recipe %s), or pass a kernel directory (with manifest.json) with --%s DIR",
			b->name, variant, dir, b->kernel_recipe, variant);
	else
		err_msg("%s: no %s kernel: pass your kernel directory (with manifest.json) with --%s DIR (%s has none, and the board has no kernel.recipe for `make kernels`)",
			b->name, variant, variant, dir);
	return -ENOENT;
}

int campaign_run(const struct campaign_spec *cs, int64_t *idp)
{
	size_t nb = cs->nboards, i;
	struct board *b = xcalloc(nb, sizeof(*b));
	struct kernel_art(*k)[VARIANTS_MAX] = xcalloc(nb, sizeof(*k));
	const struct variant_set *vs = cs->variants ? cs->variants : &variant_pair;
	const struct runner *rn = cs->runner ? cs->runner : &local_runner;
	bool holds = rn->ops->flags & RUNNER_HOLDS_BOARD;
	struct board_run *br = xcalloc(nb, sizeof(*br));
	pthread_t *th = xcalloc(nb, sizeof(*th));
	char *rundir = NULL;
	char abs_results[PATH_MAX];
	char *resdir = NULL, *js = NULL;
	int *order = NULL, ret = 0, nslots = vs->n * cs->boots;
	int64_t cid = 0, t_start = now_ms();
	struct store st = { 0 };
	struct board_lock *locks = NULL;
	bool have_store = false;
	char *spooldir = NULL, *run_js = NULL;
	int nloaded = 0, nfailed = 0, lost = 0;
	struct buf left_why = { 0 };
	size_t left;

	if (idp)
		*idp = 0;
	/* everything that can be checked is checked before the database is touched */
	if (cs->modparams && !modparams_ok(cs->modparams)) { /* typed into the target's shell */
		err_msg("--params \"%s\": %s", cs->modparams, MODPARAMS_RULE);
		ret = -EINVAL;
		goto out;
	}
	for (i = 0; i < nb && !ret; i++) {
		const struct campaign_board *cb = &cs->boards[i];
		char *d[VARIANTS_MAX] = { NULL };
		int v, w;

		ret = board_load_by_name(&b[i], cb->board);
		if (!ret && rn->ops->check)
			ret = rn->ops->check(rn->priv, &b[i]);
		if (ret)
			break;
		for (v = 0; v < vs->n; v++) {
			const char *given = cb->dirs ? cb->dirs[v] :
					    v	     ? cb->patched_dir :
						       cb->control_dir;

			d[v] = given ? xstrdup(given) : kernel_default_dir(b[i].name, vs->label[v]);
		}
		for (v = 0; v < vs->n && !ret; v++) {
			const char *given = cb->dirs ? cb->dirs[v] :
					    v	     ? cb->patched_dir :
						       cb->control_dir;

			if (d[v] && !given && !is_dir(d[v])) {
				ret = no_default_kernel(&b[i], vs->label[v], d[v]);
				break;
			}
			ret = kernel_load_board(&k[i][v], d[v], b[i].name);
		}
		for (v = 0; v < vs->n && !ret; v++)
			ret = bench_check_kernel(cs->bench, b[i].name, &k[i][v],
						 v ? VARIANT_PATCHED : VARIANT_CONTROL);
		for (v = 0; v < vs->n; v++)
			free(d[v]);
		for (v = 1; v < vs->n && !ret; v++)
			for (w = 0; w < v; w++)
				if (k[i][w].zimage_sha256 && k[i][v].zimage_sha256 &&
				    !strcmp(k[i][w].zimage_sha256, k[i][v].zimage_sha256))
					info_msg(
						"%s: warning: %s and %s kernels are the same image (%s)",
						b[i].name, vs->label[w], vs->label[v],
						k[i][w].zimage_sha256);
	}
	for (i = 0; i < nb && !ret; i++) {
		size_t j;

		for (j = 0; j < i; j++)
			if (!strcmp(b[i].name, b[j].name)) {
				err_msg("board %s is listed twice in one campaign", b[i].name);
				ret = -EINVAL;
			}
	}
	if (ret)
		goto out;
	locks = xcalloc(nb, sizeof(*locks));
	for (i = 0; i < nb; i++)
		locks[i].fd = locks[i].cfd = -1;
	for (i = 0; i < nb && !ret && holds; i++) {
		char purpose[64];

		if (cs->resume_id)
			snprintf(purpose, sizeof(purpose), "campaign %" PRId64, cs->resume_id);
		else
			snprintf(purpose, sizeof(purpose), "new %s campaign",
				 cs->trigger ? cs->trigger : "cli");
		ret = board_lock(&locks[i], &b[i], purpose); /* prints the holder */
	}
	if (ret)
		goto out;
	order = xcalloc((size_t)nslots, sizeof(*order));
	campaign_order_n(cs->order, vs->n, cs->boots, cs->seed, order);
	if (mkdir_p(cs->results, 0755) || !realpath(cs->results, abs_results)) {
		err_msg("cannot create results directory %s", cs->results);
		ret = -EIO;
		goto out;
	}
	{ /* a full disk would lose transcripts and spooled boots */
		const char *e = getenv("ABLAB_MIN_FREE_MB");
		struct errtext why;

		ret = dir_free_check(abs_results,
				     e && *e ? strtoull(e, NULL, 10) : CAMPAIGN_MIN_FREE_MB, &why);
		if (ret) {
			err_msg("%s", why.msg);
			goto out;
		}
	}
	rundir = make_run_dir("ablab");
	if (!rundir) {
		ret = -errno;
		goto out;
	}
	ret = store_open(&st, cs->db);
	if (ret)
		goto out;
	have_store = true;
	spooldir = xasprintf("%s/spool", abs_results);
	spool_flush(&st, spooldir, &nloaded, &nfailed);
	if (nloaded || nfailed)
		info_msg("spool %s: %d boot(s) loaded into the database, %d left", spooldir,
			 nloaded, nfailed);
	run_js = run_record_write(cs, rn, b, k, vs, abs_results);
	js = cs->job_json ? xstrdup(cs->job_json) : xstrdup(run_js);
	if (cs->resume_id) {
		cid = cs->resume_id;
		ret = store_campaign_claim(&st, cid);
	} else {
		struct campaign_def cd = { cs->trigger ? cs->trigger : "cli",
					   order_name(cs->order),
					   cs->seed,
					   cs->boots,
					   cs->batches,
					   js,
					   run_js };

		ret = store_campaign_new(&st, &cd, &cid);
		if (!ret && !variant_set_is_pair(vs))
			ret = store_variants(&st, cid, vs, cs->patch);
	}
	if (ret)
		goto out;
	if (idp)
		*idp = cid;
	resdir = xasprintf("%s/campaign-%" PRId64, abs_results, cid);
	mkdir_p(resdir, 0755);
	if (rn->ops->prepare) {
		ret = rn->ops->prepare(rn->priv, cid, resdir);
		if (ret) {
			store_campaign_set_status(&st, cid, "failed");
			goto out;
		}
	}
	if (variant_set_is_pair(vs)) {
		info_msg(
			"campaign %" PRId64
			": %zu board(s), %d control + %d patched boots each, order %s, %d batches; transcripts in %s",
			cid, nb, cs->boots, cs->boots, order_name(cs->order), cs->batches, resdir);
	} else {
		struct buf names = { 0 };
		int v;

		for (v = 0; v < vs->n; v++)
			buf_printf(&names, "%s%s", v ? ", " : "", vs->label[v]);
		info_msg(
			"campaign %" PRId64
			": %zu board(s), %d rounds of %d variants (%s) each, order %s, %d batches; transcripts in %s",
			cid, nb, cs->boots, vs->n, names.data, order_name(cs->order), cs->batches,
			resdir);
		buf_free(&names);
	}

	/* The board threads wait on consoles; glibc would give each its own malloc
	 * arena (up to 8 per core), whose freed pages stay resident: two arenas
	 * between them keep the agent's memory near flat in the number of boards
	 * (docs/BENCHMARKS.md, P3).  MALLOC_ARENA_MAX in the environment wins. */
	if (nb > 1 && !getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, 2);
	for (i = 0; i < nb; i++) {
		br[i] = (struct board_run){ .cs = cs,
					    .rn = rn,
					    .b = &b[i],
					    .k = k[i],
					    .vs = vs,
					    .order = order,
					    .nslots = nslots,
					    .cid = cid,
					    .resdir = resdir,
					    .rundir = rundir,
					    .conninfo = st.conninfo,
					    .spooldir = spooldir };
		if (pthread_create(&th[i], NULL, board_thread, &br[i])) {
			err_msg("cannot start a thread for %s", b[i].name);
			br[i].ret = -EAGAIN;
			th[i] = 0;
		}
	}
	ret = 0;
	for (i = 0; i < nb; i++) {
		if (th[i])
			pthread_join(th[i], NULL);
		if (br[i].ret && !ret)
			ret = br[i].ret;
	}
	left = holds ? power_left_on(&left_why) : 0;
	if (stop_requested && left) {
		err_msg("interrupted (signal %d): NOT every board is off: %s; campaign %" PRId64
			" marked interrupted",
			(int)stop_requested, left_why.data, cid);
	} else if (stop_requested) {
		err_msg("interrupted (signal %d): boards powered off, campaign %" PRId64
			" marked interrupted",
			(int)stop_requested, cid);
	} else if (left) {
		err_msg("warning: NOT every board is off: %s", left_why.data);
	}
	buf_free(&left_why);
	/* the batches that ran (a regex command or the seed module decides
	 * them), when every ok boot and scenario ran the same number */
	store_campaign_set_batches(&st, cid);
	{
		const char *final = stop_requested ? "interrupted" : ret ? "failed" : "complete";

		if (stop_requested)
			ret = -EINTR;
		if (store_campaign_set_status(&st, cid, final)) {
			/* not "complete": the database still says running (stale) */
			err_msg("campaign %lld: its final status (%s) could not be stored (database error above); it shows as stale until `ablab resume %lld` ends it",
				(long long)cid, final, (long long)cid);
			if (!ret)
				ret = -EIO;
		}
	}
	for (i = 0; i < nb; i++) {
		info_msg("%s: %d ok boot(s), %d failed attempt(s)%s%s", b[i].name, br[i].ok_boots,
			 br[i].failed_attempts, br[i].spooled ? ", some spooled" : "",
			 br[i].ret ? " - stopped early" : "");
		if (br[i].logs_lost)
			err_msg("%s: %d transcript(s) incomplete (a write to %s failed: full?); the boots say so in their error",
				b[i].name, br[i].logs_lost, resdir);
		lost += br[i].logs_lost;
	}
	info_msg("campaign %" PRId64 " %s after %.1f s", cid, ret ? "stopped" : "complete",
		 (double)(now_ms() - t_start) / 1000.0);
	if (cs->format && cid) {
		int r = report_campaign(&st, cid, cs->format, 0.05);

		if (!ret && r)
			ret = r;
	}
	if (!ret && lost)
		ret = -EIO; /* the data is stored, but not every boot's transcript: exit 1 */
	if (rn->ops->finish)
		rn->ops->finish(rn->priv);
out:
	for (i = 0; locks && i < nb; i++)
		board_unlock(&locks[i]);
	free(locks);
	free(spooldir);
	free(run_js);
	if (have_store)
		store_close(&st);
	if (rundir) { /* QMP sockets, QEMU logs, TFTP copies: no `rm` started */
		int e = remove_tree(rundir);

		if (e)
			err_msg("cannot remove the run directory %s: %s", rundir, strerror(-e));
	}
	free(rundir);
	for (i = 0; i < nb; i++) {
		int v;

		for (v = 0; v < vs->n; v++)
			kernel_free(&k[i][v]);
		board_free(&b[i]);
	}
	free(b);
	free(k);
	free(br);
	free(th);
	free(order);
	free(resdir);
	free(js);
	return ret;
}
