// SPDX-License-Identifier: GPL-2.0-only
/* Results database: PostgreSQL through libpq.  Schema with forward-only
 * migrations, connections, board locks and campaigns; one boot stored in one
 * transaction: store-boot.c; the private cluster started on demand when no
 * --db / ABLAB_DB is given: store-cluster.c. */
#include "store/store.h"
#include "store/store-int.h"
#include "board.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const migrations[] = {
	/* 1: the initial schema (DESIGN.md section 6) */
	"CREATE TABLE boards ("
	" id serial PRIMARY KEY, name text UNIQUE NOT NULL, cpu text, family text,"
	" definition jsonb);"
	"CREATE TABLE kernels ("
	" id serial PRIMARY KEY, board_id int NOT NULL REFERENCES boards(id),"
	" label text NOT NULL, release text NOT NULL, proc_version text NOT NULL DEFAULT '',"
	" image_sha256 text NOT NULL DEFAULT '', config_sha256 text, manifest jsonb,"
	" UNIQUE (board_id, label, release, proc_version, image_sha256));"
	"CREATE TABLE campaigns ("
	" id serial PRIMARY KEY, created timestamptz NOT NULL DEFAULT now(),"
	" trigger text NOT NULL CHECK (trigger IN ('cli', 'nightly', 'lava')),"
	" order_kind text NOT NULL, seed bigint, boots_per_variant int, batches int,"
	" job jsonb, status text NOT NULL DEFAULT 'running', finished timestamptz);"
	"CREATE TABLE boots ("
	" id bigserial PRIMARY KEY, uuid uuid UNIQUE NOT NULL,"
	" campaign_id int NOT NULL REFERENCES campaigns(id),"
	" board_id int NOT NULL REFERENCES boards(id), kernel_id int REFERENCES kernels(id),"
	" variant text NOT NULL, seq int NOT NULL, attempt int NOT NULL,"
	" status text NOT NULL CHECK (status IN ('ok', 'failed')), error text,"
	" started timestamptz, boot_ms int, run_ms int, uname_r text, proc_version text,"
	" clock_res_ns bigint, log_path text, inserted timestamptz NOT NULL DEFAULT now());"
	"CREATE INDEX boots_campaign ON boots (campaign_id, seq);"
	"CREATE TABLE samples ("
	" boot_id bigint NOT NULL REFERENCES boots(id) ON DELETE CASCADE,"
	" scenario text NOT NULL, batch int NOT NULL, kind text NOT NULL,"
	" size bigint, reps bigint, dir text, op text, state text, timing text,"
	" mean_ns double precision, min_ns bigint, max_ns bigint, raw_ns bigint,"
	" base_ns bigint, ns_per_kib double precision, lost_bytes bigint, fmt int,"
	" PRIMARY KEY (boot_id, scenario, batch));",
	/* 2: how to re-run a campaign (boards, board files, kernel dirs, params), for resume */
	"ALTER TABLE campaigns ADD COLUMN run jsonb;",
	/* 3: board health checks (`ablab check BOARD`); nightly skips failed boards */
	"CREATE TABLE health ("
	" id bigserial PRIMARY KEY, board text NOT NULL,"
	" checked timestamptz NOT NULL DEFAULT now(), ok boolean NOT NULL,"
	" uname_r text, boot_ms int, error text, host text, log_path text);"
	"CREATE INDEX health_board ON health (board, checked DESC);",
	/* 4: `ablab ingest` campaigns; indexes for `ablab query` filters and nightly history */
	"ALTER TABLE campaigns DROP CONSTRAINT campaigns_trigger_check;"
	"ALTER TABLE campaigns ADD CONSTRAINT campaigns_trigger_check"
	" CHECK (trigger IN ('cli', 'nightly', 'lava', 'ingest'));"
	"CREATE INDEX boots_board_started ON boots (board_id, started);"
	"CREATE INDEX boots_started ON boots (started);"
	"CREATE INDEX samples_scenario ON samples (scenario);"
	"CREATE INDEX campaigns_job ON campaigns ((job->>'job'), created)"
	" WHERE trigger = 'nightly';",
	/* 5: boots run through LAVA keep their LAVA job id */
	"ALTER TABLE boots ADD COLUMN lava_job_id bigint;",
	/* 6: `ablab query --since/--until` filter on coalesce(started, inserted); without
	 * this index a time window scans every sample of the scenario (docs/BENCHMARKS.md) */
	"CREATE INDEX boots_when ON boots ((coalesce(started, inserted)));",
	/* 7: a LAVA job id means nothing without its server: boots.lava_server (the
	 * --server URL, or "local:HOST:RUN-UUID" for lava-run here) and (server, job id)
	 * unique.  Boots stored before have no server (NULL: unknown), which the unique
	 * key does not compare and the check (NOT VALID) does not apply to.  And one ok
	 * boot per slot (campaign, board, seq), so that a resume and a later spool load
	 * cannot both store a slot: earlier duplicates (the first stored is kept) become
	 * failed attempts that say why. */
	"ALTER TABLE boots ADD COLUMN lava_server text;"
	"ALTER TABLE boots ADD CONSTRAINT boots_lava_server_check"
	" CHECK (lava_job_id IS NULL OR lava_server IS NOT NULL) NOT VALID;"
	"ALTER TABLE boots ADD CONSTRAINT boots_lava_job_key UNIQUE (lava_server, lava_job_id);"
	"UPDATE boots d SET status = 'failed', error = format('duplicate ok boot of slot %s "
	"(boot %s kept): demoted by schema version 7', d.seq, k.id) FROM (SELECT campaign_id, "
	"board_id, seq, min(id) AS id FROM boots WHERE status = 'ok' GROUP BY campaign_id, "
	"board_id, seq HAVING count(*) > 1) k WHERE d.campaign_id = k.campaign_id AND "
	"d.board_id = k.board_id AND d.seq = k.seq AND d.status = 'ok' AND d.id <> k.id;"
	"CREATE UNIQUE INDEX boots_one_ok_per_slot ON boots (campaign_id, board_id, seq)"
	" WHERE status = 'ok';",
	/* 8: a boot ingested with --partial (log cut short or with rejected lines: only
	 * its valid scenarios stored) says so */
	"ALTER TABLE boots ADD COLUMN partial boolean NOT NULL DEFAULT false;",
	/* 9: A/A calibrations (`ablab calibrate`): each scenario's noise per board and
	 * kernel build, for the minimum detectable effect next to later rows */
	"CREATE TABLE calibrations ("
	" id bigserial PRIMARY KEY, created timestamptz NOT NULL DEFAULT now(),"
	" campaign_id int NOT NULL REFERENCES campaigns(id), board text NOT NULL,"
	" release text, image_sha256 text, scenario text NOT NULL,"
	" mean double precision NOT NULL, var_within double precision NOT NULL,"
	" var_between double precision NOT NULL, batches int NOT NULL, boots int NOT NULL,"
	" UNIQUE (campaign_id, board, scenario));"
	"CREATE INDEX calibrations_board ON calibrations (board, scenario, created DESC);",
	/* 10: each ok boot's mean per scenario over its batches (lost bytes for the
	 * preservation check), written with its samples: `trend` over thousands of
	 * nights reads one row per boot instead of every batch */
	"CREATE TABLE boot_means ("
	" boot_id bigint NOT NULL REFERENCES boots(id) ON DELETE CASCADE,"
	" scenario text NOT NULL, mean double precision NOT NULL, batches int NOT NULL,"
	" PRIMARY KEY (boot_id, scenario));"
	"CREATE INDEX boot_means_scenario ON boot_means (scenario, boot_id) INCLUDE (mean);"
	"INSERT INTO boot_means SELECT s.boot_id, s.scenario, " BOOT_MEAN_SQL_V10
	" FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.status = 'ok'"
	" GROUP BY s.boot_id, s.scenario HAVING " BOOT_MEAN_N_SQL_V10 " > 0;",
	/* 11: stable read-only views for dashboards (Grafana's PostgreSQL data source;
	 * docs/API.md): columns are only ever added, never renamed or dropped */
	"CREATE VIEW ablab_campaigns AS SELECT c.id AS campaign_id, c.created, c.finished,"
	" c.trigger, c.job->>'job' AS job, " STORE_CAMPAIGN_STATUS_SQL(
		"c") " AS status,"
		     " c.order_kind, c.batches,"
		     " (SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok') AS ok_boots,"
		     " (SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'failed')"
		     " AS failed_attempts FROM campaigns c;"
		     "CREATE VIEW ablab_boot_means AS SELECT b.campaign_id, c.created AS campaign_created,"
		     " c.trigger, c.job->>'job' AS job, bo.name AS board, b.variant,"
		     " coalesce(b.uname_r, k.release) AS kernel, b.id AS boot_id, b.seq,"
		     " coalesce(b.started, b.inserted) AS started, m.scenario, m.mean, m.batches,"
		     " CASE WHEN (SELECT s.kind FROM samples s WHERE s.boot_id = m.boot_id AND"
		     " s.scenario = m.scenario LIMIT 1) = 'preserve' THEN 'bytes lost' ELSE 'ns' END AS unit"
		     " FROM boot_means m JOIN boots b ON b.id = m.boot_id JOIN campaigns c ON"
		     " c.id = b.campaign_id JOIN boards bo ON bo.id = b.board_id LEFT JOIN kernels k ON"
		     " k.id = b.kernel_id WHERE b.status = 'ok';"
		     "CREATE VIEW ablab_rows AS SELECT campaign_id, campaign_created, trigger, job, board,"
		     " scenario, unit,"
		     " count(*) FILTER (WHERE variant = 'control') AS n_control,"
		     " count(*) FILTER (WHERE variant = 'patched') AS n_patched,"
		     " avg(mean) FILTER (WHERE variant = 'control') AS control_mean,"
		     " avg(mean) FILTER (WHERE variant = 'patched') AS patched_mean,"
		     " avg(mean) FILTER (WHERE variant = 'patched') / NULLIF(avg(mean) FILTER (WHERE"
		     " variant = 'control'), 0) - 1 AS rel_change"
		     " FROM ablab_boot_means GROUP BY campaign_id, campaign_created, trigger, job, board,"
		     " scenario, unit;"
		     "CREATE VIEW ablab_nightly AS SELECT job, campaign_created AS time, campaign_id, board,"
		     " scenario, unit, n_control, n_patched, control_mean, patched_mean, rel_change"
		     " FROM ablab_rows WHERE trigger = 'nightly';"
		     "CREATE VIEW ablab_health AS SELECT board, checked AS time, ok, uname_r, boot_ms, host,"
		     " error FROM health;",
	/* 12: samples -> boots checked once per statement instead of once per row: the
	 * foreign key's row trigger was the largest cost of a COPY of a boot's samples
	 * (~4 us of 7 per row, docs/BENCHMARKS.md P4).  The same rules, set-wise: every
	 * boot_id an INSERT or UPDATE of samples writes exists (and is locked FOR KEY
	 * SHARE, as the foreign key locks it, so that it cannot be deleted before the
	 * commit); a boot's samples go with it (ON DELETE CASCADE); a boot id that
	 * samples use cannot change.  TRUNCATE boots stays refused by boot_means.
	 * And the index samples_scenario goes (a fifth of the COPY's time): no query
	 * needs it since boots_when (6) and boot_means (10); `query --scenario S` over
	 * the whole history reads most of the table anyway. */
	"ALTER TABLE samples DROP CONSTRAINT samples_boot_id_fkey;"
	"DROP INDEX samples_scenario;"
	"CREATE FUNCTION samples_boot_check() RETURNS trigger LANGUAGE plpgsql AS $$"
	" DECLARE missing bigint; BEGIN"
	" PERFORM 1 FROM boots b WHERE b.id IN (SELECT DISTINCT n.boot_id FROM new_samples n)"
	" FOR KEY SHARE OF b;"
	" SELECT n.boot_id INTO missing FROM (SELECT DISTINCT boot_id FROM new_samples) n"
	" WHERE NOT EXISTS (SELECT 1 FROM boots b WHERE b.id = n.boot_id) LIMIT 1;"
	" IF FOUND THEN RAISE foreign_key_violation USING MESSAGE = format('insert or update"
	" on table \"samples\" violates its foreign key to boots: boot %s is not in boots',"
	" coalesce(missing::text, 'NULL')); END IF;"
	" RETURN NULL; END $$;"
	"CREATE TRIGGER samples_boot_insert AFTER INSERT ON samples REFERENCING NEW TABLE AS"
	" new_samples FOR EACH STATEMENT EXECUTE FUNCTION samples_boot_check();"
	"CREATE TRIGGER samples_boot_update AFTER UPDATE ON samples REFERENCING NEW TABLE AS"
	" new_samples FOR EACH STATEMENT EXECUTE FUNCTION samples_boot_check();"
	"CREATE FUNCTION boots_samples_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
	" DELETE FROM samples s USING old_boots o WHERE s.boot_id = o.id;"
	" RETURN NULL; END $$;"
	"CREATE TRIGGER boots_samples_delete AFTER DELETE ON boots REFERENCING OLD TABLE AS"
	" old_boots FOR EACH STATEMENT EXECUTE FUNCTION boots_samples_delete();"
	"CREATE FUNCTION boots_samples_update() RETURNS trigger LANGUAGE plpgsql AS $$"
	" DECLARE gone bigint; BEGIN"
	" SELECT o.id INTO gone FROM old_boots o WHERE NOT EXISTS (SELECT 1 FROM new_boots n"
	" WHERE n.id = o.id) AND EXISTS (SELECT 1 FROM samples s WHERE s.boot_id = o.id) LIMIT 1;"
	" IF FOUND THEN RAISE foreign_key_violation USING MESSAGE = format('update on table"
	" \"boots\" would leave the samples of boot %s without their boot', gone); END IF;"
	" RETURN NULL; END $$;"
	"CREATE TRIGGER boots_samples_update AFTER UPDATE ON boots REFERENCING OLD TABLE AS"
	" old_boots NEW TABLE AS new_boots FOR EACH STATEMENT EXECUTE FUNCTION"
	" boots_samples_update();",
	/* 13: the variants of a series campaign (more than control and patched), in series
	 * order: boots.variant is the label; position 0 is the control; patch is what the
	 * variant adds to the one before it.  A/B campaigns have no rows here. */
	"CREATE TABLE campaign_variants ("
	" campaign_id int NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"
	" position int NOT NULL CHECK (position >= 0), label text NOT NULL, patch text,"
	" PRIMARY KEY (campaign_id, position), UNIQUE (campaign_id, label));",
	/* 14: performance bisections (`ablab bisect`, bisect.c): the range and its settings,
	 * then one row per step (a build of a commit and, if it built, one sequential A/B
	 * campaign of it against the good commit).  A step with no verdict yet is the one
	 * an interrupted bisect continues. */
	"CREATE TABLE bisects ("
	" id serial PRIMARY KEY, created timestamptz NOT NULL DEFAULT now(),"
	" board text NOT NULL, scenario text, tree text NOT NULL,"
	" good text NOT NULL, bad text NOT NULL, good_ref text, bad_ref text,"
	" commits jsonb NOT NULL, settings jsonb NOT NULL,"
	" status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'interrupted',"
	" 'failed', 'found', 'no-change', 'undecided', 'ambiguous')),"
	" result text, first_changed text, finished timestamptz);"
	"CREATE TABLE bisect_steps ("
	" bisect_id int NOT NULL REFERENCES bisects(id) ON DELETE CASCADE, n int NOT NULL,"
	" commit text NOT NULL, position int NOT NULL,"
	" role text NOT NULL CHECK (role IN ('check', 'step')), try int NOT NULL DEFAULT 1,"
	" build text, build_s double precision, log_path text,"
	" campaign_id int REFERENCES campaigns(id), campaign_s double precision,"
	" verdict text CHECK (verdict IN ('same', 'different', 'undecided', 'build-failed')),"
	" scenario text, change double precision, ci_lo double precision,"
	" ci_hi double precision, ci_conf double precision, note text,"
	" started timestamptz NOT NULL DEFAULT now(), finished timestamptz,"
	" PRIMARY KEY (bisect_id, n));",
	/* 15: statistics of job->>'job' (the planner reads none from the partial index
	 * campaigns_job): without them a job's nightly campaigns were estimated at 0.5% of
	 * a quarter of all campaigns (12 of 2,500 in the P5 data) and `trend` joined its
	 * boots in 10,000 index probes instead of one hash (docs/BENCHMARKS.md, P5) */
	"CREATE STATISTICS campaigns_job_stats ON (job->>'job') FROM campaigns;"
	"ANALYZE campaigns;",
	/* 16: a batch the screening rule leaves out of its boot's mean (stats-screen.h,
	 * store_boot): kept, with the reason (NULL: kept).  Batches stored before are
	 * screened here by the rule's first part only (net time <= 0: a baseline larger
	 * than the batch's raw time, or a negative mean), and their boots' means redone */
	"ALTER TABLE samples ADD COLUMN excluded text;"
	"UPDATE samples s SET excluded = 'net time <= 0 (stored before the screening rule)'"
	" WHERE s.kind = 'result' AND (s.mean_ns < 0 OR (s.base_ns > 0 AND"
	" (s.raw_ns <= s.base_ns OR s.mean_ns <= 0)));"
	"DELETE FROM boot_means m WHERE EXISTS (SELECT 1 FROM samples s WHERE"
	" s.boot_id = m.boot_id AND s.scenario = m.scenario AND s.excluded IS NOT NULL);"
	"INSERT INTO boot_means SELECT s.boot_id, s.scenario, " BOOT_MEAN_SQL
	" FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.status = 'ok' AND"
	" EXISTS (SELECT 1 FROM samples x WHERE x.boot_id = s.boot_id AND x.scenario = s.scenario"
	" AND x.excluded IS NOT NULL) GROUP BY s.boot_id, s.scenario HAVING " BOOT_MEAN_N_SQL
	" > 0;",
	/* 17: where each attempt's time went (power on .. power off) and what else described
	 * its environment (bootloader, cmdline, DTB, cpufreq, thermal, module, rootfs):
	 * docs/DESIGN.md "Boot phases" and "Environment fingerprint"; NULL for older boots */
	"ALTER TABLE boots ADD COLUMN phases jsonb, ADD COLUMN env jsonb;",
};

