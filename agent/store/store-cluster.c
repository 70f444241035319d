// SPDX-License-Identifier: GPL-2.0-only
/* The results database when no --db / ABLAB_DB is given: a private PostgreSQL cluster under
 * the data directory, created and started on demand (`ablab db start|stop|status`); and
 * conninfo strings with their password masked. */
#include "store/store.h"
#include "store/store-int.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
	char *dir; /* data directory, also the socket directory */
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
static char *cluster_conninfo_as(const struct cluster *c, const char *db, const char *user,
				 int timeout_s)
{
	struct buf b = { 0 };

	buf_printf(&b, "host=");
	conninfo_value(&b, c->dir);
	buf_printf(&b, " dbname=%s user=%s connect_timeout=%d", db, user, timeout_s);
	return b.data;
}

static char *cluster_conninfo(const struct cluster *c, const char *db, int timeout_s)
{
	return cluster_conninfo_as(c, db, "ablab", timeout_s);
}

static int cluster_init(struct cluster *c)
{
	char *base = data_dir();

	memset(c, 0, sizeof(*c));
	if (!base)
		return -ENOENT; /* data_dir() said what to set */
	c->dir = xasprintf("%s/pg", base);
	free(base);
	c->bindir = pg_bindir();
	c->as_postgres = geteuid() == 0;
	c->conninfo = cluster_conninfo(c, "ablab", 10);
	if (!c->bindir) {
		err_msg("no PostgreSQL server found under /usr/lib/postgresql (install the postgresql package: make deps), or set ABLAB_PG_BINDIR");
		return -ENOENT;
	}
	if (strlen(c->dir) > 90) {
		err_msg("data directory %s is too long for a unix socket path; set ABLAB_DATA to a shorter directory",
			c->dir);
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

		while (pid > 0 &&
		       ((r = read(pfd[0], chunk, sizeof(chunk))) > 0 || (r < 0 && errno == EINTR)))
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

/* conf written into the cluster: mode 0600, the server's user's (uid, gid: the postgres
 * user when we are root, else -1: ours).  0 or -errno (said). */
static int cluster_conf(const struct cluster *c, uid_t uid, gid_t gid, const char *name,
			const char *text)
{
	char *path = xasprintf("%s/%s", c->dir, name);
	int ret = write_file_atomic_mode(path, text, strlen(text), 0600);

	if (!ret && (uid != (uid_t)-1 || gid != (gid_t)-1) && chown(path, uid, gid) < 0)
		ret = -errno;
	if (ret)
		err_msg("cannot write %s: %s", path, strerror(-ret));
	free(path);
	return ret;
}

/*
 * Who may connect to the private cluster: the user who made it (root when the server runs
 * as postgres), over its socket only, as ablab or ablab_read: peer authentication through
 * the map "ablab".  TCP is off (listen_addresses=''); turned on by hand, it needs a
 * password, and no role has one.  No trust line (initdb --auth=trust let any local
 * connection in as the superuser, and any TCP one had TCP been on).  A user with no name
 * (no passwd entry: peer cannot name them) keeps the socket with trust: its directory, the
 * cluster's, is 0700.
 */
static int cluster_auth(const struct cluster *c, uid_t uid, gid_t gid)
{
	struct passwd *me = getpwuid(geteuid());
	struct buf hba = { 0 }, ident = { 0 };
	bool named = me && me->pw_name[0] && !strpbrk(me->pw_name, "\" \t\n");
	int ret;

	buf_printf(&hba, "# written by ablab (agent/store-cluster.c): the socket only, as %s\n",
		   named ? me->pw_name : "this uid");
	buf_printf(&hba, "local all all %s\n", named ? "peer map=ablab" : "trust");
	buf_printf(&hba, "host all all all scram-sha-256\n");
	buf_printf(&ident, "# written by ablab: who may connect as which role\n");
	if (named)
		buf_printf(&ident, "ablab \"%s\" ablab\nablab \"%s\" ablab_read\n", me->pw_name,
			   me->pw_name);
	ret = cluster_conf(c, uid, gid, "pg_hba.conf", hba.data);
	if (!ret)
		ret = cluster_conf(c, uid, gid, "pg_ident.conf", ident.data);
	buf_free(&hba);
	buf_free(&ident);
	return ret;
}

static int cluster_create(struct cluster *c)
{
	char *pgver = xasprintf("%s/PG_VERSION", c->dir);
	char *args[] = { "-D",
			 c->dir,
			 "-U",
			 "ablab",
			 "--auth-local=peer",
			 "--auth-host=reject",
			 "-E",
			 "UTF8",
			 "--no-instructions",
			 NULL };
	uid_t ouid = (uid_t)-1; /* the server's user when it is not us (root: postgres) */
	gid_t ogid = (gid_t)-1;
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
				err_msg("the postgres user cannot enter %s (mode %o): set ABLAB_DATA to a directory it can reach, e.g. /var/lib/ablab",
					parent, st.st_mode & 07777);
				free(parent);
				ret = -EACCES;
				goto out;
			}
		}
		free(parent);
		ouid = pw->pw_uid;
		ogid = pw->pw_gid;
		if (chown(c->dir, ouid, ogid) < 0) {
			ret = -errno;
			goto out;
		}
	}
	ret = cluster_run(c, "initdb", args, -1);
	if (ret) {
		err_msg("initdb -D %s failed (exit %d)", c->dir, ret);
		ret = -EIO;
	} else {
		ret = cluster_auth(c, ouid, ogid);
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
		char *args[] = { "-w",
				 "-t",
				 "60",
				 "-o",
				 "-c listen_addresses='' -c unix_socket_directories=.",
				 "start",
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
	       p == PQPING_OK	       ? "reachable" :
	       p == PQPING_REJECT      ? "rejects connections" :
	       p == PQPING_NO_RESPONSE ? "not reachable" :
					 "invalid parameters");
	free(m);
	return p == PQPING_OK ? 0 : -ECONNREFUSED;
}

