// SPDX-License-Identifier: GPL-2.0-only
/*
 * campaign-plan.c - before the first boot: can the campaign's design decide? The family a
 * report tests (boards x timing rows x comparisons per row) from the spec, the design
 * (fixed boots or sequential looks) and plan_decidable() (stats-plan.c); no I/O.
 */
#include "bench/bench.h"
#include "campaign.h"
#include "stats/seqtest.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

size_t campaign_timing_rows(const struct bench_def *bd, const char *modparams, bool *known)
{
	const char *s = modparams;
	size_t n = 1;

	*known = bench_rows_known(bd);
	if (!*known)
		return 1; /* its own rows: at least one */
	/* dmabench: one row per spec of scenarios=, else its three default scenarios */
	for (; s && (s = strstr(s, "scenarios=")); s++)
		if (s == modparams || s[-1] == ' ')
			break;
	if (!s)
		return 3;
	for (s += strlen("scenarios="); *s && *s != ' '; s++)
		n += *s == ',';
	return n;
}

/* the tests of one timing row: a series compares each variant with the one before it and
 * each later one with control (report-series.c), 2 nv - 3; an A/B campaign one */
static size_t comparisons(const struct campaign_spec *s)
{
	int nv = s->variants ? s->variants->n : 2;

	return nv > 2 ? (size_t)(2 * nv - 3) : 1;
}

void campaign_plan_design(const struct campaign_spec *s, struct plan_design *p, bool *known)
{
	size_t rows = campaign_timing_rows(s->bench, s->modparams, known);

	memset(p, 0, sizeof(*p));
	if (s->first > 0) {
		p->first = (size_t)s->first;
		p->budget = (size_t)s->boots;
	} else {
		p->n = (size_t)s->boots;
	}
	p->rows = rows * comparisons(s) * (s->nboards ? s->nboards : 1);
	p->alpha = s->alpha > 0 ? s->alpha : ABLAB_ALPHA;
	p->beta = s->beta > 0 ? s->beta : ABLAB_BETA;
	p->margin = s->margin_pct > 0 ? s->margin_pct / 100.0 : ABLAB_MARGIN;
}

/* "--boots 6" or "--budget 6 with --first 3" */
static void opt_of(char *out, size_t len, const struct plan_design *p, size_t v)
{
	if (p->first)
		snprintf(out, len, "--budget %zu with --first %zu", v, p->first);
	else
		snprintf(out, len, "--boots %zu", v);
}

int campaign_plan_check(const struct campaign_spec *s, unsigned int need, struct errtext *why)
{
	struct plan_design p;
	struct plan_result r;
	char design[96], fam[160], same[48], od[80], os[80], reason[192];
	bool known, no_diff, no_same;
	size_t top, nrows, cmp = comparisons(s), nb = s->nboards ? s->nboards : 1;
	size_t vd, vs;
	int ret;

	errtext_clear(why);
	campaign_plan_design(s, &p, &known);
	ret = plan_decidable(&p, &r);
	if (ret)
		return ret;
	no_diff = (need & PLAN_NEED_DIFF) && !r.can_diff;
	no_same = (need & PLAN_NEED_SAME) && !r.can_same;
	if (!no_diff && !no_same)
		return 0;
	top = p.first ? p.budget : p.n;
	nrows = p.rows / cmp / nb;
	if (p.first && p.first == top)
		snprintf(design, sizeof(design), "sequential %zu+%zu boots (one look)", top, top);
	else if (p.first)
		snprintf(design, sizeof(design), "sequential %zu+%zu..%zu+%zu boots", p.first,
			 p.first, top, top);
	else
		snprintf(design, sizeof(design), "%zu+%zu boots", top, top);
	od[0] = '\0';
	if (cmp > 1)
		snprintf(od, sizeof(od), " x %zu comparisons", cmp);
	snprintf(fam, sizeof(fam), "%zu board%s x %s%zu timing row%s%s", nb, nb == 1 ? "" : "s",
		 known ? "" : "at least ", nrows, nrows == 1 ? "" : "s", od);
	snprintf(same, sizeof(same), "\"same within \u00b1%g%%\"", p.margin * 100.0);
	if (no_diff)
		snprintf(reason, sizeof(reason), "the smallest p of %zu+%zu boots is %.3g", top,
			 top, r.p_min);
	else if (p.first)
		snprintf(
			reason, sizeof(reason),
			"no look's equivalence interval reaches the level \"same\" needs (beta %g)",
			p.beta);
	else
		snprintf(
			reason, sizeof(reason),
			"the widest interval of %zu+%zu boots reaches %.1f%%, not the %g%% \"same\" needs",
			top, top, 100.0 * (1.0 - r.p_min), 100.0 * (1.0 - 2.0 * p.alpha));
	vd = p.first ? r.diff_budget : r.diff_n;
	vs = p.first ? r.same_budget : r.same_n;
	if (vd)
		opt_of(od, sizeof(od), &p, vd);
	else
		snprintf(od, sizeof(od), "no design up to %d+%d", PLAN_MAX_N, PLAN_MAX_N);
	if (vs)
		opt_of(os, sizeof(os), &p, vs);
	else
		snprintf(os, sizeof(os), "no design up to %d+%d", PLAN_MAX_N, PLAN_MAX_N);
	return errtext_set(
		why, -EDOM,
		"design %s, %s at alpha %g (%.3g per row) can never say %s%s%s: %s; the smallest that can: %s for \"different\", %s for %s",
		design, fam, p.alpha, r.row_alpha, no_diff ? "\"different\"" : same,
		no_diff && no_same ? " nor " : "", no_diff && no_same ? same : "", reason, od, os,
		same);
}