PGresult *store_query(struct store *st, const char *sql, int nparams, const char *const *params)
{
	PGresult *r = PQexecParams(st->conn, sql, nparams, NULL, params, NULL, NULL, 0);
	ExecStatusType s = PQresultStatus(r);

	if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
		err_msg("database: %s", PQresultErrorMessage(r));
		PQclear(r);
		return NULL;
	}
	return r;
}

int store_rows_take(PGresult *r, struct store_rows *t)
{
	size_t len = 0, off = 0;

	memset(t, 0, sizeof(*t));
	if (!r)
		return -EIO;
	t->nrows = (size_t)PQntuples(r);
	t->ncols = (size_t)PQnfields(r);
	for (size_t i = 0; i < t->nrows; i++)
		for (size_t c = 0; c < t->ncols; c++)
			len += (size_t)PQgetlength(r, (int)i, (int)c) + 1;
	t->cell = xcalloc(t->nrows * t->ncols + 1, sizeof(*t->cell));
	t->text = xmalloc(len + 1);
	for (size_t i = 0; i < t->nrows; i++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t n = (size_t)PQgetlength(r, (int)i, (int)c);

			if (PQgetisnull(r, (int)i, (int)c))
				continue;
			memcpy(t->text + off, PQgetvalue(r, (int)i, (int)c), n + 1);
			t->cell[i * t->ncols + c] = t->text + off;
			off += n + 1;
		}
	PQclear(r);
	return 0;
}

