/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_ENV_H
#define ABLAB_STORE_ENV_H

/* The boots' environment fingerprints (boots.env, docs/DESIGN.md "Environment
 * fingerprint") of a campaign, for report-env.c.  0 or -EIO (printed); the caller
 * store_rows_free()s *t. */
#include "store/store.h"

#include <stdint.h>

/* every ok boot of the campaign, by board, seq and id; env NULL when not recorded */
enum store_env_col {
	RE_BOARD,
	RE_SEQ,
	RE_VARIANT,
	RE_ENV,
};
int store_campaign_envs(struct store *st, int64_t campaign, struct store_rows *t);

#endif
