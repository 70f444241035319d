// SPDX-License-Identifier: GPL-2.0-only
/* Spool of boots that could not be stored (see spool.h). */
#include "spool.h"
#include "board.h"
#include "shared/jsonfile.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "variant.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ADD(o, k, v) json_object_object_add(o, k, v)
#define STR(s) ((s) ? json_object_new_string(s) : NULL)

static json_object *sample_json(const struct sample *s)
{
	json_object *o = json_object_new_object();

	ADD(o, "kind", json_object_new_int(s->kind));
	ADD(o, "fmt", json_object_new_int(s->fmt));
	ADD(o, "scenario", json_object_new_string(s->scenario));
	ADD(o, "batch", json_object_new_int(s->batch));
	ADD(o, "size", json_object_new_int64(s->size));
	ADD(o, "reps", json_object_new_int64(s->reps));
	ADD(o, "dir", json_object_new_string(s->dir));
	ADD(o, "op", json_object_new_string(s->op));
	ADD(o, "state", json_object_new_string(s->state));
	ADD(o, "timing", json_object_new_string(s->timing));
	ADD(o, "mean_ns", json_object_new_double(s->mean_ns));
	ADD(o, "min_ns", json_object_new_int64(s->min_ns));
	ADD(o, "max_ns", json_object_new_int64(s->max_ns));
	ADD(o, "raw_ns", json_object_new_int64(s->raw_ns));
	ADD(o, "base_ns", json_object_new_int64(s->base_ns));
	ADD(o, "ns_per_kib", json_object_new_double(s->ns_per_kib));
	ADD(o, "lost", json_object_new_int64(s->lost));
	return o;
}

int spool_write(const char *dir, const struct boot_rec *b)
{
	json_object *o = json_object_new_object(), *k, *sa = json_object_new_array();
	const char *text;
	char *path;
	size_t i;
	int ret;

	ret = mkdir_p(dir, 0755);
	if (ret)
		goto out;
	ADD(o, "spool_version", json_object_new_int(1));
	ADD(o, "uuid", json_object_new_string(b->uuid));
	ADD(o, "campaign", json_object_new_int64(b->campaign));
	ADD(o, "board", json_object_new_string(b->board->name));
	ADD(o, "board_cpu", STR(b->board->cpu));
	ADD(o, "board_family", STR(b->board->family));
	ADD(o, "board_definition", json_object_get(b->board->jf.root));
	ADD(o, "variant", json_object_new_string(b->variant));
	ADD(o, "seq", json_object_new_int(b->seq));
	ADD(o, "attempt", json_object_new_int(b->attempt));
	ADD(o, "status", json_object_new_string(b->status));
	ADD(o, "error", STR(b->error));
	ADD(o, "uname_r", STR(b->uname_r));
	ADD(o, "proc_version", STR(b->proc_version));
	ADD(o, "started_wall_ms", json_object_new_int64(b->started_wall_ms));
	ADD(o, "boot_ms", json_object_new_int64(b->boot_ms));
	ADD(o, "run_ms", json_object_new_int64(b->run_ms));
	ADD(o, "log_path", STR(b->log_path));
	if (b->lava_job_id) {
		ADD(o, "lava_server", STR(b->lava_server));
		ADD(o, "lava_job_id", json_object_new_int64(b->lava_job_id));
	}
	if (b->phases)
		ADD(o, "phases", json_tokener_parse(b->phases));
	if (b->env)
		ADD(o, "env", json_tokener_parse(b->env));
	if (b->k) {
		k = json_object_new_object();
		ADD(k, "dir", STR(b->k->dir));
		ADD(k, "label", STR(b->k->label));
		ADD(k, "release", STR(b->k->release));
		ADD(k, "zimage_sha256", STR(b->k->zimage_sha256));
		ADD(k, "config_sha256", STR(b->k->config_sha256));
		ADD(k, "manifest", STR(b->k->manifest_json));
		ADD(o, "kernel", k);
	}
	if (b->res) {
		ADD(o, "clock_res_ns", json_object_new_int64(b->res->clock_res_ns));
		ADD(o, "have_start", json_object_new_boolean(b->res->have_start));
		for (i = 0; i < b->res->n; i++)
			json_object_array_add(sa, sample_json(&b->res->v[i]));
	}
	ADD(o, "samples", sa);
	sa = NULL;
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
	path = xasprintf("%s/%s.json", dir, b->uuid);
	/* the board's definition (power commands) and results: not for every user */
	ret = write_file_atomic_mode(path, text, strlen(text), 0640);
	free(path);
out:
	json_object_put(sa);
	json_object_put(o);
	return ret;
}

