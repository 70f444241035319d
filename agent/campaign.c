// SPDX-License-Identifier: GPL-2.0-only
/* A/B campaigns: the order of boots, retries of a failed slot with the same
 * variant (so the alternation stays balanced), one stored record per attempt. */
#include "campaign.h"
#include "bench/bench.h"
#include "backend/boot.h"
#include "power-stale.h"
#include "spool.h"
#include "report/report.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "runner.h"
#include "run-record.h"
#include "timing.h"
#include "shared/util.h"
#include "variant.h"
#include "stats/stats.h"

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
	/* the board thread's own: its connection (st), the main thread's idle one (shared:
	 * a campaign of one board, whose main thread only waits for it) or own */
	struct store *st, *shared, own;
	struct bench_params bp;
	/* dmabench: the first ok boot's timing modes hold for the rest (timing.h) */
	bool pinning;
	char *pin, *pinned_params;
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

/* The board thread's start: its database connection, the board's lock on it, the
 * campaign held, where a resumed campaign goes on (*first: the slot, *done_attempts:
 * the attempts it already had) and the timing pin so far.  0 or -errno (printed). */
static int board_open(struct board_run *br, int *first, int *done_attempts)
{
	const struct board *b = br->b;
	int ret;

	br->st = br->shared ? br->shared : &br->own;
	ret = br->shared ? 0 : store_open(&br->own, br->conninfo);
	if (ret) {
		err_msg("%s: no database connection; board skipped", b->name);
		return ret;
	}
	/* with a shared database, a second guard across hosts (store_lock_board) */
	if ((br->rn->ops->flags & RUNNER_HOLDS_BOARD) && store_lock_board(br->st, b->name)) {
		err_msg("%s: another agent holds this board on the shared database; board skipped",
			b->name);
		return -EBUSY;
	}
	/* this connection too holds the campaign, so that it is not shown stale
	 * while the main thread's idle connection was lost to a server restart */
	ret = store_campaign_hold(br->st, br->cid);
	if (ret)
		return ret;
	if (br->cs->resume_id) {
		ret = store_resume_point(br->st, br->cid, b->name, first, done_attempts);
		if (ret)
			return ret;
		if (*first >= br->nslots)
			info_msg("%s: all %d boots already stored", b->name, br->nslots);
		else if (*first)
			info_msg("%s: resuming after boot %d of %d", b->name, *first, br->nslots);
	}
	if (br->pinning)
		return store_timing_pin(br->st, br->cid, b->name, &br->pin);
	return 0;
}

/* The runner runs the attempt; a dmabench campaign's first ok boot pins its timing
 * modes, every later one must obey them.  0 when it gave data; *fatal: retrying
 * cannot help. */
static int attempt_run(struct board_run *br, const struct runner_slot *sl,
		       struct runner_result *res, bool *fatal)
{
	const struct runner *rn = br->rn;
	int r;

	if (br->pinning && br->pin) {
		free(br->pinned_params);
		br->pinned_params = timing_pin_params(br->cs->modparams, br->pin);
		br->bp.modparams = br->pinned_params;
	}
	r = rn->ops->attempt(rn->priv, sl, res);
	if (r && (r == -EINTR || stop_requested))
		r = interrupted(&res->bo.error);
	*fatal = res->bo.fatal;
	if (!r && br->pinning && !br->pin) {
		r = timing_pin_of(&res->bo.res, &br->pin, &res->bo.error);
		if (!r && br->pin)
			info_msg("%s: timing modes pinned for this campaign: %s", br->b->name,
				 br->pin);
		*fatal = *fatal || r;
	} else if (!r && br->pinning) {
		/* the module did not obey: retrying cannot help */
		r = timing_pin_check(br->pin, &res->bo.res, &res->bo.error);
		*fatal = *fatal || r;
	}
	return r;
}

/* What the attempt (result r) gave, as the record stored; *logerr: the error text
 * of an incomplete transcript, for the caller to free. */
