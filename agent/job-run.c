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
#include "variant.h"

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
				    .first = o->budget ? (o->first ? o->first : 4) : 0,
				    .alpha = j->alpha > 0 ? j->alpha : 0.05,
				    .beta = 0.05,
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

int job_run(const struct job *j, const struct job_run_opts *o, int64_t *cid)
{
	struct campaign_board *cb = xcalloc(j->nboards, sizeof(*cb));
	struct job_kernel(*k)[VARIANTS_MAX] = xcalloc(j->nboards, sizeof(*k));
	const char *(*dirs)[VARIANTS_MAX] = xcalloc(j->nboards, sizeof(*dirs));
	const char *patch[VARIANTS_MAX] = { NULL };
	bool pair = variant_set_is_pair(&j->vs);
	struct campaign_spec cs = { 0 };
	struct bench_def bd = j->bench;
	struct errtext why, plan_why = { "" };
	size_t i, nb = 0;
	char *js = NULL;
	int ret = 0, v;

	if (cid)
		*cid = 0;
	/* before any kernel is built or board booted: can this design decide at all? */
	ret = job_plan(j, o, NULL, &plan_why);
	if (ret == -EDOM && !o->dry_run && !o->undecidable_ok) {
		err_msg("%s; pass --undecidable-ok to run it anyway", plan_why.msg);
		goto out;
	}
	if (ret == -EDOM && o->dry_run)
		printf("  design cannot decide: %s\n", plan_why.msg);
	else if (ret == -EDOM)
		info_msg("warning: %s; running it anyway (--undecidable-ok): the report says so",
			 plan_why.msg);
	else if (o->dry_run)
		printf("  design: every timing row can end \"different\"\n");
	ret = 0;
	if (o->dry_run && j->v[1].mbox) {
		const struct series *se = &j->v[1].series;

		printf("  series <%s> v%d from %s: %zu patch%s in %s\n", se->msgid, se->version,
		       j->v[1].mbox, se->n, se->n == 1 ? "" : "es", se->dir);
		for (i = 0; i < se->n; i++)
			printf("    %s\n", se->subjects[i]);
	}
	if (o->dry_run && !pair) {
		printf("  %d variants, in series order:", j->vs.n);
		for (v = 0; v < j->vs.n; v++)
			printf(" %s%s%s%s", j->vs.label[v], j->v[v].adds ? " (adds " : "",
			       j->v[v].adds ? j->v[v].adds : "", j->v[v].adds ? ")" : "");
		printf("\n");
	}
	for (v = 0; v < j->vs.n; v++)
		patch[v] = j->v[v].adds;
	for (i = 0; i < j->nboards; i++) {
		if (o->boards && !o->boards[i])
			continue; /* not selected */
		if (job_board_check(j, i)) {
			ret = -ENOENT;
			continue;
		}
		cb[nb].board = j->boards[i];
		for (v = 0; v < j->vs.n && !ret; v++) {
			ret = job_kernel(j, j->boards[i], v, !o->dry_run, &k[nb][v]);
			dirs[nb][v] = k[nb][v].dir;
			if (!ret && o->dry_run)
				printf("  %-16s %-8s %s%s%s\n", j->boards[i], j->vs.label[v],
				       k[nb][v].state, k[nb][v].dir ? ": " : "",
				       k[nb][v].dir ? k[nb][v].dir : "");
			if (!ret && o->dry_run && bench_prebuilt_file(&j->bench))
				ret = dry_run_module(j, j->boards[i], v, k[nb][v].dir);
		}
		cb[nb].control_dir = k[nb][0].dir;
		cb[nb].patched_dir = k[nb][1].dir;
		cb[nb].dirs = pair ? NULL : dirs[nb];
		nb++;
	}
	if (ret || o->dry_run || !nb) {
		if (!ret && !nb) {
			err_msg("%s: no board left to run", j->jf.path);
			ret = -ENOENT;
		}
		goto out;
	}
	if (bench_set_params(&bd, o->params, &why)) {
		err_msg("--params: %s", why.msg);
		ret = -EINVAL;
		goto out;
	}
	js = job_json(j);
	if (o->budget && o->order == ORDER_RANDOM && j->vs.n == NVARIANTS) {
		err_msg("--budget: a sequential design boots in rounds of one control and one patched boot; use --order abab or abba, not random");
		ret = -EINVAL;
		goto out;
	}
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
				     .undecidable = plan_why.msg[0] ? plan_why.msg : NULL };
	if (o->budget) {
		cs.boots = o->budget;
		cs.first = o->first ? o->first : 4;
		cs.alpha = j->alpha > 0 ? j->alpha : 0.05;
		cs.beta = 0.05;
		if (cs.first > cs.boots)
			cs.first = cs.boots;
	}
	ret = campaign_run(&cs, cid);
out:
	for (i = 0; i < j->nboards; i++)
		for (v = 0; v < VARIANTS_MAX; v++)
			job_kernel_free(&k[i][v]);
	free(k);
	free(dirs);
	free(cb);
	free(js);
	return ret;
}

/* A job without "boots": the fewest boots per kernel (at least 3) whose fixed design can say
 * "different" on every row of its family (all its boards) */
static int fewest_boots(const struct job *j)
{
	struct job_run_opts o = { .boots = 3, .params = j->params, .margin_pct = j->margin_pct };
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