int store_rows_query(struct store *st, const char *sql, int nparams, const char *const *params,
		     struct store_rows *t)
{
	return store_rows_take(store_query(st, sql, nparams, params), t);
}

bool store_alive(struct store *st)
{
	if (st->conn && PQstatus(st->conn) == CONNECTION_OK)
		return true;
	if (st->conn)
		PQreset(st->conn);
	return st->conn && PQstatus(st->conn) == CONNECTION_OK;
}

void store_rows_free(struct store_rows *t)
{
	free(t->cell);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

int store_value(struct store *st, const char *sql, int nparams, const char *const *params,
		char **out)
{
	PGresult *r = store_query(st, sql, nparams, params);
	int ret = -ENOENT;

	*out = NULL;
	if (!r)
		return -EIO;
	if (PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)) {
		*out = xstrdup(PQgetvalue(r, 0, 0));
		ret = 0;
	}
	PQclear(r);
	return ret;
}

int store_command(struct store *st, const char *sql, int nparams, const char *const *params)
{
	PGresult *r = store_query(st, sql, nparams, params);

	if (!r)
		return -EIO;
	PQclear(r);
	return 0;
}

int store_exec(struct store *st, const char *sql)
{
	PGresult *r = PQexec(st->conn, sql);
	ExecStatusType s = PQresultStatus(r);

	PQclear(r);
	if (s != PGRES_TUPLES_OK && s != PGRES_COMMAND_OK) {
		err_msg("database: %s", PQerrorMessage(st->conn));
		return -EIO;
	}
	return 0;
}

