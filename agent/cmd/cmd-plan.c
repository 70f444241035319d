// SPDX-License-Identifier: GPL-2.0-only
/*
 * `ablab plan` (issue 29 item 4): to see a change of a given size (or to say "same within
 * +-margin"), how many boots per kernel and batches per boot each board needs, how long that
 * takes, which boards answer first and how long the job takes.  From each board's latest A/A
 * calibration (`ablab calibrate`) and its measured time per boot (store_plan_time(): the one
 * time source), per board in board-plan.c; the computation is cost_plan() (stats-cost.c),
 * whose design part is the plan_decidable() that also refuses designs that cannot decide.
 * This file parses the command line and prints; `ab` and `run` print a short plan before
 * their first boot (cli_plan_print()).
 */
#include "board-plan.h"
#include "campaign.h"
#include "cmd/cmd-plan.h"
#include "cmd/cmds.h"
#include "job.h"
#include "shared/util.h"
#include "stats/seqtest.h"
#include "stats/stats-cost.h"
#include "stats/stats.h"
#include "store/store-plan.h"
#include "store/store.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_POWER ABLAB_POWER

static void plan_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab plan JOB [options]\n"
		"       ablab plan BOARD... [--scenario S]... [options]\n"
		"What an answer will cost: per board the boots per kernel and batches per boot a\n"
		"fixed n+n campaign needs to see a change of --effect (or to say \"same within\n"
		"--margin\" when nothing changed), its wall time, which boards answer first and\n"
		"the job's expected duration (its boards run at once).  From each board's latest\n"
		"A/A calibration (`ablab calibrate BOARD`: the noise between and within boots) and\n"
		"the median time of its last 50 boots (start to next start in a campaign).  The\n"
		"boots are the larger of what the noise needs (power 0.8 by the rank test's normal\n"
		"approximation, the inverse of a report's MDE) and the smallest design that can\n"
		"decide at all (the check that refuses undecidable campaigns).  JOB is a job file\n"
		"or a name in $ABLAB_JOBS (a file with \"boards\"); BOARD a name or a board file.\n\n"
		"  --effect PCT      plan to see a change of PCT %% (default 1; \"1%%\" too)\n"
		"  --margin PCT      plan to say \"same within +-PCT %%\" instead\n"
		"  --alpha A         the family's false-alarm rate (default 0.05; Holm over the\n"
		"                    campaign's rows: boards x calibrated timing rows)\n"
		"  --power P         the chance of the answer planned for (default 0.8)\n"
		"  --scenario S      plan for this row only (repeatable; default: every\n"
		"                    calibrated row, the noisiest decides)\n"
		"  --batches M       batches per boot (default: the cheapest in 3..100, 3 the\n"
		"                    fewest whose outlier batch is screened out)\n"
		"  --boards A,B      a job's boards: only these\n"
		"  --params 'K=V ...'  the campaign's module parameters (its rows: scenarios=)\n"
		"  --format text|json  (default text)\n"
		"Exit 0: every board has a plan; 1: a board has no calibration or no design up to\n"
		"1000+1000 boots answers; 2: usage.\n");
}

/* "1", "1%", "0.5 %": a percentage in (0, 50) */
static int parse_pct(const char *opt, const char *s, double *pct)
{
	char *end;
	double d = strtod(s, &end);

	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	if (end == s || *end || !(d > 0 && d < 50)) {
		err_msg("%s: \"%s\" is not a percentage between 0 and 50 (e.g. 1 or 1%%)", opt, s);
		return -EINVAL;
	}
	*pct = d;
	return 0;
}

/* The board's name: a name as it is; a board file's "name", read quietly (NULL when it has
 * none: the campaign, or check-board, says what is wrong with it) */

