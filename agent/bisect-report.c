// SPDX-License-Identifier: GPL-2.0-only
/* The step table of a bisect (`ablab bisect-report`): each step's commit, campaign and
 * verdict, and the closing result. */
#include "bisect.h"
#include "bisect-int.h"
#include "store/store-bisect.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the step table ---- */

static void pct(char *out, size_t len, const struct store_rows *r, int row, int col)
{
	if (!store_cell(r, row, col))
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%+.1f%%", 100.0 * strtod(store_text(r, row, col), NULL));
}

/* The bisect's header lines (h: its row; r: its steps, for bad's change). */
static void report_head(FILE *f, int64_t id, const struct store_rows *h, const struct store_rows *r)
{
	double m = strtod(store_text(h, 0, BH_MARGIN_PCT), NULL), e = NAN;

	fprintf(f, "Bisect %" PRId64 " (%s): board %s, %s, tree %s\n", id,
		store_text(h, 0, BH_CREATED), store_text(h, 0, BH_BOARD),
		store_text(h, 0, BH_SCENARIO), store_text(h, 0, BH_TREE));
	fprintf(f, "good %.12s (%s), bad %.12s (%s): %s commits on the first-parent history\n",
		store_text(h, 0, BH_GOOD), store_text(h, 0, BH_GOOD_REF), store_text(h, 0, BH_BAD),
		store_text(h, 0, BH_BAD_REF), store_text(h, 0, BH_NCOMMITS));
	fprintf(f,
		"each step: the commit's kernel (patched) against good's (control), a sequential campaign of at most %s+%s boots from %s+%s on\n",
		store_text(h, 0, BH_BUDGET), store_text(h, 0, BH_BUDGET),
		store_text(h, 0, BH_FIRST), store_text(h, 0, BH_FIRST));
	for (int i = 0; i < (int)r->nrows; i++)
		if (!strcmp(store_text(r, i, BT_ROLE), "check") &&
		    !strcmp(store_text(r, i, BT_VERDICT), "different") &&
		    !!store_cell(r, i, BT_CHANGE))
			e = strtod(store_text(r, i, BT_CHANGE), NULL);
	fprintf(f, "\"same\": within +-%g%% for bad against good", m);
	if (isfinite(e))
		fprintf(f,
			", within +-%g%% for the steps (half of bad's change %+.1f%%, at most %g%%: a commit with less of it is on good's side)",
			step_margin_pct(m, e, false), 100.0 * e, STEP_MARGIN_MAX_PCT);
	fprintf(f, "\n\n");
}

/* Step i's line of the table (and its build failure's). */
static void report_step(FILE *f, const struct store_rows *r, int i)
{
	char ch[24], lo[24], hi[24], ci[sizeof(lo) + sizeof(hi) + 4], verdict[32];
	const char *v = store_text(r, i, BT_VERDICT);

	pct(ch, sizeof(ch), r, i, BT_CHANGE);
	pct(lo, sizeof(lo), r, i, BT_CI_LO);
	pct(hi, sizeof(hi), r, i, BT_CI_HI);
	if (!store_cell(r, i, BT_CI_LO))
		snprintf(ci, sizeof(ci), "-");
	else
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
	if (!strcmp(v, "build-failed"))
		snprintf(verdict, sizeof(verdict), "skip: no build");
	else if (!strcmp(v, "running") &&
		 !strcmp(store_text(r, i, BT_CAMPAIGN_STATUS), "interrupted"))
		snprintf(verdict, sizeof(verdict), "interrupted");
	else
		snprintf(verdict, sizeof(verdict), "%s", v);
	if (!strcmp(v, "undecided") && atoi(store_text(r, i, BT_TRY)) >= 2)
		snprintf(verdict, sizeof(verdict), "skip: undecided");
	fprintf(f, "%4s  %.12s  %-5s  %-12s  %8s  %5s  %-12s  %8s  %-19s  %7.1f  %7.1f\n",
		store_text(r, i, BT_N), store_text(r, i, BT_COMMIT), store_text(r, i, BT_ROLE),
		store_text(r, i, BT_BUILD), store_text(r, i, BT_CAMPAIGN),
		strcmp(store_text(r, i, BT_CAMPAIGN), "-") ? store_text(r, i, BT_BOOTS) : "-",
		verdict, ch, ci, strtod(store_text(r, i, BT_BUILD_S), NULL),
		strtod(store_text(r, i, BT_CAMPAIGN_S), NULL));
	if (*store_text(r, i, BT_NOTE))
		fprintf(f, "      %s (log %s)\n", store_text(r, i, BT_NOTE),
			store_text(r, i, BT_LOG_PATH));
}

