// SPDX-License-Identifier: GPL-2.0-only
/* `ablab nightly`: every job marked "nightly": true, once.  Jobs run one
 * after the other (so a board never runs two campaigns at once); the boards
 * of a job run in parallel.  Kernels are rebuilt only when their inputs
 * changed (the recipe's build script keys its cache by them).  Each night's
 * reports go to REPORTS/DATE/JOB/, and each job is compared with its previous
 * nightly campaign and with its nightly history (change points), the night's
 * p-values adjusted together (Holm).
 *
 * Exit status (documented in jobs/README.md, relied on by the systemd unit):
 *   0  every job ran on every board, no change beyond a job's threshold
 *   1  something failed (invalid job, missing or unhealthy board, kernel
 *      build, campaign); any change found is still reported
 *   2  usage error
 *   3  all ran, and a significant (Holm-adjusted) change beyond a job's threshold
 *      appeared, night against night or as a new change point of the history
 */
#include "bisect.h"
#include "board.h"
#include "campaign.h"
#include "backend/boot.h"
#include "cmd/cmds.h"
#include "report/compare.h"
#include "job.h"
#include "report/report.h"
#include "stats/seqtest.h"
#include "stats/stats.h"
#include "store/store-board.h"
#include "store/store.h"
#include "shared/util.h"
#include "variant.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NIGHTLY_EXIT_CHANGE 3

/* Why a board cannot run tonight, or NULL when it can (caller frees). */
static char *board_unhealthy(const char *name, struct store *st)
{
	char holder[256] = "";
	struct errtext e;
	struct board b;
	char *why = NULL, *path = job_board_path(name);

	if (!is_file(path)) {
		why = xasprintf("no board file %s", path);
		free(path);
		return why;
	}
	free(path);
	if (board_load_by_name(&b, name)) {
		board_free(&b);
		return xstrdup("its board file does not validate (errors above)");
	}
	if (boot_preflight(&b, &e))
		why = xstrdup(e.msg);
	if (!why && board_lock_holder(&b, holder, sizeof(holder)) >= 0 && holder[0])
		why = xasprintf("busy: locked by %s", holder);
	if (!why && st) {
		/* the last `ablab check` of the board, if any, must have passed */
		struct store_rows r = { 0 };

		if (!store_health_last(st, b.name, &r) && r.nrows == 1 &&
		    strcmp(store_text(&r, 0, HL_OK), "t"))
			why = xasprintf(
				"its last health check (%s) failed: %s; run `ablab check %s` once it is fixed",
				store_text(&r, 0, HL_CHECKED), store_text(&r, 0, HL_ERROR), b.name);
		store_rows_free(&r);
	}
	board_free(&b);
	return why;
}

/* Writes every report format with a nightly file (report_formats[]) into dir. */
static void write_reports(struct store *st, int64_t cid, const char *dir, double alpha)
{
	struct report_opts o = { .alpha = alpha, .target = ABLAB_TARGET };
	struct report rep;
	size_t i;

	if (report_load(st, cid, &rep)) {
		err_msg("campaign %" PRId64 ": no report (could not load it)", cid);
		return;
	}
	report_analyse(&rep, &o);
	for (i = 0; i < report_nformats; i++) {
		const struct report_format *f = &report_formats[i];
		char *p, *tmp;
		FILE *out;

		if (!f->nightly_file)
			continue;
		p = xasprintf("%s/%s", dir, f->nightly_file);
		tmp = xasprintf("%s.tmp", p);
		out = fopen(tmp, "we");
		if (!out) {
			err_msg("%s: %s", tmp, strerror(errno));
		} else {
			f->write(&rep, &o, out);
			if (fclose(out)) {
				err_msg("%s: could not write the %s report", p, f->name);
				unlink(tmp);
			} else if (rename(tmp, p)) {
				err_msg("%s: %s", p, strerror(errno));
			}
		}
		free(p);
		free(tmp);
	}
	report_free(&rep);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The job files of dir, sorted (caller frees with strv_free). */
static char **list_jobs(const char *dir)
{
	struct dirent *de;
	char **v = NULL;
	size_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".json") && de->d_name[0] != '.') {
			v = xrealloc(v, (n + 2) * sizeof(*v));
			v[n++] = xasprintf("%s/%s", dir, de->d_name);
			v[n] = NULL;
		}
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	else
		v = xcalloc(1, sizeof(*v));
	return v;
}

