/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_STORE_INT_H
#define ABLAB_STORE_INT_H

/*
 * What the store*.c files share and nothing else includes: store.c (schema, migrations,
 * connections, campaigns), store-boot.c (one boot stored), store-cluster.c (the private
 * cluster: below store.c, it starts and stops the cluster and never opens the store).
 */
#include "store/store.h"

#include <libpq-fe.h>

/* a boot's value for a scenario: the mean over its batches (boot_means), the batches
 * the screening rule left out (samples.excluded, schema 16; stats-screen.h) not counted */
#define BOOT_MEAN_SQL \
	"avg(CASE WHEN s.excluded IS NOT NULL THEN NULL WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END), " BOOT_MEAN_N_SQL
#define BOOT_MEAN_N_SQL \
	"count(CASE WHEN s.excluded IS NOT NULL THEN NULL WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END)"
/* the same before schema 16 (no samples.excluded): what migration 10 ran */
#define BOOT_MEAN_SQL_V10 \
	"avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END), " BOOT_MEAN_N_SQL_V10
#define BOOT_MEAN_N_SQL_V10 \
	"count(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END)"

/* Runs a parameterised query; returns the result or NULL (error printed). */
PGresult *store_query(struct store *st, const char *sql, int nparams, const char *const *params);
/* r's rows into t and r cleared: 0, or -EIO when r is NULL (a failed query, printed). */
int store_rows_take(PGresult *r, struct store_rows *t);
/* Plain statements (may hold several commands, as migrations do): 0 or -EIO (said). */
int store_exec(struct store *st, const char *sql);
/* The private cluster, created and started when needed: *conninfo its conninfo
 * (malloc'd), or a negative errno (said).  *conn: a connection to it when the
 * first try found it running with its database (else NULL: connect then). */
int store_private_start(char **conninfo, PGconn **conn);
/* `ablab db ACTION` as far as it needs no store (store-cluster.c never opens one): status and
 * stop done (printed); start starts the private cluster and gives its conninfo in *started
 * (malloc'd) for store_private() to bring the schema and the reader role up to date.  0 or a
 * negative errno (said). */
int store_cluster_db(const char *action, const char *conninfo, char **started);

#endif