static int migrate(struct store *st)
{
	PGresult *r;
	int version = 0, ret;
	size_t i;

	/* an up-to-date schema needs no write: a read-only session (`ablab serve`) opens too */
	r = store_query(st, "SELECT to_regclass('schema_version') IS NOT NULL", 0, NULL);
	ret = r && !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	if (ret) {
		r = store_query(st, "SELECT coalesce(max(version), 0) FROM schema_version", 0,
				NULL);
		ret = r && atoi(PQgetvalue(r, 0, 0)) == (int)ARRAY_SIZE(migrations);
		PQclear(r);
		if (ret)
			return 0;
	}
	if (store_exec(st, "BEGIN") || store_exec(st, "SELECT pg_advisory_xact_lock(4242001)") ||
	    store_exec(st, "CREATE TABLE IF NOT EXISTS schema_version (version int NOT NULL)"))
		goto fail;
	r = store_query(st, "SELECT max(version) FROM schema_version", 0, NULL);
	if (!r)
		goto fail;
	if (!PQgetisnull(r, 0, 0))
		version = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (version > (int)ARRAY_SIZE(migrations)) {
		err_msg("database schema version %d is newer than this ablab knows (%zu): upgrade ablab",
			version, ARRAY_SIZE(migrations));
		store_exec(st, "ROLLBACK");
		return -EPROTO;
	}
	for (i = (size_t)version; i < ARRAY_SIZE(migrations); i++) {
		char v[16];
		const char *p[1] = { v };

		if (store_exec(st, migrations[i]))
			goto fail;
		snprintf(v, sizeof(v), "%zu", i + 1);
		r = store_query(st, "INSERT INTO schema_version VALUES ($1::int)", 1, p);
		if (!r)
			goto fail;
		PQclear(r);
	}
	ret = store_exec(st, "COMMIT");
	return ret;
fail:
	store_exec(st, "ROLLBACK");
	return -EIO;
}