/* "43.6 s", "2 min 05 s", "1 h 12 min" */
static const char *dur(char *buf, size_t len, double s)
{
	if (!isfinite(s))
		snprintf(buf, len, "?");
	else if (s < 100)
		snprintf(buf, len, "%.1f s", s);
	else if (s < 3600)
		snprintf(buf, len, "%d min %02d s", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(buf, len, "%d h %02d min", (int)(s / 3600), (int)fmod(s / 60, 60));
	return buf;
}

static int plan_job_or_boards(int nargs, char **args, bool *is_job)
{
	char *path;
	json_object *o, *b;

	*is_job = false;
	if (nargs != 1)
		return 0;
	path = job_path(args[0]);
	if (is_file(path)) {
		o = json_object_from_file(path);
		*is_job = o && json_object_is_type(o, json_type_object) &&
			  json_object_object_get_ex(o, "boards", &b);
		json_object_put(o);
	}
	free(path);
	return 0;
}

/* 1st, 2nd, 3rd, 4th, .. 11th, 12th, 13th, 21st */
static const char *rank_name(char *buf, size_t len, size_t k)
{
	const char *sfx = k % 100 / 10 == 1 ? "th" :
			  k % 10 == 1	    ? "st" :
			  k % 10 == 2	    ? "nd" :
			  k % 10 == 3	    ? "rd" :
					      "th";

	snprintf(buf, len, "%zu%s", k, sfx);
	return buf;
}

static void print_text(const struct cost_query *q, struct board_plan *bp, size_t nb, size_t *order,
		       const char *job, double job_s, const char *asis)
{
	char d1[32], d2[32];
	size_t first = nb, nplan = 0, nrank = 0;

	if (q->effect > 0)
		printf("plan: \"different\" for a change of %g%% at alpha %g (Holm over %zu rows: %.3g a row), power %g\n",
		       q->effect * 100.0, q->alpha, q->rows, q->alpha / (double)q->rows, q->power);
	else
		printf("plan: \"same within \u00b1%g%%\" when nothing changed, at alpha %g (each bound), power %g\n",
		       q->margin * 100.0, q->alpha, q->power);
	printf("%-16s %-11s %-20s %7s %9s %8s %9s %10s  %s\n", "board", "calibration",
	       "noisiest row", "batches", "boots", "decides", "s/boot", "wall time", "answers");
	for (size_t k = 0; k < nb; k++) {
		struct board_plan *b = &bp[order[k]];
		char cal[48], boots[48], dec[48], rank[16];

		if (!b->cal.nrows) {
			printf("%-16s no calibration for board %s: run ablab calibrate %s\n",
			       b->name, b->name, b->name);
			continue;
		}
		snprintf(cal, sizeof(cal), "campaign %" PRId64, b->cal_id);
		if (b->missing) {
			printf("%-16s %-11s no scenario %s in its calibration: run ablab calibrate %s --params 'scenarios=...'\n",
			       b->name, cal, b->missing, b->name);
			continue;
		}
		if (b->ret) {
			printf("%-16s %-11s cannot plan: %s\n", b->name, cal, strerror(-b->ret));
			continue;
		}
		if (b->r.boots && b->r.reachable)
			snprintf(boots, sizeof(boots), "%zu+%zu", b->r.boots, b->r.boots);
		else
			snprintf(boots, sizeof(boots), ">%u", COST_MAX_BOOTS);
		if (b->r.decide_boots)
			snprintf(dec, sizeof(dec), "%zu+%zu", b->r.decide_boots, b->r.decide_boots);
		else
			snprintf(dec, sizeof(dec), ">%d", PLAN_MAX_N);
		if (b->r.reachable && first == nb)
			first = order[k];
		nplan += b->r.reachable;
		printf("%-16s %-11s %-20s %7u %9s %8s %9.3g %10s  %s\n", b->name, cal,
		       b->rows[b->r.limit].scenario, b->r.batches, boots, dec,
		       board_plan_boot_seconds(b, b->r.batches), dur(d1, sizeof(d1), b->r.seconds),
		       !b->r.reachable ? "never" :
		       !b->timed       ? "? (no boot timed yet)" :
					 rank_name(rank, sizeof(rank), ++nrank));
	}
	if (first < nb)
		printf("%s: %zu board%s at once%s: about %s; first answer: %s in %s\n", job, nplan,
		       nplan == 1 ? "" : "s", nplan < nb ? " (the others have no plan)" : "",
		       dur(d1, sizeof(d1), job_s), bp[first].name,
		       dur(d2, sizeof(d2), bp[first].r.seconds));
	if (asis)
		printf("%s\n", asis);
}

static void add_num(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, isfinite(v) ? json_object_new_double(v) : NULL);
}

