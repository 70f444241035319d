/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_H
#define ABLAB_STORE_H

#include "kernel.h"
#include "parse.h"

#include <libpq-fe.h>
#include <stdint.h>

struct board;

struct store {
	PGconn *conn;
	char *conninfo;
	char *lock_key;		/* board of the session's advisory lock, or NULL */
};

/* Connects to conninfo, or (NULL) to the private cluster, which is created
 * and started on demand; applies forward-only migrations. */
int store_open(struct store *st, const char *conninfo);
void store_close(struct store *st);
/* With a shared database, a guard across hosts: a session advisory lock
 * on board, held by this connection (and re-taken by store_reconnect()).
 * 0, -EBUSY (another session holds it), -ENOTCONN or -EIO. */
int store_lock_board(struct store *st, const char *board);
/* A new connection after the server went away (PQreset), with the board
 * lock taken again: 0, -ENOTCONN (still away) or -EBUSY (the board was
 * taken by another agent meanwhile; printed). */
int store_reconnect(struct store *st);
/* `ablab db start|stop|status` for the private cluster; status with conninfo
 * (or ABLAB_DB) set reports that server instead. */
int store_private(const char *action, const char *conninfo);
/* conninfo for messages: as parsed, password=***; NULL if it does not parse
 * (then show none of it: libpq's parse error can quote the password). */
char *store_conninfo_masked(const char *conninfo);

struct campaign_def {
	const char *trigger;	/* cli, nightly, lava */
	const char *order;	/* abab, abba, random */
	uint64_t seed;
	int boots, batches;
	const char *job_json;	/* the whole definition, as JSON */
	const char *run_json;	/* what `ablab resume` needs: boards, files, kernel dirs */
};
int store_campaign_new(struct store *st, const struct campaign_def *c, int64_t *id);
int store_campaign_set_status(struct store *st, int64_t id, const char *status);

struct boot_rec {
	char uuid[37];
	int64_t campaign;
	const struct board *board;
	const char *variant;
	int seq, attempt;
	const char *status;	/* ok, failed */
	const char *error;
	const struct kernel_art *k;
	const char *uname_r, *proc_version;
	int64_t started_wall_ms, boot_ms, run_ms;
	const char *log_path;
	const struct run_result *res;
	const char *lava_server;	/* with lava_job_id: --server URL or "local:..." */
	int64_t lava_job_id;		/* 0: not a LAVA boot */
	bool partial;			/* ingest --partial: some scenarios or lines missing */
};
/* One transaction: board + kernel upserts, the boot, all its samples.
 * Idempotent on uuid (a second insert of the same boot is a no-op).
 * -EEXIST (printed, nothing stored) when the slot (campaign, board, seq)
 * already has another ok boot, or the LAVA job (server, id) another boot;
 * -ENOTCONN when the server is unreachable (nothing stored: spool it);
 * -EBUSY when a reconnect could not take the board's lock again. */
int store_boot(struct store *st, const struct boot_rec *b);

/* Latest campaign id, or -ENOENT. */
int store_latest_campaign(struct store *st, int64_t *id);
/* The timing pin (timing.h) of board's first ok boot in campaign cid; *pin
 * NULL when it has none yet. */
int store_timing_pin(struct store *st, int64_t cid, const char *board, char **pin);

/* Runs a parameterised query; returns the result or NULL (error printed). */
PGresult *store_query(struct store *st, const char *sql, int nparams, const char *const *params);

#endif