int store_cluster_db(const char *action, const char *conninfo, char **started)
{
	struct cluster c;
	int ret;

	*started = NULL;
	if (!conninfo || !*conninfo)
		conninfo = getenv("ABLAB_DB");
	if (conninfo && *conninfo && !strcmp(action, "status"))
		return external_status(conninfo);
	ret = cluster_init(&c);
	if (ret)
		goto out;
	if (!strcmp(action, "start")) {
		ret = cluster_start(&c);
		if (!ret)
			*started = xstrdup(c.conninfo);
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

int store_private_start(char **conninfo, PGconn **conn)
{
	struct cluster c;
	int ret = cluster_init(&c);

	*conn = NULL;
	if (!ret) {
		/* running, with its database: connected, no ping, no look at pg_database
		 * (a server process each, ~2-4 ms: per command, per campaign) */
		*conn = PQconnectdb(c.conninfo);
		if (PQstatus(*conn) != CONNECTION_OK) {
			PQfinish(*conn);
			*conn = NULL;
			ret = cluster_start(&c);
		}
	}
	if (!ret)
		*conninfo = xstrdup(c.conninfo);
	cluster_free(&c);
	return ret;
}

/* The private cluster's reader: a login role without SUPERUSER, CREATEDB, CREATEROLE or
 * REPLICATION that may read every table and view of the schema, today's and (default
 * privileges) those later migrations make.  Made or brought up to date on every call (it
 * is idempotent and cheap); `ablab serve` and the commands it runs connect as it. */
static const char reader_sql[] =
	"DO $$BEGIN CREATE ROLE ablab_read LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
	"NOREPLICATION NOINHERIT; EXCEPTION WHEN duplicate_object THEN NULL; END$$; "
	"ALTER ROLE ablab_read NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOINHERIT; "
	"GRANT CONNECT ON DATABASE ablab TO ablab_read; "
	"GRANT USAGE ON SCHEMA public TO ablab_read; "
	"GRANT SELECT ON ALL TABLES IN SCHEMA public TO ablab_read; "
	"ALTER DEFAULT PRIVILEGES FOR ROLE ablab IN SCHEMA public GRANT SELECT ON TABLES TO "
	"ablab_read";

int store_private_reader(struct store *st, char **conninfo)
{
	struct cluster c;
	PGresult *r;
	int ret = cluster_init(&c);

	*conninfo = NULL;
	if (ret)
		goto out;
	r = PQexec(st->conn, reader_sql);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		err_msg("private database: the reader role ablab_read: %s",
			PQresultErrorMessage(r));
		ret = -EIO;
	} else {
		*conninfo = cluster_conninfo_as(&c, "ablab", "ablab_read", 10);
	}
	PQclear(r);
out:
	cluster_free(&c);
	return ret;
}