static void nightly_usage(FILE *f)
{
	fprintf(f, "usage: ablab nightly [--dry-run | --recompare] [--jobs DIR] [--reports DIR]\n"
		   "                     [--results DIR] [--only JOB,...] [--date YYYY-MM-DD]\n"
		   "Runs every job with \"nightly\": true once (jobs one after the other, each\n"
		   "job's boards in parallel), trigger=nightly.  Kernels are rebuilt only when\n"
		   "their inputs changed.  Unhealthy boards are skipped with the reason.\n"
		   "Reports go to REPORTS/DATE/JOB/ (email.txt, report.txt, report.json, and\n"
		   "report.svg/.html when supported), with compare.txt/.json against the job's\n"
		   "previous complete nightly campaign and its nightly history (change points).\n"
		   "The p-values of all jobs of the night are adjusted together (Holm).\n\n"
		   "  --jobs DIR      job files (default $ABLAB_JOBS or ./jobs)\n"
		   "  --reports DIR   default results/reports\n"
		   "  --results DIR   transcripts (default results)\n"
		   "  --only A,B      only these jobs (by name)\n"
		   "  --date D        the report directory's date (default today, local time)\n"
		   "  --dry-run       show the jobs, boards (healthy or why not) and kernels\n"
		   "                  (cached, or would build and why); run nothing\n"
		   "  --recompare     run nothing: redo the reports and comparisons of the\n"
		   "                  nightly campaigns stored for --date (e.g. after a job's\n"
		   "                  threshold changed), with the same exit status\n"
		   "  --undecidable-ok  run jobs whose campaign can never say \"different\" or\n"
		   "                  whose night-against-night comparisons can never alert\n"
		   "                  (too few boots for the night's Holm family; said per job\n"
		   "                  before the first boot: refused with exit 2 otherwise)\n\n"
		   "exit: 0 all ran, no change; 1 something failed; 2 usage, or a job that\n"
		   "      cannot decide (refused before the first boot);\n"
		   "      3 all ran and a significant change beyond a job's threshold appeared\n");
}

static bool in_list(const char *list, const char *name)
{
	char *copy = xstrdup(list), *save = NULL, *t;
	bool found = false;

	for (t = strtok_r(copy, ",", &save); t && !found; t = strtok_r(NULL, ",", &save))
		found = !strcmp(t, name);
	free(copy);
	return found;
}

/* A job that produced a campaign tonight, waiting for the night's comparison. */
struct night_job {
	char *name, *dir;
	double alpha, threshold;
	int64_t cid, prev;
	struct bisect_opts bisect; /* "bisect": true: its settings (board, refs: per change) */
	bool do_bisect;
	char *params;
	char *git_tree[2]; /* per variant: the job's git tree (a "git" source), or NULL */
};

/* The git commit variant v's kernel on board was built from in campaign cid (its manifest's
 * source.commit; the tree is the job's, as a cached kernel names the tree it was first built
 * from); false when it is not a git build. */
static bool git_commit_of(struct store *st, int64_t cid, const char *board, int v, char **commit)
{
	return !store_kernel_commit(st, cid, board, variant_names[v], commit);
}

/* "bisect": true: for every board and variant with a change tonight whose kernel moved
 * from one commit of a git tree to another since the previous night, `ablab bisect`
 * between the two commits on that board, decided by the first changed row's scenario.
 * Returns the number of bisects that failed. */
