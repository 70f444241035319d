// SPDX-License-Identifier: GPL-2.0-only
/* Performance bisection (bisect.h): the search over a first-parent history, its steps
 * (a build through the board's recipe, then a sequential campaign through the one
 * campaign engine), the verdict of a step (the report's comparison rule) and the step
 * table.  The state of a bisect is its stored steps: bisect_resume() replays them. */
#include "bisect.h"
#include "bisect-int.h"
#include "board.h"
#include "recipe.h"
#include "report/report-int.h"
#include "report/report.h"
#include "store/store-bisect.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *i64s(char *buf, size_t len, int64_t v)
{
	snprintf(buf, len, "%" PRId64, v);
	return buf;
}

static void bisect_free(struct bisect *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		free(b->c[i].subject);
	free(b->c);
	free(b->board);
	free(b->board_file);
	free(b->undecidable);
	free(b->scenario);
	free(b->tree);
	free(b->good);
	free(b->bad);
	free(b->params);
	free(b->results);
}

static void set_status(struct bisect *b, const char *status, const char *result, const char *first)
{
	store_bisect_set_status(b->st, b->id, status, result, first);
}

/* ---- the search ---- */

/* a step's outcome: its verdict, or (built false) no build */
static void apply_step(struct bisect *b, const char *role, int pos, bool built,
		       enum verdict verdict, double change)
{
	bool check = !strcmp(role, "check");
	struct bcommit *c = &b->c[pos];

	if (!built) {
		if (check)
			b->check = CHECK_NOBUILD;
		else
			c->state = C_SKIPPED;
	} else if (verdict == VERDICT_SAME) {
		if (check)
			b->check = CHECK_SAME;
		else
			c->state = C_SAME;
	} else if (verdict == VERDICT_DIFFERENT) {
		if (check) {
			b->check = CHECK_DIFFERENT;
			b->effect = change;
		}
		c->state = C_DIFFERENT;
	} else if (check) {
		if (++b->check_undecided >= 2)
			b->check = CHECK_UNDECIDED;
	} else if (++c->undecided >= 2) {
		c->state = C_SKIPPED;
	}
}

/* [lo, hi]: the first changed commit is c[lo..hi]; c[hi] is known different */
static void bounds(const struct bisect *b, size_t *lo, size_t *hi)
{
	size_t i;

	*hi = b->n - 1;
	for (i = 0; i < b->n; i++)
		if (b->c[i].state == C_DIFFERENT) {
			*hi = i;
			break;
		}
	*lo = 0;
	for (i = 0; i < *hi; i++)
		if (b->c[i].state == C_SAME)
			*lo = i + 1;
}

/* The next commit to measure: the untested one nearest the middle of [lo, hi) (a tie
 * goes to the later commit: a commit that does not build is mostly fixed by a later
 * one).  -1 when none is left. */
static int next_commit(const struct bisect *b)
{
	size_t lo, hi, i, mid;
	int best = -1;

	bounds(b, &lo, &hi);
	mid = (lo + hi) / 2;
	for (i = lo; i < hi; i++) {
		size_t d = i > mid ? i - mid : mid - i;

		if (b->c[i].state != C_UNKNOWN)
			continue;
		if (best < 0 || d <= ((size_t)best > mid ? (size_t)best - mid : mid - (size_t)best))
			best = (int)i;
	}
	return best;
}

/* "Same" in a step: within +-max(--margin, half the change bad showed against good, at most
 * STEP_MARGIN_MAX_PCT): a commit that carries less than half of the change is on good's
 * side (the check of bad itself uses --margin). */
double step_margin_pct(double margin_pct, double effect, bool check)
{
	double m = margin_pct > 0 ? margin_pct : 1.0, h = 50.0 * fabs(effect);

	if (!check && isfinite(h) && h > m)
		m = h < STEP_MARGIN_MAX_PCT ? h : fmax(m, STEP_MARGIN_MAX_PCT);
	return m;
}

