/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_REPORT_H
#define ABLAB_STORE_REPORT_H

/* The report's queries (store-report.c): the rows into *t, 0 or -EIO on a database error
 * (printed).  The caller store_rows_free()s them; report-model.c reads them. */
#include "store/store.h"

#include <stdint.h>

/* Each query's columns, in the order of its SELECT (store-report.c): readers name them. */

/* the campaign: one row, none without such a campaign */
enum store_report_campaign_col {
	RC_TRIGGER,
	RC_ORDER_KIND,
	RC_STATUS,
	RC_CREATED,
	RC_JOB,
	RC_BATCHES,
	RC_BOOTS_PER_VARIANT,
	RC_SEED,
	RC_SEQ_FIRST,
	RC_SEQ_BUDGET,
	RC_SEQ_ALPHA,
	RC_SEQ_BETA,
	RC_SEQ_BOARDS,
	RC_MARGIN_PCT,
	RC_SERIES_MSGID,
	RC_SERIES_SUBJECT,
	RC_SERIES_VERSION,
	RC_SERIES_PATCHES,
	RC_UNDECIDABLE,
};
int store_report_campaign(struct store *st, int64_t campaign, struct store_rows *t);

/* per board of the campaign, by name */
enum store_report_board_col {
	RB_NAME,
	RB_CPU,
	RB_FAMILY,
	RB_EMULATED,
	RB_DESCRIPTION,
	RB_ORDER,
	RB_FAILED,
	RB_BOOT_MS,
	RB_RUN_MS,
	RB_CLOCK_RES_NS,
	RB_LAVA_JOBS,
	RB_PARTIAL,
	RB_VARIANTS,
	RB_ICOUNT_SHIFT,
};
int store_report_boards(struct store *st, int64_t campaign, struct store_rows *t);

/* every sample of the campaign's ok boots */
enum store_report_sample_col {
	RS_BOARD,
	RS_SCENARIO,
	RS_KIND,
	RS_OP,
	RS_STATE,
	RS_TIMING,
	RS_SIZE,
	RS_REPS,
	RS_BOOT_ID,
	RS_SEQ,
	RS_VARIANT,
	RS_MEAN_NS,
	RS_MIN_NS,
	RS_MAX_NS,
	RS_RAW_NS,
	RS_BASE_NS,
	RS_LOST_BYTES,
	RS_EXCLUDED,
};
int store_report_samples(struct store *st, int64_t campaign, struct store_rows *t);

/* per board and scenario the latest A/A calibration */
enum store_report_calibration_col {
	RCAL_BOARD,
	RCAL_SCENARIO,
	RCAL_CAMPAIGN,
	RCAL_MEAN,
	RCAL_VAR_WITHIN,
	RCAL_VAR_BETWEEN,
};
int store_report_calibrations(struct store *st, int64_t campaign, struct store_rows *t);

/* a series campaign's variants (no rows for an A/B campaign) */
enum store_report_variant_col {
	RV_POSITION,
	RV_LABEL,
	RV_PATCH,
};
int store_report_variants(struct store *st, int64_t campaign, struct store_rows *t);

#endif
