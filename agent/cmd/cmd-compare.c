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
	struct report_opts o = { .alpha = alpha, .target = 0.01, .only_scenario = only_scenario };
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

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "previous", 0, NULL, 'p' },	    { "alpha", 1, NULL, 'a' },
		{ "format", 1, NULL, 'f' },	    { "help", 0, NULL, 'h' },
		{ "undecidable-ok", 0, NULL, 'Y' }, { NULL, 0, NULL, 0 }
	};
	const char *format = "text";
	bool previous = false, undecidable_ok = false;
	double alpha = 0.05;
	int64_t id[2] = { 0, 0 };
	struct report rep[2];
	json_object *jroot = NULL, *jrows = NULL;
	struct store st;
	int c, ret = 0, matched = 0, np, pa[VARIANTS_MAX], pb[VARIANTS_MAX];
	char abl[VARIANT_LABEL_MAX + 16];
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			previous = true;
			break;
		case 'a':
			if (parse_alpha_opt(optarg, &alpha))
				return 2;
			break;
		case 'f':
			format = optarg;
			break;
		case 'Y':
			undecidable_ok = true;
			break;
		case 'h':
			printf("usage: ablab compare A B | ablab compare A --previous [--format text|json] [--alpha A]\n"
			       "Per board and scenario: each kernel's boot means in campaign A against campaign B (change from A to B,\n"
			       "Mann-Whitney p; a series: each variant B has against the same label in A), and the\n"
			       "patched-vs-control change of both (a series: its last variant's). --previous: B = A, and A = the\n"
			       "previous nightly campaign of the same job.  Refused (exit 2) when no row's boots\n"
			       "can reach p <= alpha at all (e.g. 3+3: 0.1), naming the boots that can;\n"
			       "--undecidable-ok compares anyway.\n");
			return 0;
		default:
			return 2;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json")) {
		err_msg("compare: --format \"%s\" is not one of text, json", format);
		return 2;
	}
	if (argc - optind != (previous ? 1 : 2)) {
		err_msg("usage: ablab compare A B, or ablab compare A --previous");
		return 2;
	}
	for (int i = 0; i < argc - optind; i++) {
		if (parse_int_opt("CAMPAIGN", argv[optind + i], 1, 0x7fffffffL, &v))
			return 2;
		id[i] = v;
	}
	if (store_open(&st, opt_db))
		return 1;
	if (previous) {
		id[1] = id[0];
		if (previous_nightly(&st, id[1], &id[0])) {
			store_close(&st);
			return 1;
		}
	}
	memset(rep, 0, sizeof(rep));
	if (load_analysed(&st, id[0], &rep[0], alpha, NULL) ||
	    load_analysed(&st, id[1], &rep[1], alpha, NULL)) {
		ret = 1;
		goto out;
	}
	/* can any row say "different"?  Each is tested alone at alpha: its smallest p
	 * 2 / C(na + nb, na) must reach it */
	np = cmp_variant_pairs(&rep[0], &rep[1], pa, pb);
	{
		size_t tested = 0, can = 0, n1 = 0, n2 = 0;
		double pmin = 1.0;

		for (size_t i = 0; i < rep[0].nrows; i++) {
			const struct rep_row *ra = &rep[0].rows[i];
			int j = report_find(&rep[1], rep[0].boards[ra->board].name, ra->scenario);
			struct stats_row_result sr;

			for (int var = 0; j >= 0 && var < np && strcmp(ra->kind, "preserve");
			     var++) {
				if (cmp_rows(ra, pa[var], &rep[1].rows[j], pb[var], alpha, 0.01,
					     &sr))
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
		if (tested && !can) {
			struct plan_design pd = {
				.n = 1, .rows = 1, .alpha = alpha, .beta = 0.05, .margin = 0.01
			};
			struct plan_result pr = { 0 };

			plan_decidable(&pd, &pr);
			if (!undecidable_ok) {
				err_msg("compare: no row of campaigns %" PRId64 " and %" PRId64
					" can say \"different\" at alpha %g: the smallest p of %zu+%zu boots is %.3g; campaigns of %zu boots per kernel can; pass --undecidable-ok to compare anyway",
					id[0], id[1], alpha, n1, n2, pmin, pr.diff_n);
				ret = 2;
				goto out;
			}
			info_msg(
				"warning: no row can say \"different\" at alpha %g (the smallest p of %zu+%zu boots is %.3g): compared anyway (--undecidable-ok)",
				alpha, n1, n2, pmin);
		}
	}
	if (!strcmp(format, "json")) {
		jroot = json_object_new_object();
		jrows = json_object_new_array();
		json_object_object_add(jroot, "a", json_object_new_int64(id[0]));
		json_object_object_add(jroot, "b", json_object_new_int64(id[1]));
		json_object_object_add(jroot, "alpha", json_object_new_double(alpha));
		json_object_object_add(jroot, "rows", jrows);
	} else {
		printf("campaign %" PRId64 " (%s, %s) -> campaign %" PRId64
		       " (%s, %s); change = B vs A, p: Mann-Whitney U on boot means, \"~\" = not significant at %g\n"
		       "\n",
		       id[0], rep[0].created, rep[0].trigger, id[1], rep[1].created, rep[1].trigger,
		       alpha);
		printf("  %-36s %11s %11s %9s p\n", "", "A", "B", "change");
	}
	/* each variant of B against the same label in A (control, patched; a series' +1, ...):
	 * np, pa, pb above */
	snprintf(abl, sizeof(abl), "%s vs control", rep[1].vs.label[rep[1].vs.n - 1]);
	for (size_t i = 0; i < rep[0].nrows; i++) {
		const struct rep_row *ra = &rep[0].rows[i], *rb;
		const char *bname = rep[0].boards[ra->board].name;
		int j = report_find(&rep[1], bname, ra->scenario);
		char l[160];
		json_object *jo = NULL, *jv = NULL;

		if (j < 0)
			continue;
		rb = &rep[1].rows[j];
		matched++;
		report_row_label_full(&rep[0], ra, l, sizeof(l));
		if (jrows) {
			jo = json_object_new_object();
			json_object_object_add(jo, "board", json_object_new_string(bname));
			json_object_object_add(jo, "scenario",
					       json_object_new_string(ra->scenario));
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
		for (int var = 0; var < np; var++) {
			const char *label = rep[1].vs.label[pb[var]];
			struct stats_row_result sr;
			struct ab_result ab;
			char va[32], vb[32], ch[32], p[40];
			size_t na, nb;
			enum verdict verdict = VERDICT_UNDECIDED;

			/* the one comparison rule (compare.h): exact Mann-Whitney p of the boot
			 * means; undecided when no p these n allow reaches alpha, else
			 * different: significant, same: not significant */
			memset(&ab, 0, sizeof(ab));
			ab.a.mean = ab.b.mean = ab.rel_change = ab.p_mwu = NAN;
			if (!cmp_rows(ra, pa[var], rb, pb[var], alpha, 0.01, &sr)) {
				ab.a.mean = sr.mean_a;
				ab.b.mean = sr.mean_b;
				ab.rel_change = sr.mean_a != 0.0 ? sr.mean_b / sr.mean_a - 1.0 :
								   NAN;
				ab.p_mwu = sr.p;
				verdict = sr.p_min > alpha ? VERDICT_UNDECIDED :
					  sr.p <= alpha	   ? VERDICT_DIFFERENT :
							     VERDICT_SAME;
			}
			na = sr.na;
			nb = sr.nb;
			if (jo) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "n_a", json_object_new_int((int)na));
				json_object_object_add(o, "n_b", json_object_new_int((int)nb));
				json_object_object_add(o, "mean_a",
						       isnan(ab.a.mean) ?
							       NULL :
							       json_object_new_double(ab.a.mean));
				json_object_object_add(o, "mean_b",
						       isnan(ab.b.mean) ?
							       NULL :
							       json_object_new_double(ab.b.mean));
				json_object_object_add(
					o, "rel_change",
					isnan(ab.rel_change) ?
						NULL :
						json_object_new_double(ab.rel_change));
				json_object_object_add(
					o, "p_mwu",
					isnan(ab.p_mwu) ? NULL : json_object_new_double(ab.p_mwu));
				json_object_object_add(
					o, "verdict",
					json_object_new_string(
						verdict == VERDICT_DIFFERENT ? "significant" :
						verdict == VERDICT_SAME	     ? "not significant" :
									       "too few boots"));
				json_object_object_add(jv, label, o);
				continue;
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
			       verdict == VERDICT_SAME ? "~" : ch, p, na, nb);
		}
		if (jo) {
			json_object_object_add(jo, "ab_change_a",
					       isnan(ra->ab.rel_change) ?
						       NULL :
						       json_object_new_double(ra->ab.rel_change));
			json_object_object_add(jo, "ab_change_b",
					       isnan(rb->ab.rel_change) ?
						       NULL :
						       json_object_new_double(rb->ab.rel_change));
			json_object_array_add(jrows, jo);
		} else {
			char ca[32], cb[32], cia[48], cib[48];

			fmt_change(ca, sizeof(ca), ra->ab.rel_change);
			fmt_change(cb, sizeof(cb), rb->ab.rel_change);
			fmt_ci(cia, sizeof(cia), ra->ab.ci_lo, ra->ab.ci_hi);
			fmt_ci(cib, sizeof(cib), rb->ab.ci_lo, rb->ab.ci_hi);
			printf("    %-34s %11s %11s   95%% CI %s -> %s\n", abl, ca, cb, cia, cib);
		}
	}
	if (jroot) {
		printf("%s\n", json_object_to_json_string_ext(
				       jroot, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
		json_object_put(jroot);
	} else if (!matched) {
		printf("  (no board and scenario in common)\n");
	}
out:
	report_free(&rep[0]);
	report_free(&rep[1]);
	store_close(&st);
	return ret;
}