/* The effect of the first changed commit: its campaign against good. */
static void report_effect(struct store *st, int64_t id, FILE *f, const struct store_rows *h,
			  const struct store_rows *r)
{
	char *first = NULL;

	if (!strcmp(store_text(h, 0, BH_STATUS), "found"))
		store_bisect_first_changed(st, id, &first);
	for (int i = (int)r->nrows - 1; i >= 0 && first; i--) {
		if (!strcmp(first, store_text(r, i, BT_COMMIT)) &&
		    !strcmp(store_text(r, i, BT_VERDICT), "different")) {
			char ch[24], lo[24], hi[24];

			pct(ch, sizeof(ch), r, i, BT_CHANGE);
			pct(lo, sizeof(lo), r, i, BT_CI_LO);
			pct(hi, sizeof(hi), r, i, BT_CI_HI);
			fprintf(f, "its effect against good: %s %s", store_text(r, i, BT_SCENARIO),
				ch);
			if (!!store_cell(r, i, BT_CI_LO))
				fprintf(f, " (%.0f%% CI %s .. %s)",
					!store_cell(r, i, BT_CI_CONF) ?
						95.0 :
						100.0 * strtod(store_text(r, i, BT_CI_CONF), NULL),
					lo, hi);
			fprintf(f, ", campaign %s (`ablab report %s`)\n",
				store_text(r, i, BT_CAMPAIGN), store_text(r, i, BT_CAMPAIGN));
			break;
		}
	}
	free(first);
}

int bisect_report(struct store *st, int64_t id, FILE *f)
{
	double build_s = 0, camp_s = 0;
	int nsteps, ncamp = 0, i;
	struct store_rows h, r;

	if (store_bisect_header(st, id, &h))
		return -EIO;
	if ((int)h.nrows != 1) {
		err_msg("no bisect %" PRId64 " in the database", id);
		store_rows_free(&h);
		return -ENOENT;
	}
	if (store_bisect_step_table(st, id, &r)) {
		store_rows_free(&h);
		return -EIO;
	}
	report_head(f, id, &h, &r);
	fprintf(f, "%4s  %-12s  %-5s  %-12s  %8s  %5s  %-12s  %8s  %-19s  %7s  %7s\n", "step",
		"commit", "role", "build", "campaign", "boots", "verdict", "change", "CI",
		"build s", "camp s");
	nsteps = (int)r.nrows;
	for (i = 0; i < nsteps; i++) {
		report_step(f, &r, i);
		build_s += strtod(store_text(&r, i, BT_BUILD_S), NULL);
		camp_s += strtod(store_text(&r, i, BT_CAMPAIGN_S), NULL);
		ncamp += strcmp(store_text(&r, i, BT_CAMPAIGN), "-") != 0;
	}
	fprintf(f,
		"\n%d step%s (%d with a campaign): builds %.1f s, campaigns %.1f s, total %.1f s\n",
		nsteps, nsteps == 1 ? "" : "s", ncamp, build_s, camp_s, build_s + camp_s);
	fprintf(f, "status: %s\n", store_text(&h, 0, BH_STATUS));
	if (*store_text(&h, 0, BH_RESULT))
		fprintf(f, "%s\n", store_text(&h, 0, BH_RESULT));
	report_effect(st, id, f, &h, &r);
	store_rows_free(&r);
	store_rows_free(&h);
	return 0;
}