/* ---- loading: every field checked before anything is stored ---- */

struct vctx {
	char field[96];
	char why[160];
};

static int bad(struct vctx *v, const char *pre, const char *key, const char *why)
{
	snprintf(v->field, sizeof(v->field), "%s%s", pre, key);
	snprintf(v->why, sizeof(v->why), "%s", why);
	return -EINVAL;
}

/* An integer field in [min, max]; absent only when optional (then dflt). */
static int get_i64(struct vctx *v, json_object *o, const char *pre, const char *key, bool optional,
		   int64_t min, int64_t max, int64_t dflt, int64_t *out)
{
	json_object *x;
	char why[96];

	if (!json_object_object_get_ex(o, key, &x) || !x) {
		*out = dflt;
		return optional ? 0 : bad(v, pre, key, "is missing (an integer)");
	}
	if (!json_object_is_type(x, json_type_int))
		return bad(v, pre, key, "is not an integer");
	errno = 0;
	*out = json_object_get_int64(x);
	if (errno || *out < min || *out > max) {
		snprintf(why, sizeof(why), "is out of range (%" PRId64 "..%" PRId64 ")", min, max);
		return bad(v, pre, key, why);
	}
	return 0;
}

static int get_int(struct vctx *v, json_object *o, const char *pre, const char *key, int min,
		   int max, int *out)
{
	int64_t x;
	int ret = get_i64(v, o, pre, key, false, min, max, 0, &x);

	*out = (int)x;
	return ret;
}

/* A finite number (JSON integer or double). */
static int get_num(struct vctx *v, json_object *o, const char *pre, const char *key, double *out)
{
	json_object *x;

	if (!json_object_object_get_ex(o, key, &x) || !x)
		return bad(v, pre, key, "is missing (a number)");
	if (!json_object_is_type(x, json_type_double) && !json_object_is_type(x, json_type_int))
		return bad(v, pre, key, "is not a number");
	*out = json_object_get_double(x);
	if (!isfinite(*out))
		return bad(v, pre, key, "is not a finite number");
	return 0;
}

/* A string of at most max - 1 bytes without NUL; null/absent allowed when
 * optional (then *out = NULL). */
/* An optional JSON object o[key] as its text (owned by o), for a jsonb column. */
static int get_jsonobj(struct vctx *v, json_object *o, const char *key, const char **out)
{
	json_object *x;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &x) || !x)
		return 0;
	if (!json_object_is_type(x, json_type_object))
		return bad(v, "", key, "is not an object");
	*out = json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN);
	return 0;
}

static int get_str(struct vctx *v, json_object *o, const char *pre, const char *key, bool optional,
		   size_t max, const char **out)
{
	json_object *x;
	char why[96];

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &x) || !x)
		return optional ? 0 : bad(v, pre, key, "is missing (a string)");
	if (!json_object_is_type(x, json_type_string))
		return bad(v, pre, key, "is not a string");
	if ((size_t)json_object_get_string_len(x) != strlen(json_object_get_string(x)))
		return bad(v, pre, key, "holds a NUL character");
	if ((size_t)json_object_get_string_len(x) >= max) {
		snprintf(why, sizeof(why), "is longer than %zu bytes", max - 1);
		return bad(v, pre, key, why);
	}
	*out = json_object_get_string(x);
	return 0;
}

static int get_word(struct vctx *v, json_object *o, const char *pre, const char *key, char *dst,
		    size_t len)
{
	const char *s;
	int ret = get_str(v, o, pre, key, false, len, &s);

	if (!ret)
		memcpy(dst, s, strlen(s) + 1);
	return ret;
}

static bool uuid_ok(const char *s)
{
	size_t i;

	if (strlen(s) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	}
	return true;
}