static void attempt_record(struct board_run *br, struct boot_rec *rec,
			   const struct runner_result *res, int r, const char *transcript,
			   char **logerr)
{
	const char *error = res->bo.error.msg;

	rec->boot_ms = res->boot_ms;
	rec->run_ms = res->bo.run_ms;
	rec->log_path = res->log_written ? transcript : NULL;
	rec->status = r ? "failed" : "ok";
	rec->error = r ? error : NULL;
	if (res->log_err) { /* a full disk: the boot says so, in the database too */
		*logerr = xasprintf("%s%stranscript incomplete: %s (%s)", r ? error : "",
				    r ? "; " : "", strerror(res->log_err),
				    strerrorname_np(res->log_err));
		rec->error = *logerr;
		br->logs_lost++;
		err_msg("%s [%d/%d] %s: %s: transcript incomplete: %s (%s)", br->b->name, rec->seq,
			br->nslots, rec->variant, transcript, strerror(res->log_err),
			strerrorname_np(res->log_err));
	}
	rec->uname_r = res->bo.uname_r;
	rec->proc_version = res->bo.proc_version;
	/* an infrastructure failure is not data: no samples */
	rec->res = r && res->no_data ? NULL : &res->bo.res;
	/* the external reference of the boot (a LAVA job): the boots' lava_* columns */
	rec->lava_server = res->ext.server;
	rec->lava_job_id = res->ext.id;
	rec->phases = res->phases ? json_object_to_json_string_ext(res->phases, 0) : NULL;
	rec->env = res->env ? json_object_to_json_string_ext(res->env, 0) : NULL;
}

/* The line that says how the attempt (result r) went. */
static void attempt_say(struct board_run *br, const struct boot_rec *rec,
			const struct runner_result *res, int r)
{
	const char *name = br->b->name;

	if (!r) {
		br->ok_boots++;
		if (res->boot_ms >= 0)
			info_msg("%s [%d/%d] ok: prompt after %.1f s, %zu samples in %.1f s", name,
				 rec->seq, br->nslots, (double)rec->boot_ms / 1000.0, res->bo.res.n,
				 (double)rec->run_ms / 1000.0);
		else
			info_msg("%s [%d/%d] ok: %s%s%zu samples", name, rec->seq, br->nslots,
				 res->where, res->where[0] ? ", " : "", res->bo.res.n);
	} else {
		br->failed_attempts++;
		err_msg("%s [%d/%d] %s attempt %d failed: %s%s%s%s", name, rec->seq, br->nslots,
			rec->variant, rec->attempt, res->bo.error.msg,
			rec->log_path ? " (transcript " : "", rec->log_path ? rec->log_path : "",
			rec->log_path ? ")" : "");
	}
}

/* How an attempt ended, for its slot. */
enum attempt_end {
	ATTEMPT_OK, /* data: the next slot */
	ATTEMPT_RETRY, /* failed: the slot again */
	ATTEMPT_STOP, /* the board stops (br->ret says why; 0: decided) */
};

/* One attempt of slot i: run, store (or spool), say how it went. */
static enum attempt_end board_attempt(struct board_run *br, int i, int attempt)
{
	const struct board *b = br->b;
	int v = br->order[i];
	const struct kernel_art *kv = &br->k[v];
	const char *label = br->vs->label[v];
	struct boot_rec rec = { 0 };
	struct runner_result res = { .boot_ms = -1, .bo.run_ms = -1 };
	struct runner_slot sl = { b,	      kv,      &br->bp,	   v,	 i + 1,
				  br->nslots, attempt, br->rundir, NULL, label };
	char *transcript, *logerr = NULL;
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
	info_msg("%s [%d/%d] %s (%s)%s", b->name, i + 1, br->nslots, rec.variant, kv->release,
		 attempt > 1 ? ", retry" : "");
	r = attempt_run(br, &sl, &res, &fatal);
	attempt_record(br, &rec, &res, r, transcript, &logerr);
	sr = keep_boot(br, br->st, &rec);
	attempt_say(br, &rec, &res, r);
	bench_out_free(&res.bo);
	json_object_put(res.phases);
	json_object_put(res.env);
	free(transcript);
	free(logerr);
	if (sr) {
		err_msg("%s: could not store the boot; stopping this board", b->name);
		br->ret = sr;
		return ATTEMPT_STOP;
	}
	if (!r)
		return board_decided(br, br->st, i + 1) ? ATTEMPT_STOP : ATTEMPT_OK;
	if (fatal || stop_requested) {
		br->ret = r;
		return ATTEMPT_STOP;
	}
	return ATTEMPT_RETRY;
}

