// SPDX-License-Identifier: GPL-2.0-only
/* `ablab ingest`: existing results (hand-captured dmesg, console logs in the
 * seed module's format or dmabench v1) join the database, one file per boot,
 * idempotently. */
#include "ingest-int.h"
#include "board.h"
#include "bench/parse.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool valid_word(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n > max)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._+-", *s))
			return false;
	return true;
}

struct inflight;

struct ingest_ctx {
	struct store st;
	struct board b;
	const char *variant, *kernel;
	int64_t campaign; /* 0 until created */
	/* made: its row exists (--campaign N, a stopped run's campaign continued, or made with
	 * the first boot stored); created: this ingest's own (marked complete at the end) */
	bool made, created, partial, split; /* --partial, --split */
	char *job_json; /* what the campaign stores as its job: kind, board, variant, files */
	struct campaign_def cd; /* with its first boot, while not made */
	struct ingest_src *src; /* a file each, or with --split a run each */
	int nfiles;
	/* two boots stored at once (ingest_file()): st2 is the second connection
	 * (two: it is open); fl the boots being stored, oldest at head */
	struct store st2;
	bool two;
	char *board_json;
	struct inflight *fl;
	int head, nfl;
	int stored, dup, bad;
};

/* The board: its file, else its row in the database, else --cpu/--family make one. */
static int ingest_board(struct ingest_ctx *c, const char *name, const char *cpu, const char *family)
{
	char *path = NULL;
	char *def, *dcpu, *dfamily;
	json_object *root = NULL;
	int ret;

	memset(&c->b, 0, sizeof(c->b));
	if (strchr(name, '/') || strstr(name, ".json"))
		return board_load(&c->b, name) ? -EINVAL : 0;
	path = xasprintf("%s/%s.json", board_dir(), name);
	if (is_file(path)) {
		ret = board_load(&c->b, path);
		free(path);
		return ret ? -EINVAL : 0;
	}
	ret = store_board_row(&c->st, name, &def, &dcpu, &dfamily);
	if (ret == -EIO) {
		free(path);
		return -EIO;
	}
	if (!ret) {
		root = json_tokener_parse(def);
		if (!json_object_is_type(root, json_type_object)) {
			json_object_put(root);
			root = json_object_new_object();
		}
		if (!jstr(root, "name"))
			json_object_object_add(root, "name", json_object_new_string(name));
		if (!jstr(root, "cpu"))
			json_object_object_add(root, "cpu", json_object_new_string(dcpu));
		if (!jstr(root, "family"))
			json_object_object_add(root, "family", json_object_new_string(dfamily));
		free(def);
		free(dcpu);
		free(dfamily);
	} else if (cpu && family) {
		if (!lab_name_ok(name, strlen(name))) {
			err_msg("--board: \"%.64s\" is not a board name: %s", name, LAB_NAME_RULE);
			free(path);
			return -EINVAL;
		}
		root = json_object_new_object();
		json_object_object_add(root, "name", json_object_new_string(name));
		json_object_object_add(root, "cpu", json_object_new_string(cpu));
		json_object_object_add(root, "family", json_object_new_string(family));
		json_object_object_add(root, "emulated", json_object_new_boolean(0));
		json_object_object_add(root, "ingested", json_object_new_boolean(1));
	} else {
		err_msg("ingest: no board \"%s\": %s does not exist and the database has no such board; pass a board file (--board PATH.json), or --cpu CPU --family FAMILY to record it (e.g. --cpu Cortex-A72 --family v7)",
			name, path);
		free(path);
		return -ENOENT;
	}
	free(path);
	c->b.jf.root = root;
	c->b.name = jstr(root, "name");
	c->b.cpu = jstr(root, "cpu");
	c->b.family = jstr(root, "family");
	c->b.emulated = jbool(root, "emulated", false);
	return 0;
}

/* The sources: each file whole, or with --split each run of a file of several runs (the
 * file parsed once here to find where they start; each run parsed again as its own). */
