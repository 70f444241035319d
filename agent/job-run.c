// SPDX-License-Identifier: GPL-2.0-only
/* Running a job (`ablab run`, `ablab nightly`, `ablab lava`): the selected boards'
 * kernels resolved (or built), then one campaign on all of them at once. */
#include "job.h"
#include "bench/bench.h"
#include "board.h"
#include "campaign.h"
#include "kernel.h"
#include "stats/seqtest.h"
#include "shared/util.h"
#include "report/patchwork.h"
#include "variant.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --dry-run of a prebuilt "module": the variant's .ko checked as a campaign
 * checks it before its first boot (present, a module, built for the kernel). */
static int dry_run_module(const struct job *j, const char *board, int v, const char *kdir)
{
	struct kernel_art ka = { 0 };
	struct board b;
	int ret = board_load_by_name(&b, board);

	if (!ret)
		ret = kernel_load_board(&ka, kdir, b.name);
	if (!ret)
		ret = bench_check_kernel(&j->bench, b.name, &ka,
					 v ? VARIANT_PATCHED : VARIANT_CONTROL);
	if (!ret) {
		char *f = bench_kernel_file(&j->bench, b.name, ka.dir,
					    v ? VARIANT_PATCHED : VARIANT_CONTROL);

		printf("  %-16s %-8s module %s (built for %s)\n", board, j->vs.label[v], f,
		       ka.release);
		free(f);
	}
	kernel_free(&ka);
	board_free(&b);
	return ret;
}

int job_plan(const struct job *j, const struct job_run_opts *o, struct plan_design *p,
	     struct errtext *why)
{
	struct campaign_spec cs = { .boots = o->budget ? o->budget : o->boots,
				    .first = o->budget ? (o->first ? o->first : ABLAB_FIRST_LOOK) :
							 0,
				    .alpha = j->alpha > 0 ? j->alpha : ABLAB_ALPHA,
				    .beta = ABLAB_BETA,
				    .margin_pct = o->margin_pct,
				    .modparams = o->params,
				    .bench = &j->bench,
				    .variants = variant_set_is_pair(&j->vs) ? NULL : &j->vs };
	bool known;

	for (size_t i = 0; i < j->nboards; i++)
		cs.nboards += !o->boards || o->boards[i];
	if (cs.first > cs.boots)
		cs.first = cs.boots;
	if (p)
		campaign_plan_design(&cs, p, &known);
	return campaign_plan_check(&cs, PLAN_NEED_DIFF, why);
}

/* Before any kernel is built or board booted: can this design decide at all?  0, or
 * -EDOM when it cannot and may not run (said); why: the reason ("" when it can). */
static int job_run_plan(const struct job *j, const struct job_run_opts *o, struct errtext *why)
{
	int ret = job_plan(j, o, NULL, why);

	if (ret == -EDOM && !o->dry_run && !o->undecidable_ok) {
		err_msg("%s; pass --undecidable-ok to run it anyway", why->msg);
		return ret;
	}
	if (ret == -EDOM && o->dry_run)
		printf("  design cannot decide: %s\n", why->msg);
	else if (ret == -EDOM)
		info_msg("warning: %s; running it anyway (--undecidable-ok): the report says so",
			 why->msg);
	else if (o->dry_run)
		printf("  design: every timing row can end \"different\"\n");
	return 0;
}

/* --dry-run: the series the job's patched kernel applies, and a series job's variants. */
static void job_run_say_variants(const struct job *j)
{
	size_t i;
	int v;

	if (j->v[1].mbox) {
		const struct series *se = &j->v[1].series;

		printf("  series <%s> v%d from %s: %zu patch%s in %s\n", se->msgid, se->version,
		       j->v[1].mbox, se->n, se->n == 1 ? "" : "es", se->dir);
		for (i = 0; i < se->n; i++)
			printf("    %s\n", se->subjects[i]);
	}
	if (!variant_set_is_pair(&j->vs)) {
		printf("  %d variants, in series order:", j->vs.n);
		for (v = 0; v < j->vs.n; v++)
			printf(" %s%s%s%s", j->vs.label[v], j->v[v].adds ? " (adds " : "",
			       j->v[v].adds ? j->v[v].adds : "", j->v[v].adds ? ")" : "");
		printf("\n");
	}
}

/* The campaign's boards: each selected one checked, its kernels built (or, with
 * --dry-run, said) into k; *nb of them in cb.  0 or -errno (said). */
