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
#include "board.h"
#include "changepoint.h"
#include "cmds.h"
#include "job.h"
#include "report.h"
#include "stats.h"
#include "store.h"
#include "util.h"

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

static const char *const vnames[] = { "control", "patched" };

/* Why a board cannot run tonight, or NULL when it can (caller frees). */
static char *board_unhealthy(const char *name, struct store *st)
{
	char holder[256] = "";
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
	if (b.qemu_binary) {
		char *argv[] = { "sh", "-c", "command -v \"$0\" >/dev/null",
				 (char *)b.qemu_binary, NULL };

		if (run_argv(argv, NULL) != 0)
			why = xasprintf("%s not found (install qemu-system-arm)", b.qemu_binary);
	}
	if (!why && b.console_device && b.console_device[0] == '/' && !b.emulated &&
	    !is_file(b.console_device)) {
		char *argv[] = { "test", "-c", (char *)b.console_device, NULL };

		if (run_argv(argv, NULL) != 0)
			why = xasprintf("console device %s is not present", b.console_device);
	}
	if (!why && board_lock_holder(&b, holder, sizeof(holder)) >= 0 && holder[0])
		why = xasprintf("busy: locked by %s", holder);
	if (!why && st) {
		/* the last `ablab check` of the board, if any, must have passed */
		const char *p[1] = { b.name };
		PGresult *r = store_query(st, "SELECT ok, to_char(checked, 'YYYY-MM-DD HH24:MI'), "
					  "coalesce(error, '') FROM health WHERE board = $1 "
					  "ORDER BY checked DESC, id DESC LIMIT 1", 1, p);

		if (r && PQntuples(r) == 1 && strcmp(PQgetvalue(r, 0, 0), "t"))
			why = xasprintf("its last health check (%s) failed: %s; run `ablab check "
					"%s` once it is fixed", PQgetvalue(r, 0, 1),
					PQgetvalue(r, 0, 2), b.name);
		if (r)
			PQclear(r);
	}
	board_free(&b);
	return why;
}