static void ingest_sources(struct ingest_ctx *c, char **files, int n)
{
	int cap = n, k = 0;

	c->src = xcalloc((size_t)cap, sizeof(*c->src));
	for (int i = 0; i < n; i++) {
		struct run_result r = { 0 };
		char *data = NULL;
		size_t len = 0;

		if (c->split && !read_file(files[i], &data, &len))
			parse_log(data, len, &r);
		free(data);
		if (r.runs < 2 || r.runs > PARSE_RUNS_MAX) {
			if (r.runs > PARSE_RUNS_MAX)
				err_msg("%s: %d runs: --split takes files of up to %d", files[i],
					r.runs, PARSE_RUNS_MAX);
			c->src[k++] =
				(struct ingest_src){ .path = files[i], .name = xstrdup(files[i]) };
			run_result_free(&r);
			continue;
		}
		cap += r.runs - 1;
		c->src = xrealloc(c->src, (size_t)cap * sizeof(*c->src));
		for (int j = 0; j < r.runs; j++) {
			size_t off = j ? r.run_off[j] : 0;
			size_t end = j + 1 < r.runs ? r.run_off[j + 1] : len;

			c->src[k++] = (struct ingest_src){
				.path = files[i],
				.name = xasprintf("%s (run %d of %d, from line %d)", files[i],
						  j + 1, r.runs, j ? r.run_line[j] : 1),
				.off = off,
				.len = end - off,
				.part = true
			};
		}
		run_result_free(&r);
	}
	c->nfiles = k;
}

/* The job an ingest's campaign stores: what a rerun of the same ingest is found by. */
static char *ingest_job_json(const struct ingest_ctx *c)
{
	json_object *j = json_object_new_object(), *fa = json_object_new_array();
	char *s;

	json_object_object_add(j, "kind", json_object_new_string("ingest"));
	json_object_object_add(j, "board", json_object_new_string(c->b.name));
	json_object_object_add(j, "variant", json_object_new_string(c->variant));
	for (int i = 0; i < c->nfiles; i++) {
		char rp[PATH_MAX];

		const char *f = c->src[i].path;

		if (i && c->src[i - 1].path == f)
			continue; /* --split: the runs of one file */
		json_object_array_add(fa, json_object_new_string(realpath(f, rp) ? rp : f));
	}
	json_object_object_add(j, "files", fa);
	s = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	return s;
}

/* The campaign, before its first boot: its id now, its row with that boot (store_boot(),
 * rec.new_campaign), so that a kill before any boot is stored leaves no empty campaign. */
static int ingest_campaign(struct ingest_ctx *c, struct store *db)
{
	c->cd = (struct campaign_def){ .trigger = "ingest",
				       .order = "manual",
				       .seed = 0,
				       .boots = c->nfiles,
				       .job_json = c->job_json };
	return store_campaign_reserve(db, &c->campaign);
}

/*
 * Files prepared on two threads, one ahead each: thread k the files k, k + 2,
 * ...  The first two files are parsed at once (the first two boots then start
 * together, on both cores), the next while boots are stored.  Without a
 * thread, a file is prepared when it is taken.
 */
struct prep_queue {
	const struct ingest_ctx *c;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ingest_prepared slot;
	bool full, quit, threaded;
	int next; /* the next file it prepares */
	pthread_t th;
};

static void *prep_thread(void *arg)
{
	struct prep_queue *q = arg;

	for (int i = q->next; i < q->c->nfiles; i += 2) {
		struct ingest_prepared p;

		ingest_prepare(q->c->b.name, q->c->variant, &q->c->src[i], &p);
		pthread_mutex_lock(&q->mu);
		while (q->full && !q->quit)
			pthread_cond_wait(&q->cv, &q->mu);
		if (q->quit) {
			pthread_mutex_unlock(&q->mu);
			ingest_prepared_free(&p);
			break;
		}
		q->slot = p;
		q->full = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
	}
	return NULL;
}

