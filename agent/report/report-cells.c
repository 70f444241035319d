// SPDX-License-Identifier: GPL-2.0-only
/* What every room of the report asks of a row, below the model (report-model.c), the
 * series comparisons (report-series.c) and the words (report-prose.c): which kind of row
 * it is, its boot means, and the sequential decision of a family of tests. */
#include "report/report.h"
#include "report/report-int.h"
#include "stats/seqtest.h"
#include "shared/util.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rep_is_pres(const struct rep_row *r)
{
	return !strcmp(r->kind, "preserve");
}

bool rep_is_null(const struct rep_row *r)
{
	return !strcmp(r->op, "null");
}

double *report_boot_means(const struct rep_row *r, int var, bool by_position, size_t *n)
{
	double *v = xcalloc(r->nboots + 1, sizeof(double));

	*n = 0;
	for (size_t i = 0; i < r->nboots; i++)
		if ((by_position ? r->boots[i].vi : r->boots[i].variant) == var)
			v[(*n)++] = r->boots[i].s.mean;
	return v;
}

bool rep_design_row(const struct rep_row *r)
{
	return !rep_is_pres(r) && !rep_is_null(r);
}

/* Sequential campaigns: the decision at the look each test's boots reached.  One design
 * per board: each test of board bi is made at alpha / (boards x per_row x rows of bi that
 * in_family() takes), so the campaign's false-alarm rate stays <= alpha (Bonferroni: the
 * engine decides a board with the same numbers before the other boards' rows exist).
 * rep->seq gets the schedule and the last board's design. */
void rep_seq_decide(struct report *rep, bool (*in_family)(const struct rep_row *), size_t per_row,
		    struct rep_seq_test *t, size_t nt)
{
	size_t na[SEQ_MAX_LOOKS], nb[SEQ_MAX_LOOKS];
	int nl = seq_schedule_balanced((size_t)rep->seq.first, 2 * (size_t)rep->seq.budget, na, nb,
				       SEQ_MAX_LOOKS);

	for (size_t j = 0; j < nt; j++) {
		t[j].look = 0;
		t[j].seq = -1;
		t[j].verdict = VERDICT_UNDECIDED;
		t[j].lo = t[j].hi = t[j].conf = NAN;
	}
	if (nl <= 0)
		return;
	for (size_t bi = 0; bi < rep->nboards; bi++) {
		struct seq_design d;
		size_t m = 0,
		       nboards = rep->seq.boards > 0 ? (size_t)rep->seq.boards : rep->nboards;

		for (size_t i = 0; i < rep->nrows; i++)
			m += rep->rows[i].board == (int)bi && in_family(&rep->rows[i]);
		if (!m || seq_design_init(&d, na, nb, (size_t)nl,
					  rep->seq.alpha / (double)(m * per_row * nboards),
					  rep->seq.beta, rep->margin, 0, SEQ_DEFAULT_SEED))
			continue;
		rep->seq.nlooks = (size_t)nl;
		rep->seq.row_alpha = d.alpha;
		rep->seq.fpr = d.fpr;
		rep->seq.fpr_se = d.fpr_se;
		rep->seq.same_err = d.same_err;
		rep->seq.p_diff = d.p_diff;
		rep->seq.p_eq = d.p_eq;
		rep->seq.nrows_tested = m * per_row * nboards;
		rep->seq.bounds[0] = '\0';
		for (size_t k = 0, len = 0; k < d.nlooks && len < sizeof(rep->seq.bounds); k++)
			len += (size_t)snprintf(rep->seq.bounds + len,
						sizeof(rep->seq.bounds) - len, "%s%zu+%zu:%ld/%ld",
						k ? " " : "", d.look[k].na, d.look[k].nb,
						d.look[k].u_diff, d.look[k].u_eq);
		for (size_t j = 0; j < nt; j++) {
			const struct rep_row *r = &rep->rows[t[j].row];
			struct seq_result sr;
			size_t n1, n2;
			double *a, *b;

			if (r->board != (int)bi)
				continue;
			a = report_boot_means(r, t[j].a, t[j].by_position, &n1);
			b = report_boot_means(r, t[j].b, t[j].by_position, &n2);
			for (size_t k = 0; k < (size_t)nl; k++) {
				if (na[k] != n1 || nb[k] != n2 ||
				    seq_decide(&d, k, a, n1, b, n2, &sr))
					continue;
				t[j].look = (int)k + 1;
				t[j].seq = sr.decision == SEQ_CONTINUE && k + 1 == (size_t)nl ?
						   SEQ_UNDECIDED :
						   (int)sr.decision;
				t[j].verdict = t[j].seq == SEQ_DIFFERENT ? VERDICT_DIFFERENT :
					       t[j].seq == SEQ_SAME	 ? VERDICT_SAME :
									   VERDICT_UNDECIDED;
				if (!isnan(sr.rci_rel.lo)) {
					/* the repeated CI keeps its promise at a data-dependent stop */
					t[j].lo = sr.rci_rel.lo;
					t[j].hi = sr.rci_rel.hi;
					t[j].conf = 1.0 - d.fpr;
				}
			}
			free(a);
			free(b);
		}
	}
}
