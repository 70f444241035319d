// SPDX-License-Identifier: GPL-2.0-only
/* `ablab compare A B|--previous`: two campaigns analysed and compared row by row
 * (compare.c holds the rule, shared with `ablab nightly`). */
#include "cmd/cmds.h"
#include "report/compare.h"
#include "report/report.h"
#include "stats/seqtest.h"
#include "stats/stats.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ compare */

static int load_analysed(struct store *st, int64_t id, struct report *rep, double alpha,
			 const char *only_scenario)
{
	struct report_opts o = { .alpha = alpha,
				 .target = ABLAB_TARGET,
				 .only_scenario = only_scenario };
	int ret = report_load(st, id, rep);

	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", id);
	if (ret)
		return ret;
	report_analyse(rep, &o);
	return 0;
}

/* the previous complete nightly campaign of the same job (store_previous_nightly: the rule
 * `ablab nightly` compares with), or a negative errno (printed) */
static int previous_nightly(struct store *st, int64_t id, int64_t *prev)
{
	char job[256];
	int ret = store_previous_nightly(st, id, job, sizeof(job), prev);

	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", id);
	else if (ret == -EINVAL)
		err_msg("compare --previous: campaign %" PRId64
			" is not a nightly job's campaign; name two campaigns instead",
			id);
	else if (ret == -ENODATA)
		err_msg("compare --previous: campaign %" PRId64
			" has no complete nightly campaign of job \"%s\" before it",
			id, job);
	return ret;
}

static void fmt_v(const struct rep_row *r, char *out, size_t len, double v)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else if (!strcmp(r->kind, "preserve"))
		snprintf(out, len, "%.0f B", v);
	else
		fmt_time(out, len, v);
}

/* `ablab compare`'s command line. */
struct compare_opts {
	const char *format;
	bool previous, undecidable_ok;
	double alpha;
	int64_t id[2]; /* A, B (--previous: A only, in id[0]) */
};

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_compare_opts(int argc, char **argv, struct compare_opts *o)
{
	static const struct option lo[] = {
		{ "previous", 0, NULL, 'p' },	    { "alpha", 1, NULL, 'a' },
		{ "format", 1, NULL, 'f' },	    { "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' }, { NULL, 0, NULL, 0 }
	};
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			o->previous = true;
			break;
		case 'a':
			if (parse_alpha_opt(optarg, &o->alpha))
				return 2;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'Y':
			o->undecidable_ok = true;
			break;
		case 'h':
			printf("usage: ablab compare A B | ablab compare A --previous [--format text|json] [--alpha A]\n"
			       "Per board and scenario: each kernel's boot means in campaign A against campaign B (change from A to B,\n"
			       "Mann-Whitney p; a series: each variant B has against the same label in A), and the\n"
			       "patched-vs-control change of both (a series: its last variant's). --previous: B = A, and A = the\n"
			       "previous nightly campaign of the same job.  Refused (exit 2) when no row's boots\n"
			       "can reach p <= alpha at all (e.g. 3+3: 0.1), naming the boots that can;\n"
			       "--undecidable-ok compares anyway.\n");
			return 3;
		default:
			return 2;
		}
	}
	if (strcmp(o->format, "text") && strcmp(o->format, "json")) {
		err_msg("compare: --format \"%s\" is not one of text, json", o->format);
		return 2;
	}
	if (argc - optind != (o->previous ? 1 : 2)) {
		err_msg("usage: ablab compare A B, or ablab compare A --previous");
		return 2;
	}
	for (int i = 0; i < argc - optind; i++) {
		if (parse_int_opt("CAMPAIGN", argv[optind + i], 1, 0x7fffffffL, &v))
			return 2;
		o->id[i] = v;
	}
	return 0;
}

/* Two campaigns analysed, and what compare_run() prints of them. */
struct compare {
	const struct compare_opts *o;
	int64_t id[2];
	struct report rep[2];
	/* each variant of B against the same label in A (control, patched; a series'
	 * +1, ...): cmp_variant_pairs() */
	int np, pa[VARIANTS_MAX], pb[VARIANTS_MAX];
	json_object *jroot, *jrows; /* --format json */
};

/* Can any row say "different"?  Each is tested alone at alpha: its smallest p
 * 2 / C(na + nb, na) must reach it.  0 (it can, or --undecidable-ok: warned), or 2
 * (refused, said). */
