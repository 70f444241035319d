// SPDX-License-Identifier: GPL-2.0-only
/* What else changed between a campaign's boots, or since the previous night, besides the
 * kernel under test: the boots' fingerprints read (store-env.c) and compared (envdiff.c). */
#include "report/report.h"
#include "report/report-int.h"
#include "report/envdiff.h"
#include "store/store-env.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* the boots of rows [*i, end) that belong to the board of row *i (advances *i) */
static size_t board_boots(const struct store_rows *r, size_t *i, struct env_boot **out)
{
	const char *board = store_text(r, *i, RE_BOARD);
	size_t n = 0;

	*out = xcalloc(r->nrows + 1, sizeof(**out));
	for (; *i < r->nrows && !strcmp(store_text(r, *i, RE_BOARD), board); (*i)++) {
		(*out)[n].seq = atoi(store_text(r, *i, RE_SEQ));
		(*out)[n].variant = store_text(r, *i, RE_VARIANT);
		(*out)[n++].env = store_cell(r, *i, RE_ENV);
	}
	return n;
}

int rep_load_envs(struct store *st, struct report *rep)
{
	struct store_rows r;
	size_t i = 0;

	if (store_campaign_envs(st, rep->campaign, &r))
		return -EIO;
	while (i < r.nrows) {
		const char *name = store_text(&r, i, RE_BOARD);
		struct rep_board *b = NULL;
		struct env_boot *eb;
		size_t n;

		for (size_t k = 0; k < rep->nboards && !b; k++)
			if (!strcmp(rep->boards[k].name, name))
				b = &rep->boards[k];
		n = board_boots(&r, &i, &eb);
		if (b) {
			char *t;

			env_diff(eb, n, ENV_DIFF_KERNEL, ABLAB_TEMP_SPREAD_MC, &b->env);
			t = env_diff_text(&b->env);
			if (t)
				b->env_changed =
					xasprintf("environment changed between boots: %s", t);
			free(t);
		}
		free(eb);
	}
	store_rows_free(&r);
	return 0;
}

/* the boot of campaign cid's rows for board with a fingerprint: its last (last) or
 * first; NULL when none */
static const char *pick_env(const struct store_rows *r, const char *board, bool last, int *seq)
{
	const char *env = NULL;

	for (size_t i = 0; i < r->nrows; i++) {
		if (strcmp(store_text(r, i, RE_BOARD), board) || !store_cell(r, i, RE_ENV))
			continue;
		if (!env || last) {
			env = store_cell(r, i, RE_ENV);
			*seq = atoi(store_text(r, i, RE_SEQ));
		}
	}
	return env;
}

int report_env_since(struct store *st, int64_t prev, int64_t cid, char **lines)
{
	struct store_rows rp, rc;
	struct buf o = { 0 };

	*lines = NULL;
	if (store_campaign_envs(st, prev, &rp))
		return -EIO;
	if (store_campaign_envs(st, cid, &rc)) {
		store_rows_free(&rp);
		return -EIO;
	}
	for (size_t i = 0; i < rc.nrows; i++) {
		const char *board = store_text(&rc, i, RE_BOARD);
		struct env_boot eb[2] = { { 0 } };
		struct env_diff d;

		if (i && !strcmp(board, store_text(&rc, i - 1, RE_BOARD)))
			continue; /* each board once */
		eb[0].env = pick_env(&rp, board, true, &eb[0].seq);
		eb[1].env = pick_env(&rc, board, false, &eb[1].seq);
		if (!eb[0].env || !eb[1].env)
			continue; /* a night without fingerprints: nothing to say */
		/* the kernel differs between nights by design: its DTB, rootfs, module too */
		env_diff(eb, 2, ENV_DIFF_NO_SEQ, ABLAB_TEMP_SPREAD_MC, &d);
		for (size_t k = 0; k < d.n; k++)
			buf_printf(
				&o,
				"%s: environment changed since the previous night (campaign %" PRId64
				" boot %d -> campaign %" PRId64 " boot %d): %s\n",
				board, prev, eb[0].seq, cid, eb[1].seq, d.v[k].text);
		env_diff_free(&d);
	}
	store_rows_free(&rp);
	store_rows_free(&rc);
	*lines = o.data;
	return 0;
}