static int try_board_lock(struct store *st, const char *board)
{
	const char *p[1] = { board };
	PGresult *r = store_query(st, "SELECT pg_try_advisory_lock(4242, hashtext($1))", 1, p);
	int ret;

	if (!r)
		return PQstatus(st->conn) != CONNECTION_OK ? -ENOTCONN : -EIO;
	ret = strcmp(PQgetvalue(r, 0, 0), "t") ? -EBUSY : 0;
	PQclear(r);
	return ret;
}

int store_lock_board(struct store *st, const char *board)
{
	int ret = try_board_lock(st, board);

	if (!ret) {
		free(st->lock_key);
		st->lock_key = xstrdup(board);
	}
	return ret;
}

int store_reconnect(struct store *st)
{
	int ret;

	PQreset(st->conn);
	if (PQstatus(st->conn) != CONNECTION_OK)
		return -ENOTCONN;
	PQsetNoticeProcessor(st->conn, NULL, NULL);
	store_exec(st, "SET client_min_messages = warning");
	if (st->campaign_key)
		store_campaign_hold(st, st->campaign_key);
	if (!st->lock_key)
		return 0;
	/* a session lock dies with its session: take it again, or give up the board */
	ret = try_board_lock(st, st->lock_key);
	if (ret == -EBUSY)
		err_msg("%s: after a reconnect to the results database another agent holds this board (advisory lock); this agent stops using it",
			st->lock_key);
	return ret;
}