static int compare_decidable(const struct compare *c)
{
	const struct report *rep = c->rep;
	double alpha = c->o->alpha, pmin = 1.0;
	size_t tested = 0, can = 0, n1 = 0, n2 = 0;
	struct plan_design pd = {
		.n = 1, .rows = 1, .alpha = alpha, .beta = ABLAB_BETA, .margin = ABLAB_MARGIN
	};
	struct plan_result pr = { 0 };

	for (size_t i = 0; i < rep[0].nrows; i++) {
		const struct rep_row *ra = &rep[0].rows[i];
		int j = report_find(&rep[1], rep[0].boards[ra->board].name, ra->scenario);
		struct stats_row_result sr;

		for (int var = 0; j >= 0 && var < c->np && strcmp(ra->kind, "preserve"); var++) {
			if (cmp_rows(ra, c->pa[var], &rep[1].rows[j], c->pb[var], alpha,
				     ABLAB_MARGIN, &sr))
				continue;
			tested++;
			can += sr.p_min <= alpha;
			if (sr.p_min < pmin || !n1) {
				pmin = sr.p_min;
				n1 = sr.na;
				n2 = sr.nb;
			}
		}
	}
	if (!tested || can)
		return 0;
	plan_decidable(&pd, &pr);
	if (!c->o->undecidable_ok) {
		err_msg("compare: no row of campaigns %" PRId64 " and %" PRId64
			" can say \"different\" at alpha %g: the smallest p of %zu+%zu boots is %.3g; campaigns of %zu boots per kernel can; pass --undecidable-ok to compare anyway",
			c->id[0], c->id[1], alpha, n1, n2, pmin, pr.diff_n);
		return 2;
	}
	info_msg(
		"warning: no row can say \"different\" at alpha %g (the smallest p of %zu+%zu boots is %.3g): compared anyway (--undecidable-ok)",
		alpha, n1, n2, pmin);
	return 0;
}

/* The text header, or the JSON root (c->jroot, c->jrows). */
static void compare_header(struct compare *c)
{
	const struct report *rep = c->rep;

	if (!strcmp(c->o->format, "json")) {
		c->jroot = json_object_new_object();
		c->jrows = json_object_new_array();
		json_object_object_add(c->jroot, "a", json_object_new_int64(c->id[0]));
		json_object_object_add(c->jroot, "b", json_object_new_int64(c->id[1]));
		json_object_object_add(c->jroot, "alpha", json_object_new_double(c->o->alpha));
		json_object_object_add(c->jroot, "rows", c->jrows);
		return;
	}
	printf("campaign %" PRId64 " (%s, %s) -> campaign %" PRId64
	       " (%s, %s); change = B vs A, p: Mann-Whitney U on boot means, \"~\" = not significant at %g\n"
	       "\n",
	       c->id[0], rep[0].created, rep[0].trigger, c->id[1], rep[1].created, rep[1].trigger,
	       c->o->alpha);
	printf("  %-36s %11s %11s %9s p\n", "", "A", "B", "change");
}

static json_object *json_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* Variant pair var of rows ra (A) and rb (B): a line, or an object in jv. */
static void compare_variant(const struct compare *c, const struct rep_row *ra,
			    const struct rep_row *rb, int var, json_object *jv)
{
	const char *label = c->rep[1].vs.label[c->pb[var]];
	double alpha = c->o->alpha;
	struct stats_row_result sr;
	struct ab_result ab;
	char va[32], vb[32], ch[32], p[40];
	enum verdict verdict = VERDICT_UNDECIDED;

	/* the one comparison rule (compare.h): exact Mann-Whitney p of the boot
	 * means; undecided when no p these n allow reaches alpha, else different:
	 * significant, same: not significant */
	memset(&ab, 0, sizeof(ab));
	ab.a.mean = ab.b.mean = ab.rel_change = ab.p_mwu = NAN;
	if (!cmp_rows(ra, c->pa[var], rb, c->pb[var], alpha, ABLAB_MARGIN, &sr)) {
		ab.a.mean = sr.mean_a;
		ab.b.mean = sr.mean_b;
		ab.rel_change = sr.mean_a != 0.0 ? sr.mean_b / sr.mean_a - 1.0 : NAN;
		ab.p_mwu = sr.p;
		verdict = sr.p_min > alpha ? VERDICT_UNDECIDED :
			  sr.p <= alpha	   ? VERDICT_DIFFERENT :
					     VERDICT_SAME;
	}
	if (jv) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "n_a", json_object_new_int((int)sr.na));
		json_object_object_add(o, "n_b", json_object_new_int((int)sr.nb));
		json_object_object_add(o, "mean_a", json_num(ab.a.mean));
		json_object_object_add(o, "mean_b", json_num(ab.b.mean));
		json_object_object_add(o, "rel_change", json_num(ab.rel_change));
		json_object_object_add(o, "p_mwu", json_num(ab.p_mwu));
		json_object_object_add(
			o, "verdict",
			json_object_new_string(verdict == VERDICT_DIFFERENT ? "significant" :
					       verdict == VERDICT_SAME	    ? "not significant" :
									      "too few boots"));
		json_object_object_add(jv, label, o);
		return;
	}
	fmt_v(ra, va, sizeof(va), ab.a.mean);
	fmt_v(ra, vb, sizeof(vb), ab.b.mean);
	fmt_change(ch, sizeof(ch), ab.rel_change);
	if (verdict == VERDICT_UNDECIDED)
		snprintf(p, sizeof(p), "too few boots");
	else
		snprintf(p, sizeof(p), "%.3f%s", ab.p_mwu,
			 verdict == VERDICT_DIFFERENT ? "" : " ~");
	printf("    %-34s %11s %11s %9s %-13s  (n %zu, %zu)\n", label, va, vb,
	       verdict == VERDICT_SAME ? "~" : ch, p, sr.na, sr.nb);
}