static void print_json(const struct cost_query *q, struct board_plan *bp, size_t nb, size_t *order,
		       double job_s, double asis_s)
{
	json_object *root = json_object_new_object(), *qo = json_object_new_object();
	json_object *arr = json_object_new_array();
	int rank = 0;

	json_object_object_add(qo, "answer",
			       json_object_new_string(q->effect > 0 ? "different" : "same"));
	add_num(qo, "effect", q->effect > 0 ? q->effect : NAN);
	add_num(qo, "margin", q->effect > 0 ? NAN : q->margin);
	add_num(qo, "alpha", q->alpha);
	add_num(qo, "power", q->power);
	json_object_object_add(qo, "rows", json_object_new_int64((int64_t)q->rows));
	add_num(qo, "row_alpha", q->effect > 0 ? q->alpha / (double)q->rows : q->alpha);
	json_object_object_add(root, "question", qo);
	for (size_t k = 0; k < nb; k++) {
		struct board_plan *b = &bp[order[k]];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "board", json_object_new_string(b->name));
		json_object_array_add(arr, o);
		if (!b->cal.nrows) {
			json_object_object_add(
				o, "error",
				json_object_new_string("no calibration: run ablab calibrate"));
			continue;
		}
		json_object_object_add(o, "calibration_campaign", json_object_new_int64(b->cal_id));
		json_object_object_add(o, "calibrated",
				       json_object_new_string(store_text(&b->cal, 0, PC_CREATED)));
		if (b->missing || b->ret) {
			json_object_object_add(
				o, "error",
				json_object_new_string(b->missing ? "scenario not calibrated" :
								    strerror(-b->ret)));
			continue;
		}
		json_object_object_add(o, "scenario",
				       json_object_new_string(b->rows[b->r.limit].scenario));
		json_object_object_add(o, "batches", json_object_new_int((int)b->r.batches));
		json_object_object_add(o, "boots",
				       b->r.reachable ? json_object_new_int64((int64_t)b->r.boots) :
							NULL);
		json_object_object_add(o, "noise_boots",
				       json_object_new_int64((int64_t)b->r.noise_boots));
		json_object_object_add(o, "decide_boots",
				       json_object_new_int64((int64_t)b->r.decide_boots));
		add_num(o, "power", b->r.power);
		add_num(o, "seconds_per_boot", board_plan_boot_seconds(b, b->r.batches));
		json_object_object_add(o, "timed_boots",
				       json_object_new_int64((int64_t)b->t.boots));
		add_num(o, "seconds", b->r.seconds);
		json_object_object_add(o, "answers",
				       b->r.reachable && b->timed ? json_object_new_int(++rank) :
								    NULL);
	}
	json_object_object_add(root, "boards", arr);
	add_num(root, "job_seconds", job_s);
	add_num(root, "as_written_seconds", asis_s);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));
	json_object_put(root);
}

/* `ablab plan`'s command line */
struct plan_opts {
	struct cost_query q;
	double effect, margin; /* percent; 0: not given */
	const char *format, *boards, *params;
	char *scen[32];
	size_t nscen;
	unsigned int batches;
	bool have_alpha;
	char **targets; /* JOB, or BOARD... */
	int ntargets;
};

/* --power P into o: 0, or 2 (said) */
static int plan_power_opt(const char *arg, struct plan_opts *o)
{
	char *end;

	o->q.power = strtod(arg, &end);
	if (end == arg || *end || !(o->q.power > 0 && o->q.power < 1)) {
		err_msg("--power: \"%s\" must be a number between 0 and 1 (e.g. 0.8)", arg);
		return 2;
	}
	return 0;
}

