/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_REPORT_INT_H
#define ABLAB_REPORT_INT_H

/* Inside the report: what its rooms share (report.h is the public side).
 *   report-model.c   load (SQL in store-report.c) and analyse
 *   report-prose.c   formatting, cells, the method paragraph, design advice
 *   report-text.c    text, email          report-data.c   json, csv
 *   report-svg.c     svg, html            report.c        the format table
 *   report-series.c  a series campaign's comparisons and attribution table
 *   report-kcidb.c   kcidb (a KernelCI results database submission)
 *   report-env.c     each board's environment changes (envdiff.c compares)
 *   report-cells.c   row kinds, boot means, the sequential decision (below the others)
 * Calls go one way: cells <- prose <- series <- model <- the renderers <- report.c. */
#include "report/report.h"

#include <stdbool.h>
#include <stdio.h>

#define EMAIL_WIDTH 72
#define NBSP '\001' /* a space report_wrap() does not break at */

/* report-cells.c */
bool rep_is_pres(const struct rep_row *r); /* the preservation check (bytes lost) */
bool rep_is_null(const struct rep_row *r); /* the null call */
bool rep_design_row(const struct rep_row *r); /* a timing row that design advice covers */
/* one sequential test: the boots of variants a and b of rows[row] (by_position: positions
 * in report.vs, else control 0 / patched 1); out: the look its boots reached (1-based, 0:
 * none, the rest unset), the enum seq_decision there (SEQ_UNDECIDED after the last look),
 * the verdict and the repeated CI (lo NAN: none) */
struct rep_seq_test {
	size_t row;
	int a, b;
	bool by_position;
	int look, seq;
	enum verdict verdict;
	double lo, hi, conf;
};
void rep_seq_decide(struct report *rep, bool (*in_family)(const struct rep_row *), size_t per_row,
		    struct rep_seq_test *t, size_t nt);

/* report-env.c: each board's env and env_changed from its boots' fingerprints; -EIO */
struct store;
int rep_load_envs(struct store *st, struct report *rep);

/* report-prose.c */
void rep_fmt_val(const struct rep_row *r, char *out, size_t len, double v);
const char *rep_row_sep(const struct rep_row *r);
void rep_verdict_cell(const struct report *rep, const struct rep_row *r, char *out, size_t len);
void rep_change_cell(const struct rep_row *r, char *out, size_t len, bool mark);
void rep_p_cell(const struct rep_row *r, char *out, size_t len);
void rep_padj_cell(const struct rep_row *r, char *out, size_t len);
void rep_ci_cells(const struct rep_row *r, char *ci, size_t cilen, char *conf, size_t clen);
/* "1 of 30 batches left out: REASON" (the first one's), "" when the row left none out */
void rep_left_out_text(const struct rep_row *r, char *out, size_t len);
char *rep_method_paragraph(const struct report *rep, bool email); /* malloc'd */
/* what an emulated board's figures are, once per report: sentences each after a space */
struct buf;
void rep_emulated_words(const struct report *rep, struct buf *o, bool email);
char *rep_design_text(const struct report *rep); /* malloc'd */

/* report-series.c: a series campaign's comparisons (rep->cmp), their table */
void rep_series_analyse(struct report *rep, const struct report_opts *o);
void rep_write_series(const struct report *rep, FILE *f, size_t width);
/* comparisons of board still open at their sequential look; *total, decided counts */
int rep_series_open(const struct report *rep, const char *board, size_t *total, size_t *ndiff,
		    size_t *nsame);

/* the renderers, one per format (report.c lists them) */
void rep_write_text(const struct report *rep, const struct report_opts *o, FILE *f);
void rep_write_email(const struct report *rep, FILE *f);
void rep_write_json(const struct report *rep, FILE *f);
void rep_write_csv(const struct report *rep, const struct report_opts *o, FILE *f);
void rep_write_svg(const struct report *rep, FILE *f);
void rep_write_html(const struct report *rep, FILE *f);
void rep_write_kcidb(const struct report *rep, FILE *f); /* report-kcidb.c */

#endif