/* Row ra of A against the same board and scenario's row rb of B. */
static void compare_row(struct compare *c, const struct rep_row *ra, const struct rep_row *rb)
{
	const struct report *rep = c->rep;
	const char *bname = rep[0].boards[ra->board].name;
	json_object *jo = NULL, *jv = NULL;
	char l[160], abl[VARIANT_LABEL_MAX + 16];

	report_row_label_full(&rep[0], ra, l, sizeof(l));
	if (c->jrows) {
		jo = json_object_new_object();
		json_object_object_add(jo, "board", json_object_new_string(bname));
		json_object_object_add(jo, "scenario", json_object_new_string(ra->scenario));
		json_object_object_add(jo, "label", json_object_new_string(l));
		/* an A/B campaign's "control" and "patched" beside the row's keys (as
		 * always); any other variant set's labels in "variants" */
		jv = jo;
		if (!variant_set_is_pair(&rep[1].vs)) {
			jv = json_object_new_object();
			json_object_object_add(jo, "variants", jv);
		}
	} else {
		printf("  %s\n", l);
	}
	for (int var = 0; var < c->np; var++)
		compare_variant(c, ra, rb, var, jv);
	if (jo) {
		json_object_object_add(jo, "ab_change_a", json_num(ra->ab.rel_change));
		json_object_object_add(jo, "ab_change_b", json_num(rb->ab.rel_change));
		json_object_array_add(c->jrows, jo);
	} else {
		char ca[32], cb[32], cia[48], cib[48];

		snprintf(abl, sizeof(abl), "%s vs control", rep[1].vs.label[rep[1].vs.n - 1]);
		fmt_change(ca, sizeof(ca), ra->ab.rel_change);
		fmt_change(cb, sizeof(cb), rb->ab.rel_change);
		fmt_ci(cia, sizeof(cia), ra->ab.ci_lo, ra->ab.ci_hi);
		fmt_ci(cib, sizeof(cib), rb->ab.ci_lo, rb->ab.ci_hi);
		printf("    %-34s %11s %11s   95%% CI %s -> %s\n", abl, ca, cb, cia, cib);
	}
}

/* The comparison of c->id[0] and c->id[1], analysed in c->rep: 0, 1 or 2. */
static int compare_print(struct compare *c)
{
	int ret, matched = 0;

	c->np = cmp_variant_pairs(&c->rep[0], &c->rep[1], c->pa, c->pb);
	ret = compare_decidable(c);
	if (ret)
		return ret;
	compare_header(c);
	for (size_t i = 0; i < c->rep[0].nrows; i++) {
		const struct rep_row *ra = &c->rep[0].rows[i];
		int j = report_find(&c->rep[1], c->rep[0].boards[ra->board].name, ra->scenario);

		if (j < 0)
			continue;
		matched++;
		compare_row(c, ra, &c->rep[1].rows[j]);
	}
	if (c->jroot) {
		printf("%s\n",
		       json_object_to_json_string_ext(c->jroot, JSON_C_TO_STRING_PRETTY |
									JSON_C_TO_STRING_SPACED));
		json_object_put(c->jroot);
	} else if (!matched) {
		printf("  (no board and scenario in common)\n");
	}
	return 0;
}

/* Campaigns o->id (or o->id[0] and its previous nightly) compared on stdout: the
 * exit status. */
static int compare_run(const struct compare_opts *o)
{
	struct compare c = { .o = o, .id = { o->id[0], o->id[1] } };
	struct store st;
	int ret = 0;

	if (store_open(&st, opt_db))
		return 1;
	if (o->previous) {
		c.id[1] = c.id[0];
		if (previous_nightly(&st, c.id[1], &c.id[0])) {
			store_close(&st);
			return 1;
		}
	}
	if (load_analysed(&st, c.id[0], &c.rep[0], o->alpha, NULL) ||
	    load_analysed(&st, c.id[1], &c.rep[1], o->alpha, NULL))
		ret = 1;
	else
		ret = compare_print(&c);
	report_free(&c.rep[0]);
	report_free(&c.rep[1]);
	store_close(&st);
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_opts o = { .format = "text", .alpha = ABLAB_ALPHA };
	int ret = parse_compare_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	return compare_run(&o);
}
