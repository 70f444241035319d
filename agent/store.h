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
};

/* Connects to conninfo, or (NULL) to the private cluster, which is created
 * and started on demand; applies forward-only migrations. */
int store_open(struct store *st, const char *conninfo);
void store_close(struct store *st);
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
};
/* One transaction: board + kernel upserts, the boot, all its samples.
 * Idempotent on uuid (a second insert of the same boot is a no-op).
 * -ENOTCONN when the server is unreachable (nothing stored: spool it). */
int store_boot(struct store *st, const struct boot_rec *b);

/* Latest campaign id, or -ENOENT. */
int store_latest_campaign(struct store *st, int64_t *id);

/* Runs a parameterised query; returns the result or NULL (error printed). */
PGresult *store_query(struct store *st, const char *sql, int nparams, const char *const *params);

#endif
