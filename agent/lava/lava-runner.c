// SPDX-License-Identifier: GPL-2.0-only
/* The LAVA runner (runner.h): one attempt of one slot is one LAVA job,
 * submitted to a LAVA server and waited for, or run with lava-run here
 * (--local); its console log and test cases come back and are checked.
 * The campaign engine does the rest as for boots run here: order, retries,
 * store or spool, resume, the fatal rule, the progress lines. */
#include "lava/lava.h"
#include "lava/lava-api.h"
#include "runner.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/stat.h>
#include <unistd.h>

struct lava_runner {
	const struct job *j;
	struct job own_job; /* loaded by `ablab resume` */
	bool own;
	struct lava_conn conn;
	char *server, *token_file, *device_tmpl, *url_base, *job_path;
	char *ident; /* the boots' lava_server */
	char *workdir;
	int64_t local_ids; /* lava-run numbers jobs of this run from 1 */
};

/* "DIR/{board}.jinja2" with DIR made absolute (so that a resume from
 * elsewhere finds it); a DIR that does not exist stays as it is. */
static char *abs_tmpl(const char *t)
{
	char *d = xstrdup(t), *sl = strrchr(d, '/'), real[PATH_MAX], *r;

	if (sl)
		*sl = '\0';
	if (realpath(sl ? (d[0] ? d : "/") : ".", real))
		r = xasprintf("%s/%s", real, sl ? sl + 1 : t);
	else
		r = xstrdup(t);
	free(d);
	return r;
}

static char *abs_file(const char *f)
{
	char real[PATH_MAX];

	return xstrdup(realpath(f, real) ? real : f);
}

static int read_token(const char *file, char **token)
{
	struct stat st;

	*token = NULL;
	if (!stat(file, &st) && (st.st_mode & 0007)) {
		/* as ssh with a private key: a token every user can read is not kept */
		err_msg("--token-file %s is open to every user (mode %04o): chmod o= %s (the token lets anyone submit as its LAVA user)",
			file, (unsigned int)(st.st_mode & 07777), file);
		return -EPERM;
	}
	return read_token_file(file, token);
}

static int lava_check(void *priv, const struct board *b)
{
	struct lava_runner *lr = priv;
	char *dev;

	if (!lr->conn.local)
		return 0;
	dev = lava_local_device(&lr->conn, b->name);
	free(dev);
	return dev ? 0 : -ENOENT;
}

static void lava_describe(void *priv, json_object *run)
{
	struct lava_runner *lr = priv;
	json_object *o = json_object_new_object();

	json_object_object_add(o, "job", json_object_new_string(lr->job_path));
	if (lr->conn.local) {
		json_object_object_add(o, "local", json_object_new_boolean(1));
		json_object_object_add(o, "device", json_object_new_string(lr->device_tmpl));
	} else {
		/* the token stays in its file: the run names the file */
		json_object_object_add(o, "server", json_object_new_string(lr->server));
		json_object_object_add(o, "token_file", json_object_new_string(lr->token_file));
	}
	if (lr->url_base)
		json_object_object_add(o, "artifacts_url", json_object_new_string(lr->url_base));
	json_object_object_add(run, "lava", o);
}

static int lava_prepare(void *priv, int64_t cid, const char *resdir)
{
	struct lava_runner *lr = priv;

	free(lr->ident);
	free(lr->workdir);
	lr->workdir = NULL;
	/* a LAVA job id is unique only on its server: boots keep both.  lava-run
	 * here numbers every run's jobs from 1, so a local run is its own server */
	if (lr->conn.local) {
		char host[256] = "localhost", run[37];

		gethostname(host, sizeof(host) - 1);
		uuid_v4(run);
		lr->ident = xasprintf("local:%s:%s", host, run);
		lr->workdir = xasprintf("%s/lava-run-%.8s", resdir, run);
		if (mkdir_p(lr->workdir, 0755)) {
			err_msg("cannot create %s", lr->workdir);
			return -EIO;
		}
		lr->conn.workdir = lr->workdir;
		lr->local_ids = 0;
	} else {
		lr->ident = xstrdup(lr->server);
	}
	info_msg("campaign %" PRId64 ": LAVA jobs through %s", cid,
		 lr->conn.local ? "lava-run (local)" : lr->server);
	if (lr->conn.local)
		info_msg("  LAVA job ids of this run are stored with server \"%s\"", lr->ident);
	return 0;
}