/* A statement outside a transaction, tried again once over a new connection
 * when the server went away since the last one (a restart while a campaign
 * ran); NULL on error (printed). */
static PGresult *query_reconnect(struct store *st, const char *sql, int n, const char *const *p)
{
	PGresult *r;

	if (PQstatus(st->conn) != CONNECTION_OK && store_reconnect(st))
		return NULL;
	r = PQexecParams(st->conn, sql, n, NULL, p, NULL, NULL, 0);
	if (PQresultStatus(r) == PGRES_TUPLES_OK || PQresultStatus(r) == PGRES_COMMAND_OK)
		return r;
	if (PQstatus(st->conn) == CONNECTION_OK) {
		err_msg("database: %s", PQresultErrorMessage(r));
		PQclear(r);
		return NULL;
	}
	PQclear(r);
	if (store_reconnect(st)) {
		char *m = store_conninfo_masked(st->conninfo);

		/* a password in ABLAB_DB stays out of the log */
		err_msg("results database unreachable (%s)", m ? m : "conninfo not shown");
		free(m);
		return NULL;
	}
	return store_query(st, sql, n, p);
}

int store_open(struct store *st, const char *conninfo)
{
	char *masked = NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!conninfo || !*conninfo)
		conninfo = getenv("ABLAB_DB");
	if (conninfo && *conninfo) {
		masked = store_conninfo_masked(conninfo);
		if (!masked) {
			err_msg("cannot connect to the results database: --db / ABLAB_DB is not a valid conninfo (key=value ..., or a postgresql:// URI); not shown, as it may hold a password");
			return -EINVAL;
		}
		st->conninfo = xstrdup(conninfo);
	} else {
		ret = store_private_start(&st->conninfo, &st->conn);
		if (ret)
			return ret;
		masked = xstrdup(st->conninfo);
	}
	if (!st->conn)
		st->conn = PQconnectdb(st->conninfo);
	if (PQstatus(st->conn) != CONNECTION_OK) {
		err_msg("cannot connect to the results database (%s): %s", masked,
			PQerrorMessage(st->conn));
		free(masked);
		store_close(st);
		return -ECONNREFUSED;
	}
	free(masked);
	PQsetNoticeProcessor(st->conn, NULL, NULL);
	store_exec(st, "SET client_min_messages = warning");
	ret = migrate(st);
	if (ret)
		store_close(st);
	return ret;
}