static int read_sample(struct vctx *v, json_object *so, size_t i, struct sample *s)
{
	char pre[40];
	int64_t k;
	int ret;

	snprintf(pre, sizeof(pre), "samples[%zu].", i);
	if (!json_object_is_type(so, json_type_object))
		return bad(v, pre, "", "is not an object");
	ret = get_i64(v, so, pre, "kind", false, SAMPLE_RESULT, SAMPLE_PRESERVE, 0, &k);
	if (!ret)
		ret = get_int(v, so, pre, "fmt", 0, 3, &s->fmt);
	if (!ret)
		ret = get_word(v, so, pre, "scenario", s->scenario, sizeof(s->scenario));
	if (!ret && !s->scenario[0])
		ret = bad(v, pre, "scenario", "is empty");
	if (!ret)
		ret = get_int(v, so, pre, "batch", 1, 1000000, &s->batch);
	if (!ret)
		ret = get_i64(v, so, pre, "size", false, -1, INT64_MAX, 0, &s->size);
	if (!ret)
		ret = get_i64(v, so, pre, "reps", false, -1, INT64_MAX, 0, &s->reps);
	if (!ret)
		ret = get_word(v, so, pre, "dir", s->dir, sizeof(s->dir));
	if (!ret)
		ret = get_word(v, so, pre, "op", s->op, sizeof(s->op));
	if (!ret)
		ret = get_word(v, so, pre, "state", s->state, sizeof(s->state));
	if (!ret)
		ret = get_word(v, so, pre, "timing", s->timing, sizeof(s->timing));
	if (!ret)
		ret = get_num(v, so, pre, "mean_ns", &s->mean_ns);
	if (!ret)
		ret = get_i64(v, so, pre, "min_ns", false, -1, INT64_MAX, 0, &s->min_ns);
	if (!ret)
		ret = get_i64(v, so, pre, "max_ns", false, -1, INT64_MAX, 0, &s->max_ns);
	if (!ret)
		ret = get_i64(v, so, pre, "raw_ns", false, -1, INT64_MAX, 0, &s->raw_ns);
	if (!ret)
		ret = get_i64(v, so, pre, "base_ns", false, -1, INT64_MAX, 0, &s->base_ns);
	if (!ret)
		ret = get_num(v, so, pre, "ns_per_kib", &s->ns_per_kib);
	if (!ret)
		ret = get_i64(v, so, pre, "lost", false, -1, INT64_MAX, 0, &s->lost);
	if (ret)
		return ret;
	s->kind = (enum sample_kind)k;
	/* the parser's own invariants (parse.c): a stored value is a sane one */
	if (s->kind == SAMPLE_RESULT && !sample_minmax_ok(s))
		return bad(v, pre, "mean_ns", "is not within min_ns..max_ns");
	if (s->kind == SAMPLE_PRESERVE && s->lost > s->size)
		return bad(v, pre, "lost", "is larger than size");
	return 0;
}

void spool_boot_free(struct spool_boot *sb)
{
	free(sb->res.v);
	sb->b.jf.root = NULL; /* owned by jf */
	jfile_free(&sb->jf);
	memset(sb, 0, sizeof(*sb));
}

/* "kernel": the boot's kernel artefact, its manifest JSON text */
static int read_kernel(struct vctx *v, json_object *ko, struct spool_boot *sb)
{
	struct boot_rec *rec = &sb->rec;
	size_t i;
	int ret = 0;
	struct kernel_art *k = &sb->k;
	const char *t[6];
	static const char *const keys[6] = { "dir",	      "label",	       "release",
					     "zimage_sha256", "config_sha256", "manifest" };

	if (!json_object_is_type(ko, json_type_object))
		ret = bad(v, "", "kernel", "is not an object");
	for (i = 0; i < 6 && !ret; i++)
		ret = get_str(v, ko, "kernel.", keys[i], i > 2, i == 5 ? 1 << 20 : 4096, &t[i]);
	if (!ret && t[5]) {
		json_object *m = json_tokener_parse(t[5]);

		if (!m)
			ret = bad(v, "kernel.", "manifest", "is not JSON text");
		json_object_put(m);
	}
	if (!ret) {
		k->dir = (char *)t[0];
		k->label = (char *)t[1];
		k->release = (char *)t[2];
		k->zimage_sha256 = (char *)t[3];
		k->config_sha256 = (char *)t[4];
		k->manifest_json = (char *)t[5];
		rec->k = k;
	}
	return ret;
}

/* "samples": checked one by one, each (scenario, batch) once; none for a failed boot or
 * after an error (ret) */
