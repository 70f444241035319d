// SPDX-License-Identifier: GPL-2.0-only
/* The boards a killed agent left powered (power.h: power_stale_off): those of every stale
 * campaign (running, no agent holds it: SIGKILL, the OOM killer, a hard stop of the
 * service), switched off by `ablab power --stale-off` (the nightly unit's ExecStopPost)
 * and by every campaign command before it starts. */
#include "backend/backends.h"
#include "board.h"
#include "power-stale.h"
#include "backend/power.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int power_stale_off(struct store *st, bool at_start, size_t *found)
{
	char **files = NULL;
	int64_t *cids = NULL;
	size_t n = 0, i;
	int ret = 0;

	*found = 0;
	if (store_stale_boards(st, at_start, &files, &cids, &n))
		return -EIO;
	*found = n;
	for (i = 0; i < n; i++) {
		struct board_lock lock;
		struct power pw;
		struct board b;
		char holder[256] = "";
		int r;

		if (at_start && access(files[i], F_OK) < 0)
			continue; /* gone: `ablab power --stale-off` says so */
		if (board_load(&b, files[i])) {
			err_msg("campaign %" PRId64
				" (stale): board file %s cannot be loaded; its board may still be on",
				cids[i], files[i]);
			board_free(&b);
			ret = 1;
			continue;
		}
		/* a QEMU board ends with its process; at the start of a campaign, a board an
		 * operator switches is not asked for (power --stale-off asks) */
		if (backend_has(BACKEND_POWER, b.power_type, CAP_MAKES_MACHINE) ||
		    (at_start && !strcmp(b.power_type, "manual"))) {
			board_free(&b);
			continue;
		}
		/* a board an agent holds now is in use: left alone (at the start, quietly) */
		if ((at_start && !board_lock_holder(&b, holder, sizeof(holder)) && holder[0]) ||
		    board_lock(&lock, &b,
			       at_start ? "stale campaign's board off" :
					  "ablab power --stale-off")) {
			board_free(&b);
			continue;
		}
		power_init(&pw, &b, NULL);
		r = power_off(&pw);
		if (r) {
			err_msg("campaign %" PRId64 " (stale): %s", cids[i], power_error(&pw, r));
			ret = 1;
		} else if (at_start) {
			info_msg(
				"campaign %" PRId64
				" is stale (its agent died, its boards maybe left on): board %s switched off before going on",
				cids[i], b.name);
		} else {
			info_msg("campaign %" PRId64 " (stale): %s: power off", cids[i], b.name);
		}
		power_free(&pw);
		board_unlock(&lock);
		board_free(&b);
	}
	for (i = 0; at_start && i < n; i++) /* once: not again at the next start */
		if (!i || cids[i] != cids[i - 1])
			store_stale_mark(st, cids[i]);
	strv_free(files);
	free(cids);
	return ret;
}