/* One LAVA job: run it, parse its log, check it. */
static int lava_job(struct lava_runner *lr, const struct runner_slot *s, const char *yaml,
		    struct lava_result *r, struct lava_output *out, struct errtext *error)
{
	const struct lava_conn *c = &lr->conn;
	int64_t deadline = now_ms() + jint(lr->j->lava, "job_timeout_min", 15) * 60000 + 60000;
	int ret;

	if (c->local) {
		char *dev = lava_local_device(c, s->b->name);

		if (!dev)
			return errtext_set(error, -ENOENT, "no LAVA device dictionary for %s",
					   s->b->name);
		r->id = __atomic_add_fetch(&lr->local_ids, 1, __ATOMIC_RELAXED);
		ret = lava_local_run(c, dev, yaml, r);
		free(dev);
	} else {
		ret = lava_submit(c, yaml, &r->id);
		if (ret)
			return errtext_set(error, ret, "LAVA submission failed");
		info_msg("  LAVA job %" PRId64 ": %s/scheduler/job/%" PRId64, r->id, c->server,
			 r->id);
		ret = lava_wait(c, r->id, deadline, r);
		if (!ret) {
			ret = lava_fetch(c, r->id, r);
			if (strcmp(r->health, "Complete"))
				ret = 0; /* the health says it all */
		}
	}
	if (ret)
		return errtext_set(
			error, ret, "LAVA job %" PRId64 ": %s", r->id,
			ret == -ETIMEDOUT ? "not finished before the job timeout" :
			ret == -EPERM	  ? "refused to follow a link or redirect off --server" :
			ret == -EFBIG	  ? "a response of the server was too large" :
					    strerror(-ret));
	if (strcmp(r->health, "Complete"))
		return errtext_set(error, -EIO, "LAVA job %" PRId64 " %s (infrastructure): %s",
				   r->id, r->health, r->failure ? r->failure : "no reason given");
	lava_output_parse(r->log ? r->log : "", out);
	ret = run_check(&out->res, error);
	if (ret) {
		errtext_prefix(error, "LAVA job %" PRId64 ": benchmark output rejected", r->id);
		return ret;
	}
	if (!out->uname_r || strcmp(out->uname_r, s->k->release))
		return errtext_set(error, -EIO,
				   "LAVA job %" PRId64
				   ": wrong kernel: target runs %s, expected %s",
				   r->id, out->uname_r ? out->uname_r : "(unknown)", s->k->release);
	return lava_cross_check(r, &out->res, error);
}

static int lava_attempt(void *priv, const struct runner_slot *s, struct runner_result *res)
{
	struct lava_runner *lr = priv;
	struct lava_boot lb = { lr->j,	     s->b,	s->k,		s->variant,
				s->seq,	     s->nslots, s->bp->batches, s->bp->modparams,
				lr->url_base };
	struct lava_result r = { 0 };
	struct lava_output out = { 0 };
	char *yaml = lava_job_yaml(&lb);
	int ret;

	res->no_data = true; /* a failed LAVA job is infrastructure, not data */
	if (!yaml) {
		errtext_set(&res->bo.error, 0, "no LAVA job definition for %s", s->b->name);
		res->bo.fatal = true;
		return -EINVAL;
	}
	ret = lava_job(lr, s, yaml, &r, &out, &res->bo.error);
	free(yaml);
	if (r.log && !write_file_atomic(s->transcript, r.log, strlen(r.log)))
		res->log_written = true;
	res->ext.server = lr->ident;
	res->ext.id = r.id;
	if (r.id)
		snprintf(res->where, sizeof(res->where), "LAVA job %" PRId64, r.id);
	/* a wrong token, a link off the server, a response too large: the
	 * same again on a retry */
	res->bo.fatal = ret == -EACCES || ret == -EPERM || ret == -EFBIG;
	res->bo.uname_r = out.uname_r;
	res->bo.proc_version = out.proc_version;
	res->bo.res = out.res; /* bench_out_free frees them */
	lava_result_free(&r);
	return ret;
}

