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
#include <stdio.h>

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

/* Finds every patch of p by its Message-ID, then POSTs p's checks (dry: neither), a line
 * per check to out.  0, or the first error (said): -ENOENT, -EACCES, -EIO. */
int pw_post_plan(const struct pw_conn *c, const struct pw_plan *p, const char *target_url, bool dry,
		 FILE *out);
/* web_url/campaign/N (allocated), NULL without web_url */
char *pw_target_url(const char *web_url, int64_t cid);

/* A campaign that posts its own checks (the job's "patchwork", `run --patchwork-url`):
 * pending per patch and board once it is stored, before the first boot (pw_auto_started,
 * a campaign_spec.started hook), the verdict or fail once it ended (pw_auto_ended).  A
 * check that cannot be posted is a warning naming the `ablab patchwork post` that posts
 * it again; the campaign goes on, its exit status unchanged. */
struct pw_auto {
	bool on; /* configured */
	struct pw_conn conn;
	char *url, *token_file, *web_url;
	bool insecure;
	const char *db;
	int failed; /* posts that failed (warned) */
};
/* url NULL: off (0).  Else the URL and the token file are checked now (-EINVAL, said),
 * before any kernel is built or board booted. */
int pw_auto_init(struct pw_auto *a, const char *url, const char *token_file, const char *web_url,
		 bool insecure_http, const char *db);
void pw_auto_started(int64_t cid, void *arg); /* arg: the struct pw_auto */
void pw_auto_ended(struct pw_auto *a, int64_t cid);
void pw_auto_free(struct pw_auto *a);

#endif