static int job_run_kernels(const struct job *j, const struct job_run_opts *o,
			   struct campaign_board *cb, struct job_kernel (*k)[VARIANTS_MAX],
			   const char *(*dirs)[VARIANTS_MAX], size_t *nb)
{
	bool pair = variant_set_is_pair(&j->vs);
	int ret = 0, v;

	*nb = 0;
	for (size_t i = 0; i < j->nboards; i++) {
		size_t b = *nb;

		if (o->boards && !o->boards[i])
			continue; /* not selected */
		if (job_board_check(j, i)) {
			ret = -ENOENT;
			continue;
		}
		cb[b].board = j->boards[i];
		for (v = 0; v < j->vs.n && !ret; v++) {
			ret = job_kernel(j, j->boards[i], v, !o->dry_run, &k[b][v]);
			dirs[b][v] = k[b][v].dir;
			if (!ret && o->dry_run)
				printf("  %-16s %-8s %s%s%s\n", j->boards[i], j->vs.label[v],
				       k[b][v].state, k[b][v].dir ? ": " : "",
				       k[b][v].dir ? k[b][v].dir : "");
			if (!ret && o->dry_run && bench_prebuilt_file(&j->bench))
				ret = dry_run_module(j, j->boards[i], v, k[b][v].dir);
		}
		cb[b].control_dir = k[b][0].dir;
		cb[b].patched_dir = k[b][1].dir;
		cb[b].dirs = pair ? NULL : dirs[b];
		(*nb)++;
	}
	if (!ret && !*nb) {
		err_msg("%s: no board left to run", j->jf.path);
		ret = -ENOENT;
	}
	return ret;
}

/* The job's campaign on boards cb[0..nb-1] (undecidable: why it cannot decide, "" when it
 * can).  0 or -errno. */
static int job_run_campaign(const struct job *j, const struct job_run_opts *o,
			    const struct campaign_board *cb, size_t nb, const char *undecidable,
			    struct pw_auto *pw, int64_t *cid)
{
	bool pair = variant_set_is_pair(&j->vs);
	const char *patch[VARIANTS_MAX] = { NULL };
	struct bench_def bd = j->bench;
	struct campaign_spec cs;
	struct errtext why;
	char *js;
	int ret;

	if (bench_set_params(&bd, o->params, &why)) {
		err_msg("--params: %s", why.msg);
		return -EINVAL;
	}
	js = job_json(j);
	if (o->budget && o->order == ORDER_RANDOM && j->vs.n == NVARIANTS) {
		err_msg("--budget: a sequential design boots in rounds of one control and one patched boot; use --order abab or abba, not random");
		free(js);
		return -EINVAL;
	}
	for (int v = 0; v < j->vs.n; v++)
		patch[v] = j->v[v].adds;
	cs = (struct campaign_spec){ .boards = cb,
				     .nboards = nb,
				     .boots = o->boots,
				     .batches = o->batches,
				     .order = o->order,
				     .seed = o->seed,
				     .modparams = o->params,
				     .bench = &bd,
				     .trigger = o->trigger,
				     .job_name = j->name,
				     .job_json = js,
				     .db = o->db,
				     .results = o->results,
				     .format = o->format,
				     .margin_pct = o->margin_pct,
				     .runner = o->runner,
				     .variants = pair ? NULL : &j->vs,
				     .patch = pair ? NULL : patch,
				     .undecidable = undecidable[0] ? undecidable : NULL };
	if (o->budget) {
		cs.boots = o->budget;
		cs.first = o->first ? o->first : ABLAB_FIRST_LOOK;
		cs.alpha = j->alpha > 0 ? j->alpha : ABLAB_ALPHA;
		cs.beta = ABLAB_BETA;
		if (cs.first > cs.boots)
			cs.first = cs.boots;
	}
	cs.loaded = o->loaded;
	cs.loaded_arg = o->loaded_arg;
	if (pw->on) {
		cs.started = pw_auto_started;
		cs.started_arg = pw;
	}
	ret = campaign_run(&cs, cid);
	pw_auto_ended(pw, cid ? *cid : 0);
	free(js);
	return ret;
}

/* The campaign posts its patchwork checks: URL and token checked before anything runs.
 * 0 or -errno (printed). */