void store_close(struct store *st)
{
	if (st->conn)
		PQfinish(st->conn);
	free(st->conninfo);
	free(st->lock_key);
	memset(st, 0, sizeof(*st));
}

int store_private(const char *action, const char *conninfo)
{
	char *started = NULL, *reader = NULL;
	struct store st;
	int ret = store_cluster_db(action, conninfo, &started);

	if (ret || !started)
		return ret;
	ret = store_open(&st, started); /* schema up to date */
	if (!ret) {
		/* and its reader role, for serve and dashboards (Grafana) */
		ret = store_private_reader(&st, &reader);
		store_close(&st);
		if (!ret)
			printf("running: %s\nreader (no superuser): %s\n", started, reader);
		free(reader);
	}
	free(started);
	return ret;
}

int store_campaign_new(struct store *st, const struct campaign_def *c, int64_t *id)
{
	char seed[32], boots[16], batches[16];
	const char *p[7] = { c->trigger, c->order, seed, boots, batches, c->job_json, c->run_json };
	PGresult *r;

	snprintf(seed, sizeof(seed), "%" PRId64, (int64_t)c->seed);
	snprintf(boots, sizeof(boots), "%d", c->boots);
	snprintf(batches, sizeof(batches), "%d", c->batches);
	/* held from the start: the row becomes visible with the lock taken */
	r = store_query(st,
			"WITH c AS (INSERT INTO campaigns (trigger, order_kind, seed, "
			"boots_per_variant, batches, job, run) VALUES ($1, $2, $3::bigint, "
			"$4::int, $5::int, $6::jsonb, $7::jsonb) RETURNING id) "
			"SELECT id, pg_advisory_lock_shared(4243, id) FROM c",
			7, p);
	if (!r)
		return -EIO;
	*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
	st->campaign_key = *id;
	PQclear(r);
	return 0;
}

