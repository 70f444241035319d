/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_H
#define ABLAB_STORE_H

#include "kernel.h"
#include "bench/parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct board;

/* libpq stays inside store*.c (store-int.h includes it): the connection is libpq's PGconn */
struct pg_conn;

struct store {
	struct pg_conn *conn;
	char *conninfo;
	char *lock_key; /* board of the session's advisory lock, or NULL */
	int64_t campaign_key; /* campaign this session holds (shared advisory lock), or 0 */
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
/* st open on the private cluster: makes (or brings up to date) its role ablab_read, which
 * may only read the schema (NOSUPERUSER), and its conninfo in *conninfo (malloc'd); 0 or a
 * negative errno (printed). */
int store_private_reader(struct store *st, char **conninfo);

struct campaign_def {
	const char *trigger; /* cli, nightly, lava */
	const char *order; /* abab, abba, random */
	uint64_t seed;
	int boots, batches;
	const char *job_json; /* the whole definition, as JSON */
	const char *run_json; /* what `ablab resume` needs: boards, files, kernel dirs */
};
int store_campaign_new(struct store *st, const struct campaign_def *c, int64_t *id);
int store_campaign_set_status(struct store *st, int64_t id, const char *status);

/* A running campaign is held by its agent: a shared session advisory lock
 * (4243, id) on every connection of the agent that runs it,
 * taken by store_campaign_new() and store_campaign_hold(), re-taken by
 * store_reconnect(), dropped by the server when the agent dies.  A
 * campaign "running" that no session holds is stale (its agent died). */
int store_campaign_hold(struct store *st, int64_t id);
/* For `ablab resume`: -EBUSY (printed) when a live agent still holds the
 * campaign, else holds it and sets it running. */
int store_campaign_claim(struct store *st, int64_t id);
/* The status as shown: campaigns.status, or "stale" for a running campaign
 * no agent holds.  An SQL expression over a campaigns row named `c`. */
#define STORE_CAMPAIGN_STATUS_SQL(c)                                                      \
	"CASE WHEN " c ".status = 'running' AND NOT EXISTS (SELECT 1 FROM pg_locks l "    \
	"WHERE l.locktype = 'advisory' AND l.classid = 4243 AND l.objid = " c ".id::oid " \
	"AND l.objsubid = 2 AND l.granted AND l.database = (SELECT oid FROM pg_database " \
	"WHERE datname = current_database())) THEN 'stale' ELSE " c ".status END"
/* One attempt of a campaign's slot (error, log_path, started: "" for none). */
struct store_attempt {
	char *board, *variant, *status, *error, *log_path;
	int seq, attempt;
	bool retried; /* a later attempt of the slot exists */
	char started[24]; /* YYYY-MM-DD HH24:MI:SS */
	int boot_ms; /* -1: not recorded */
};
/* Every attempt of a campaign, in board and slot order, into *v (malloc'd, at least one
 * element; store_attempts_free()): 0 or -EIO (printed). */
int store_campaign_attempts(struct store *st, int64_t id, struct store_attempt **v, size_t *n);
void store_attempts_free(struct store_attempt *v, size_t n);

struct boot_rec {
	char uuid[37];
	int64_t campaign;
	const struct board *board;
	const char *variant;
	int seq, attempt;
	const char *status; /* ok, failed */
	const char *error;
	const struct kernel_art *k;
	const char *uname_r, *proc_version;
	int64_t started_wall_ms, boot_ms, run_ms;
	const char *log_path;
	const struct run_result *res;
	const char *lava_server; /* with lava_job_id: --server URL or "local:..." */
	int64_t lava_job_id; /* 0: not a LAVA boot */
	bool partial; /* ingest --partial: some scenarios or lines missing */
	/* JSON text of the boots' phases and env columns, or NULL (docs/DESIGN.md "Boot
	 * phases", "Environment fingerprint") */
	const char *phases, *env;
	/* the board's definition as JSON, or NULL: made from board->jf.root (json-c writes
	 * its text into the object: threads sharing a board pass it made once) */
	const char *board_json;
	/* not NULL: the campaign (id: campaign) is made in the boot's transaction (ingest:
	 * store_campaign_reserve()); a boot already stored then stores nothing (-EEXIST) */
	const struct campaign_def *new_campaign;
};
/* One transaction: board + kernel upserts, the boot, all its samples.
 * Idempotent on uuid (a second insert of the same boot is a no-op).
 * -EEXIST (printed, nothing stored) when the slot (campaign, board, seq)
 * already has another ok boot, or the LAVA job (server, id) another boot;
 * -ENOTCONN when the server is unreachable (nothing stored: spool it);
 * -EBUSY when a reconnect could not take the board's lock again. */
int store_boot(struct store *st, const struct boot_rec *b);
/* The board's and the kernel's rows of b as store_boot() writes them, committed
 * on their own (outside a transaction): boots of the same board then stored at
 * once on other connections lock no row that another's transaction holds
 * (`ablab ingest`).  0 or -EIO (printed). */
int store_boot_refs(struct store *st, const struct boot_rec *b);

/* Latest campaign id, or -ENOENT. */
int store_latest_campaign(struct store *st, int64_t *id);
/* The timing pin (timing.h) of board's first ok boot in campaign cid; *pin
 * NULL when it has none yet. */
int store_timing_pin(struct store *st, int64_t cid, const char *board, char **pin);

/* A query's rows as text, for callers that print them as they come: nrows x ncols cells,
 * row by row (cell NULL: SQL NULL), in two allocations (store_rows_free()). */
struct store_rows {
	size_t nrows, ncols;
	const char **cell;
	char *text;
};
static inline const char *store_cell(const struct store_rows *t, size_t i, size_t c)
{
	return t->cell[i * t->ncols + c];
}
/* the same, "" for NULL (as libpq gives it) */
static inline const char *store_text(const struct store_rows *t, size_t i, size_t c)
{
	const char *v = store_cell(t, i, c);

	return v ? v : "";
}
void store_rows_free(struct store_rows *t);
/* store_query() into *t: 0, or -EIO (printed). */
int store_rows_query(struct store *st, const char *sql, int nparams, const char *const *params,
		     struct store_rows *t);
/* Whether the connection is up, reset once when the server went away. */
bool store_alive(struct store *st);
/* The first column of the one row a query returns, allocated into *out: 0; -ENOENT when
 * it returns no row or NULL; -EIO when it fails (error printed). */
int store_value(struct store *st, const char *sql, int nparams, const char *const *params,
		char **out);
/* The same for a statement whose rows are not read: 0 or -EIO (error printed). */
int store_command(struct store *st, const char *sql, int nparams, const char *const *params);

/* The nightly history (store-nightly.c).  The previous night of campaign cid: the latest
 * complete nightly campaign of the same job before it; job (if not NULL) gets the job's name.
 * 0, -ENOENT (no campaign cid), -EINVAL (cid is not a nightly job's campaign), -ENODATA (the
 * job's first night), -EIO. */
int store_previous_nightly(struct store *st, int64_t cid, char *job, size_t joblen, int64_t *prev);
/* The latest nightly campaign of job created on date (YYYY-MM-DD): 0, -ENOENT, -EIO. */
int store_nightly_on(struct store *st, const char *job, const char *date, int64_t *cid);
/* Per night (campaign) up to cid, board, scenario and variant, the mean of the ok boots'
 * means: columns cid, board, scenario, variant, mean (NH_*); ordered by board, scenario, variant,
 * night, into *t: 0 or -EIO (printed). */
enum { NH_CID, NH_BOARD, NH_SCENARIO, NH_VARIANT, NH_MEAN };
int store_nightly_history(struct store *st, const char *job, int64_t cid, struct store_rows *t);
/* The git commit (its manifest's source.commit) of variant's kernel on board in campaign cid,
 * from the first ok boot: *commit malloc'd; 0, -ENOENT (not a git build), -EIO. */
int store_kernel_commit(struct store *st, int64_t cid, const char *board, const char *variant,
			char **commit);

#endif