/* ---- one step ---- */

/* The verdict of a step's campaign: the scenario's row on the board, or with no scenario
 * every timing row of the board (different when one is, same when all are). */
static int campaign_verdict(const struct bisect *b, int64_t cid, struct step_result *sr)
{
	struct report_opts o = { .alpha = b->alpha, .target = ABLAB_TARGET };
	struct report rep;
	size_t i, nrows = 0, ndiff = 0, nsame = 0;
	const struct rep_row *best = NULL;
	int ret = report_load(b->st, cid, &rep);

	if (ret)
		return ret;
	report_analyse(&rep, &o);
	for (i = 0; i < rep.nrows; i++) {
		const struct rep_row *r = &rep.rows[i];

		if (strcmp(rep.boards[r->board].name, b->board) || rep_is_pres(r) ||
		    rep_is_null(r) || !r->have_sr || r->mixed_timing)
			continue;
		if (b->scenario && strcmp(r->scenario, b->scenario))
			continue;
		nrows++;
		ndiff += r->verdict == VERDICT_DIFFERENT;
		nsame += r->verdict == VERDICT_SAME;
		/* the row shown: a different one with the largest change, else the largest */
		if (!best ||
		    (r->verdict == VERDICT_DIFFERENT && best->verdict != VERDICT_DIFFERENT) ||
		    ((r->verdict == VERDICT_DIFFERENT) == (best->verdict == VERDICT_DIFFERENT) &&
		     fabs(r->ab.rel_change) > fabs(best->ab.rel_change)))
			best = r;
	}
	if (!nrows) {
		err_msg("bisect %" PRId64 ": campaign %" PRId64
			" has no timing row %s%son %s (--scenario names a dmabench scenario; `ablab report %" PRId64
			"` lists them)",
			b->id, cid, b->scenario ? b->scenario : "", b->scenario ? " " : "",
			b->board, cid);
		report_free(&rep);
		return -ENODATA;
	}
	sr->verdict = ndiff ? VERDICT_DIFFERENT : nsame == nrows ? VERDICT_SAME : VERDICT_UNDECIDED;
	snprintf(sr->scenario, sizeof(sr->scenario), "%s", best->scenario);
	sr->change = best->ab.rel_change;
	sr->ci_lo = best->ab.ci_lo;
	sr->ci_hi = best->ab.ci_hi;
	sr->ci_conf = best->ci_conf;
	report_free(&rep);
	return 0;
}

/* What a step builds: good's kernel and the commit's (dir, state), the commit's build log
 * and why it failed; good's log and why (said only when good does not build). */
struct step_build {
	char *gdir, *pdir, *gstate, *pstate, *log, *why, *glog, *gwhy;
};

static void step_build_free(struct step_build *sb)
{
	free(sb->gdir);
	free(sb->pdir);
	free(sb->gstate);
	free(sb->pstate);
	free(sb->log);
	free(sb->why);
	free(sb->glog);
	free(sb->gwhy);
}

/* Builds good and commit: 0, -ENOEXEC when the commit does not build, else -errno. */
static int step_builds(struct bisect *b, const char *commit, struct step_build *sb)
{
	int ret = build_commit(b, b->good, &sb->gdir, &sb->gstate, &sb->glog, &sb->gwhy);

	if (ret == -ENOEXEC) {
		err_msg("bisect %" PRId64 ": the good commit %.12s does not build: %s (log %s)",
			b->id, b->good, sb->gwhy, sb->glog);
		ret = -EINVAL;
	}
	if (!ret)
		ret = build_commit(b, commit, &sb->pdir, &sb->pstate, &sb->log, &sb->why);
	return ret;
}

/* Step n's campaign of commit (patched, pdir) against good (control, gdir): started, or
 * its stored one resumed (*cid: nonzero).  0 or -errno. */