/* one option c (its argument arg) into o: 0, 2 (a usage error, said), 3 (--help, printed) */
static int plan_opt(int c, const char *arg, struct plan_opts *o)
{
	long v;

	switch (c) {
	case 'e':
		return parse_pct("--effect", arg, &o->effect) ? 2 : 0;
	case 'M':
		return parse_pct("--margin", arg, &o->margin) ? 2 : 0;
	case 'a':
		if (parse_alpha_opt(arg, &o->q.alpha))
			return 2;
		if (o->q.alpha >= 0.5) {
			err_msg("--alpha: \"%s\": a plan needs a false-alarm rate below 0.5", arg);
			return 2;
		}
		o->have_alpha = true;
		return 0;
	case 'p':
		return plan_power_opt(arg, o);
	case 'S':
		if (o->nscen == sizeof(o->scen) / sizeof(o->scen[0])) {
			err_msg("--scenario: at most %zu", o->nscen);
			return 2;
		}
		o->scen[o->nscen++] = (char *)arg;
		return 0;
	case 'm':
		if (parse_int_opt("--batches", arg, 1, COST_MAX_BATCHES, &v))
			return 2;
		o->batches = (unsigned int)v;
		return 0;
	case 'B':
		o->boards = arg;
		return 0;
	case 'P':
		o->params = arg;
		return 0;
	case 'f':
		o->format = arg;
		return 0;
	case 'h':
		plan_usage(stdout);
		return 3;
	default:
		plan_usage(stderr);
		return 2;
	}
}

/* argv into o: 0; 2: a usage error (said); 3: --help (printed) */
static int parse_plan_opts(int argc, char **argv, struct plan_opts *o)
{
	static const struct option lo[] = {
		{ "effect", 1, NULL, 'e' },   { "margin", 1, NULL, 'M' },
		{ "alpha", 1, NULL, 'a' },    { "power", 1, NULL, 'p' },
		{ "scenario", 1, NULL, 'S' }, { "batches", 1, NULL, 'm' },
		{ "boards", 1, NULL, 'B' },   { "params", 1, NULL, 'P' },
		{ "format", 1, NULL, 'f' },   { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1)
		if ((ret = plan_opt(c, optarg, o)))
			return ret;
	if (optind >= argc) {
		plan_usage(stderr);
		return 2;
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "json")) {
		err_msg("--format: \"%s\" is not one of text, json", o->format);
		return 2;
	}
	if (o->effect > 0 && o->margin > 0) {
		err_msg("--effect and --margin: plan for one answer at a time (\"different\" for a change of --effect, or \"same within --margin\")");
		return 2;
	}
	o->targets = argv + optind;
	o->ntargets = argc - optind;
	return 0;
}

/* What is planned: a job's selected boards, or the boards named. */
struct plan_what {
	bool is_job;
	struct job j;
	const char **names;
	size_t nb, cmp; /* boards; comparisons a row (a series: 2n - 3) */
	struct plan_design pd;
	int asis_n, asis_m; /* the job as written: boots and batches */
};

/* a job's boards and its design into w, its alpha and kernels into o->q: 0 or the exit */
static int plan_job_load(struct plan_opts *o, struct plan_what *w)
{
	struct job_run_opts jo;
	struct job_overrides ov = { 0 };
	struct errtext why;
	bool *mask = NULL;
	int ret;

	if (o->params)
		job_override_add(&ov, 'P', o->params);
	ret = cli_job_load(o->targets[0], &w->j, &jo, &ov, o->boards, &mask);
	if (ret)
		return ret;
	jo.boards = mask;
	job_plan(&w->j, &jo, &w->pd, &why);
	w->cmp = w->j.vs.n > 2 ? (size_t)(2 * w->j.vs.n - 3) : 1;
	o->q.kernels = (unsigned int)w->j.vs.n;
	if (!o->have_alpha && w->j.alpha > 0 && w->j.alpha < 0.5)
		o->q.alpha = w->j.alpha;
	if (!o->effect && !o->margin)
		o->effect = jo.margin_pct > 0 ? jo.margin_pct : 1.0;
	w->names = xcalloc(w->j.nboards + 1, sizeof(*w->names));
	for (size_t i = 0; i < w->j.nboards; i++)
		if (!mask || mask[i])
			w->names[w->nb++] = w->j.boards[i];
	w->asis_n = jo.budget ? jo.budget : jo.boots;
	w->asis_m = jo.batches;
	free(mask);
	return 0;
}