static void prep_start(struct prep_queue *q, const struct ingest_ctx *c, int first)
{
	memset(q, 0, sizeof(*q));
	q->c = c;
	q->next = first;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	q->threaded = !pthread_create(&q->th, NULL, prep_thread, q);
}

/* The next file, in file order. */
static void prep_take(struct prep_queue *q, struct ingest_prepared *out)
{
	if (!q->threaded) {
		ingest_prepare(q->c->b.name, q->c->variant, &q->c->src[q->next], out);
		q->next += 2;
		return;
	}
	pthread_mutex_lock(&q->mu);
	while (!q->full)
		pthread_cond_wait(&q->cv, &q->mu);
	*out = q->slot;
	q->full = false;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

static void prep_stop(struct prep_queue *q)
{
	if (q->threaded) {
		pthread_mutex_lock(&q->mu);
		q->quit = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->th, NULL);
	}
	if (q->full)
		ingest_prepared_free(&q->slot);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
}

/*
 * A boot being stored: store_boot() on a thread, on a connection of its own.
 * The server's COPY of a boot's samples keeps one core busy; two boots, each
 * in its own transaction on its own connection, keep two busy.  What ablab
 * says about it waits for ingest_done(), in file order.
 */
struct inflight {
	struct ingest_prepared pf;
	struct kernel_art k;
	struct boot_rec rec;
	char rp[PATH_MAX];
	size_t nscen;
	int maxb, dups, nuls, nul_line;
	struct store *st;
	pthread_t th;
	bool threaded;
	int ret;
};

static void *store_thread(void *arg)
{
	struct inflight *j = arg;

	j->ret = store_boot(j->st, &j->rec);
	return NULL;
}

/* 1: stored, 0: already stored, < 0: error */
static void tally(struct ingest_ctx *c, int ret)
{
	if (ret > 0)
		c->stored++;
	else if (ret == 0)
		c->dup++;
	else
		c->bad++;
}

/* The oldest boot being stored: waited for, said, counted. */
static void ingest_done(struct ingest_ctx *c)
{
	struct inflight *j = &c->fl[c->head];
	const struct boot_rec *rec = &j->rec;
	const char *file = j->pf.file;

	if (j->threaded)
		pthread_join(j->th, NULL);
	if (j->ret) {
		err_msg("%s: not stored (database error above)", file);
		tally(c, j->ret);
	} else {
		printf("%s: stored as %s boot %d of campaign %" PRId64
		       " (%zu scenarios x %d batches, kernel %s%s%s)\n",
		       file, c->variant, rec->seq, c->campaign, j->nscen, j->maxb, rec->uname_r,
		       rec->partial ? "; " : "", rec->partial ? j->pf.why.msg : "");
		if (j->dups)
			printf("%s: %d repeated line(s) (same timestamp and text: printk output and a dmesg of it) counted once\n",
			       file, j->dups);
		if (j->nuls)
			printf("%s:%d: %d benchmark line(s) held NUL bytes, dropped (the bytes around them read as one): check the values\n",
			       file, j->nul_line, j->nuls);
		tally(c, 1);
	}
	ingest_prepared_free(&j->pf);
	c->head = (c->head + 1) % 2;
	c->nfl--;
}

/* Every boot being stored said (before what comes after them). */
static void settle(struct ingest_ctx *c)
{
	while (c->nfl)
		ingest_done(c);
}

static bool in_flight(const struct ingest_ctx *c, const char *uuid)
{
	for (int i = 0; i < c->nfl; i++)
		if (!strcmp(c->fl[(c->head + i) % 2].pf.uuid, uuid))
			return true;
	return false;
}

/*
 * One file: checked, then stored on a thread next to the boot before it (which
 * is still being stored), or refused.  The caller leaves a connection free:
 * fewer than two boots (one without st2) being stored.  Whatever is said about
 * the file comes after what is said about the files before it: a file with
 * something to say before it is stored waits for them (settle()).  0: already
 * stored, < 0: error (printed), 2: being stored (ingest_done() says and counts
 * it).  pf is taken.
 */
/* A file refused before the database is asked: unreadable, several runs, another kernel
 * than --kernel.  0, or the error (printed). */