static int night_bisects(struct store *st, const struct night_family *night, int ji,
			 const struct night_job *w)
{
	int nfailed = 0;

	for (size_t i = 0; i < night->n && !stop_requested; i++) {
		const struct night_row *r = &night->rows[i];
		char *c0 = NULL, *c1 = NULL;
		struct bisect_opts o = w->bisect;
		bool seen = false;
		int64_t id = 0;

		/* the job's control or patched variant (a series' +1, +1-2 are recipe builds) */
		int side = !strcmp(r->label, "control") ? 0 : !strcmp(r->label, "patched") ? 1 : -1;

		if (r->job != ji || !r->change || r->cp || side < 0)
			continue;
		for (size_t k = 0; k < i; k++) /* one bisect per board and variant */
			seen = seen ||
			       (night->rows[k].job == ji && night->rows[k].change &&
				!night->rows[k].cp && !strcmp(night->rows[k].label, r->label) &&
				!strcmp(night->rows[k].board, r->board));
		if (seen)
			continue;
		if (!w->git_tree[side] || !git_commit_of(st, w->prev, r->board, side, &c0) ||
		    !git_commit_of(st, w->cid, r->board, side, &c1) || !strcmp(c0, c1)) {
			info_msg(
				"nightly: %s: %s %s changed, but its %s kernel did not move between two commits of the job's git tree since campaign %" PRId64
				"; no bisect",
				w->name, r->board, r->scenario, variant_names[side], w->prev);
		} else {
			o.tree = w->git_tree[side];
			o.good = c0;
			o.bad = c1;
			o.board = r->board;
			o.scenario = r->scenario;
			info_msg("nightly: %s: %s %s changed between %.12s and %.12s: bisecting",
				 w->name, r->board, r->scenario, c0, c1);
			if (bisect_run(&o, &id) && !stop_requested)
				nfailed++;
			if (id) {
				bisect_report(st, id, stderr);
				info_msg("nightly: %s: bisect %" PRId64
					 " (`ablab report --bisect %" PRId64 "`)",
					 w->name, id, id);
			}
		}
		free(c0);
		free(c1);
	}
	return nfailed;
}

/* Runs job j's campaign (or, recompare, finds tonight's stored one).  Returns its campaign
 * id (0 when there is none to compare) and sets *failed when something went wrong. */
static int64_t nightly_job(struct job *j, struct store *hst, const char *results, const char *date,
			   bool dry, bool recompare, bool undecidable_ok, bool *failed)
{
	struct job_run_opts o;
	bool *mask;
	size_t b, nok = 0;
	int64_t cid = 0;
	int ret;

	if (recompare) {
		if (store_nightly_on(hst, j->name, date, &cid)) {
			err_msg("nightly --recompare: %s: no nightly campaign of this job on %s",
				j->name, date);
			*failed = true;
			return 0;
		}
		info_msg("nightly: %s: campaign %" PRId64 " of %s", j->name, cid, date);
		return cid;
	}
	job_run_defaults(j, &o);
	o.trigger = "nightly";
	o.results = results;
	o.format = NULL;
	o.db = opt_db;
	o.dry_run = dry;
	o.undecidable_ok = undecidable_ok;
	mask = xcalloc(j->nboards, sizeof(*mask));
	o.boards = mask;
	{
		char *head = xasprintf(
			"job %s (%s): %d+%d boots, order %s, %d batches, threshold %.1f%%", j->name,
			j->jf.path, o.boots, o.boots, order_name(o.order), o.batches,
			j->threshold * 100);

		if (dry)
			printf("%s\n", head);
		else
			info_msg("%s", head);
		free(head);
	}
	for (b = 0; b < j->nboards; b++) {
		char *why = board_unhealthy(j->boards[b], hst);

		if (why) {
			err_msg("nightly: %s: skipping board %s: %s", j->name, j->boards[b], why);
			*failed = true;
			free(why);
		} else {
			mask[b] = true;
			nok++;
		}
	}
	if (!nok) {
		err_msg("nightly: %s: no healthy board; job skipped", j->name);
		free(mask);
		return 0;
	}
	ret = job_run(j, &o, &cid);
	free(mask);
	if (ret) {
		*failed = true;
		if (!dry)
			err_msg("nightly: %s: campaign %s", j->name,
				cid ? "did not complete" : "did not start");
		/* a campaign that did not complete gets its reports, but no comparison */
		return dry ? 0 : -cid;
	}
	return dry ? 0 : cid;
}

