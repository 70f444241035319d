// SPDX-License-Identifier: GPL-2.0-only
/* The host's side of a boot's environment fingerprint (runner-env.h): nothing typed,
 * nothing on the console's line. */
#include "runner-env.h"
#include "shared/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A file's sha256 is computed once per process while its size, mtime and inode hold:
 * the same initramfs is deployed at every boot of its variant. */
#define HASH_CACHE 16
static struct {
	char *path;
	struct stat st;
	char hex[65];
} cache[HASH_CACHE];
static unsigned int cache_next;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* hex = sha256 of path (file_sha256(), cached); false when it cannot be read */
static bool cached_sha256(const char *path, char hex[65])
{
	struct stat st;
	unsigned int i;
	bool ok = false;

	if (!path || stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	pthread_mutex_lock(&cache_lock);
	for (i = 0; i < HASH_CACHE; i++)
		if (cache[i].path && !strcmp(cache[i].path, path) && same_file(&cache[i].st, &st)) {
			memcpy(hex, cache[i].hex, 65);
			ok = true;
			break;
		}
	pthread_mutex_unlock(&cache_lock);
	if (ok)
		return true;
	if (file_sha256(path, hex))
		return false;
	pthread_mutex_lock(&cache_lock);
	i = cache_next++ % HASH_CACHE;
	free(cache[i].path);
	cache[i].path = xstrdup(path);
	cache[i].st = st;
	memcpy(cache[i].hex, hex, 65);
	pthread_mutex_unlock(&cache_lock);
	return true;
}

static void add_sha(json_object *env, const char *key, const char *path)
{
	char hex[65];

	if (cached_sha256(path, hex))
		json_object_object_add(env, key, json_object_new_string(hex));
}

/* The first boot loader version line since the console opened ("U-Boot 2023.01 (Jan
 * ...)", not SPL's; barebox's), when the window still holds it all. */
static void add_bootloader(json_object *env, const struct console *con)
{
	static const char *const tags[] = { "U-Boot ", "barebox " };
	const char *d = con->in.data, *best = NULL;
	size_t len = con->in.len, i;

	if (!d || con->in_base)
		return;
	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		const char *p = d;
		size_t tl = strlen(tags[i]);

		while ((p = memmem(p, len - (size_t)(p - d), tags[i], tl))) {
			if ((p == d || p[-1] == '\n' || p[-1] == '\r') && p + tl < d + len &&
			    p[tl] >= '0' && p[tl] <= '9') {
				if (!best || p < best)
					best = p;
				break;
			}
			p += tl;
		}
	}
	if (best) {
		size_t n = strcspn(best, "\r\n");
		char *line = strndup(best, n < 200 ? n : 200);

		for (char *c = line; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
		json_object_object_add(env, "bootloader", json_object_new_string(line));
		free(line);
	}
}

/* One warning per board per process: the board's shell.governor did not take. */
static void governor_warning(const struct board *b, json_object *env)
{
	static char *warned[64];
	static unsigned int nwarned;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	json_object *a;
	bool seen = false;
	unsigned int i;

	if (!b->governor || json_object_object_get_ex(env, "governor_pinned", NULL))
		return;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nwarned; i++)
		seen |= !strcmp(warned[i], b->name);
	if (!seen && nwarned < 64)
		warned[nwarned++] = xstrdup(b->name);
	pthread_mutex_unlock(&lock);
	if (seen)
		return;
	if (!json_object_object_get_ex(env, "cpufreq", &a))
		info_msg(
			"%s: warning: shell.governor \"%s\" not pinned: the target has no cpufreq policy (/sys/devices/system/cpu/cpufreq/policy*); the campaign goes on",
			b->name, b->governor);
	else
		info_msg(
			"%s: warning: shell.governor \"%s\" not pinned: a policy read back another governor (%s); the campaign goes on",
			b->name, b->governor, json_object_to_json_string(a));
}

void runner_env_boot(const struct runner_slot *sl, const struct console *con,
		     struct runner_result *r)
{
	json_object *env = json_object_new_object();
	char *ko;

	add_bootloader(env, con);
	add_sha(env, "dtb_sha256", sl->k->dtb);
	add_sha(env, "rootfs_sha256", sl->k->initrd);
	ko = sl->bp ? bench_kernel_file(sl->bp->def, sl->b->name, sl->k->dir, sl->variant) : NULL;
	add_sha(env, "module_sha256", ko);
	free(ko);
	json_object_put(r->env);
	r->env = env;
}

void runner_env_target(const struct runner_slot *sl, struct runner_result *r)
{
	if (!r->bo.env)
		return;
	if (!r->env)
		r->env = json_object_new_object();
	json_object_object_foreach(r->bo.env, key, val)
	{
		json_object_object_add(r->env, key, json_object_get(val));
	}
	json_object_put(r->bo.env);
	r->bo.env = NULL;
	if (json_object_object_get_ex(r->env, "cmdline", NULL))
		governor_warning(sl->b, r->env);
}
