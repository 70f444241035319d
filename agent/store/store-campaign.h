/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_CAMPAIGN_H
#define ABLAB_STORE_CAMPAIGN_H

/* A campaign's rows besides its boots (store-campaign.c): whether it exists, its status and
 * resume data, its variants, its batches, where a resumed board continues, the next slot of
 * an ingest, a boot found by uuid, a board's stored definition, an A/A calibration.  Plain C
 * results: 0 or a negative errno (-ENOENT: no such row; -EIO: a database error, printed). */
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

/* 0 or -ENOENT, -EIO */
int store_campaign_exists(struct store *st, int64_t id);
/* the status as shown (STORE_CAMPAIGN_STATUS_SQL: "stale" for a running campaign no agent
 * holds) into status: 0, -ENOENT, -EIO */
int store_campaign_status(struct store *st, int64_t id, char *status, size_t len);
/* `ablab resume`'s data: *run the stored run JSON (malloc'd; NULL when the campaign has
 * none), status its campaigns.status: 0, -ENOENT, -EIO */
int store_campaign_run(struct store *st, int64_t id, char **run, char *status, size_t len);
/* The board files of every stale campaign (running, its agent dead) whose boards this host
 * switches (runner local, not LAVA), for `ablab power
 * --stale-off` and power_stale_off(): *files and *cids (malloc'd, *n entries; a board in two
 * stale campaigns once, with the newest): 0 or -EIO.  unmarked: see store_stale_mark(). */
int store_stale_boards(struct store *st, bool unmarked, char ***files, int64_t **cids, size_t *n);
/* unmarked: only campaigns not marked by store_stale_mark() since their last boot was stored
 * (a campaign command starting switches a stale campaign's boards off once, not at every
 * start: a board switched on by hand afterwards stays on).  0 or -EIO */
int store_stale_mark(struct store *st, int64_t id);
/* the variant at position pos of campaign id (patch NULL: none): 0 or -EIO */
int store_campaign_variant_add(struct store *st, int64_t id, int pos, const char *label,
			       const char *patch);
/* 1 when label is one of campaign id's variants (a series campaign's campaign_variants, else
 * control and patched), else 0; labels gets them, comma-separated: -EIO */
int store_campaign_has_variant(struct store *st, int64_t id, const char *label, char *labels,
			       size_t len);
/* campaigns.batches set to the batches that ran, when every ok boot and scenario ran the
 * same number: 0 or -EIO */
int store_campaign_set_batches(struct store *st, int64_t id);
/* Where a resumed board continues: *slot its last stored ok slot (0: none), *attempts how
 * many attempts the slot after it already had: 0 or -EIO */
int store_resume_point(struct store *st, int64_t id, const char *board, int *slot, int *attempts);
/* the slot after the campaign's last boot (1: none yet): 0 or -EIO */
int store_next_seq(struct store *st, int64_t id, int *seq);
/* `ablab ingest`'s campaign, made with its first boot (a kill before that boot leaves no
 * empty campaign): its id taken from the sequence (*id) now, its row inserted by
 * store_boot() in the boot's transaction (boot_rec.new_campaign; the row held as
 * store_campaign_new() holds it).  0 or -EIO */
int store_campaign_reserve(struct store *st, int64_t *id);
int store_campaign_insert(struct store *st, const struct campaign_def *c, int64_t id);
/* The newest stale campaign of an ingest of the same files (job_json's "kind", "board",
 * "variant" and "files" equal): a run of it killed (SIGKILL) before its end.  *id, 0 or
 * -ENOENT, -EIO */
int store_ingest_unfinished(struct store *st, const char *job_json, int64_t *id);
/* the boot of that uuid: 0 (its slot and campaign), -ENOENT, -EIO */
int store_boot_find(struct store *st, const char *uuid, int *seq, int64_t *cid);
/* the board's row: its definition as JSON text ("{}": none), cpu and family ("": none),
 * each malloc'd: 0, -ENOENT, -EIO */
int store_board_row(struct store *st, const char *name, char **definition, char **cpu,
		    char **family);
/* an A/A campaign's calibration of board and scenario (its release and image those of the
 * board's first ok boot; a row already there is kept): 0 or -EIO */
int store_calibration_add(struct store *st, int64_t id, const char *board, const char *scenario,
			  double mean, double var_within, double var_between, size_t batches,
			  size_t boots);
/* the Message-IDs of the campaign's series as JSON text (malloc'd): 0, -ENOENT (no series
 * with Message-IDs), -EIO */
int store_campaign_msgids(struct store *st, int64_t id, char **json);
/* the boards of the campaign's run record (run->'boards'[].board), in its order, as a
 * NULL-ended malloc'd array of *n malloc'd names: 0 or -EIO */
int store_campaign_run_boards(struct store *st, int64_t id, char ***boards, size_t *n);

#endif
