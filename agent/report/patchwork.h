/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_PATCHWORK_H
#define ABLAB_PATCHWORK_H

/* Verdicts as patchwork checks (patchwork.c): one check per patch of the series a
 * campaign ran and per board, through patchwork's REST API (the patch found by its
 * Message-ID, GET /api/patches/?msgid=; POST /api/patches/ID/checks/). */

#include "store/store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_DESC_MAX 1024

struct pw_check {
	size_t patch; /* 0-based index into the series' patches */
	char context[80]; /* "ablab-BOARD" */
	const char *state; /* pending, success, warning, fail */
	char desc[PW_DESC_MAX];
};

struct pw_plan {
	int64_t campaign;
	char status[16]; /* the campaign's: running, complete, failed, ... */
	char **msgids; /* every patch's Message-Id (without <>), NULL-terminated */
	size_t npatch;
	bool series; /* each patch's own increment (else the whole series against control) */
	struct pw_check *checks;
	size_t n;
};

/* The checks of campaign cid: the states from its status and its report (alpha 0.05,
 * its margin).  0; -ENOENT: no campaign; -ENODATA: no series with per-patch message-ids
 * (said); -EINVAL: variants that are not the series' prefixes (said); -EIO. */
int pw_plan(struct store *st, int64_t cid, struct pw_plan *p);
void pw_plan_free(struct pw_plan *p);

/* The patchwork server and its API token: the token goes to url's origin only, http://
 * only to a loopback server or with insecure_http, the token file readable by its owner
 * only.  0 or -errno (printed). */
struct pw_conn {
	const char *url; /* https://patchwork.example.org (no trailing /) */
	char *token;
};
int pw_url_ok(const char *url, bool insecure_http);
int pw_token_read(const char *file, char **token);
/* The patchwork id of the patch with Message-ID msgid: 0, -ENOENT (said), -EIO. */
int pw_patch_id(const struct pw_conn *c, const char *msgid, int64_t *id);
/* POST one check (target_url NULL: none): 0, -EACCES (refused token), -EIO (said). */
int pw_post_check(const struct pw_conn *c, int64_t patch, const struct pw_check *k,
		  const char *target_url);

#endif
