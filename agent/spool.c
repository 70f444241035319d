// SPDX-License-Identifier: GPL-2.0-only
/* Spool of boots that could not be stored (see spool.h). */
#include "spool.h"
#include "board.h"
#include "jsonfile.h"
#include "util.h"
#include "cmds.h"

#include <dirent.h>
#include <errno.h>
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
	ret = write_file_atomic(path, text, strlen(text));
	free(path);
out:
	json_object_put(sa);
	json_object_put(o);
	return ret;
}

static void copy_word(char *dst, size_t len, json_object *o, const char *key)
{
	snprintf(dst, len, "%s", jstr(o, key) ? jstr(o, key) : "");
}

static int load_one(struct store *st, const char *path)
{
	struct jfile jf;
	struct board b;
	struct kernel_art k;
	struct run_result res;
	struct boot_rec rec;
	json_object *r, *ko, *sa;
	size_t i, n;
	int ret;

	memset(&b, 0, sizeof(b));
	memset(&k, 0, sizeof(k));
	memset(&res, 0, sizeof(res));
	memset(&rec, 0, sizeof(rec));
	ret = jfile_load(&jf, path);
	if (ret)
		goto out;
	r = jf.root;
	if (jint(r, "spool_version", 0) != 1 || !jstr(r, "uuid") || !jstr(r, "board") ||
	    !jstr(r, "variant") || !jstr(r, "status")) {
		err_msg("%s: not an ablab spool file (version 1); left in place", path);
		ret = -EINVAL;
		goto out;
	}
	b.name = jstr(r, "board");
	b.cpu = jstr(r, "board_cpu");
	b.family = jstr(r, "board_family");
	b.jf.root = jobj(r, "board_definition");
	snprintf(rec.uuid, sizeof(rec.uuid), "%s", jstr(r, "uuid"));
	rec.campaign = jint(r, "campaign", 0);
	rec.board = &b;
	rec.variant = jstr(r, "variant");
	rec.seq = (int)jint(r, "seq", 0);
	rec.attempt = (int)jint(r, "attempt", 1);
	rec.status = jstr(r, "status");
	rec.error = jstr(r, "error");
	rec.uname_r = jstr(r, "uname_r");
	rec.proc_version = jstr(r, "proc_version");
	rec.started_wall_ms = jint(r, "started_wall_ms", 0);
	rec.boot_ms = jint(r, "boot_ms", -1);
	rec.run_ms = jint(r, "run_ms", -1);
	rec.log_path = jstr(r, "log_path");
	ko = jobj(r, "kernel");
	if (ko) {
		k.dir = (char *)jstr(ko, "dir");
		k.label = (char *)jstr(ko, "label");
		k.release = (char *)jstr(ko, "release");
		k.zimage_sha256 = (char *)jstr(ko, "zimage_sha256");
		k.config_sha256 = (char *)jstr(ko, "config_sha256");
		k.manifest_json = (char *)jstr(ko, "manifest");
		rec.k = &k;
	}
	res.clock_res_ns = jint(r, "clock_res_ns", 0);
	res.have_start = jbool(r, "have_start", false);
	sa = jobj(r, "samples");
	n = sa ? json_object_array_length(sa) : 0;
	res.v = xcalloc(n, sizeof(*res.v));
	for (i = 0; i < n; i++) {
		json_object *so = json_object_array_get_idx(sa, i);
		struct sample *s = &res.v[i];

		s->kind = (enum sample_kind)jint(so, "kind", SAMPLE_RESULT);
		s->fmt = (int)jint(so, "fmt", 1);
		copy_word(s->scenario, sizeof(s->scenario), so, "scenario");
		s->batch = (int)jint(so, "batch", 1);
		s->size = jint(so, "size", -1);
		s->reps = jint(so, "reps", -1);
		copy_word(s->dir, sizeof(s->dir), so, "dir");
		copy_word(s->op, sizeof(s->op), so, "op");
		copy_word(s->state, sizeof(s->state), so, "state");
		copy_word(s->timing, sizeof(s->timing), so, "timing");
		s->mean_ns = json_object_get_double(jobj(so, "mean_ns"));
		s->min_ns = jint(so, "min_ns", -1);
		s->max_ns = jint(so, "max_ns", -1);
		s->raw_ns = jint(so, "raw_ns", -1);
		s->base_ns = jint(so, "base_ns", -1);
		s->ns_per_kib = json_object_get_double(jobj(so, "ns_per_kib"));
		s->lost = jint(so, "lost", -1);
	}
	res.n = res.cap = n;
	rec.res = &res;
	ret = store_boot(st, &rec);
out:
	free(res.v);
	b.jf.root = NULL;	/* owned by jf */
	jfile_free(&jf);
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
		char *path;

		if (l < 6 || strcmp(de->d_name + l - 5, ".json") || de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s", dir, de->d_name);
		if (load_one(st, path) == 0) {
			unlink(path);
			(*loaded)++;
		} else {
			(*failed)++;
		}
		free(path);
	}
	closedir(d);
	return 0;
}

int cmd_spool(int argc, char **argv)
{
	const char *results = "results";
	char *dir;
	int ret = 0;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ablab spool load|list [--results DIR]\n"
		       "Boots finished while the results database was unreachable are kept in\n"
		       "DIR/spool/UUID.json (default DIR: results).  `load` stores them (each\n"
		       "once: loading is idempotent by boot UUID) and removes the files; every\n"
		       "campaign run also loads them first.\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[2], "--results"))
		results = argv[3];
	else if (argc != 2) {
		fprintf(stderr, "usage: ablab spool load|list [--results DIR]\n");
		return 2;
	}
	dir = xasprintf("%s/spool", results);
	if (!strcmp(argv[1], "list")) {
		struct dirent *de;
		DIR *d = opendir(dir);
		int n = 0;

		while (d && (de = readdir(d)))
			if (strstr(de->d_name, ".json") && de->d_name[0] != '.') {
				printf("%s/%s\n", dir, de->d_name);
				n++;
			}
		if (d)
			closedir(d);
		fprintf(stderr, "ablab: %d spooled boot(s) in %s\n", n, dir);
	} else if (!strcmp(argv[1], "load")) {
		struct store st;
		int loaded, failed;

		if (store_open(&st, opt_db)) {
			free(dir);
			return 1;
		}
		ret = spool_flush(&st, dir, &loaded, &failed);
		store_close(&st);
		printf("%d spooled boot(s) loaded, %d left in %s\n", loaded, failed, dir);
		if (ret || failed)
			ret = 1;
	} else {
		fprintf(stderr, "usage: ablab spool load|list [--results DIR]\n");
		ret = 2;
	}
	free(dir);
	return ret;
}