static int ingest_refused(const struct ingest_ctx *c, const struct ingest_prepared *pf,
			  bool kernel_differs)
{
	const struct run_result *res = &pf->res;
	const char *file = pf->file;
	int ret;

	ret = pf->read_err;
	if (ret) {
		err_msg("%s: cannot read: %s", file, strerror(-ret));
		return ret;
	}
	if (res->runs > 1) {
		/* two boots (or module loads) stored as one would mix their batches
		 * under the first kernel's name: refused, with or without --partial */
		struct buf at = { 0 };

		for (int i = 0; i < res->runs && i < PARSE_RUNS_MAX; i++)
			buf_printf(&at, "%s%d", i ? ", " : "", res->run_line[i]);
		err_msg("%s: %d runs in one file (a kernel's \"Linux version\" line or a benchmark start line begins each: lines %s%s); not stored%s: one file per boot, split it at those lines or pass --split",
			file, res->runs, at.data, res->runs > PARSE_RUNS_MAX ? ", ..." : "",
			c->partial ? ", also with --partial" : "");
		buf_free(&at);
		return -EINVAL;
	}
	if (kernel_differs) {
		err_msg("%s: the log says \"Linux version %s\" but --kernel is %s: wrong file or wrong option",
			file, pf->vrel, c->kernel);
		return -EINVAL;
	}
	return 0;
}

/* A file whose check failed (pf->check): its valid scenarios kept with --partial (*partial
 * set, pf->res replaced), else refused.  0, or the error (printed). */
static int ingest_partial(const struct ingest_ctx *c, struct ingest_prepared *pf, bool *partial)
{
	struct run_result *res = &pf->res, part = { 0 };
	const char *file = pf->file, *why = pf->why.msg;
	size_t kept, dropped;

	if (res->have_done && res->done_status) {
		err_msg("%s: %s", file, why); /* the module failed: nothing to keep */
		return pf->check;
	}
	for (int i = 0; i < res->malformed; i++)
		err_msg("%s:%d: rejected: %s: \"%s\"", file, res->rejected[i].lineno,
			res->rejected[i].error, res->rejected[i].text);
	ingest_keep_valid(file, res, &part, &kept, &dropped);
	if (!kept || !c->partial) {
		if (!kept)
			err_msg("%s: %s; no valid scenario to keep: not stored", file, why);
		else
			err_msg("%s: %s; not stored: run again with --partial to keep its %zu valid scenario(s) and mark the boot partial",
				file, why, kept);
		run_result_free(&part);
		return -EINVAL;
	}
	errtext_set(&pf->why, 0, "partial: %s%d rejected line(s), %zu scenario(s) dropped",
		    res->have_done ? "" : "no DONE line, ", res->malformed, dropped);
	part.duplicates = res->duplicates;
	part.nul_lines = res->nul_lines;
	part.nul_line = res->nul_line;
	run_result_free(res);
	*res = part;
	*partial = true;
	return 0;
}

/* The boot record of the file in slot j: seq of the campaign, the variant and kernel given
 * (else the log's release), the file's time. */
static void ingest_rec(const struct ingest_ctx *c, struct inflight *j, int seq, bool partial)
{
	struct ingest_prepared *pf = &j->pf;
	struct boot_rec *rec = &j->rec;
	struct stat sb;

	j->k.label = (char *)c->variant;
	j->k.release = (char *)(c->kernel ? c->kernel : pf->vrel ? pf->vrel : "unknown");
	j->k.zimage_sha256 = "";
	memcpy(rec->uuid, pf->uuid, sizeof(rec->uuid));
	rec->campaign = c->campaign;
	rec->board = &c->b;
	rec->board_json = c->board_json;
	rec->variant = c->variant;
	rec->seq = seq;
	rec->attempt = 1;
	rec->status = "ok";
	rec->k = &j->k;
	rec->uname_r = j->k.release;
	rec->proc_version = pf->vline;
	rec->partial = partial;
	/* the log's own time is not known: the file's modification time stands in */
	rec->started_wall_ms = stat(pf->path, &sb) ? wall_ms() :
						     (int64_t)sb.st_mtim.tv_sec * 1000 +
							     sb.st_mtim.tv_nsec / 1000000;
	rec->boot_ms = rec->run_ms = -1;
	rec->log_path = realpath(pf->path, j->rp) ? j->rp : pf->path;
	rec->res = &pf->res;
}