static int step_campaign(struct bisect *b, int n, const char *role, const char *commit,
			 const struct step_build *sb, int64_t *cid)
{
	char ids[32], ns[16];
	json_object *j = json_object_new_object();
	struct campaign_board cb = { b->board_file, sb->gdir, sb->pdir };
	struct campaign_spec cs;
	char *job;
	int64_t t1;
	int ret;

	i64s(ids, sizeof(ids), b->id);
	snprintf(ns, sizeof(ns), "%d", n);
	json_object_object_add(j, "bisect", json_object_new_string(ids));
	json_object_object_add(j, "step", json_object_new_string(ns));
	json_object_object_add(j, "commit", json_object_new_string(commit));
	json_object_object_add(j, "good", json_object_new_string(b->good));
	json_object_object_add(j, "tree", json_object_new_string(b->tree));
	job = xstrdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
	json_object_put(j);
	cs = (struct campaign_spec){ .boards = &cb,
				     .nboards = 1,
				     .boots = b->budget,
				     .batches = b->batches,
				     .order = b->order,
				     .seed = 1,
				     .modparams = b->params,
				     .trigger = "cli",
				     .job_json = job,
				     .db = b->db,
				     .results = b->results,
				     .resume_id = *cid,
				     .first = b->first,
				     .alpha = b->alpha,
				     .beta = ABLAB_BETA,
				     .undecidable = b->undecidable,
				     .margin_pct = step_margin_pct(b->margin_pct, b->effect,
								   !strcmp(role, "check")) };
	if (*cid)
		info_msg("bisect %" PRId64 ": step %d: resuming its campaign %" PRId64, b->id, n,
			 *cid);
	t1 = now_ms();
	ret = campaign_run(&cs, cid);
	if (*cid)
		store_bisect_step_campaign(b->st, b->id, n, *cid, (double)(now_ms() - t1) / 1000.0);
	free(job);
	return ret;
}

/* Step n's verdict from its campaign cid: stored, said and applied.  0 or -errno. */
static int step_verdict(struct bisect *b, int n, const char *role, int pos, int64_t cid)
{
	const char *commit = b->c[pos].id;
	struct step_result sr = { 0 };
	int ret = campaign_verdict(b, cid, &sr);

	if (ret)
		return ret;
	store_bisect_step_verdict(b->st, b->id, n, stats_verdict_name(sr.verdict), sr.scenario,
				  sr.change, sr.ci_lo, sr.ci_hi, sr.ci_conf);
	info_msg("bisect %" PRId64 ": step %d: %.12s is %s (%s %+.1f%%, campaign %" PRId64 ")",
		 b->id, n, commit,
		 sr.verdict == VERDICT_UNDECIDED ? "undecided" :
		 sr.verdict == VERDICT_SAME	 ? "the same as good" :
						   "different from good",
		 sr.scenario, 100.0 * sr.change, cid);
	apply_step(b, role, pos, true, sr.verdict, sr.change);
	return 0;
}

