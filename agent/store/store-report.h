/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_REPORT_H
#define ABLAB_STORE_REPORT_H

/* The report's queries (store-report.c): the rows into *t, 0 or -EIO on a database error
 * (printed).  The caller store_rows_free()s them; the columns are those report-model.c
 * reads. */
#include "store/store.h"

#include <stdint.h>

int store_report_campaign(struct store *st, int64_t campaign, struct store_rows *t);
int store_report_boards(struct store *st, int64_t campaign, struct store_rows *t);
int store_report_samples(struct store *st, int64_t campaign, struct store_rows *t);
int store_report_calibrations(struct store *st, int64_t campaign, struct store_rows *t);
/* a series campaign's variants: position, label, patch (no rows for an A/B campaign) */
int store_report_variants(struct store *st, int64_t campaign, struct store_rows *t);

#endif