int store_campaign_hold(struct store *st, int64_t id)
{
	char ids[32];
	const char *p[1] = { ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(st, "SELECT pg_advisory_lock_shared(4243, $1::int)", 1, p);
	if (!r)
		return PQstatus(st->conn) != CONNECTION_OK ? -ENOTCONN : -EIO;
	PQclear(r);
	st->campaign_key = id;
	return 0;
}

int store_campaign_claim(struct store *st, int64_t id)
{
	char ids[32];
	const char *p[1] = { ids };
	PGresult *r;
	bool got;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	/* exclusive for a moment: fails while any live agent holds it shared */
	r = store_query(st, "SELECT pg_try_advisory_lock(4243, $1::int)", 1, p);
	if (!r)
		return -EIO;
	got = !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	if (!got) {
		err_msg("campaign %" PRId64
			" is still running: a live agent holds it (`ablab campaigns` shows it running; stop that agent first)",
			id);
		return -EBUSY;
	}
	r = store_query(st,
			"SELECT pg_advisory_lock_shared(4243, $1::int), "
			"pg_advisory_unlock(4243, $1::int)",
			1, p);
	if (!r)
		return -EIO;
	PQclear(r);
	st->campaign_key = id;
	return store_campaign_set_status(st, id, "running");
}

int store_campaign_attempts(struct store *st, int64_t id, struct store_attempt **v, size_t *n)
{
	char ids[32];
	const char *p[1] = { ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = store_query(st,
			"SELECT o.name, b.seq, b.variant, b.attempt, b.status, "
			" EXISTS (SELECT 1 FROM boots l WHERE l.campaign_id = b.campaign_id AND "
			"  l.board_id = b.board_id AND l.seq = b.seq AND (l.attempt, l.id) > "
			"  (b.attempt, b.id)), coalesce(b.error, ''), coalesce(b.log_path, ''), "
			" coalesce(to_char(b.started, 'YYYY-MM-DD HH24:MI:SS'), ''), "
			" coalesce(b.boot_ms::text, '') "
			"FROM boots b JOIN boards o ON o.id = b.board_id "
			"WHERE b.campaign_id = $1::int ORDER BY o.name, b.seq, b.attempt, b.id",
			1, p);
	if (!r)
		return -EIO;
	*n = (size_t)PQntuples(r);
	*v = xcalloc(*n + 1, sizeof(**v));
	for (size_t i = 0; i < *n; i++) {
		struct store_attempt *a = &(*v)[i];
		int k = (int)i;

		a->board = xstrdup(PQgetvalue(r, k, 0));
		a->seq = atoi(PQgetvalue(r, k, 1));
		a->variant = xstrdup(PQgetvalue(r, k, 2));
		a->attempt = atoi(PQgetvalue(r, k, 3));
		a->status = xstrdup(PQgetvalue(r, k, 4));
		a->retried = PQgetvalue(r, k, 5)[0] == 't';
		a->error = xstrdup(PQgetvalue(r, k, 6));
		a->log_path = xstrdup(PQgetvalue(r, k, 7));
		snprintf(a->started, sizeof(a->started), "%s", PQgetvalue(r, k, 8));
		a->boot_ms = *PQgetvalue(r, k, 9) ? atoi(PQgetvalue(r, k, 9)) : -1;
	}
	PQclear(r);
	return 0;
}

void store_attempts_free(struct store_attempt *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].board);
		free(v[i].variant);
		free(v[i].status);
		free(v[i].error);
		free(v[i].log_path);
	}
	free(v);
}

int store_campaign_set_status(struct store *st, int64_t id, const char *status)
{
	char ids[32];
	const char *p[2] = { status, ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = query_reconnect(st,
			    "UPDATE campaigns SET status = $1, finished = CASE WHEN $1 = 'running' "
			    "THEN NULL ELSE now() END WHERE id = $2::int",
			    2, p);
	if (!r)
		return -EIO;
	PQclear(r);
	return 0;
}

int store_timing_pin(struct store *st, int64_t cid, const char *board, char **pin)
{
	char ids[32];
	const char *p[2] = { ids, board };
	struct buf b = { 0 };
	PGresult *r;
	int i;

	*pin = NULL;
	snprintf(ids, sizeof(ids), "%" PRId64, cid);
	r = store_query(
		st,
		"SELECT DISTINCT s.scenario, s.timing FROM samples s JOIN boots b ON b.id = s.boot_id"
		" WHERE b.id = (SELECT b1.id FROM boots b1 JOIN boards o ON o.id = b1.board_id"
		"  WHERE b1.campaign_id = $1::int AND o.name = $2 AND b1.status = 'ok'"
		"  ORDER BY b1.seq, b1.id LIMIT 1)"
		" AND s.kind = 'result' AND coalesce(s.timing, '') <> '' ORDER BY 1, 2",
		2, p);
	if (!r)
		return -EIO;
	for (i = 0; i < PQntuples(r); i++)
		buf_printf(&b, "%s%s:%s", i ? "," : "", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
	PQclear(r);
	*pin = b.data;
	return 0;
}

int store_latest_campaign(struct store *st, int64_t *id)
{
	PGresult *r = store_query(st, "SELECT max(id) FROM campaigns", 0, NULL);
	int ret = -ENOENT;

	if (!r)
		return -EIO;
	if (!PQgetisnull(r, 0, 0)) {
		*id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
		ret = 0;
	}
	PQclear(r);
	return ret;
}