/* Plan time, before the first boot: can each nightly job's campaign say "different", and can
 * its night-against-night comparisons alert?  Those are Holm adjusted over the night's family:
 * every job's boards x timing rows x variants (and tonight's change points), so a row
 * alerts only if its smallest p times the family reaches alpha.  One line per job; returns
 * how many jobs cannot decide. */
static int night_plan(char **files, const char *only)
{
	size_t fam = 0;
	int bad = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; files[i]; i++) {
			struct job_run_opts o;
			struct plan_design p;
			struct plan_result r;
			struct errtext why;
			struct job j;
			bool known;
			size_t n;

			if (job_load(&j, files[i]) || !j.nightly ||
			    (only && !in_list(only, j.name))) {
				job_free(&j);
				continue;
			}
			job_run_defaults(&j, &o);
			n = (size_t)(o.budget ? o.budget : o.boots);
			if (pass == 0) {
				fam += campaign_timing_rows(&j.bench, o.params, &known) *
				       j.nboards * (size_t)j.vs.n;
				job_free(&j);
				continue;
			}
			if (job_plan(&j, &o, NULL, &why) == -EDOM) {
				err_msg("nightly: %s: %s", j.name, why.msg);
				bad++;
			}
			p = (struct plan_design){ .n = n,
						  .rows = fam ? fam : 1,
						  .alpha = j.alpha > 0 ? j.alpha : ABLAB_ALPHA,
						  .beta = ABLAB_BETA,
						  .margin = ABLAB_MARGIN };
			if (plan_decidable(&p, &r)) {
				job_free(&j);
				continue;
			}
			if (r.can_diff) {
				info_msg(
					"nightly: %s: night against night %s%zu+%zu boots, %zu comparisons in the Holm family of the night (boards x timing rows x variants of every job): can alert (smallest p %.3g x %zu = %.3g <= alpha %g)",
					j.name, o.budget ? "up to " : "", n, n, fam, r.p_min, fam,
					r.p_min * (double)fam, p.alpha);
			} else {
				err_msg("nightly: %s: night against night %s%zu+%zu boots can never alert: the smallest p %.3g x %zu comparisons in the Holm family of the night (boards x timing rows x variants of every job) = %.3g > alpha %g; \"boots\": %zu can",
					j.name, o.budget ? "up to " : "", n, n, r.p_min, fam,
					r.p_min * (double)fam, p.alpha, r.diff_n);
				bad++;
			}
			job_free(&j);
		}
	return bad;
}

/* `ablab nightly`'s command line. */
struct nightly_opts {
	const char *jobs_dir, *reports, *results, *only, *date;
	bool dry, recompare, undecidable_ok;
	char today[16]; /* date when --date is not given */
};