/* Slot i, from attempt base + 1 to its last retry.  0: done, else the board stops. */
static int board_slot(struct board_run *br, int i, int base)
{
	const struct board *b = br->b;
	int v = br->order[i], attempt;
	const char *label = br->vs->label[v];

	br->bp.kernel = &br->k[v];
	/* which of a module benchmark's .ko files (bench.h) */
	br->bp.variant = v ? VARIANT_PATCHED : VARIANT_CONTROL;
	/* an attempt killed with its agent left a transcript and no record:
	 * the next attempt gets the next number and a file of its own */
	while (transcript_exists(br->resdir, b->name, i + 1, label, base + 1)) {
		info_msg(
			"%s [%d/%d]: attempt %d left a transcript but no record (its agent died); continuing with attempt %d",
			b->name, i + 1, br->nslots, base + 1, base + 2);
		base++;
	}
	for (attempt = base + 1; attempt <= b->retries + 1 + base; attempt++) {
		enum attempt_end e = board_attempt(br, i, attempt);

		if (e == ATTEMPT_OK)
			return 0;
		if (e == ATTEMPT_STOP)
			return 1;
	}
	err_msg("%s: slot %d (%s) failed %ld times: board unhealthy, its part of the campaign stops here",
		b->name, i + 1, label, b->retries + 1);
	br->ret = -EIO;
	return 1;
}

/* One board's part of the campaign, in its own thread: its slots in order, each
 * retried up to the board's retries; br->ret says how it ended. */