/* Writes every report format with a nightly file (report_formats[]) into dir. */
static void write_reports(struct store *st, int64_t cid, const char *dir, double alpha)
{
	struct report_opts o = { .alpha = alpha, .target = 0.01 };
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

/* The previous nightly campaign of the same job, completed, before cid. */
static int64_t previous_night(struct store *st, const char *job, int64_t cid)
{
	char ids[32];
	const char *p[2] = { job, ids };
	int64_t prev = 0;
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	r = store_query(st, "SELECT max(id) FROM campaigns WHERE trigger = 'nightly' AND "
			"job->>'job' = $1 AND id < $2::int AND status = 'complete'", 2, p);
	if (r && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		prev = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	if (r)
		PQclear(r);
	return prev;
}

static size_t boot_values(const struct rep_row *w, int v, double *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < w->nboots && n < max; i++)
		if (w->boots[i].variant == v && isfinite(w->boots[i].s.mean))
			out[n++] = w->boots[i].s.mean;
	return n;
}

/* One row of the night's comparison: tonight against the previous night, or tonight as a
 * new change point of the job's nightly history. */
struct crow {
	char board[64], scenario[64];
	int variant;
	bool cp;		/* a change-point row */
	bool pres;		/* lost bytes: any change is one, no test */
	double prev, now;	/* previous night's (cp: the segment's) mean, tonight's */
	size_t nx, ny;		/* boots (cp: nights before, 1) */
	double rel, p, p_min, p_adj;
	bool change;
	const char *verdict;
};

/*
 * The job's nightly history up to campaign cid, one mean of boot means per night, board,
 * scenario and variant: for every series whose last night is cid and which gets a new change
 * point tonight (changepoint.h: cp_new_last() with |change| >= the job's threshold), a row.
 */
static int history_rows(struct store *st, const struct job *j, int64_t cid, struct crow **rows,
			size_t *nrows)
{
	static const char *const q =
		"SELECT x.cid, x.board, x.scenario, x.variant, avg(x.bm) FROM (SELECT c.id AS cid, "
		" bo.name AS board, s.scenario, b.variant, b.id, avg(s.mean_ns) AS bm "
		" FROM campaigns c JOIN boots b ON b.campaign_id = c.id "
		" JOIN boards bo ON bo.id = b.board_id JOIN samples s ON s.boot_id = b.id "
		" WHERE c.trigger = 'nightly' AND c.job->>'job' = $1 AND c.id <= $2::int "
		"  AND (c.status = 'complete' OR c.id = $2::int) AND b.status = 'ok' "
		"  AND s.kind <> 'preserve' AND s.mean_ns IS NOT NULL "
		"  AND b.variant IN ('control', 'patched') "
		" GROUP BY 1, 2, 3, 4, 5) x GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 4, 1";
	char ids[32];
	const char *p[2] = { j->name, ids };
	double *x;
	PGresult *r;
	int n, i = 0;

	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	r = store_query(st, q, 2, p);
	if (!r)
		return -EIO;
	n = PQntuples(r);
	x = xcalloc((size_t)n + 1, sizeof(double));
	while (i < n) {
		int k = i, m = 0;
		struct cp_point cp;

		while (k < n && !strcmp(PQgetvalue(r, k, 1), PQgetvalue(r, i, 1)) &&
		       !strcmp(PQgetvalue(r, k, 2), PQgetvalue(r, i, 2)) &&
		       !strcmp(PQgetvalue(r, k, 3), PQgetvalue(r, i, 3)))
			x[m++] = strtod(PQgetvalue(r, k++, 4), NULL);
		if (strtoll(PQgetvalue(r, k - 1, 0), NULL, 10) == cid &&
		    cp_new_last(x, (size_t)m, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, j->threshold,
				&cp) == 1) {
			struct crow *w;

			*rows = xrealloc(*rows, (*nrows + 1) * sizeof(**rows));
			w = &(*rows)[(*nrows)++];
			memset(w, 0, sizeof(*w));
			snprintf(w->board, sizeof(w->board), "%s", PQgetvalue(r, i, 1));
			snprintf(w->scenario, sizeof(w->scenario), "%s", PQgetvalue(r, i, 2));
			w->variant = !strcmp(PQgetvalue(r, i, 3), "patched");
			w->cp = true;
			w->prev = cp.mean_before;
			w->now = cp.mean_after;
			w->nx = (size_t)m - 1;
			w->ny = 1;
			w->rel = cp.rel;
			w->p = cp.p;
			w->p_min = 0.0;
		}
		i = k;
	}
	free(x);
	PQclear(r);
	return 0;
}

/* Compares tonight's campaign with the previous night's, variant by variant, per board and
 * scenario (exact Mann-Whitney p of the boot means), and looks for a new change point in
 * each variant's nightly history (history_rows()).  All these p-values of the job's night
 * are adjusted together (Holm: family-wise error <= alpha); a row is a change when its
 * adjusted p <= alpha and its relative change is at least the job's threshold.  For the
 * preservation check, any change in lost bytes is one.  Writes DIR/compare.txt and
 * DIR/compare.json; returns the number of changes (or -errno). */
static int compare_nights(struct store *st, const struct job *j, int64_t prev, int64_t cid,
			  const char *dir)
{
	struct report a, b;
	json_object *jr = json_object_new_object(), *rows = json_object_new_array();
	struct buf txt = { 0 };
	struct crow *cr = NULL;
	size_t i, ncr = 0, nfam = 0;
	double *pv, *adj;
	int changes = 0, v;
	char *p;

	if (report_load(st, prev, &a)) {
		json_object_put(jr);
		json_object_put(rows);
		return -EIO;
	}
	if (report_load(st, cid, &b)) {
		report_free(&a);
		json_object_put(jr);
		json_object_put(rows);
		return -EIO;
	}
	for (i = 0; i < b.nrows; i++) {
		const struct rep_row *w = &b.rows[i];
		const char *board = b.boards[w->board].name;
		int k = report_find(&a, board, w->scenario);

		if (k < 0)
			continue;
		for (v = 0; v < 2; v++) {
			double x[256], y[256];
			size_t nx = boot_values(&a.rows[k], v, x, ARRAY_SIZE(x));
			size_t ny = boot_values(w, v, y, ARRAY_SIZE(y));
			struct ab_result ab;
			struct crow *c;

			if (!nx || !ny || stats_ab(x, nx, y, ny, 1, 1000, &ab))
				continue;
			cr = xrealloc(cr, (ncr + 1) * sizeof(*cr));
			c = &cr[ncr++];
			memset(c, 0, sizeof(*c));
			snprintf(c->board, sizeof(c->board), "%s", board);
			snprintf(c->scenario, sizeof(c->scenario), "%s", w->scenario);
			c->variant = v;
			c->pres = !strcmp(w->kind, "preserve");
			c->prev = ab.a.mean;
			c->now = ab.b.mean;
			c->nx = nx;
			c->ny = ny;
			c->rel = ab.rel_change;
			c->p = c->pres ? NAN : ab.p_mwu;
			c->p_min = ab.p_min;
		}
	}
	if (history_rows(st, j, cid, &cr, &ncr)) {
		free(cr);
		report_free(&a);
		report_free(&b);
		json_object_put(jr);
		json_object_put(rows);
		return -EIO;
	}
	pv = xcalloc(ncr + 1, sizeof(double));
	adj = xcalloc(ncr + 1, sizeof(double));
	for (i = 0; i < ncr; i++) {
		pv[i] = cr[i].p;
		nfam += isfinite(cr[i].p);
	}
	stats_holm(pv, ncr, adj);
	for (i = 0; i < ncr; i++) {
		struct crow *c = &cr[i];

		c->p_adj = adj[i];
		if (c->pres) {
			c->change = c->prev != c->now;
			c->verdict = c->change ? "CHANGE (lost bytes)" : "same";
		} else if (!isfinite(c->rel) || fabs(c->rel) < j->threshold) {
			c->verdict = "below threshold";
		} else if (c->p_adj <= j->alpha) {
			c->change = true;
			c->verdict = c->cp ? "CHANGE POINT (Holm p <= alpha)" :
				     "CHANGE (Holm p <= alpha)";
		} else if (c->p_min > j->alpha) {
			c->verdict = "too few boots to reach alpha";
		} else {
			c->verdict = "not significant (Holm)";
		}
		changes += c->change;
	}
	free(pv);
	free(adj);

	buf_printf(&txt, "job %s: campaign %" PRId64 " against the previous night's %" PRId64
		   " and the job's nightly history (threshold %.1f%%, alpha %.3f, Holm over %zu "
		   "p-values)\n\n", j->name, cid, prev, j->threshold * 100, j->alpha, nfam);
	buf_printf(&txt, "  %-14s %-28s %-8s %-7s %12s %12s %9s %7s %7s  %s\n", "board",
		   "scenario", "variant", "vs", "before", "tonight", "change", "p", "p Holm",
		   "verdict");
	for (i = 0; i < ncr; i++) {
		const struct crow *c = &cr[i];
		char pa[32], pb[32], ps[16], pq[16];
		json_object *o2;

		if (c->pres) {
			snprintf(pa, sizeof(pa), "%.0f B", c->prev);
			snprintf(pb, sizeof(pb), "%.0f B", c->now);
		} else {
			fmt_time(pa, sizeof(pa), c->prev);
			fmt_time(pb, sizeof(pb), c->now);
		}
		snprintf(ps, sizeof(ps), isfinite(c->p) ? "%.4f" : "-", c->p);
		snprintf(pq, sizeof(pq), isfinite(c->p_adj) ? "%.4f" : "-", c->p_adj);
		buf_printf(&txt, "  %-14s %-28s %-8s %-7s %12s %12s %+8.1f%% %7s %7s  %s\n",
			   c->board, c->scenario, vnames[c->variant], c->cp ? "history" : "night",
			   pa, pb, isfinite(c->rel) ? c->rel * 100 : 0.0, ps, pq, c->verdict);
		o2 = json_object_new_object();
		json_object_object_add(o2, "board", json_object_new_string(c->board));
		json_object_object_add(o2, "scenario", json_object_new_string(c->scenario));
		json_object_object_add(o2, "variant", json_object_new_string(vnames[c->variant]));
		json_object_object_add(o2, "against",
				       json_object_new_string(c->cp ? "history" : "previous night"));
		json_object_object_add(o2, "previous_mean", json_object_new_double(c->prev));
		json_object_object_add(o2, "tonight_mean", json_object_new_double(c->now));
		json_object_object_add(o2, "n_previous", json_object_new_int((int)c->nx));
		json_object_object_add(o2, "n_tonight", json_object_new_int((int)c->ny));
		json_object_object_add(o2, "rel_change",
				       isfinite(c->rel) ? json_object_new_double(c->rel) : NULL);
		json_object_object_add(o2, c->cp ? "p_ttest" : "p_mwu",
				       isfinite(c->p) ? json_object_new_double(c->p) : NULL);
		json_object_object_add(o2, "p_holm", isfinite(c->p_adj) ?
				       json_object_new_double(c->p_adj) : NULL);
		json_object_object_add(o2, "change", json_object_new_boolean(c->change));
		json_object_object_add(o2, "verdict", json_object_new_string(c->verdict));
		json_object_array_add(rows, o2);
	}
	buf_printf(&txt, "\n%d change(s) beyond the threshold.\n", changes);
	json_object_object_add(jr, "job", json_object_new_string(j->name));
	json_object_object_add(jr, "campaign", json_object_new_int64(cid));
	json_object_object_add(jr, "previous", json_object_new_int64(prev));
	json_object_object_add(jr, "threshold", json_object_new_double(j->threshold));
	json_object_object_add(jr, "alpha", json_object_new_double(j->alpha));
	json_object_object_add(jr, "adjustment", json_object_new_string("holm"));
	json_object_object_add(jr, "family_size", json_object_new_int((int)nfam));
	json_object_object_add(jr, "changes", json_object_new_int(changes));
	json_object_object_add(jr, "rows", rows);
	p = xasprintf("%s/compare.txt", dir);
	write_file_atomic(p, txt.data, txt.len);
	free(p);
	p = xasprintf("%s/compare.json", dir);
	{
		const char *s = json_object_to_json_string_ext(jr, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED);

		write_file_atomic(p, s, strlen(s));
	}
	free(p);
	fputs(txt.data, stderr);
	buf_free(&txt);
	json_object_put(jr);
	free(cr);
	report_free(&a);
	report_free(&b);
	return changes;
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
	fprintf(f,
		"usage: ablab nightly [--dry-run] [--jobs DIR] [--reports DIR] [--results DIR]\n"
		"                     [--only JOB,...] [--date YYYY-MM-DD]\n"
		"Runs every job with \"nightly\": true once (jobs one after the other, each\n"
		"job's boards in parallel), trigger=nightly.  Kernels are rebuilt only when\n"
		"their inputs changed.  Unhealthy boards are skipped with the reason.\n"
		"Reports go to REPORTS/DATE/JOB/ (email.txt, report.txt, report.json, and\n"
		"report.svg/.html when supported), with compare.txt/.json against the job's\n"
		"previous nightly campaign.\n\n"
		"  --jobs DIR      job files (default $ABLAB_JOBS or ./jobs)\n"
		"  --reports DIR   default results/reports\n"
		"  --results DIR   transcripts (default results)\n"
		"  --only A,B      only these jobs (by name)\n"
		"  --date D        the report directory's date (default today, local time)\n"
		"  --dry-run       show the jobs, boards (healthy or why not) and kernels\n"
		"                  (cached, or would build and why); run nothing\n\n"
		"exit: 0 all ran, no change; 1 something failed; 2 usage;\n"
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

int cmd_nightly(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dry-run", 0, NULL, 'd' }, { "jobs", 1, NULL, 'j' },
		{ "reports", 1, NULL, 'R' }, { "results", 1, NULL, 'r' },
		{ "only", 1, NULL, 'O' }, { "date", 1, NULL, 'D' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *jobs_dir = getenv("ABLAB_JOBS"), *reports = "results/reports";
	const char *results = "results", *only = NULL, *date = NULL;
	char today[16], **files;
	struct store hst;
	bool dry = false, failed = false;
	int c, changes = 0, njobs = 0;
	size_t i;

	if (!jobs_dir || !*jobs_dir)
		jobs_dir = "jobs";
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dry = true; break;
		case 'j': jobs_dir = optarg; break;
		case 'R': reports = optarg; break;
		case 'r': results = optarg; break;
		case 'O': only = optarg; break;
		case 'D': date = optarg; break;
		case 'h': nightly_usage(stdout); return 0;
		default: nightly_usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		nightly_usage(stderr);
		return 2;
	}
	if (date) {
		struct tm tm = { 0 };
		const char *e = strptime(date, "%Y-%m-%d", &tm);

		if (!e || *e) {
			err_msg("--date: \"%s\" is not YYYY-MM-DD", date);
			return 2;
		}
	} else {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(today, sizeof(today), "%Y-%m-%d", &tm);
		date = today;
	}
	files = list_jobs(jobs_dir);
	if (!files) {
		err_msg("--jobs: cannot read directory %s: %s", jobs_dir, strerror(errno));
		return 1;
	}
	install_signal_handlers();
	if (store_open(&hst, opt_db)) {
		err_msg("nightly: no database: nothing can be stored");
		strv_free(files);
		return 1;
	}
	for (i = 0; files[i] && !stop_requested; i++) {
		struct job_run_opts o;
		struct job j;
		bool *mask;
		size_t b, nok = 0;
		int64_t cid = 0;
		int ret;

		if (job_load(&j, files[i])) {
			err_msg("nightly: %s skipped: invalid job file (errors above)", files[i]);
			failed = true;
			job_free(&j);
			continue;
		}
		if (!j.nightly || (only && !in_list(only, j.name))) {
			job_free(&j);
			continue;
		}
		njobs++;
		job_run_defaults(&j, &o);
		o.trigger = "nightly";
		o.results = results;
		o.format = NULL;
		o.db = opt_db;
		o.dry_run = dry;
		mask = xcalloc(j.nboards, sizeof(*mask));
		o.boards = mask;
		{
			char *head = xasprintf("job %s (%s): %d+%d boots, order %s, %d batches, "
					       "threshold %.1f%%", j.name, j.jf.path, o.boots,
					       o.boots, order_name(o.order), o.batches,
					       j.threshold * 100);

			if (dry)
				printf("%s\n", head);
			else
				info_msg("%s", head);
			free(head);
		}
		for (b = 0; b < j.nboards; b++) {
			char *why = board_unhealthy(j.boards[b], &hst);

			if (why) {
				err_msg("nightly: %s: skipping board %s: %s", j.name, j.boards[b],
					why);
				failed = true;
				free(why);
			} else {
				mask[b] = true;
				nok++;
			}
		}
		if (!nok) {
			err_msg("nightly: %s: no healthy board; job skipped", j.name);
			free(mask);
			job_free(&j);
			continue;
		}
		ret = job_run(&j, &o, &cid);
		if (ret) {
			failed = true;
			if (!dry)
				err_msg("nightly: %s: campaign %s", j.name, cid ? "did not complete"
									  : "did not start");
		}
		if (!dry && cid) {
			struct store st;
			char *dir = xasprintf("%s/%s/%s", reports, date, j.name);

			if (mkdir_p(dir, 0755)) {
				err_msg("cannot create %s", dir);
				failed = true;
			} else if (!store_open(&st, opt_db)) {
				int64_t prev = ret ? 0 : previous_night(&st, j.name, cid);

				write_reports(&st, cid, dir, j.alpha);
				if (prev) {
					int n = compare_nights(&st, &j, prev, cid, dir);

					if (n < 0)
						failed = true;
					else
						changes += n;
				} else if (!ret) {
					info_msg("nightly: %s: first nightly campaign of this job; "
						 "nothing to compare with", j.name);
				}
				store_close(&st);
				info_msg("nightly: %s: campaign %" PRId64 ", reports in %s", j.name,
					 cid, dir);
			} else {
				failed = true;
			}
			free(dir);
		}
		free(mask);
		job_free(&j);
	}
	strv_free(files);
	store_close(&hst);
	if (!njobs)
		info_msg("nightly: no job in %s has \"nightly\": true", jobs_dir);
	if (stop_requested)
		return 130;
	if (dry)
		return failed ? 1 : 0;
	if (changes)
		err_msg("nightly: %d significant change(s) beyond the jobs' thresholds", changes);
	return failed ? 1 : changes ? NIGHTLY_EXIT_CHANGE : 0;
}