static void lava_release(void *priv)
{
	struct lava_runner *lr = priv;

	if (lr->own)
		job_free(&lr->own_job);
	free(lr->conn.token);
	free(lr->server);
	free(lr->token_file);
	free(lr->device_tmpl);
	free(lr->url_base);
	free(lr->job_path);
	free(lr->ident);
	free(lr->workdir);
	free(lr);
	lava_api_cleanup();
}

static const struct runner_ops lava_ops = {
	.name = "lava",
	.check = lava_check,
	.describe = lava_describe,
	.prepare = lava_prepare,
	.attempt = lava_attempt,
	.release = lava_release,
};

static int runner_init(struct lava_runner *lr, const struct job *j,
		       const struct lava_runner_opts *o)
{
	lr->j = j;
	lr->job_path = abs_file(j->jf.path);
	lr->url_base = o->url_base ? xstrdup(o->url_base) : NULL;
	if (o->server) {
		char *s = xstrdup(o->server);

		while (*s && s[strlen(s) - 1] == '/')
			s[strlen(s) - 1] = '\0';
		lr->server = s;
		lr->conn.server = s;
		lr->token_file = abs_file(o->token_file);
		return read_token(o->token_file, &lr->conn.token);
	}
	lr->conn.local = true;
	if (o->device) {
		lr->device_tmpl = abs_tmpl(o->device);
	} else {
		char *d = xstrdup(j->jf.path), *sl = strrchr(d, '/');
		char *t;

		if (sl)
			*sl = '\0';
		t = sl ? xasprintf("%s/lava/devices/{board}.jinja2", d) :
			 xstrdup("lava/devices/{board}.jinja2");
		lr->device_tmpl = abs_tmpl(t);
		free(t);
		free(d);
	}
	lr->conn.device_tmpl = lr->device_tmpl;
	return 0;
}

int lava_runner_new(struct runner *r, const struct job *j, const struct lava_runner_opts *o)
{
	struct lava_runner *lr = xcalloc(1, sizeof(*lr));
	int ret;

	lava_api_init();
	ret = runner_init(lr, j, o);

	r->ops = &lava_ops;
	r->priv = lr;
	if (ret)
		lava_runner_free(r);
	return ret;
}

int lava_runner_from_run(json_object *lava, struct runner *r)
{
	struct lava_runner *lr = xcalloc(1, sizeof(*lr));
	struct lava_runner_opts o = { jstr(lava, "server"), jstr(lava, "token_file"),
				      jstr(lava, "device"), jstr(lava, "artifacts_url") };
	const char *path = jstr(lava, "job");
	int ret;

	lava_api_init();
	r->ops = &lava_ops;
	r->priv = lr;
	if (!path || (o.server && !o.token_file)) {
		err_msg("the campaign's LAVA run data names no job file%s; it cannot be resumed",
			path ? " or no token file" : "");
		lava_runner_free(r);
		return -EINVAL;
	}
	lr->own = true;
	ret = job_load(&lr->own_job, path);
	if (!ret)
		ret = runner_init(lr, &lr->own_job, &o);
	if (ret)
		lava_runner_free(r);
	return ret;
}

void lava_runner_free(struct runner *r)
{
	if (r->priv)
		lava_release(r->priv);
	r->priv = NULL;
	r->ops = NULL;
}