static int ingest_file(struct ingest_ctx *c, struct ingest_prepared *pf)
{
	int f = (c->head + c->nfl) % 2;
	struct store *db = c->two && f == 1 ? &c->st2 : &c->st;
	const char *file = pf->file, *uuid = pf->uuid, *vrel = pf->vrel;
	struct run_result *res = &pf->res;
	struct inflight *j;
	struct boot_rec *rec;
	bool partial = false;
	int64_t had_cid;
	int ret, seq;
	bool kernel_differs = !pf->read_err && c->kernel && vrel && strcmp(c->kernel, vrel);

	/* a message of this file's own before it is stored, or a boot of the same
	 * content being stored: the boots before it first */
	if (pf->read_err || kernel_differs || (!res->n && !res->malformed) || pf->check ||
	    res->runs > 1 || pf->vrel_bad || in_flight(c, uuid))
		settle(c);
	if (pf->vrel_bad && !c->kernel)
		err_msg("%s: the log's \"Linux version %.64s\" names no kernel release (as uname -r prints it): its release is stored as \"unknown\" (or pass --kernel)",
			file, pf->vrel_bad);
	ret = ingest_refused(c, pf, kernel_differs);
	if (ret)
		goto out;
	ret = store_boot_find(db, uuid, &seq, &had_cid);
	if (ret != -ENOENT) {
		if (!ret) {
			settle(c);
			printf("%s: already stored (boot %d of campaign %" PRId64 ")\n", file, seq,
			       had_cid);
		}
		goto out;
	}
	if (!res->n && !res->malformed) {
		err_msg("%s: no dmabench result lines (expected the seed module's \"dmabench: NAME size=N reps=N mean_ns=N ...\" or dmabench v1 lines)",
			file);
		ret = -EINVAL;
		goto out;
	}
	ret = pf->check ? ingest_partial(c, pf, &partial) : 0;
	if (ret)
		goto out;
	/* from here the file is the slot's */
	j = &c->fl[f];
	memset(j, 0, sizeof(*j));
	j->pf = *pf;
	memset(pf, 0, sizeof(*pf));
	pf = &j->pf;
	res = &pf->res;
	rec = &j->rec;
	j->dups = res->duplicates;
	j->nuls = res->nul_lines;
	j->nul_line = res->nul_line;
	for (size_t i = 0; i < res->n; i++) {
		if (res->v[i].batch > j->maxb)
			j->maxb = res->v[i].batch;
		if (res->v[i].batch == 1)
			j->nscen++;
	}
	if (!c->campaign && ingest_campaign(c, db)) {
		ret = -EIO;
		goto out_slot;
	}
	ret = store_next_seq(db, c->campaign, &seq);
	if (ret)
		goto out_slot;
	/* the boot before it is not committed yet: its seq is taken */
	for (int i = 0; i < c->nfl; i++)
		if (c->fl[(c->head + i) % 2].rec.seq >= seq)
			seq = c->fl[(c->head + i) % 2].rec.seq + 1;
	ingest_rec(c, j, seq, partial);
	/* the board's and kernel's rows committed first: the two transactions then
	 * wait for no row of each other's */
	if (c->two && store_boot_refs(db, rec)) {
		settle(c);
		err_msg("%s: not stored (database error above)", pf->file);
		ret = -EIO;
		goto out_slot;
	}
	j->st = db;
	if (!c->made) { /* the campaign with it: stored before the next boot is begun */
		c->cd.batches = j->maxb;
		rec->new_campaign = &c->cd;
		j->ret = store_boot(db, rec);
		c->made = c->created = !j->ret;
	} else {
		j->threaded = !pthread_create(&j->th, NULL, store_thread, j);
		if (!j->threaded)
			j->ret = store_boot(db, rec);
	}
	c->nfl++;
	return 2;
out_slot:
	ingest_prepared_free(&j->pf);
	return ret;
out:
	ingest_prepared_free(pf);
	return ret;
}

