/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_TREND_H
#define ABLAB_STORE_TREND_H

/* `ablab trend`'s SQL (store-trend.c): a job's nightly campaigns, the boards by id, and the
 * ok boots' means of one scenario.  Arrays malloc'd (the caller frees them; at least one
 * element allocated), 0 or -EIO (printed). */
#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store_night {
	int64_t id;
	char date[16]; /* YYYY-MM-DD of its creation */
};
/* the nightly campaigns of job, by (created, id) */
int store_trend_nights(struct store *st, const char *job, struct store_night **v, size_t *n);

struct store_board_id {
	int64_t id;
	char name[64];
};
/* every board of the database, by id */
int store_board_ids(struct store *st, struct store_board_id **v, size_t *n);

struct store_trend_boot {
	int64_t campaign, board, boot; /* ids */
	bool patched; /* else control */
	double mean; /* its mean over the batches (boot_means) */
};
/* the ok control and patched boots of job's nightly campaigns with a mean of scenario (of
 * board only, unless NULL), in no order */
int store_trend_boots(struct store *st, const char *job, const char *scenario, const char *board,
		      struct store_trend_boot **v, size_t *n);

#endif