static int read_samples(struct vctx *v, json_object *r, struct spool_boot *sb, int ret, size_t *np)
{
	struct boot_rec *rec = &sb->rec;
	json_object *sa;
	size_t i, n;

	sa = jobj(r, "samples");
	if (!ret && (!sa || !json_object_is_type(sa, json_type_array)))
		ret = bad(v, "", "samples", "is missing or not an array");
	/* a failed boot's samples are never stored (nor checked: a boot can
	 * fail because its output broke the parser's rules) */
	n = ret || !strcmp(rec->status, "failed") ? 0 : json_object_array_length(sa);
	sb->res.v = xcalloc(n ? n : 1, sizeof(*sb->res.v));
	for (i = 0; i < n && !ret; i++)
		ret = read_sample(v, json_object_array_get_idx(sa, i), i, &sb->res.v[i]);
	if (!ret && n > 1) {
		/* (scenario, batch) is the samples' key: twice is a tampered file */
		const struct sample **p = xcalloc(n, sizeof(*p));

		for (i = 0; i < n; i++)
			p[i] = &sb->res.v[i];
		qsort(p, n, sizeof(*p), sample_cmp_batch);
		for (i = 1; i < n && !ret; i++)
			if (!sample_cmp_batch(&p[i - 1], &p[i])) {
				char f[120];

				snprintf(f, sizeof(f), "scenario %s batch %d appears twice",
					 p[i]->scenario, p[i]->batch);
				ret = bad(v, "", "samples", f);
			}
		free(p);
	}
	*np = n;
	return ret;
}

int spool_read(struct spool_boot *sb, const char *path, struct errtext *why)
{
	struct boot_rec *rec = &sb->rec;
	struct vctx v = { "", "" };
	json_object *r, *ko;
	const char *str;
	int64_t x;
	size_t n;
	int ret, version;

	memset(sb, 0, sizeof(*sb));
	errtext_clear(why);
	ret = jfile_load(&sb->jf, path); /* prints file:line:col */
	if (ret)
		return errtext_set(why, ret, "%s",
				   ret == -EINVAL ? "not valid JSON" : strerror(-ret));
	r = sb->jf.root;
	ret = get_int(&v, r, "", "spool_version", 0, INT_MAX, &version);
	if (!ret && version != 1)
		ret = bad(&v, "", "spool_version", "is not 1 (made by another ablab version)");
	if (!ret)
		ret = get_str(&v, r, "", "uuid", false, sizeof(rec->uuid), &str);
	if (!ret && !uuid_ok(str))
		ret = bad(&v, "", "uuid", "is not a UUID");
	if (!ret) {
		memcpy(rec->uuid, str, 37);
		ret = get_i64(&v, r, "", "campaign", false, 1, INT32_MAX, 0, &rec->campaign);
	}
	if (!ret)
		ret = get_str(&v, r, "", "board", false, 256, &sb->b.name);
	if (!ret && !sb->b.name[0])
		ret = bad(&v, "", "board", "is empty");
	if (!ret)
		ret = get_str(&v, r, "", "board_cpu", true, 256, &sb->b.cpu);
	if (!ret)
		ret = get_str(&v, r, "", "board_family", true, 256, &sb->b.family);
	if (!ret) {
		sb->b.jf.root = jobj(r, "board_definition");
		if (sb->b.jf.root && !json_object_is_type(sb->b.jf.root, json_type_object))
			ret = bad(&v, "", "board_definition", "is not an object");
	}
	if (!ret)
		ret = get_str(&v, r, "", "variant", false, 16, &rec->variant);
	/* any valid label here (a series campaign's "+1", "+1-2"); load_one() checks it
	 * against the campaign's variants */
	if (!ret && !variant_label_ok(rec->variant))
		ret = bad(&v, "", "variant", "is not a variant label (letters, digits, . _ + -)");
	if (!ret)
		ret = get_int(&v, r, "", "seq", 1, 1000000, &rec->seq);
	if (!ret)
		ret = get_int(&v, r, "", "attempt", 1, 1000000, &rec->attempt);
	if (!ret)
		ret = get_str(&v, r, "", "status", false, 16, &rec->status);
	if (!ret && strcmp(rec->status, "ok") && strcmp(rec->status, "failed"))
		ret = bad(&v, "", "status", "is not ok or failed");
	if (!ret)
		ret = get_str(&v, r, "", "error", true, 4096, &rec->error);
	if (!ret)
		ret = get_str(&v, r, "", "uname_r", true, 256, &rec->uname_r);
	if (!ret)
		ret = get_str(&v, r, "", "proc_version", true, 4096, &rec->proc_version);
	if (!ret)
		ret = get_str(&v, r, "", "log_path", true, PATH_MAX, &rec->log_path);
	if (!ret)
		ret = get_i64(&v, r, "", "started_wall_ms", false, 0, INT64_MAX / 2, 0,
			      &rec->started_wall_ms);
	if (!ret)
		ret = get_i64(&v, r, "", "boot_ms", false, -1, INT32_MAX, 0, &rec->boot_ms);
	if (!ret)
		ret = get_i64(&v, r, "", "run_ms", false, -1, INT32_MAX, 0, &rec->run_ms);
	if (!ret)
		ret = get_str(&v, r, "", "lava_server", true, 4096, &rec->lava_server);
	if (!ret)
		ret = get_i64(&v, r, "", "lava_job_id", true, 1, INT64_MAX, 0, &rec->lava_job_id);
	if (!ret && rec->lava_job_id && !rec->lava_server)
		ret = bad(&v, "", "lava_server", "is missing (lava_job_id needs its server)");
	if (!ret)
		ret = get_jsonobj(&v, r, "phases", &rec->phases);
	if (!ret)
		ret = get_jsonobj(&v, r, "env", &rec->env);
	ko = jobj(r, "kernel");
	if (!ret && ko)
		ret = read_kernel(&v, ko, sb);
	if (!ret)
		ret = get_i64(&v, r, "", "clock_res_ns", true, 0, INT64_MAX, 0, &x);
	if (!ret) {
		json_object *h = jobj(r, "have_start");

		sb->res.clock_res_ns = x;
		if (h && !json_object_is_type(h, json_type_boolean))
			ret = bad(&v, "", "have_start", "is not true or false");
		sb->res.have_start = jbool(r, "have_start", false);
	}
	n = 0;
	ret = read_samples(&v, r, sb, ret, &n);
	if (ret)
		return errtext_set(why, ret, "field \"%s\" %s", v.field, v.why);
	sb->res.n = sb->res.cap = n;
	rec->board = &sb->b;
	rec->res = &sb->res;
	return 0;
}

