/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_BISECT_H
#define ABLAB_STORE_BISECT_H

/* A bisect's SQL (store-bisect.c): the bisects and bisect_steps tables and a bisect's
 * campaigns.  int functions: 0 or -EIO (the database error printed) unless said; rows
 * into a struct store_rows (the caller store_rows_free()s it), its columns as listed and
 * named, in their order, by the enum above the function.  Seconds are stored to 0.1 s; a non-finite double is stored as NULL. */
#include "store/store.h"

#include <stdbool.h>
#include <stdint.h>

/* a new bisect; commits and settings are JSON text (an array, an object) */
int store_bisect_new(struct store *st, const char *board, const char *scenario, const char *tree,
		     const char *good, const char *bad, const char *good_ref, const char *bad_ref,
		     const char *commits, const char *settings, int64_t *id);
/* status, and result and first_changed unless NULL (kept then); finished is set unless the
 * status is running, interrupted or failed */
int store_bisect_set_status(struct store *st, int64_t id, const char *status, const char *result,
			    const char *first);
/* board, scenario (NULL: any), tree, good, bad, commits, settings, status */
enum { BG_BOARD, BG_SCENARIO, BG_TREE, BG_GOOD, BG_BAD, BG_COMMITS, BG_SETTINGS, BG_STATUS };
int store_bisect_get(struct store *st, int64_t id, struct store_rows *t);
/* the status and result (malloc'd, "" when NULL): 0, -ENOENT, -EIO */
int store_bisect_state(struct store *st, int64_t id, char **status, char **result);
/* the commit the bisect found (malloc'd, "" when none): 0, -ENOENT, -EIO */
int store_bisect_first_changed(struct store *st, int64_t id, char **commit);
/* the header of the step table: board, scenario ('any timing row'), tree, good, bad,
 * good_ref, bad_ref ('' for NULL), number of commits, status, result (''), created
 * (YYYY-MM-DD HH24:MI), settings' budget, first and margin_pct */
enum {
	BH_BOARD,
	BH_SCENARIO,
	BH_TREE,
	BH_GOOD,
	BH_BAD,
	BH_GOOD_REF,
	BH_BAD_REF,
	BH_NCOMMITS,
	BH_STATUS,
	BH_RESULT,
	BH_CREATED,
	BH_BUDGET,
	BH_FIRST,
	BH_MARGIN_PCT,
};
int store_bisect_header(struct store *st, int64_t id, struct store_rows *t);

/* the steps in order: n, role, position, verdict (NULL: not finished), change */
enum { BS_N, BS_ROLE, BS_POSITION, BS_VERDICT, BS_CHANGE };
int store_bisect_steps(struct store *st, int64_t id, struct store_rows *t);
/* the step table, in order: n, role, commit, build ('-'), campaign_id ('-'), verdict
 * ('running'), change, ci_lo, ci_hi, build_s (0), campaign_s (0), note (''), log_path (''),
 * scenario (''), ok boots "control+patched", try, the campaign's status (''), ci_conf */
enum {
	BT_N,
	BT_ROLE,
	BT_COMMIT,
	BT_BUILD,
	BT_CAMPAIGN,
	BT_VERDICT,
	BT_CHANGE,
	BT_CI_LO,
	BT_CI_HI,
	BT_BUILD_S,
	BT_CAMPAIGN_S,
	BT_NOTE,
	BT_LOG_PATH,
	BT_SCENARIO,
	BT_BOOTS,
	BT_TRY,
	BT_CAMPAIGN_STATUS,
	BT_CI_CONF,
};
int store_bisect_step_table(struct store *st, int64_t id, struct store_rows *t);
/* step n's role ("check" sets *check), position and try: 0, or -EIO (also: no such step) */
int store_bisect_step(struct store *st, int64_t id, int n, bool *check, int *pos, int *try);
int store_bisect_step_add(struct store *st, int64_t id, int n, const char *commit, int pos,
			  const char *role, int try);
/* a step's build: its state, and build_s seconds added */
int store_bisect_step_built(struct store *st, int64_t id, int n, const char *build, double build_s);
/* a step whose commit does not build: finished as 'build-failed', with its log and why */
int store_bisect_step_unbuilt(struct store *st, int64_t id, int n, double build_s, const char *log,
			      const char *why);
/* a step's campaign, and campaign_s seconds added */
int store_bisect_step_campaign(struct store *st, int64_t id, int n, int64_t cid, double campaign_s);
/* a step finished: its verdict on the deciding row */
int store_bisect_step_verdict(struct store *st, int64_t id, int n, const char *verdict,
			      const char *scenario, double change, double ci_lo, double ci_hi,
			      double ci_conf);

/* The latest campaign whose job names bisect id and step n (0: none); *complete: its
 * status is complete. */
int64_t store_bisect_step_find_campaign(struct store *st, int64_t id, int n, bool *complete);
/* The bisect campaign cid belongs to (its job's "bisect" is a string), else 0. */
int64_t store_bisect_of_campaign(struct store *st, int64_t cid);

#endif
