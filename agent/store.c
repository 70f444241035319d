// SPDX-License-Identifier: GPL-2.0-only
/* Results database: PostgreSQL through libpq.  Schema with forward-only
 * migrations, one transaction per boot, and a private cluster started on
 * demand when no --db / ABLAB_DB is given. */
#include "store.h"
#include "board.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* a boot's value for a scenario: the mean over its batches (boot_means) */
#define BOOT_MEAN_SQL \
	"avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END), " BOOT_MEAN_N_SQL
#define BOOT_MEAN_N_SQL "count(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END)"

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
	"INSERT INTO boot_means SELECT s.boot_id, s.scenario, " BOOT_MEAN_SQL
	" FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.status = 'ok'"
	" GROUP BY s.boot_id, s.scenario HAVING " BOOT_MEAN_N_SQL " > 0;",
	/* 11: stable read-only views for dashboards (Grafana's PostgreSQL data source;
	 * docs/API.md): columns are only ever added, never renamed or dropped */
	"CREATE VIEW ablab_campaigns AS SELECT c.id AS campaign_id, c.created, c.finished,"
	" c.trigger, c.job->>'job' AS job, " STORE_CAMPAIGN_STATUS_SQL("c") " AS status,"
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

/* Plain statements (may hold several commands, as migrations do). */
static int exec_ok(struct store *st, const char *sql)
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
		r = store_query(st, "SELECT coalesce(max(version), 0) FROM schema_version", 0, NULL);
		ret = r && atoi(PQgetvalue(r, 0, 0)) == (int)ARRAY_SIZE(migrations);
		PQclear(r);
		if (ret)
			return 0;
	}
	if (exec_ok(st, "BEGIN") ||
	    exec_ok(st, "SELECT pg_advisory_xact_lock(4242001)") ||
	    exec_ok(st, "CREATE TABLE IF NOT EXISTS schema_version (version int NOT NULL)"))
		goto fail;
	r = store_query(st, "SELECT max(version) FROM schema_version", 0, NULL);
	if (!r)
		goto fail;
	if (!PQgetisnull(r, 0, 0))
		version = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	if (version > (int)ARRAY_SIZE(migrations)) {
		err_msg("database schema version %d is newer than this ablab knows (%zu): "
			"upgrade ablab", version, ARRAY_SIZE(migrations));
		exec_ok(st, "ROLLBACK");
		return -EPROTO;
	}
	for (i = (size_t)version; i < ARRAY_SIZE(migrations); i++) {
		char v[16];
		const char *p[1] = { v };

		if (exec_ok(st, migrations[i]))
			goto fail;
		snprintf(v, sizeof(v), "%zu", i + 1);
		r = store_query(st, "INSERT INTO schema_version VALUES ($1::int)", 1, p);
		if (!r)
			goto fail;
		PQclear(r);
	}
	ret = exec_ok(st, "COMMIT");
	return ret;
fail:
	exec_ok(st, "ROLLBACK");
	return -EIO;
}

/* ---- private cluster ---- */

static char *pg_bindir(void)
{
	const char *e = getenv("ABLAB_PG_BINDIR");
	struct dirent *de;
	char *best = NULL;
	int bestv = 0;
	DIR *d;

	if (e && *e)
		return xstrdup(e);
	d = opendir("/usr/lib/postgresql");
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		int v = atoi(de->d_name);
		char *ctl = xasprintf("/usr/lib/postgresql/%s/bin/pg_ctl", de->d_name);

		if (v > bestv && is_file(ctl)) {
			free(best);
			best = xasprintf("/usr/lib/postgresql/%s/bin", de->d_name);
			bestv = v;
		}
		free(ctl);
	}
	closedir(d);
	return best;
}

struct cluster {
	char *dir;	/* data directory, also the socket directory */
	char *bindir;
	char *conninfo;
	bool as_postgres;
};

/* VALUE for a conninfo string, in '...' (with \\ and \' escaped) when it
 * needs quoting. */