/* One option: 0, 2 (usage, printed) or 3 (--help, printed). */
static int nightly_opt(struct nightly_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'd':
		o->dry = true;
		return 0;
	case 'j':
		o->jobs_dir = arg;
		return 0;
	case 'R':
		o->reports = arg;
		return 0;
	case 'r':
		o->results = arg;
		return 0;
	case 'O':
		o->only = arg;
		return 0;
	case 'D':
		o->date = arg;
		return 0;
	case 'C':
		o->recompare = true;
		return 0;
	case 'Y':
		o->undecidable_ok = true;
		return 0;
	case 'h':
		nightly_usage(stdout);
		return 3;
	}
	nightly_usage(stderr);
	return 2;
}

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_nightly_opts(int argc, char **argv, struct nightly_opts *o)
{
	static const struct option lo[] = {
		{ "dry-run", 0, NULL, 'd' },	    { "jobs", 1, NULL, 'j' },
		{ "reports", 1, NULL, 'R' },	    { "results", 1, NULL, 'r' },
		{ "only", 1, NULL, 'O' },	    { "date", 1, NULL, 'D' },
		{ "recompare", 0, NULL, 'C' },	    { "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' }, { NULL, 0, NULL, 0 }
	};
	int c, r;

	o->jobs_dir = getenv("ABLAB_JOBS");
	if (!o->jobs_dir || !*o->jobs_dir)
		o->jobs_dir = "jobs";
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		r = nightly_opt(o, c, optarg);
		if (r)
			return r;
	}
	if (optind != argc) {
		nightly_usage(stderr);
		return 2;
	}
	if (o->dry && o->recompare) {
		err_msg("nightly: --dry-run and --recompare exclude each other");
		return 2;
	}
	if (o->date) {
		struct tm tm = { 0 };
		const char *e = strptime(o->date, "%Y-%m-%d", &tm);

		if (!e || *e) {
			err_msg("--date: \"%s\" is not YYYY-MM-DD", o->date);
			return 2;
		}
	} else {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(o->today, sizeof(o->today), "%Y-%m-%d", &tm);
		o->date = o->today;
	}
	return 0;
}

/* One night: its jobs' campaigns, then their reports and comparison. */
struct night {
	const struct nightly_opts *o;
	struct store hst;
	struct night_job *nj;
	int nnj, njobs, changes;
	bool failed;
	struct night_family family;
};

/* Job j ran (or not) as campaign cid (complete or not): kept for the night's reports,
 * comparison and bisects. */