/* Runs step n (pending: already stored, its campaign maybe started) of commit c[pos]. */
static int run_step(struct bisect *b, int n, bool pending, const char *role, int pos, int try)
{
	const char *commit = b->c[pos].id;
	struct step_build sb = { 0 };
	int64_t t0 = now_ms(), cid = 0, t1;
	bool complete = false;
	size_t lo, hi;
	int ret;

	if (!pending) {
		if (store_bisect_step_add(b->st, b->id, n, commit, pos, role, try))
			return -EIO;
		b->nsteps = n;
	}
	bounds(b, &lo, &hi);
	info_msg("bisect %" PRId64 ": step %d: %s %.12s \"%s\"%s (%zu commit%s left)", b->id, n,
		 !strcmp(role, "check") ? "is bad different from good? bad" : "commit", commit,
		 b->c[pos].subject, try > 1 ? ", second campaign" : "", hi - lo + 1,
		 hi == lo ? "" : "s");
	ret = step_builds(b, commit, &sb);
	t1 = now_ms();
	if (ret == -ENOEXEC) {
		err_msg("bisect %" PRId64 ": %.12s does not build, skipped: %s (log %s)", b->id,
			commit, sb.why, sb.log);
		store_bisect_step_unbuilt(b->st, b->id, n, (double)(t1 - t0) / 1000.0, sb.log,
					  sb.why);
		apply_step(b, role, pos, false, VERDICT_UNDECIDED, NAN);
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	store_bisect_step_built(b->st, b->id, n, sb.pstate, (double)(t1 - t0) / 1000.0);
	if (stop_requested) {
		ret = -EINTR;
		goto out;
	}
	cid = pending ? store_bisect_step_find_campaign(b->st, b->id, n, &complete) : 0;
	if (!complete)
		ret = step_campaign(b, n, role, commit, &sb, &cid);
	if (!ret)
		ret = step_verdict(b, n, role, pos, cid);
out:
	step_build_free(&sb);
	return ret;
}

/* The closing sentence, stored with the status. */
static void finish(struct bisect *b)
{
	struct buf msg = { 0 };
	const char *status, *first = NULL;
	size_t lo, hi, i;

	if (b->check == CHECK_SAME) {
		status = "no-change";
		buf_printf(&msg,
			   "no change between good %.12s and bad %.12s (the same within +-%g%%)",
			   b->good, b->bad, b->margin_pct);
	} else if (b->check == CHECK_UNDECIDED) {
		/* nothing to bisect: no change was found, though "same" was not shown either */
		status = "no-change";
		buf_printf(
			&msg,
			"no change between good %.12s and bad %.12s detected: bad is neither different from good nor the same within +-%g%% in two campaigns (a smaller change than %d+%d boots resolve is possible: raise --budget or widen --margin to tell)",
			b->good, b->bad, b->margin_pct, b->budget, b->budget);
	} else if (b->check == CHECK_NOBUILD) {
		status = "failed";
		buf_printf(&msg, "the bad commit %.12s does not build", b->bad);
	} else {
		bounds(b, &lo, &hi);
		if (lo == hi) {
			status = "found";
			first = b->c[hi].id;
			buf_printf(&msg, "first changed commit: %.12s \"%s\"", first,
				   b->c[hi].subject);
		} else {
			status = "ambiguous";
			buf_printf(
				&msg,
				"the first changed commit is one of %zu (the others were skipped):",
				hi - lo + 1);
			for (i = lo; i <= hi; i++)
				buf_printf(&msg, " %.12s", b->c[i].id);
		}
	}
	set_status(b, status, msg.data, first);
	info_msg("bisect %" PRId64 ": %s", b->id, msg.data);
	buf_free(&msg);
}

/* Loads bisect id with its finished steps; *pending: the step to continue (0: none). */
static int load(struct bisect *b, int64_t id, int *pending)
{
	json_object *commits = NULL, *set = NULL;
	struct store_rows r;
	size_t i;
	int ret = -EIO;

	*pending = 0;
	b->id = id;
	b->check = CHECK_TODO;
	if (store_bisect_get(b->st, id, &r))
		return -EIO;
	if (r.nrows != 1) {
		err_msg("no bisect %" PRId64 " in the database", id);
		store_rows_free(&r);
		return -ENOENT;
	}
	b->board = xstrdup(store_text(&r, 0, BG_BOARD));
	b->scenario = !store_cell(&r, 0, BG_SCENARIO) ? NULL :
							xstrdup(store_text(&r, 0, BG_SCENARIO));
	b->tree = xstrdup(store_text(&r, 0, BG_TREE));
	b->good = xstrdup(store_text(&r, 0, BG_GOOD));
	b->bad = xstrdup(store_text(&r, 0, BG_BAD));
	commits = json_tokener_parse(store_text(&r, 0, BG_COMMITS));
	set = json_tokener_parse(store_text(&r, 0, BG_SETTINGS));
	store_rows_free(&r);
	if (!commits || !json_object_is_type(commits, json_type_array) || !set)
		goto out;
	b->n = json_object_array_length(commits);
	b->c = xcalloc(b->n, sizeof(*b->c));
	for (i = 0; i < b->n; i++) {
		json_object *e = json_object_array_get_idx(commits, i);

		snprintf(b->c[i].id, sizeof(b->c[i].id), "%s", jstr(e, "id") ? jstr(e, "id") : "");
		b->c[i].subject = xstrdup(jstr(e, "subject") ? jstr(e, "subject") : "");
		b->c[i].state = C_UNKNOWN;
	}
	b->board_file = xstrdup(jstr(set, "board_file") ? jstr(set, "board_file") : b->board);
	b->budget = (int)jint(set, "budget", ABLAB_BISECT_BUDGET);
	b->first = (int)jint(set, "first", ABLAB_FIRST_LOOK);
	b->batches = (int)jint(set, "batches", ABLAB_BISECT_BATCHES);
	b->margin_pct = json_object_get_double(jobj(set, "margin_pct"));
	b->alpha = jobj(set, "alpha") ? json_object_get_double(jobj(set, "alpha")) : ABLAB_ALPHA;
	b->effect = NAN;
	if (order_parse(jstr(set, "order") ? jstr(set, "order") : "abab", &b->order))
		b->order = ORDER_ABAB;
	b->params = jstr(set, "params") ? xstrdup(jstr(set, "params")) : NULL;
	b->undecidable = jstr(set, "undecidable") ? xstrdup(jstr(set, "undecidable")) : NULL;
	b->results = xstrdup(jstr(set, "results") ? jstr(set, "results") : "results");
	if (store_bisect_steps(b->st, b->id, &r))
		goto out;
	for (i = 0; i < r.nrows; i++) {
		int pos = atoi(store_text(&r, i, BS_POSITION));
		/* the stored verdict (NULL: not finished), or 'build-failed': the table's
		 * CHECK allows no other */
		const char *v = store_cell(&r, i, BS_VERDICT);
		enum verdict verdict = VERDICT_UNDECIDED;
		bool built = !v || strcmp(v, "build-failed");

		b->nsteps = atoi(store_text(&r, i, BS_N));
		if (pos < 0 || (size_t)pos >= b->n)
			continue;
		if (built && v)
			stats_verdict_parse(v, &verdict);
		if (!v)
			*pending = b->nsteps;
		else
			apply_step(b, store_text(&r, i, BS_ROLE), pos, built, verdict,
				   !store_cell(&r, i, BS_CHANGE) ?
					   NAN :
					   strtod(store_text(&r, i, BS_CHANGE), NULL));
	}
	store_rows_free(&r);
	ret = 0;
out:
	if (ret)
		err_msg("bisect %" PRId64 ": its stored range or settings are unreadable", id);
	json_object_put(commits);
	json_object_put(set);
	return ret;
}

/* Runs the steps of a loaded bisect until its end or a signal. */
static int drive(struct bisect *b, int pending)
{
	int ret = 0;

	set_status(b, "running", NULL, NULL);
	while (!stop_requested) {
		const char *role = "step";
		int pos, n = pending ? pending : b->nsteps + 1, try;

		if (pending) {
			/* the step an interrupted run left: its commit and role as stored */
			bool check;

			ret = store_bisect_step(b->st, b->id, pending, &check, &pos, &try);
			if (ret)
				break;
			role = check ? "check" : "step";
		} else if (b->check == CHECK_TODO) {
			role = "check";
			pos = (int)b->n - 1;
			try = b->check_undecided + 1;
		} else if (b->check != CHECK_DIFFERENT || (pos = next_commit(b)) < 0) {
			finish(b);
			return 0;
		} else {
			try = b->c[pos].undecided + 1;
		}
		ret = run_step(b, n, pending != 0, role, pos, try);
		pending = 0;
		if (ret)
			break;
	}
	if (stop_requested || ret == -EINTR) {
		set_status(b, "interrupted", NULL, NULL);
		err_msg("bisect %" PRId64
			" interrupted; continue it with `ablab bisect --resume %" PRId64
			"` (its finished steps are not run again)",
			b->id, b->id);
		return -EINTR;
	}
	set_status(b, "failed", NULL, NULL);
	err_msg("bisect %" PRId64 " stopped (%s); `ablab bisect --resume %" PRId64
		"` tries its step again",
		b->id, strerror(-ret), b->id);
	return ret;
}

/* The commits of good..bad on bad's first-parent history, oldest first, as the stored JSON
 * array ({id, subject}); NULL when there are none or good is not on that history (said). */
static json_object *bisect_commits(const char *tree, const char *good, const char *bad)
{
	char *range = xasprintf("%s..%s", good, bad);
	char *args[] = { "log", "--first-parent", "--reverse", "--format=%H %P%x09%s", range, NULL };
	struct buf out = { 0 };
	json_object *commits = NULL;

	if (git_capture(tree, &out, args))
		goto out;
	commits = json_object_new_array();
	for (char *line = out.data, *next; line && *line; line = next) {
		char *tab, *sp, parent[41] = "";
		json_object *e = json_object_new_object();

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		tab = strchr(line, '\t');
		if (tab)
			*tab++ = '\0';
		sp = strchr(line, ' ');
		if (sp) {
			*sp++ = '\0';
			snprintf(parent, sizeof(parent), "%.40s", sp);
		}
		/* good must be on bad's first-parent history: the oldest commit's parent */
		if (!json_object_array_length(commits) && strcmp(parent, good)) {
			err_msg("%s: good %.12s is not on the first-parent history of bad %.12s (good must be an ancestor of bad that `git log --first-parent bad` lists)",
				tree, good, bad);
			json_object_put(e);
			json_object_put(commits);
			commits = NULL;
			goto out;
		}
		json_object_object_add(e, "id", json_object_new_string(line));
		json_object_object_add(e, "subject", json_object_new_string(tab ? tab : ""));
		json_object_array_add(commits, e);
	}
	if (!json_object_array_length(commits)) {
		err_msg("%s: no commit between good %.12s and bad %.12s (is bad a descendant of good?)",
			tree, good, bad);
		json_object_put(commits);
		commits = NULL;
	}
out:
	buf_free(&out);
	free(range);
	return commits;
}

/* The bisect's stored settings; NULL when the results directory cannot be made (said). */
static json_object *bisect_settings(const struct bisect_opts *o, const char *board_file)
{
	json_object *set = json_object_new_object();
	char real[PATH_MAX];

	json_object_object_add(set, "board_file", json_object_new_string(board_file));
	json_object_object_add(set, "budget", json_object_new_int(o->budget));
	json_object_object_add(set, "first", json_object_new_int(o->first));
	json_object_object_add(set, "batches", json_object_new_int(o->batches));
	json_object_object_add(set, "margin_pct",
			       json_object_new_double(o->margin_pct > 0 ? o->margin_pct : 1.0));
	json_object_object_add(set, "alpha",
			       json_object_new_double(o->alpha > 0 ? o->alpha : ABLAB_ALPHA));
	json_object_object_add(set, "order", json_object_new_string(order_name(o->order)));
	if (o->params)
		json_object_object_add(set, "params", json_object_new_string(o->params));
	if (o->undecidable)
		json_object_object_add(set, "undecidable", json_object_new_string(o->undecidable));
	if (!realpath(o->results, real) &&
	    (mkdir_p(o->results, 0755) || !realpath(o->results, real))) {
		err_msg("cannot create results directory %s", o->results);
		json_object_put(set);
		return NULL;
	}
	json_object_object_add(set, "results", json_object_new_string(real));
	return set;
}

/* The new bisect stored (b->id, *idp) and run to its end.  0 or -errno. */
static int bisect_start(const struct bisect_opts *o, const struct board *bd, const char *tree,
			const char *good, const char *bad, json_object *commits, json_object *set,
			int64_t *idp)
{
	size_t n = json_object_array_length(commits);
	struct bisect b = { 0 };
	struct store st;
	int ret, pending;

	ret = store_open(&st, o->db);
	if (ret)
		return ret;
	ret = store_bisect_new(&st, bd->name, o->scenario, tree, good, bad, o->good, o->bad,
			       json_object_to_json_string_ext(commits, JSON_C_TO_STRING_PLAIN),
			       json_object_to_json_string_ext(set, JSON_C_TO_STRING_PLAIN), &b.id);
	if (ret) {
		store_close(&st);
		return ret;
	}
	if (idp)
		*idp = b.id;
	info_msg(
		"bisect %" PRId64
		": %zu commit%s on the first-parent history from good %.12s to bad %.12s, board %s, %s; at most %d+%d boots per campaign",
		b.id, n, n == 1 ? "" : "s", good, bad, bd->name,
		o->scenario ? o->scenario : "any timing row", o->budget, o->budget);
	b.st = &st;
	b.db = o->db;
	ret = load(&b, b.id, &pending);
	if (!ret)
		ret = drive(&b, pending);
	bisect_free(&b);
	store_close(&st);
	return ret;
}

int bisect_run(const struct bisect_opts *o, int64_t *idp)
{
	struct board bd;
	char *good = NULL, *bad = NULL, real[PATH_MAX];
	char *tree = NULL, *board_file = NULL;
	json_object *commits = NULL, *set = NULL;
	int ret;

	if (idp)
		*idp = 0;
	if (!realpath(o->tree, real)) {
		err_msg("--tree %s: %s", o->tree, strerror(errno));
		return -ENOENT;
	}
	tree = xstrdup(real);
	ret = board_load_by_name(&bd, o->board);
	if (ret) {
		board_free(&bd);
		free(tree);
		return ret;
	}
	board_file = xstrdup(realpath(bd.jf.path, real) ? real : bd.jf.path);
	good = git_commit(tree, o->good);
	bad = git_commit(tree, o->bad);
	ret = -EINVAL;
	if (!good || !bad)
		err_msg("%s: %s \"%s\" is not a commit of this git tree", tree,
			good ? "--bad" : "--good", good ? o->bad : o->good);
	else
		commits = bisect_commits(tree, good, bad);
	if (commits)
		set = bisect_settings(o, board_file);
	if (set)
		ret = bisect_start(o, &bd, tree, good, bad, commits, set, idp);
	board_free(&bd);
	json_object_put(commits);
	json_object_put(set);
	free(good);
	free(bad);
	free(tree);
	free(board_file);
	return ret;
}

int bisect_resume(const char *db, int64_t id)
{
	struct bisect b = { 0 };
	struct store st;
	int ret, pending;

	ret = store_open(&st, db);
	if (ret)
		return ret;
	b.st = &st;
	b.db = db;
	ret = load(&b, id, &pending);
	if (!ret) {
		char *status, *result;

		if (!store_bisect_state(&st, id, &status, &result) && strcmp(status, "running") &&
		    strcmp(status, "interrupted") && strcmp(status, "failed")) {
			info_msg("bisect %" PRId64 " has ended (%s); nothing to resume", id,
				 result);
			free(status);
			free(result);
			bisect_free(&b);
			store_close(&st);
			return 0;
		}
		free(status);
		free(result);
		info_msg("bisect %" PRId64 ": continuing after %d stored step%s%s", id,
			 b.nsteps - (pending != 0), b.nsteps - (pending != 0) == 1 ? "" : "s",
			 pending ? " (the unfinished one goes on)" : "");
		ret = drive(&b, pending);
	}
	bisect_free(&b);
	store_close(&st);
	return ret;
}