static void conninfo_value(struct buf *b, const char *v)
{
	if (*v && !strpbrk(v, " \t\n\r\f\v'\\")) {
		buf_append(b, v, strlen(v));
		return;
	}
	buf_append(b, "'", 1);
	for (; *v; v++) {
		if (*v == '\'' || *v == '\\')
			buf_append(b, "\\", 1);
		buf_append(b, v, 1);
	}
	buf_append(b, "'", 1);
}

char *store_conninfo_masked(const char *conninfo)
{
	PQconninfoOption *opts = PQconninfoParse(conninfo, NULL), *o;
	struct buf b = { 0 };

	if (!opts)
		return NULL;
	for (o = opts; o->keyword; o++) {
		if (!o->val)
			continue;
		buf_printf(&b, "%s%s=", b.len ? " " : "", o->keyword);
		if (!strcmp(o->keyword, "password"))
			buf_printf(&b, "***");
		else
			conninfo_value(&b, o->val);
	}
	PQconninfoFree(opts);
	if (!b.data)
		buf_append(&b, "", 0);
	return b.data;
}

/* The private cluster's conninfo: its data directory is the socket directory
 * (any path: spaces and quotes included). */
static char *cluster_conninfo(const struct cluster *c, const char *db, int timeout_s)
{
	struct buf b = { 0 };

	buf_printf(&b, "host=");
	conninfo_value(&b, c->dir);
	buf_printf(&b, " dbname=%s user=ablab connect_timeout=%d", db, timeout_s);
	return b.data;
}