static void *board_thread(void *arg)
{
	struct board_run *br = arg;
	int i, first = 0, done_attempts = 0;

	br->bp = (struct bench_params){ .batches = br->cs->batches,
					.modparams = br->cs->modparams,
					.def = br->cs->bench };
	br->pinning = bench_pins_timing(br->cs->bench);
	br->ret = board_open(br, &first, &done_attempts);
	if (br->ret)
		goto out;
	for (i = first; i < br->nslots && !stop_requested; i++)
		if (board_slot(br, i, i == first ? done_attempts : 0))
			goto out;
	if (stop_requested)
		br->ret = -EINTR;
out:
	free(br->pin);
	free(br->pinned_params);
	if (!br->shared)
		store_close(&br->own);
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

/* One campaign while campaign_run() runs it: what it compares, where it keeps
 * its files and its record, and its boards' threads. */
struct campaign {
	const struct campaign_spec *cs;
	const struct runner *rn;
	const struct variant_set *vs;
	bool holds; /* the engine holds the boards (RUNNER_HOLDS_BOARD) */
	size_t nb;
	struct board *b; /* [nb] */
	struct kernel_art (*k)[VARIANTS_MAX]; /* [nb][vs->n] */
	struct board_lock *locks; /* [nb]; NULL: none taken */
	struct board_run *br; /* [nb] */
	pthread_t *th; /* [nb] */
	int *order, nslots;
	char abs_results[PATH_MAX];
	char *rundir, *resdir, *spooldir, *js, *run_js;
	struct store st;
	bool have_store;
	int64_t cid, t_start;
	int64_t *idp; /* campaign_run()'s: the id as soon as the record is made */
};

/* The kernel directory of variant v on board i: the one given, else NULL. */
static const char *kernel_given(const struct campaign_board *cb, int v)
{
	return cb->dirs ? cb->dirs[v] : v ? cb->patched_dir : cb->control_dir;
}

/* Board i's kernels: each variant's, checked for the benchmark; the same image
 * twice is worth a warning.  0 or -errno (printed). */
static int load_kernels(struct campaign *c, size_t i)
{
	const struct campaign_board *cb = &c->cs->boards[i];
	const struct variant_set *vs = c->vs;
	struct board *b = &c->b[i];
	struct kernel_art *k = c->k[i];
	char *d[VARIANTS_MAX] = { NULL };
	int v, w, ret = 0;

	for (v = 0; v < vs->n; v++) {
		const char *given = kernel_given(cb, v);

		d[v] = given ? xstrdup(given) : kernel_default_dir(b->name, vs->label[v]);
	}
	for (v = 0; v < vs->n && !ret; v++) {
		if (d[v] && !kernel_given(cb, v) && !is_dir(d[v])) {
			ret = no_default_kernel(b, vs->label[v], d[v]);
			break;
		}
		ret = kernel_load_board(&k[v], d[v], b->name);
	}
	for (v = 0; v < vs->n && !ret; v++)
		ret = bench_check_kernel(c->cs->bench, b->name, &k[v],
					 v ? VARIANT_PATCHED : VARIANT_CONTROL);
	for (v = 0; v < vs->n; v++)
		free(d[v]);
	for (v = 1; v < vs->n && !ret; v++)
		for (w = 0; w < v; w++)
			if (k[w].zimage_sha256 && k[v].zimage_sha256 &&
			    !strcmp(k[w].zimage_sha256, k[v].zimage_sha256))
				info_msg("%s: warning: %s and %s kernels are the same image (%s)",
					 b->name, vs->label[w], vs->label[v], k[w].zimage_sha256);
	return ret;
}

/* Everything that can be checked before the database is touched: the parameters,
 * the boards (each once) and their kernels.  0 or -errno (printed). */
static int campaign_load(struct campaign *c)
{
	const struct campaign_spec *cs = c->cs;
	size_t i, j;
	int ret = 0;

	if (cs->modparams && !modparams_ok(cs->modparams)) { /* typed into the target's shell */
		err_msg("--params \"%s\": %s", cs->modparams, MODPARAMS_RULE);
		return -EINVAL;
	}
	for (i = 0; i < c->nb && !ret; i++) {
		ret = board_load_by_name(&c->b[i], cs->boards[i].board);
		if (!ret && c->rn->ops->check)
			ret = c->rn->ops->check(c->rn->priv, &c->b[i]);
		if (!ret)
			ret = load_kernels(c, i);
	}
	for (i = 0; i < c->nb && !ret; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(c->b[i].name, c->b[j].name)) {
				err_msg("board %s is listed twice in one campaign", c->b[i].name);
				ret = -EINVAL;
			}
	return ret;
}

/* The results database, opened before the boards are locked: a killed agent's boards
 * may be on still, and are switched off before this campaign goes on.  0 or -errno. */
static int campaign_open_store(struct campaign *c)
{
	size_t nstale;
	int ret = store_open(&c->st, c->cs->db);

	if (ret)
		return ret;
	c->have_store = true;
	power_stale_off(&c->st, true, &nstale);
	return 0;
}

/* The boards' locks, when the engine holds them.  0 or -EBUSY (the holder printed). */
static int campaign_lock(struct campaign *c)
{
	const struct campaign_spec *cs = c->cs;
	size_t i;
	int ret = 0;

	c->locks = xcalloc(c->nb, sizeof(*c->locks));
	for (i = 0; i < c->nb; i++)
		c->locks[i].fd = c->locks[i].cfd = -1;
	for (i = 0; i < c->nb && !ret && c->holds; i++) {
		char purpose[64];

		if (cs->resume_id)
			snprintf(purpose, sizeof(purpose), "campaign %" PRId64, cs->resume_id);
		else
			snprintf(purpose, sizeof(purpose), "new %s campaign",
				 cs->trigger ? cs->trigger : "cli");
		ret = board_lock(&c->locks[i], &c->b[i], purpose); /* prints the holder */
	}
	return ret;
}

/* The order of the slots, the results directory (with room enough) and the
 * private run directory.  0 or -errno (printed). */
static int campaign_dirs(struct campaign *c)
{
	const struct campaign_spec *cs = c->cs;
	const char *e = getenv("ABLAB_MIN_FREE_MB");
	struct errtext why;
	int ret;

	c->order = xcalloc((size_t)c->nslots, sizeof(*c->order));
	campaign_order_n(cs->order, c->vs->n, cs->boots, cs->seed, c->order);
	if (mkdir_p(cs->results, 0755) || !realpath(cs->results, c->abs_results)) {
		err_msg("cannot create results directory %s", cs->results);
		return -EIO;
	}
	/* a full disk would lose transcripts and spooled boots */
	ret = dir_free_check(c->abs_results, e && *e ? strtoull(e, NULL, 10) : CAMPAIGN_MIN_FREE_MB,
			     &why);
	if (ret) {
		err_msg("%s", why.msg);
		return ret;
	}
	c->rundir = make_run_dir("ablab");
	if (!c->rundir)
		return -errno;
	return 0;
}

/* The campaign's line before its first boot. */
static void campaign_announce(const struct campaign *c)
{
	const struct campaign_spec *cs = c->cs;
	const struct variant_set *vs = c->vs;
	struct buf names = { 0 };
	int v;

	if (variant_set_is_pair(vs)) {
		info_msg(
			"campaign %" PRId64
			": %zu board(s), %d control + %d patched boots each, order %s, %d batches; transcripts in %s",
			c->cid, c->nb, cs->boots, cs->boots, order_name(cs->order), cs->batches,
			c->resdir);
		return;
	}
	for (v = 0; v < vs->n; v++)
		buf_printf(&names, "%s%s", v ? ", " : "", vs->label[v]);
	info_msg(
		"campaign %" PRId64
		": %zu board(s), %d rounds of %d variants (%s) each, order %s, %d batches; transcripts in %s",
		c->cid, c->nb, cs->boots, vs->n, names.data, order_name(cs->order), cs->batches,
		c->resdir);
	buf_free(&names);
}

/* The campaign's record: the database (the spool of earlier runs loaded first),
 * a new campaign or the one resumed, its transcript directory, the runner
 * prepared.  0 or -errno (printed). */
static int campaign_open_record(struct campaign *c)
{
	const struct campaign_spec *cs = c->cs;
	int nloaded = 0, nfailed = 0, ret;

	c->spooldir = xasprintf("%s/spool", c->abs_results);
	spool_flush(&c->st, c->spooldir, &nloaded, &nfailed);
	if (nloaded || nfailed)
		info_msg("spool %s: %d boot(s) loaded into the database, %d left", c->spooldir,
			 nloaded, nfailed);
	c->run_js = run_record_write(cs, c->rn, c->b, c->k, c->vs, c->abs_results);
	c->js = cs->job_json ? xstrdup(cs->job_json) : xstrdup(c->run_js);
	if (cs->resume_id) {
		c->cid = cs->resume_id;
		ret = store_campaign_claim(&c->st, c->cid);
	} else {
		struct campaign_def cd = { cs->trigger ? cs->trigger : "cli",
					   order_name(cs->order),
					   cs->seed,
					   cs->boots,
					   cs->batches,
					   c->js,
					   c->run_js };

		ret = store_campaign_new(&c->st, &cd, &c->cid);
		if (!ret && !variant_set_is_pair(c->vs))
			ret = store_variants(&c->st, c->cid, c->vs, cs->patch);
	}
	if (ret)
		return ret;
	if (c->idp)
		*c->idp = c->cid;
	c->resdir = xasprintf("%s/campaign-%" PRId64, c->abs_results, c->cid);
	mkdir_p(c->resdir, 0755);
	if (c->rn->ops->prepare) {
		ret = c->rn->ops->prepare(c->rn->priv, c->cid, c->resdir);
		if (ret) {
			store_campaign_set_status(&c->st, c->cid, "failed");
			return ret;
		}
	}
	campaign_announce(c);
	if (cs->started && !cs->resume_id)
		cs->started(c->cid, cs->started_arg);
	return 0;
}

/* A thread per board; the first board's error, or 0 when every board completed. */
static int campaign_run_boards(struct campaign *c)
{
	size_t i;
	int ret = 0;

	/* The board threads wait on consoles; glibc would give each its own malloc
	 * arena (up to 8 per core), whose freed pages stay resident: two arenas
	 * between them keep the agent's memory near flat in the number of boards
	 * (docs/BENCHMARKS.md, P3).  MALLOC_ARENA_MAX in the environment wins. */
	if (c->nb > 1 && !getenv("MALLOC_ARENA_MAX"))
		mallopt(M_ARENA_MAX, 2);
	for (i = 0; i < c->nb; i++) {
		c->br[i] = (struct board_run){ .cs = c->cs,
					       .rn = c->rn,
					       .b = &c->b[i],
					       .k = c->k[i],
					       .vs = c->vs,
					       .order = c->order,
					       .nslots = c->nslots,
					       .cid = c->cid,
					       .resdir = c->resdir,
					       .rundir = c->rundir,
					       .conninfo = c->st.conninfo,
					       /* one board: its thread on the main thread's
						* connection, one connection (10-30 ms) fewer */
					       .shared = c->nb == 1 ? &c->st : NULL,
					       .spooldir = c->spooldir };
		if (pthread_create(&c->th[i], NULL, board_thread, &c->br[i])) {
			err_msg("cannot start a thread for %s", c->b[i].name);
			c->br[i].ret = -EAGAIN;
			c->th[i] = 0;
		}
	}
	for (i = 0; i < c->nb; i++) {
		if (c->th[i])
			pthread_join(c->th[i], NULL);
		if (c->br[i].ret && !ret)
			ret = c->br[i].ret;
	}
	return ret;
}

/* After the threads: the boards left on, the campaign's final status stored.
 * ret: how the boards ended; returns it, or what the close adds. */
static int campaign_set_final(struct campaign *c, int ret)
{
	struct buf left_why = { 0 };
	size_t left = c->holds ? power_left_on(&left_why) : 0;
	const char *final;

	if (stop_requested && left) {
		err_msg("interrupted (signal %d): NOT every board is off: %s; campaign %" PRId64
			" marked interrupted",
			(int)stop_requested, left_why.data, c->cid);
	} else if (stop_requested) {
		err_msg("interrupted (signal %d): boards powered off, campaign %" PRId64
			" marked interrupted",
			(int)stop_requested, c->cid);
	} else if (left) {
		err_msg("warning: NOT every board is off: %s", left_why.data);
	}
	buf_free(&left_why);
	/* the batches that ran (a regex command or the seed module decides
	 * them), when every ok boot and scenario ran the same number */
	store_campaign_set_batches(&c->st, c->cid);
	final = stop_requested ? "interrupted" : ret ? "failed" : "complete";
	if (stop_requested)
		ret = -EINTR;
	if (store_campaign_set_status(&c->st, c->cid, final)) {
		/* not "complete": the database still says running (stale) */
		err_msg("campaign %lld: its final status (%s) could not be stored (database error above); it shows as stale until `ablab resume %lld` ends it",
			(long long)c->cid, final, (long long)c->cid);
		if (!ret)
			ret = -EIO;
	}
	return ret;
}

/* The close: final status, a line per board, the report asked for, the runner
 * finished.  ret: how the boards ended; returns the campaign's result. */
static int campaign_close(struct campaign *c, int ret)
{
	size_t i;
	int lost = 0;

	ret = campaign_set_final(c, ret);
	for (i = 0; i < c->nb; i++) {
		const struct board_run *br = &c->br[i];

		info_msg("%s: %d ok boot(s), %d failed attempt(s)%s%s", c->b[i].name, br->ok_boots,
			 br->failed_attempts, br->spooled ? ", some spooled" : "",
			 br->ret ? " - stopped early" : "");
		if (br->logs_lost)
			err_msg("%s: %d transcript(s) incomplete (a write to %s failed: full?); the boots say so in their error",
				c->b[i].name, br->logs_lost, c->resdir);
		lost += br->logs_lost;
	}
	info_msg("campaign %" PRId64 " %s after %.1f s", c->cid, ret ? "stopped" : "complete",
		 (double)(now_ms() - c->t_start) / 1000.0);
	if (c->cs->format && c->cid) {
		int r = report_campaign(&c->st, c->cid, c->cs->format, ABLAB_ALPHA);

		if (!ret && r)
			ret = r;
	}
	if (!ret && lost)
		ret = -EIO; /* the data is stored, but not every boot's transcript: exit 1 */
	if (c->rn->ops->finish)
		c->rn->ops->finish(c->rn->priv);
	return ret;
}

/* Frees what the campaign holds: locks, database, run directory, boards, kernels. */
static void campaign_free(struct campaign *c)
{
	size_t i;

	for (i = 0; c->locks && i < c->nb; i++)
		board_unlock(&c->locks[i]);
	free(c->locks);
	free(c->spooldir);
	free(c->run_js);
	if (c->have_store)
		store_close(&c->st);
	if (c->rundir) { /* QMP sockets, QEMU logs, TFTP copies: no `rm` started */
		int e = remove_tree(c->rundir);

		if (e)
			err_msg("cannot remove the run directory %s: %s", c->rundir, strerror(-e));
	}
	free(c->rundir);
	for (i = 0; i < c->nb; i++) {
		int v;

		for (v = 0; v < c->vs->n; v++)
			kernel_free(&c->k[i][v]);
		board_free(&c->b[i]);
	}
	free(c->b);
	free(c->k);
	free(c->br);
	free(c->th);
	free(c->order);
	free(c->resdir);
	free(c->js);
}

int campaign_run(const struct campaign_spec *cs, int64_t *idp)
{
	struct campaign c = { .cs = cs,
			      .rn = cs->runner ? cs->runner : &local_runner,
			      .vs = cs->variants ? cs->variants : &variant_pair,
			      .nb = cs->nboards,
			      .t_start = now_ms(),
			      .idp = idp };
	int ret;

	c.holds = c.rn->ops->flags & RUNNER_HOLDS_BOARD;
	c.nslots = c.vs->n * cs->boots;
	c.b = xcalloc(c.nb, sizeof(*c.b));
	c.k = xcalloc(c.nb, sizeof(*c.k));
	c.br = xcalloc(c.nb, sizeof(*c.br));
	c.th = xcalloc(c.nb, sizeof(*c.th));
	if (idp)
		*idp = 0;
	ret = campaign_load(&c);
	if (!ret)
		ret = campaign_open_store(&c);
	/* the plan read on the campaign's connection: one connection (~10-30 ms) fewer */
	if (!ret && cs->loaded)
		cs->loaded(cs->loaded_arg, &c.st);
	if (!ret)
		ret = campaign_lock(&c);
	if (!ret)
		ret = campaign_dirs(&c);
	if (!ret)
		ret = campaign_open_record(&c);
	if (!ret)
		ret = campaign_close(&c, campaign_run_boards(&c));
	campaign_free(&c);
	return ret;
}