/* JOB or BOARD... into w: 0 or the exit status */
static int plan_what_load(struct plan_opts *o, struct plan_what *w)
{
	plan_job_or_boards(o->ntargets, o->targets, &w->is_job);
	if (o->boards && !w->is_job) {
		err_msg("--boards selects a job's boards; name the boards themselves without a job");
		return 2;
	}
	w->cmp = 1;
	if (w->is_job) {
		int ret = plan_job_load(o, w);

		if (ret)
			w->is_job = false; /* nothing loaded to free */
		return ret;
	}
	struct campaign_spec cs = { .boots = ABLAB_BOOTS,
				    .modparams = o->params,
				    .nboards = (size_t)o->ntargets,
				    .alpha = o->q.alpha,
				    .margin_pct = o->margin };
	bool known;

	campaign_plan_design(&cs, &w->pd, &known);
	w->names = xcalloc((size_t)o->ntargets + 1, sizeof(*w->names));
	for (int i = 0; i < o->ntargets; i++)
		w->names[w->nb++] = o->targets[i];
	return 0;
}

/* Each board's calibration and boot time from the database: 0, or 1 (said) */
static int plan_boards_load(const struct plan_opts *o, const struct plan_what *w,
			    struct board_plan *bp)
{
	struct store st;
	int ret = 0;

	if (store_open(&st, opt_db))
		return 1;
	for (size_t i = 0; i < w->nb && !ret; i++) {
		ret = board_plan_load(&st, &bp[i], w->names[i], o->scen, o->nscen);
		if (ret == -ENOENT)
			err_msg("%s: not a board file with a \"name\" (ablab check-board %s says why)",
				w->names[i], w->names[i]);
	}
	store_close(&st);
	return ret ? 1 : 0;
}

/* The plans computed, in the order the boards answer; *job_s the job's wall time, *asis_s
 * the job's as written.  1 when a board has no plan, else 0. */
static int plan_compute(const struct plan_opts *o, const struct plan_what *w, struct board_plan *bp,
			size_t *order, double *job_s, double *asis_s)
{
	return board_plans_compute(bp, w->nb, &o->q, o->batches, w->asis_n, w->asis_m, order, job_s,
				   asis_s);
}

/* The plan of w's boards, printed: the exit status */
static int plan_run(struct plan_opts *o, struct plan_what *w)
{
	struct board_plan *bp = xcalloc(w->nb + 1, sizeof(*bp));
	size_t *order = xcalloc(w->nb + 1, sizeof(*order));
	double job_s = NAN, asis_s = NAN;
	char asis[192] = "", d1[32];
	int ret;

	if (!o->effect && !o->margin)
		o->effect = 1.0;
	o->q.effect = o->effect / 100.0;
	o->q.margin = o->margin / 100.0;
	ret = plan_boards_load(o, w, bp);
	if (!ret) {
		o->q.rows = board_plans_family_rows(w->pd.rows, bp, w->nb, w->cmp);
		ret = plan_compute(o, w, bp, order, &job_s, &asis_s);
		if (w->is_job && isfinite(asis_s))
			snprintf(
				asis, sizeof(asis),
				"job %s as written (%s%d boots of each of %u kernels, %d batches): about %s, its slowest board",
				w->j.name, w->pd.first ? "at most " : "", w->asis_n, o->q.kernels,
				w->asis_m, dur(d1, sizeof(d1), asis_s));
		if (!strcmp(o->format, "json"))
			print_json(&o->q, bp, w->nb, order, job_s, asis_s);
		else
			print_text(&o->q, bp, w->nb, order, w->is_job ? w->j.name : "the boards",
				   job_s, *asis ? asis : NULL);
	}
	for (size_t i = 0; i < w->nb; i++)
		board_plan_free(&bp[i]);
	free(bp);
	free(order);
	return ret ? 1 : 0;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_opts o = { .q = { .alpha = ABLAB_ALPHA, .power = PLAN_POWER },
			       .format = "text" };
	struct plan_what w = { 0 };
	int ret = parse_plan_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	ret = plan_what_load(&o, &w);
	if (!ret)
		ret = plan_run(&o, &w);
	free(w.names);
	if (w.is_job)
		job_free(&w.j);
	return ret;
}