static void night_job_add(struct night *n, const struct job *j, int64_t cid, bool complete)
{
	const struct nightly_opts *o = n->o;
	struct night_job *w;
	int r;

	n->nj = xrealloc(n->nj, (size_t)(n->nnj + 1) * sizeof(*n->nj));
	w = &n->nj[n->nnj++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(j->name);
	w->dir = xasprintf("%s/%s/%s", o->reports, o->date, j->name);
	w->alpha = j->alpha;
	w->threshold = j->threshold;
	w->cid = cid;
	w->do_bisect = j->bisect && !o->dry;
	w->params = j->params ? xstrdup(j->params) : NULL;
	for (int v = 0; v < 2; v++)
		w->git_tree[v] = j->v[v].kind == SRC_GIT ? xstrdup(j->v[v].git_tree) : NULL;
	w->bisect = (struct bisect_opts){ .budget = j->budget ? j->budget : 8,
					  .first = j->first ? j->first : 4,
					  .batches = j->batches,
					  .margin_pct = j->margin_pct,
					  .order = j->order == ORDER_RANDOM ? ORDER_ABAB : j->order,
					  .params = w->params,
					  .results = o->results,
					  .db = opt_db };
	if (w->bisect.first > w->bisect.budget)
		w->bisect.first = w->bisect.budget;
	if (!complete) {
		w->prev = -1; /* reports only: an incomplete night compares nothing */
		return;
	}
	r = store_previous_nightly(&n->hst, cid, NULL, 0, &w->prev);
	if (r == -ENODATA)
		info_msg("nightly: %s: first nightly campaign of this job; nothing to compare with",
			 j->name);
	else if (r)
		n->failed = true;
}

/* The night's campaigns, one job after the other. */
static void night_run_jobs(struct night *n, char **files)
{
	const struct nightly_opts *o = n->o;

	for (size_t i = 0; files[i] && !stop_requested; i++) {
		struct job j;
		int64_t cid;
		bool complete;

		if (job_load(&j, files[i])) {
			err_msg("nightly: %s skipped: invalid job file (errors above)", files[i]);
			n->failed = true;
			job_free(&j);
			continue;
		}
		if (!j.nightly || (o->only && !in_list(o->only, j.name))) {
			job_free(&j);
			continue;
		}
		n->njobs++;
		cid = nightly_job(&j, &n->hst, o->results, o->date, o->dry, o->recompare,
				  o->undecidable_ok, &n->failed);
		complete = cid > 0;
		if (cid < 0)
			cid = -cid;
		if (cid)
			night_job_add(n, &j, cid, complete);
		job_free(&j);
	}
}

/* The night's reports and its comparison: every job's p-values adjusted together;
 * the bisects of the changes found. */
static void night_compare(struct night *n)
{
	int c;

	for (c = 0; c < n->nnj; c++) {
		struct night_job *w = &n->nj[c];

		if (mkdir_p(w->dir, 0755)) {
			err_msg("cannot create %s", w->dir);
			n->failed = true;
			w->prev = -1;
			continue;
		}
		write_reports(&n->hst, w->cid, w->dir, w->alpha);
		if (w->prev >= 0 && night_add_job(&n->family, &n->hst, c, w->name, w->alpha,
						  w->threshold, w->prev, w->cid)) {
			n->failed = true;
			w->prev = -1;
		}
	}
	n->family.njobs = n->nnj;
	night_decide(&n->family);
	for (c = 0; c < n->nnj; c++) {
		struct night_job *w = &n->nj[c];

		if (w->prev >= 0) {
			char *env = NULL;
			int k;

			/* what else changed since the previous night, besides the kernel */
			if (w->prev > 0 && report_env_since(&n->hst, w->prev, w->cid, &env))
				n->failed = true;
			k = night_write_job(&n->family, c, w->name, w->alpha, w->threshold, w->prev,
					    w->cid, w->dir, env);
			free(env);

			if (k < 0)
				n->failed = true;
			else
				n->changes += k;
			if (k > 0 && w->do_bisect && night_bisects(&n->hst, &n->family, c, w))
				n->failed = true;
		}
		info_msg("nightly: %s: campaign %" PRId64 ", reports in %s", w->name, w->cid,
			 w->dir);
	}
}

static void night_free_jobs(struct night *n)
{
	for (int c = 0; c < n->nnj; c++) {
		struct night_job *w = &n->nj[c];

		free(w->name);
		free(w->dir);
		free(w->params);
		free(w->git_tree[0]);
		free(w->git_tree[1]);
	}
	free(n->nj);
	night_free(&n->family);
}

/* Every nightly job of o->jobs_dir, once: the exit status (see the top). */
static int nightly_run(const struct nightly_opts *o)
{
	struct night n = { .o = o };
	char **files = list_jobs(o->jobs_dir);

	if (!files) {
		err_msg("--jobs: cannot read directory %s: %s", o->jobs_dir, strerror(errno));
		return 1;
	}
	/* --recompare runs nothing: its plan is only said */
	if (night_plan(files, o->only) && !o->recompare && !o->dry && !o->undecidable_ok) {
		err_msg("nightly: refused before the first boot: a job above cannot decide; give it more \"boots\", or pass --undecidable-ok to run anyway");
		strv_free(files);
		return 2;
	}
	install_signal_handlers();
	if (store_open(&n.hst, opt_db)) {
		err_msg("nightly: no database: nothing can be stored");
		strv_free(files);
		return 1;
	}
	night_run_jobs(&n, files);
	strv_free(files);
	night_compare(&n);
	night_free_jobs(&n);
	store_close(&n.hst);
	if (!n.njobs)
		info_msg("nightly: no job in %s has \"nightly\": true", o->jobs_dir);
	if (stop_requested)
		return 130;
	if (o->dry)
		return n.failed ? 1 : 0;
	if (n.changes)
		err_msg("nightly: %d significant change(s) beyond the jobs' thresholds", n.changes);
	return n.failed ? 1 : n.changes ? NIGHTLY_EXIT_CHANGE : 0;
}

int cmd_nightly(int argc, char **argv)
{
	struct nightly_opts o = { .reports = "results/reports", .results = "results" };
	int ret = parse_nightly_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	return nightly_run(&o);
}