static int job_run_patchwork(const struct job *j, const struct job_run_opts *o, struct pw_auto *pw)
{
	int ret;

	if (o->pw_url && !j->v[1].mbox) {
		err_msg("%s: patchwork checks need a series from a mailbox (variants.patched.patches {\"mbox\": FILE}): patchwork finds each patch by the Message-ID b4 intake records",
			j->jf.path);
		return -EINVAL;
	}
	ret = pw_auto_init(pw, o->pw_url, o->pw_token_file, o->pw_web_url, o->pw_insecure, o->db);
	if (!ret && o->dry_run && pw->on)
		printf("  patchwork: checks to %s (token %s), pending at the start, the verdict at the end\n",
		       pw->url, pw->token_file);
	return ret;
}

int job_run(const struct job *j, const struct job_run_opts *o, int64_t *cid)
{
	struct campaign_board *cb = xcalloc(j->nboards, sizeof(*cb));
	struct job_kernel(*k)[VARIANTS_MAX] = xcalloc(j->nboards, sizeof(*k));
	const char *(*dirs)[VARIANTS_MAX] = xcalloc(j->nboards, sizeof(*dirs));
	struct errtext plan_why = { "" };
	struct pw_auto pw = { 0 };
	int64_t id = 0;
	size_t i, nb = 0;
	int ret, v;

	if (cid)
		*cid = 0;
	ret = job_run_plan(j, o, &plan_why);
	if (!ret)
		ret = job_run_patchwork(j, o, &pw);
	if (!ret && o->dry_run)
		job_run_say_variants(j);
	if (!ret)
		ret = job_run_kernels(j, o, cb, k, dirs, &nb);
	if (!ret && !o->dry_run)
		ret = job_run_campaign(j, o, cb, nb, plan_why.msg, &pw, &id);
	if (cid)
		*cid = id;
	pw_auto_free(&pw);
	for (i = 0; i < j->nboards; i++)
		for (v = 0; v < VARIANTS_MAX; v++)
			job_kernel_free(&k[i][v]);
	free(k);
	free(dirs);
	free(cb);
	return ret;
}

/* A job without "boots": the fewest boots per kernel (at least 3) whose fixed design can say
 * "different" on every row of its family (all its boards) */
static int fewest_boots(const struct job *j)
{
	struct job_run_opts o = { .boots = ABLAB_JOB_MIN_BOOTS,
				  .params = j->params,
				  .margin_pct = j->margin_pct };
	struct plan_design p;
	struct plan_result r;
	struct errtext why;

	job_plan(j, &o, &p, &why);
	if (plan_decidable(&p, &r) || !r.diff_n)
		return 3;
	return r.diff_n < 3 ? 3 : (int)r.diff_n;
}

void job_run_defaults(const struct job *j, struct job_run_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->boots = j->boots ? j->boots : fewest_boots(j);
	o->budget = j->budget;
	o->first = j->first;
	o->margin_pct = j->margin_pct;
	o->batches = j->batches;
	o->order = j->order;
	o->seed = j->seed;
	o->params = j->params;
	o->trigger = "cli";
	o->results = "results";
	o->format = "text";
	o->pw_url = j->pw_url;
	o->pw_token_file = j->pw_token_file;
	o->pw_web_url = j->pw_web_url;
	o->pw_insecure = j->pw_insecure;
}

char *job_path(const char *name)
{
	const char *d = getenv("ABLAB_JOBS");

	if (strchr(name, '/') || strstr(name, ".json"))
		return xstrdup(name);
	return xasprintf("%s/%s.json", d && *d ? d : "jobs", name);
}

/* --boards a,b: a mask over the job's boards; -EINVAL for a board not in it */
int job_select_boards(const struct job *j, const char *list, bool **mask)
{
	char *copy = xstrdup(list), *save = NULL, *b;
	bool *m = xcalloc(j->nboards, sizeof(*m));
	size_t i;
	int ret = 0;

	for (b = strtok_r(copy, ",", &save); b; b = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < j->nboards; i++)
			if (!strcmp(j->boards[i], b))
				break;
		if (i == j->nboards) {
			struct buf known = { 0 };

			for (i = 0; i < j->nboards; i++)
				buf_printf(&known, "%s%s", i ? ", " : "", j->boards[i]);
			err_msg("--boards: \"%s\" is not a board of job %s (%s)", b, j->name,
				known.data);
			buf_free(&known);
			ret = -EINVAL;
			break;
		}
		m[i] = true;
	}
	free(copy);
	if (ret)
		free(m);
	else
		*mask = m;
	return ret;
}