static int cluster_init(struct cluster *c)
{
	char *base = data_dir();

	memset(c, 0, sizeof(*c));
	if (!base)
		return -ENOENT;	/* data_dir() said what to set */
	c->dir = xasprintf("%s/pg", base);
	free(base);
	c->bindir = pg_bindir();
	c->as_postgres = geteuid() == 0;
	c->conninfo = cluster_conninfo(c, "ablab", 10);
	if (!c->bindir) {
		err_msg("no PostgreSQL server found under /usr/lib/postgresql (install the "
			"postgresql package: make deps), or set ABLAB_PG_BINDIR");
		return -ENOENT;
	}
	if (strlen(c->dir) > 90) {
		err_msg("data directory %s is too long for a unix socket path; set ABLAB_DATA "
			"to a shorter directory", c->dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

static void cluster_free(struct cluster *c)
{
	free(c->dir);
	free(c->bindir);
	free(c->conninfo);
}

/* A server tool run from argv (no shell of ours), as postgres when we are
 * root (initdb refuses root).  The data directory goes to pg_ctl as PGDATA in
 * its environment, never as -D or -l: pg_ctl pastes those into a /bin/sh -c
 * command line, where a path with $, `, " or ; would be interpreted.  With
 * out_fd >= 0 the tool's stdout and stderr (and a started server's) go there;
 * else its stdout is discarded.  Returns the exit status or -errno. */
static int cluster_run(struct cluster *c, const char *tool, char **args, int out_fd)
{
	char *argv[24], **envp, *pgdata = xasprintf("PGDATA=%s", c->dir);
	char *path = xasprintf("%s/%s", c->bindir, tool);
	int pfd[2] = { -1, -1 }, status, ret;
	size_t a = 0, i, n = 0;
	pid_t pid;

	if (c->as_postgres) {
		argv[a++] = "runuser";
		argv[a++] = "-u";
		argv[a++] = "postgres";
		argv[a++] = "--";
	}
	argv[a++] = path;
	for (i = 0; args[i] && a < ARRAY_SIZE(argv) - 1; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	while (environ[n])
		n++;
	envp = xcalloc(n + 2, sizeof(*envp));
	for (i = 0, n = 0; environ[i]; i++)
		if (strncmp(environ[i], "PGDATA=", 7))
			envp[n++] = environ[i];
	envp[n] = pgdata;
	ret = out_fd < 0 && pipe2(pfd, O_CLOEXEC) < 0 ? -errno : 0;
	pid = ret ? -1 : fork();
	if (pid == 0) {
		dup2(out_fd >= 0 ? out_fd : pfd[1], 1);
		if (out_fd >= 0)
			dup2(out_fd, 2);
		/* a started server keeps nothing of ours: no board tty, no lock fd */
		close_range(3, ~0U, 0);
		execvpe(argv[0], argv, envp);
		fprintf(stderr, "ablab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (pid < 0 && !ret)
		ret = -errno;
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (pfd[0] >= 0) {
		char chunk[4096];
		ssize_t r;

		while (pid > 0 && ((r = read(pfd[0], chunk, sizeof(chunk))) > 0 ||
				   (r < 0 && errno == EINTR)))
			;
		close(pfd[0]);
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	}
	if (pid > 0 && !ret)
		ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	free(envp);
	free(pgdata);
	free(path);
	return ret;
}

static int cluster_create(struct cluster *c)
{
	char *pgver = xasprintf("%s/PG_VERSION", c->dir);
	char *args[] = { "-D", c->dir, "-U", "ablab", "--auth=trust", "-E", "UTF8",
			 "--no-instructions", NULL };
	char *parent;
	int ret = 0;

	if (is_file(pgver))
		goto out;
	info_msg("creating the private results database in %s", c->dir);
	/* parents stay reachable (0755), the cluster itself is private (0700) */
	parent = xstrdup(c->dir);
	*strrchr(parent, '/') = '\0';
	ret = mkdir_p(parent, 0755);
	free(parent);
	if (!ret && mkdir(c->dir, 0700) < 0 && errno != EEXIST)
		ret = -errno;
	if (ret) {
		err_msg("cannot create %s: %s", c->dir, strerror(-ret));
		goto out;
	}
	if (c->as_postgres) {
		struct passwd *pw = getpwnam("postgres");

		if (!pw) {
			err_msg("running as root but there is no postgres user (install postgresql)");
			ret = -ENOENT;
			goto out;
		}
		/* postgres must be able to traverse every parent directory */
		parent = xstrdup(c->dir);
		while (strrchr(parent, '/') && strrchr(parent, '/') != parent) {
			struct stat st;

			*strrchr(parent, '/') = '\0';
			if (stat(parent, &st) == 0 && !(st.st_mode & S_IXOTH)) {
				err_msg("the postgres user cannot enter %s (mode %o): set ABLAB_DATA "
					"to a directory it can reach, e.g. /var/lib/ablab", parent,
					st.st_mode & 07777);
				free(parent);
				ret = -EACCES;
				goto out;
			}
		}
		free(parent);
		if (chown(c->dir, pw->pw_uid, pw->pw_gid) < 0) {
			ret = -errno;
			goto out;
		}
	}
	ret = cluster_run(c, "initdb", args, -1);
	if (ret) {
		err_msg("initdb -D %s failed (exit %d)", c->dir, ret);
		ret = -EIO;
	}
out:
	free(pgver);
	return ret;
}

static bool cluster_running(struct cluster *c)
{
	char *ci = cluster_conninfo(c, "postgres", 5);
	PGPing p = PQping(ci);

	free(ci);
	return p == PQPING_OK;
}

static int cluster_start(struct cluster *c)
{
	PGconn *conn;
	PGresult *r;
	char *ci;
	int ret;

	ret = cluster_create(c);
	if (ret)
		return ret;
	if (!cluster_running(c)) {
		/* the socket directory "." is the data directory (the server's cwd):
		 * no path in the options, which pg_ctl passes through a shell */
		char *args[] = { "-w", "-t", "60", "-o",
				 "-c listen_addresses='' -c unix_socket_directories=.", "start",
				 NULL };
		char *log = xasprintf("%s/server.log", c->dir);
		int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

		ret = fd < 0 ? -errno : cluster_run(c, "pg_ctl", args, fd);
		if (fd >= 0)
			close(fd);
		if (ret < 0)
			err_msg("could not start PostgreSQL in %s: %s (log %s)", c->dir,
				strerror(-ret), log);
		else if (ret)
			err_msg("could not start PostgreSQL in %s (pg_ctl exit %d); see %s", c->dir,
				ret, log);
		if (ret) {
			free(log);
			return -EIO;
		}
		free(log);
	}
	ci = cluster_conninfo(c, "postgres", 10);
	conn = PQconnectdb(ci);
	free(ci);
	if (PQstatus(conn) != CONNECTION_OK) {
		err_msg("private database: %s", PQerrorMessage(conn));
		PQfinish(conn);
		return -EIO;
	}
	r = PQexec(conn, "SELECT 1 FROM pg_database WHERE datname = 'ablab'");
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0) {
		PQclear(r);
		r = PQexec(conn, "CREATE DATABASE ablab");
		if (PQresultStatus(r) != PGRES_COMMAND_OK &&
		    !strstr(PQresultErrorMessage(r), "already exists")) {
			err_msg("CREATE DATABASE ablab: %s", PQresultErrorMessage(r));
			PQclear(r);
			PQfinish(conn);
			return -EIO;
		}
	}
	PQclear(r);
	PQfinish(conn);
	return 0;
}

/* `ablab db status` with --db / ABLAB_DB: that server, password masked */
static int external_status(const char *conninfo)
{
	char *m = store_conninfo_masked(conninfo);
	PGPing p;

	if (!m) {
		err_msg("--db / ABLAB_DB is not a valid conninfo (key=value ..., or a postgresql:// URI); not shown, as it may hold a password");
		return -EINVAL;
	}
	p = PQping(conninfo);
	printf("%s: %s (--db / ABLAB_DB; the private cluster is not used)\n", m,
	       p == PQPING_OK ? "reachable" : p == PQPING_REJECT ? "rejects connections" :
	       p == PQPING_NO_RESPONSE ? "not reachable" : "invalid parameters");
	free(m);
	return p == PQPING_OK ? 0 : -ECONNREFUSED;
}

int store_private(const char *action, const char *conninfo)
{
	struct cluster c;
	int ret;

	if (!conninfo || !*conninfo)
		conninfo = getenv("ABLAB_DB");
	if (conninfo && *conninfo && !strcmp(action, "status"))
		return external_status(conninfo);
	ret = cluster_init(&c);
	if (ret)
		goto out;
	if (!strcmp(action, "start")) {
		struct store st;

		ret = cluster_start(&c);
		if (!ret)
			ret = store_open(&st, c.conninfo);	/* schema up to date */
		if (!ret) {
			store_close(&st);
			printf("running: %s\n", c.conninfo);
		}
	} else if (!strcmp(action, "stop")) {
		char *args[] = { "-w", "-m", "fast", "stop", NULL };

		if (!cluster_running(&c)) {
			printf("not running (%s)\n", c.dir);
		} else {
			ret = cluster_run(&c, "pg_ctl", args, -1) ? -EIO : 0;
			if (!ret)
				printf("stopped (%s)\n", c.dir);
		}
	} else if (!strcmp(action, "status")) {
		char *pgver = xasprintf("%s/PG_VERSION", c.dir);

		if (!is_file(pgver))
			printf("not created (%s; `ablab db start` creates it)\n", c.dir);
		else if (cluster_running(&c))
			printf("running: %s\n", c.conninfo);
		else
			printf("stopped (%s)\n", c.dir);
		free(pgver);
	} else {
		err_msg("db: unknown action \"%s\" (start, stop, status)", action);
		ret = -EINVAL;
	}
out:
	cluster_free(&c);
	return ret;
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
	exec_ok(st, "SET client_min_messages = warning");
	if (st->campaign_key)
		store_campaign_hold(st, st->campaign_key);
	if (!st->lock_key)
		return 0;
	/* a session lock dies with its session: take it again, or give up the board */
	ret = try_board_lock(st, st->lock_key);
	if (ret == -EBUSY)
		err_msg("%s: after a reconnect to the results database another agent holds this "
			"board (advisory lock); this agent stops using it", st->lock_key);
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
		err_msg("results database unreachable (%s)", st->conninfo);
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
		struct cluster c;

		ret = cluster_init(&c);
		if (!ret)
			ret = cluster_start(&c);
		if (ret) {
			cluster_free(&c);
			return ret;
		}
		st->conninfo = xstrdup(c.conninfo);
		masked = xstrdup(c.conninfo);
		cluster_free(&c);
	}
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
	exec_ok(st, "SET client_min_messages = warning");
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

int store_campaign_new(struct store *st, const struct campaign_def *c, int64_t *id)
{
	char seed[32], boots[16], batches[16];
	const char *p[7] = { c->trigger, c->order, seed, boots, batches, c->job_json,
			     c->run_json };
	PGresult *r;

	snprintf(seed, sizeof(seed), "%" PRId64, (int64_t)c->seed);
	snprintf(boots, sizeof(boots), "%d", c->boots);
	snprintf(batches, sizeof(batches), "%d", c->batches);
	/* held from the start: the row becomes visible with the lock taken */
	r = store_query(st,
			"WITH c AS (INSERT INTO campaigns (trigger, order_kind, seed, "
			"boots_per_variant, batches, job, run) VALUES ($1, $2, $3::bigint, "
			"$4::int, $5::int, $6::jsonb, $7::jsonb) RETURNING id) "
			"SELECT id, pg_advisory_lock_shared(4243, id) FROM c", 7, p);
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
		err_msg("campaign %" PRId64 " is still running: a live agent holds it (`ablab campaigns` shows it running; stop that agent first)",
			id);
		return -EBUSY;
	}
	r = store_query(st, "SELECT pg_advisory_lock_shared(4243, $1::int), "
			"pg_advisory_unlock(4243, $1::int)", 1, p);
	if (!r)
		return -EIO;
	PQclear(r);
	st->campaign_key = id;
	return store_campaign_set_status(st, id, "running");
}

PGresult *store_campaign_attempts(struct store *st, int64_t id)
{
	char ids[32];
	const char *p[1] = { ids };

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	return store_query(st,
			   "SELECT o.name, b.seq, b.variant, b.attempt, b.status, "
			   " EXISTS (SELECT 1 FROM boots l WHERE l.campaign_id = b.campaign_id AND "
			   "  l.board_id = b.board_id AND l.seq = b.seq AND (l.attempt, l.id) > "
			   "  (b.attempt, b.id)), coalesce(b.error, ''), coalesce(b.log_path, ''), "
			   " coalesce(to_char(b.started, 'YYYY-MM-DD HH24:MI:SS'), ''), "
			   " coalesce(b.boot_ms::text, '') "
			   "FROM boots b JOIN boards o ON o.id = b.board_id "
			   "WHERE b.campaign_id = $1::int ORDER BY o.name, b.seq, b.attempt, b.id",
			   1, p);
}

int store_campaign_set_status(struct store *st, int64_t id, const char *status)
{
	char ids[32];
	const char *p[2] = { status, ids };
	PGresult *r;

	snprintf(ids, sizeof(ids), "%" PRId64, id);
	r = query_reconnect(st,
			    "UPDATE campaigns SET status = $1, finished = CASE WHEN $1 = 'running' "
			    "THEN NULL ELSE now() END WHERE id = $2::int", 2, p);
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
	r = store_query(st,
			"SELECT DISTINCT s.scenario, s.timing FROM samples s JOIN boots b ON b.id = s.boot_id"
			" WHERE b.id = (SELECT b1.id FROM boots b1 JOIN boards o ON o.id = b1.board_id"
			"  WHERE b1.campaign_id = $1::int AND o.name = $2 AND b1.status = 'ok'"
			"  ORDER BY b1.seq, b1.id LIMIT 1)"
			" AND s.kind = 'result' AND coalesce(s.timing, '') <> '' ORDER BY 1, 2", 2, p);
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

static void put_i64(struct buf *b, int64_t v, bool null_if_neg)
{
	char d[24], *e = d + sizeof(d), *p = e;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	if (null_if_neg && v < 0) {
		buf_append(b, "\\N", 2);
		return;
	}
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	buf_append(b, p, (size_t)(e - p));
}

/* A double that round-trips: as an integer when it is one (a mean of whole
 * nanoseconds, almost every sample), else %.17g. */
static void put_double(struct buf *b, double v)
{
	if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(int64_t)v &&
	    !(v == 0 && signbit(v)))
		put_i64(b, (int64_t)v, false);
	else
		buf_printf(b, "%.17g", v);
}

/* A text field of COPY's text format: backslash, tab, newline and CR (and
 * the other control characters COPY decodes) escaped, so a regex benchmark's
 * scenario name or a spool file cannot shift columns or rows. */
static void put_text(struct buf *b, const char *s)
{
	for (; *s; s++) {
		const char *e = NULL;
		size_t n = strcspn(s, "\\\t\n\r\b\f\v");

		if (n) {	/* the plain run up to the next escape */
			buf_append(b, s, n);
			s += n;
			if (!*s)
				break;
		}
		switch (*s) {
		case '\\': e = "\\\\"; break;
		case '\t': e = "\\t"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\v': e = "\\v"; break;
		}
		if (e)
			buf_append(b, e, 2);
		else
			buf_append(b, s, 1);
	}
}

static int cmp_key(const void *a, const void *b)
{
	const struct sample *x = *(const struct sample *const *)a;
	const struct sample *y = *(const struct sample *const *)b;
	int c = strcmp(x->scenario, y->scenario);

	return c ? c : (x->batch > y->batch) - (x->batch < y->batch);
}

/* COPY text format, every text field through put_text(), in primary key order
 * (scenario, batch): each index insert then lands next to the previous one
 * instead of jumping between the boot's scenarios batch by batch. */
static int copy_samples(struct store *st, const char *boot_id, const struct run_result *res)
{
	struct buf b = { 0 };
	const struct sample **by;
	size_t i, idlen = strlen(boot_id);
	PGresult *r;
	int ret = 0;

	r = PQexec(st->conn, "COPY samples (boot_id, scenario, batch, kind, size, reps, dir, op,"
			     " state, timing, mean_ns, min_ns, max_ns, raw_ns, base_ns, ns_per_kib,"
			     " lost_bytes, fmt) FROM STDIN");
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		err_msg("database: COPY samples: %s", PQresultErrorMessage(r));
		PQclear(r);
		return -EIO;
	}
	PQclear(r);
	by = xcalloc(res->n + 1, sizeof(*by));
	for (i = 0; i < res->n; i++)
		by[i] = &res->v[i];
	qsort(by, res->n, sizeof(*by), cmp_key);
	for (i = 0; i < res->n; i++) {
		const struct sample *s = by[i];
		bool pres = s->kind == SAMPLE_PRESERVE;

		buf_append(&b, boot_id, idlen);
		buf_append(&b, "\t", 1);
		put_text(&b, s->scenario);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->batch, false);
		buf_append(&b, pres ? "\tpreserve\t" : "\tresult\t", pres ? 10 : 8);
		put_i64(&b, s->size, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, pres ? -1 : s->reps, true);
		if (pres)
			buf_append(&b, "\t\\N\t\\N\t\\N\t\\N\t\\N\t", 16);
		else {
			const char *w[4] = { s->dir, s->op, s->state, s->timing };

			for (size_t k = 0; k < ARRAY_SIZE(w); k++) {
				buf_append(&b, "\t", 1);
				put_text(&b, w[k]);
			}
			buf_append(&b, "\t", 1);
			put_double(&b, s->mean_ns);
			buf_append(&b, "\t", 1);
		}
		put_i64(&b, s->min_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->max_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->raw_ns, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->base_ns, true);
		if (pres)
			buf_append(&b, "\t\\N\t", 4);
		else {
			buf_append(&b, "\t", 1);
			put_double(&b, s->ns_per_kib);
			buf_append(&b, "\t", 1);
		}
		put_i64(&b, s->lost, true);
		buf_append(&b, "\t", 1);
		put_i64(&b, s->fmt, false);
		buf_append(&b, "\n", 1);
		/* streamed: the server works on one part while the next is made */
		if (b.len >= 256 * 1024 || i + 1 == res->n) {
			if (!ret && PQputCopyData(st->conn, b.data, (int)b.len) != 1)
				ret = -EIO;
			b.len = 0;
		}
	}
	if (PQputCopyEnd(st->conn, ret ? "client error" : NULL) != 1)
		ret = -EIO;
	buf_free(&b);
	free(by);
	r = PQgetResult(st->conn);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		err_msg("database: COPY samples: %s", PQresultErrorMessage(r));
		ret = -EIO;
	}
	PQclear(r);
	while ((r = PQgetResult(st->conn)))
		PQclear(r);
	return ret;
}

/* Why an insert of boot b stored nothing: 0 when it is already stored (same
 * uuid: a re-loaded spool file), -EEXIST (printed) when its slot already has
 * another ok boot or its LAVA job is already stored, -EIO on a query error. */
static int boot_conflict(struct store *st, const struct boot_rec *b, const char *campaign,
			 const char *board_id, const char *seq)
{
	const char *p[5] = { b->uuid, campaign, board_id, seq, b->status };
	PGresult *r;
	int ret = -EEXIST;

	r = store_query(st,
			"SELECT 'uuid', id FROM boots WHERE uuid = $1::uuid UNION ALL "
			"SELECT 'slot', id FROM boots WHERE $5 = 'ok' AND campaign_id = $2::int "
			"AND board_id = $3::int AND seq = $4::int AND status = 'ok'", 5, p);
	if (!r)
		return -EIO;
	if (PQntuples(r) && !strcmp(PQgetvalue(r, 0, 0), "uuid"))
		ret = 0;
	else if (PQntuples(r))
		err_msg("boot %s: campaign %s, board %s, slot %d already has an ok boot (boot id "
			"%s); this second one is not stored", b->uuid, campaign, b->board->name,
			b->seq, PQgetvalue(r, 0, 1));
	else
		err_msg("boot %s: LAVA job %" PRId64 " of %s is already stored; this boot is not "
			"stored again", b->uuid, b->lava_job_id,
			b->lava_server ? b->lava_server : "(no server)");
	PQclear(r);
	return ret;
}

int store_boot(struct store *st, const struct boot_rec *b)
{
	char campaign[32], seq[16], attempt[16], started[32], boot_ms[32], run_ms[32], cres[32];
	char board_id[32] = "", kernel_id[32] = "", boot_id[32] = "", lava_id[32];
	const char *defn = json_object_to_json_string_ext(b->board->jf.root,
							   JSON_C_TO_STRING_PLAIN);
	PGresult *r;
	int ret;

	/* a server that went away (maintenance, restart): try once to reconnect,
	 * with the board's advisory lock taken again */
	if (PQstatus(st->conn) != CONNECTION_OK && (ret = store_reconnect(st)))
		return ret;
	if (exec_ok(st, "BEGIN")) {
		if (PQstatus(st->conn) == CONNECTION_OK)
			return -EIO;
		ret = store_reconnect(st);
		if (ret)
			return ret;
		if (exec_ok(st, "BEGIN"))
			return PQstatus(st->conn) != CONNECTION_OK ? -ENOTCONN : -EIO;
	}
	{
		const char *p[4] = { b->board->name, b->board->cpu, b->board->family, defn };

		r = store_query(st,
				"INSERT INTO boards (name, cpu, family, definition) VALUES ($1, $2, "
				"$3, $4::jsonb) ON CONFLICT (name) DO UPDATE SET cpu = $2, "
				"family = $3, definition = $4::jsonb RETURNING id", 4, p);
		if (!r)
			goto fail;
		snprintf(board_id, sizeof(board_id), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	if (b->k) {
		const char *rel = b->uname_r && *b->uname_r ? b->uname_r : b->k->release;
		const char *p[7] = { board_id, b->k->label, rel,
				     b->proc_version ? b->proc_version : "",
				     b->k->zimage_sha256 ? b->k->zimage_sha256 : "",
				     b->k->config_sha256, b->k->manifest_json };

		r = store_query(st,
				"INSERT INTO kernels (board_id, label, release, proc_version, "
				"image_sha256, config_sha256, manifest) VALUES ($1::int, $2, $3, $4,"
				" $5, $6, $7::jsonb) ON CONFLICT (board_id, label, release, "
				"proc_version, image_sha256) DO UPDATE SET manifest = $7::jsonb "
				"RETURNING id", 7, p);
		if (!r)
			goto fail;
		snprintf(kernel_id, sizeof(kernel_id), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	snprintf(campaign, sizeof(campaign), "%" PRId64, b->campaign);
	snprintf(seq, sizeof(seq), "%d", b->seq);
	snprintf(attempt, sizeof(attempt), "%d", b->attempt);
	snprintf(started, sizeof(started), "%.3f", (double)b->started_wall_ms / 1000.0);
	snprintf(boot_ms, sizeof(boot_ms), "%" PRId64, b->boot_ms);
	snprintf(run_ms, sizeof(run_ms), "%" PRId64, b->run_ms);
	snprintf(cres, sizeof(cres), "%" PRId64, b->res ? b->res->clock_res_ns : 0);
	snprintf(lava_id, sizeof(lava_id), "%" PRId64, b->lava_job_id);
	{
		const char *p[18] = { b->uuid, campaign, board_id, kernel_id[0] ? kernel_id : NULL,
				      b->variant, seq, attempt, b->status, b->error, started,
				      b->boot_ms >= 0 ? boot_ms : NULL,
				      b->run_ms >= 0 ? run_ms : NULL, b->uname_r, b->proc_version,
				      b->res && b->res->have_start ? cres : NULL, b->log_path,
				      b->lava_job_id ? b->lava_server : NULL,
				      b->lava_job_id ? lava_id : NULL };

		/* no conflict target: a boot already stored (same uuid), a second ok
		 * boot of the slot and a LAVA job stored twice all insert nothing */
		r = store_query(st,
				"INSERT INTO boots (uuid, campaign_id, board_id, kernel_id, variant,"
				" seq, attempt, status, error, started, boot_ms, run_ms, uname_r, "
				"proc_version, clock_res_ns, log_path, lava_server, lava_job_id) "
				"VALUES ($1::uuid, $2::int, $3::int, $4::int, $5, $6::int, $7::int, "
				"$8, $9, to_timestamp($10::double precision), $11::int, $12::int, $13,"
				" $14, $15::bigint, $16, $17, $18::bigint) ON CONFLICT DO NOTHING "
				"RETURNING id", 18, p);
		if (!r)
			goto fail;
		if (PQntuples(r) == 0) {
			PQclear(r);
			ret = boot_conflict(st, b, campaign, board_id, seq);
			if (ret == -EIO)
				goto fail;
			exec_ok(st, ret ? "ROLLBACK" : "COMMIT");
			return ret;
		}
		snprintf(boot_id, sizeof(boot_id), "%s", PQgetvalue(r, 0, 0));
		PQclear(r);
	}
	if (b->partial) {
		const char *p[1] = { boot_id };

		r = store_query(st, "UPDATE boots SET partial = true WHERE id = $1::bigint", 1, p);
		if (!r)
			goto fail;
		PQclear(r);
	}
	if (b->res && b->res->n && !strcmp(b->status, "ok")) {
		const char *p[1] = { boot_id };

		if (copy_samples(st, boot_id, b->res))
			goto fail;
		r = store_query(st, "INSERT INTO boot_means SELECT s.boot_id, s.scenario, "
				BOOT_MEAN_SQL " FROM samples s WHERE s.boot_id = $1::bigint"
				" GROUP BY s.boot_id, s.scenario HAVING " BOOT_MEAN_N_SQL " > 0", 1, p);
		if (!r)
			goto fail;
		PQclear(r);
	}
	if (exec_ok(st, "COMMIT"))
		goto fail;
	return 0;
fail:
	if (PQstatus(st->conn) != CONNECTION_OK)
		return -ENOTCONN;	/* nothing was committed: the caller spools it */
	exec_ok(st, "ROLLBACK");
	return -EIO;
}