void cli_plan_print(FILE *out, struct store *own, const char *const *boards, size_t nboards,
		    const struct plan_design *pd, int batches, int kernels)
{
	struct board_plan *bp = xcalloc(nboards + 1, sizeof(*bp));
	size_t n = pd->first ? pd->budget : pd->n;
	unsigned int m = batches > 0 ? (unsigned int)batches : 1;
	struct cost_query q = { .effect = pd->margin,
				.margin = pd->margin,
				.alpha = pd->alpha,
				.power = PLAN_POWER,
				.kernels = kernels > 2 ? (unsigned int)kernels : 2 };
	struct store mine, *st = own ? own : &mine;
	size_t nb = 0;
	char d1[32], d2[32];

	if (!own && store_open(&mine, opt_db)) {
		free(bp);
		return;
	}
	for (size_t i = 0; i < nboards; i++) {
		if (!board_plan_load(st, &bp[nb], boards[i], NULL, 0)) {
			nb++;
			continue;
		}
		board_plan_free(&bp[nb]); /* the campaign says what is wrong with it */
		memset(&bp[nb], 0, sizeof(bp[nb]));
	}
	if (!own)
		store_close(&mine);
	q.rows = board_plans_family_rows(pd->rows, bp, nb, 1);
	for (size_t i = 0; i < nb; i++) {
		struct board_plan *b = &bp[i];
		double mde = 0;
		size_t at = 0;

		if (!b->cal.nrows) {
			fprintf(out, "no calibration for board %s: run ablab calibrate %s\n",
				b->name, b->name);
			continue;
		}
		if (b->timed)
			fprintf(out,
				"plan for %s (A/A calibration: campaign %" PRId64
				" of %s): %s%zu+%zu boots of %u batches, about %s (%s a boot, median of its last %zu boots)\n",
				b->name, b->cal_id, store_text(&b->cal, 0, PC_CREATED),
				pd->first ? "at most " : "", n, n, m,
				dur(d1, sizeof(d1),
				    q.kernels * (double)n * board_plan_boot_seconds(b, m)),
				dur(d2, sizeof(d2), board_plan_boot_seconds(b, m)), b->t.boots);
		else
			fprintf(out,
				"plan for %s (A/A calibration: campaign %" PRId64
				" of %s): %s%zu+%zu boots of %u batches (no boot timed on it yet)\n",
				b->name, b->cal_id, store_text(&b->cal, 0, PC_CREATED),
				pd->first ? "at most " : "", n, n, m);
		for (size_t k = 0; k < b->nrows; k++) {
			const struct cost_row *w = &b->rows[k];
			double x = stats_mde(w->var_between, w->var_within, m, n, w->mean,
					     pd->alpha / (double)q.rows, PLAN_POWER);

			if (!(x <= mde)) {
				mde = x;
				at = k;
			}
		}
		board_plan_compute(b, &q, m);
		if (isinf(mde))
			fprintf(out,
				"  sees no change: %zu+%zu boots cannot reach alpha %.3g a row (Holm over %zu rows)",
				n, n, pd->alpha / (double)q.rows, q.rows);
		else
			fprintf(out,
				"  sees a change of %.2g%% (%s, power %g at alpha %.3g a row, Holm over %zu rows)",
				mde * 100.0, b->rows[at].scenario, PLAN_POWER,
				pd->alpha / (double)q.rows, q.rows);
		if (!b->ret && b->r.reachable)
			fprintf(out, "; \u00b1%g%% needs %zu+%zu boots (about %s)\n",
				pd->margin * 100.0, b->r.boots, b->r.boots,
				dur(d1, sizeof(d1), b->r.seconds));
		else
			fprintf(out, "; \u00b1%g%% needs more than %u+%u boots\n",
				pd->margin * 100.0, COST_MAX_BOOTS, COST_MAX_BOOTS);
	}
	fflush(out); /* before the first boot's lines, also into a file */
	for (size_t i = 0; i < nb; i++)
		board_plan_free(&bp[i]);
	free(bp);
}
