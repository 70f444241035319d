// SPDX-License-Identifier: GPL-2.0-only
/* The environment fingerprints of a campaign's boots (report-env.c compares them). */
#include "store/store-env.h"
#include "shared/util.h"

#include <inttypes.h>
#include <stdio.h>

/* columns: enum store_env_col (store-env.h) */
int store_campaign_envs(struct store *st, int64_t campaign, struct store_rows *t)
{
	static const char *const q =
		"SELECT bo.name, b.seq, b.variant, b.env::text FROM boots b "
		"JOIN boards bo ON bo.id = b.board_id WHERE b.campaign_id = $1::int "
		"AND b.status = 'ok' ORDER BY bo.name, b.seq, b.id";
	char ids[DEC_LEN(int64_t)];
	const char *p[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, campaign);
	return store_rows_query(st, q, 1, p, t);
}