int ingest_run(const struct ingest_opts *o)
{
	struct ingest_ctx c = { .variant = o->variant,
				.kernel = o->kernel,
				.campaign = o->campaign,
				.partial = o->partial,
				.split = o->split };
	struct prep_queue q[2];

	if (!valid_word(c.variant, 32)) {
		err_msg("--variant: \"%s\" is not a kernel label (letters, digits, . _ + -; control or patched for A/B reports)",
			c.variant);
		return -EINVAL;
	}
	if (c.kernel && !ingest_release_ok(c.kernel)) {
		err_msg("--kernel: \"%s\" is not a kernel release (as uname -r prints it)",
			c.kernel);
		return -EINVAL;
	}
	if (!o->cpu != !o->family) {
		err_msg("--cpu and --family go together (they describe a board new to the database)");
		return -EINVAL;
	}
	if (store_open(&c.st, o->db))
		return -EIO;
	if (ingest_board(&c, o->board, o->cpu, o->family)) {
		store_close(&c.st);
		return -EIO;
	}
	if (c.campaign) {
		int ret = store_campaign_exists(&c.st, c.campaign);

		if (ret) {
			if (ret == -ENOENT)
				err_msg("--campaign: no campaign %" PRId64
					" in the database (omit --campaign to create one)",
					c.campaign);
			board_free(&c.b);
			store_close(&c.st);
			return -EIO;
		}
	}
	ingest_sources(&c, o->files, o->nfiles);
	c.job_json = ingest_job_json(&c);
	if (!c.campaign) { /* a run of this same ingest killed before its end: continued */
		int64_t id;

		if (!store_ingest_unfinished(&c.st, c.job_json, &id) &&
		    !store_campaign_claim(&c.st, id)) {
			c.campaign = id;
			c.made = c.created = true;
			printf("campaign %" PRId64
			       ": continued: an ingest of these files (board %s, variant %s) stopped before its end; the boots it stored are not stored again\n",
			       id, c.b.name, c.variant);
		}
	} else {
		c.made = true;
	}
	c.board_json = xstrdup(json_object_to_json_string_ext(c.b.jf.root, JSON_C_TO_STRING_PLAIN));
	/* a second connection to store two boots at once; without it, one at a time */
	c.two = c.nfiles > 1 && !store_open(&c.st2, o->db);
	c.fl = xcalloc(2, sizeof(*c.fl));
	prep_start(&q[0], &c, 0);
	prep_start(&q[1], &c, 1);
	for (int i = 0; i < c.nfiles && !stop_requested; i++) {
		struct ingest_prepared pf;
		int ret;

		if (c.nfl == (c.two ? 2 : 1))
			ingest_done(&c);
		prep_take(&q[i % 2], &pf);
		ret = ingest_file(&c, &pf);
		if (ret != 2)
			tally(&c, ret);
	}
	settle(&c);
	prep_stop(&q[0]);
	prep_stop(&q[1]);
	if (c.created)
		store_campaign_set_status(&c.st, c.campaign, "complete");
	if (c.campaign && c.made)
		printf("campaign %" PRId64 ": %d boot(s) stored, %d already stored, %d failed\n",
		       c.campaign, c.stored, c.dup, c.bad);
	else
		printf("%d boot(s) stored, %d already stored, %d failed\n", c.stored, c.dup, c.bad);
	free(c.fl);
	for (int i = 0; i < c.nfiles; i++)
		free(c.src[i].name);
	free(c.src);
	free(c.board_json);
	free(c.job_json);
	if (c.two)
		store_close(&c.st2);
	board_free(&c.b);
	store_close(&c.st);
	return c.bad ? -EIO : 0;
}
