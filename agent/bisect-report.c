// SPDX-License-Identifier: GPL-2.0-only
/* The step table of a bisect (`ablab bisect-report`): each step's commit, campaign and
 * verdict, and the closing result. */
#include "bisect.h"
#include "bisect-int.h"
#include "store-bisect.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the step table ---- */

static void pct(char *out, size_t len, PGresult *r, int row, int col)
{
	if (PQgetisnull(r, row, col))
		snprintf(out, len, "-");
	else
		snprintf(out, len, "%+.1f%%", 100.0 * strtod(PQgetvalue(r, row, col), NULL));
}

int bisect_report(struct store *st, int64_t id, FILE *f)
{
	double build_s = 0, camp_s = 0;
	int nsteps, ncamp = 0, i;
	char *first = NULL;
	PGresult *h, *r;

	h = store_bisect_header(st, id);
	if (!h)
		return -EIO;
	if (PQntuples(h) != 1) {
		err_msg("no bisect %" PRId64 " in the database", id);
		PQclear(h);
		return -ENOENT;
	}
	r = store_bisect_step_table(st, id);
	if (!r) {
		PQclear(h);
		return -EIO;
	}
	fprintf(f, "Bisect %" PRId64 " (%s): board %s, %s, tree %s\n", id, PQgetvalue(h, 0, 10),
		PQgetvalue(h, 0, 0), PQgetvalue(h, 0, 1), PQgetvalue(h, 0, 2));
	fprintf(f, "good %.12s (%s), bad %.12s (%s): %s commits on the first-parent history\n",
		PQgetvalue(h, 0, 3), PQgetvalue(h, 0, 5), PQgetvalue(h, 0, 4), PQgetvalue(h, 0, 6),
		PQgetvalue(h, 0, 7));
	fprintf(f,
		"each step: the commit's kernel (patched) against good's (control), a sequential campaign of at most %s+%s boots from %s+%s on\n",
		PQgetvalue(h, 0, 11), PQgetvalue(h, 0, 11), PQgetvalue(h, 0, 12),
		PQgetvalue(h, 0, 12));
	{
		double m = strtod(PQgetvalue(h, 0, 13), NULL), e = NAN;

		for (i = 0; i < PQntuples(r); i++)
			if (!strcmp(PQgetvalue(r, i, 1), "check") &&
			    !strcmp(PQgetvalue(r, i, 5), "different") && !PQgetisnull(r, i, 6))
				e = strtod(PQgetvalue(r, i, 6), NULL);
		fprintf(f, "\"same\": within +-%g%% for bad against good", m);
		if (isfinite(e))
			fprintf(f,
				", within +-%g%% for the steps (half of bad's change %+.1f%%, at most %g%%: a commit with less of it is on good's side)",
				step_margin_pct(m, e, false), 100.0 * e, STEP_MARGIN_MAX_PCT);
		fprintf(f, "\n\n");
	}
	fprintf(f, "%4s  %-12s  %-5s  %-12s  %8s  %5s  %-12s  %8s  %-19s  %7s  %7s\n", "step",
		"commit", "role", "build", "campaign", "boots", "verdict", "change", "CI",
		"build s", "camp s");
	nsteps = PQntuples(r);
	for (i = 0; i < nsteps; i++) {
		char ch[24], lo[24], hi[24], ci[sizeof(lo) + sizeof(hi) + 4], verdict[32];
		const char *v = PQgetvalue(r, i, 5);

		pct(ch, sizeof(ch), r, i, 6);
		pct(lo, sizeof(lo), r, i, 7);
		pct(hi, sizeof(hi), r, i, 8);
		if (PQgetisnull(r, i, 7))
			snprintf(ci, sizeof(ci), "-");
		else
			snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
		if (!strcmp(v, "build-failed"))
			snprintf(verdict, sizeof(verdict), "skip: no build");
		else if (!strcmp(v, "running") && !strcmp(PQgetvalue(r, i, 16), "interrupted"))
			snprintf(verdict, sizeof(verdict), "interrupted");
		else
			snprintf(verdict, sizeof(verdict), "%s", v);
		if (!strcmp(v, "undecided") && atoi(PQgetvalue(r, i, 15)) >= 2)
			snprintf(verdict, sizeof(verdict), "skip: undecided");
		fprintf(f, "%4s  %.12s  %-5s  %-12s  %8s  %5s  %-12s  %8s  %-19s  %7.1f  %7.1f\n",
			PQgetvalue(r, i, 0), PQgetvalue(r, i, 2), PQgetvalue(r, i, 1),
			PQgetvalue(r, i, 3), PQgetvalue(r, i, 4),
			strcmp(PQgetvalue(r, i, 4), "-") ? PQgetvalue(r, i, 14) : "-", verdict, ch,
			ci, strtod(PQgetvalue(r, i, 9), NULL), strtod(PQgetvalue(r, i, 10), NULL));
		if (*PQgetvalue(r, i, 11))
			fprintf(f, "      %s (log %s)\n", PQgetvalue(r, i, 11),
				PQgetvalue(r, i, 12));
		build_s += strtod(PQgetvalue(r, i, 9), NULL);
		camp_s += strtod(PQgetvalue(r, i, 10), NULL);
		ncamp += strcmp(PQgetvalue(r, i, 4), "-") != 0;
	}
	fprintf(f,
		"\n%d step%s (%d with a campaign): builds %.1f s, campaigns %.1f s, total %.1f s\n",
		nsteps, nsteps == 1 ? "" : "s", ncamp, build_s, camp_s, build_s + camp_s);
	fprintf(f, "status: %s\n", PQgetvalue(h, 0, 8));
	if (*PQgetvalue(h, 0, 9))
		fprintf(f, "%s\n", PQgetvalue(h, 0, 9));
	/* the effect of the first changed commit: its campaign against good */
	if (!strcmp(PQgetvalue(h, 0, 8), "found"))
		store_bisect_first_changed(st, id, &first);
	for (i = nsteps - 1; i >= 0 && first; i--) {
		if (!strcmp(first, PQgetvalue(r, i, 2)) &&
		    !strcmp(PQgetvalue(r, i, 5), "different")) {
			char ch[24], lo[24], hi[24];

			pct(ch, sizeof(ch), r, i, 6);
			pct(lo, sizeof(lo), r, i, 7);
			pct(hi, sizeof(hi), r, i, 8);
			fprintf(f, "its effect against good: %s %s", PQgetvalue(r, i, 13), ch);
			if (!PQgetisnull(r, i, 7))
				fprintf(f, " (%.0f%% CI %s .. %s)",
					PQgetisnull(r, i, 17) ?
						95.0 :
						100.0 * strtod(PQgetvalue(r, i, 17), NULL),
					lo, hi);
			fprintf(f, ", campaign %s (`ablab report %s`)\n", PQgetvalue(r, i, 4),
				PQgetvalue(r, i, 4));
			break;
		}
	}
	free(first);
	PQclear(r);
	PQclear(h);
	return 0;
}