/* A file that cannot be stored as it is goes to DIR/rejected/ (kept for a
 * human, never retried); one that failed for a database reason stays. */
static void set_aside(const char *dir, const char *path, const char *name, const char *why)
{
	char *rdir = xasprintf("%s/rejected", dir), *dst = xasprintf("%s/%s", rdir, name);

	if (mkdir_p(rdir, 0755) || rename(path, dst))
		err_msg("%s: spool file refused: %s; nothing stored (could not move it to %s: %s)",
			path, why, rdir, strerror(errno));
	else
		err_msg("%s: spool file refused: %s; nothing stored, file moved to %s", path, why,
			dst);
	free(rdir);
	free(dst);
}

static int load_one(struct store *st, const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct spool_boot sb;
	struct errtext why;
	int ret;

	ret = spool_read(&sb, path, &why);
	if (!ret) {
		char labels[512];
		int has = store_campaign_has_variant(st, sb.rec.campaign, sb.rec.variant, labels,
						     sizeof(labels));

		if (has < 0)
			ret = has;
		else if (!has)
			ret = errtext_set(
				&why, -EINVAL,
				"field \"variant\" %s is not a variant of campaign %lld (%s)",
				sb.rec.variant, (long long)sb.rec.campaign, labels);
	}
	if (ret == -EINVAL) {
		set_aside(dir, path, name, why.msg);
	} else if (!ret) {
		ret = store_boot(st, &sb.rec);
		if (ret == -EEXIST)
			set_aside(dir, path, name,
				  "its slot or LAVA job is already stored by another boot");
		else if (!ret)
			unlink(path);
	}
	spool_boot_free(&sb);
	free(path);
	return ret;
}

int spool_flush(struct store *st, const char *dir, int *loaded, int *failed)
{
	struct dirent *de;
	DIR *d;

	*loaded = *failed = 0;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
			continue;
		if (load_one(st, dir, de->d_name) == 0)
			(*loaded)++;
		else
			(*failed)++;
	}
	closedir(d);
	return 0;
}
