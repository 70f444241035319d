// SPDX-License-Identifier: GPL-2.0-only
/* Board definitions: load and validate boards/NAME.json (boards/README.md),
 * and the per-board lock. */
#include "board.h"
#include "backend/backends.h"
#include "backend/power.h"
#include "backend/console.h"
#include "shared/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The keys each section has for every backend: before and after the keys of its
 * backends (backends.h, struct backend_conf), in the order the board file
 * documents them. */
static const struct jfield console_head[] = { { "type", J_STRING, true }, { NULL } };

static const struct jfield console_tail[] = { { "reopen_s", J_INT, false, NULL, 0, 600 },
					      { "transcript_mb", J_INT, false, NULL, 1, 4096 },
					      { NULL } };

static const struct jfield power_head[] = { { "type", J_STRING, true }, { NULL } };

static const struct jfield power_tail[] = { { "off_ms", J_INT, false, NULL, 0, 600000 }, { NULL } };

static const struct jfield boot_head[] = { { "method", J_STRING, true },
					   { "append", J_STRING },
					   { "fail_patterns", J_ARRAY_STRING },
					   { NULL } };

static const struct jfield boot_tail[] = { { NULL } };

static const struct jfield shell_fields[] = { { "prompt", J_STRING, true },
					      { "module_path", J_STRING },
					      { "governor", J_STRING },
					      { NULL } };

static const struct jfield timeout_fields[] = {
	{ "power", J_INT, false, NULL, 1, 3600 },   { "bootloader", J_INT, false, NULL, 1, 3600 },
	{ "kernel", J_INT, false, NULL, 1, 3600 },  { "command", J_INT, false, NULL, 1, 86400 },
	{ "deploy", J_INT, false, NULL, 1, 86400 }, { NULL }
};

static const struct jfield kernel_fields[] = { { "recipe", J_STRING, true }, { NULL } };

static const struct jfield board_fields[] = { { "name", J_STRING, true },
					      { "description", J_STRING },
					      { "cpu", J_STRING, true },
					      { "family", J_STRING, true },
					      { "emulated", J_BOOL },
					      { "icount_shift", J_INT, false, NULL, 0, 10 },
					      { "console", J_OBJECT,
						true }, /* sub: section_fields() */
					      { "power", J_OBJECT, true },
					      { "boot", J_OBJECT, true },
					      { "shell", J_OBJECT, true, shell_fields },
					      { "timeouts_s", J_OBJECT, false, timeout_fields },
					      { "retries", J_INT, false, NULL, 0, 100 },
					      { "kernel", J_OBJECT, false, kernel_fields },
					      { NULL } };

/* A section's schema: head, the keys of each backend of the kind (once), tail. */
#define SECTION_MAX 48
static void section_fields(enum backend_kind kind, const struct jfield *head,
			   const struct jfield *tail, struct jfield *out)
{
	const struct backend *bk = NULL;
	const struct jfield *f;
	size_t n = 0, i;

	for (f = head; f->key; f++)
		out[n++] = *f;
	while ((bk = backend_next(kind, bk))) {
		for (f = backend_conf(bk)->fields; f && f->key; f++) {
			for (i = 0; i < n && strcmp(out[i].key, f->key); i++)
				;
			if (i == n && n + 1 < SECTION_MAX)
				out[n++] = *f;
		}
	}
	for (f = tail; f->key && n + 1 < SECTION_MAX; f++)
		out[n++] = *f;
	out[n] = (struct jfield){ NULL };
}

static bool has_field(const struct backend *bk, const char *key)
{
	const struct jfield *f;

	for (f = backend_conf(bk)->fields; f && f->key; f++)
		if (!strcmp(f->key, key))
			return true;
	return false;
}

/* Keys present in section `o` that the chosen backend does not use but another one does. */
static int check_owners(const struct board *b, json_object *o, const char *section,
			const struct backend *chosen)
{
	int ret = 0;

	json_object_object_foreach(o, key, val)
	{
		const struct backend *bk = NULL;
		char types[128];
		size_t n = 0;

		(void)val;
		if (has_field(chosen, key))
			continue;
		types[0] = '\0';
		while ((bk = backend_next(chosen->kind, bk)))
			if (has_field(bk, key) && n < sizeof(types))
				n += (size_t)snprintf(types + n, sizeof(types) - n, "%s%s",
						      n ? " " : "", bk->name);
		if (n)
			ret = board_field_error(b, section, key,
						"not used by %s \"%s\" (only by: %s)",
						chosen->kind == BACKEND_BOOT ? "method" : "type",
						chosen->name, types);
	}
	return ret;
}

static int load_console(struct board *b, json_object *o)
{
	const struct backend *bk;
	char names[128];

	b->console_type = jstr(o, "type");
	b->console_reopen_ms = jint(o, "reopen_s", 0) * 1000;
	b->console_transcript_mb = jint(o, "transcript_mb", 0); /* 0: the default */
	bk = backend_find(BACKEND_CONSOLE, b->console_type);
	if (!bk)
		return board_field_error(b, "console", "type",
					 "unsupported console type \"%s\"; one of: %s",
					 b->console_type,
					 backend_names(BACKEND_CONSOLE, names, sizeof(names)));
	if (check_owners(b, o, "console", bk))
		return -EINVAL;
	return backend_conf(bk)->parse ? backend_conf(bk)->parse(b, o) : 0;
}

static int load_power(struct board *b, json_object *o)
{
	const struct backend *bk;
	char names[128];

	b->power_type = jstr(o, "type");
	b->off_ms = jint(o, "off_ms", 1000);
	bk = backend_find(BACKEND_POWER, b->power_type);
	if (!bk)
		return board_field_error(b, "power", "type",
					 "unsupported power type \"%s\"; one of: %s", b->power_type,
					 backend_names(BACKEND_POWER, names, sizeof(names)));
	if (check_owners(b, o, "power", bk))
		return -EINVAL;
	return backend_conf(bk)->parse ? backend_conf(bk)->parse(b, o) : 0;
}

static int board_load_one(struct board *b, const char *path)
{
	struct jfield top[ARRAY_SIZE(board_fields)], *f;
	struct jfield console_fields[SECTION_MAX], power_fields[SECTION_MAX];
	struct jfield boot_fields[SECTION_MAX];
	const struct backend *boot;
	json_object *r, *o;
	char names[128];
	int ret;

	memset(b, 0, sizeof(*b));
	ret = jfile_load(&b->jf, path);
	if (ret)
		return ret;
	r = b->jf.root;
	memcpy(top, board_fields, sizeof(top));
	section_fields(BACKEND_CONSOLE, console_head, console_tail, console_fields);
	section_fields(BACKEND_POWER, power_head, power_tail, power_fields);
	section_fields(BACKEND_BOOT, boot_head, boot_tail, boot_fields);
	for (f = top; f->key; f++)
		f->sub = !strcmp(f->key, "console") ? console_fields :
			 !strcmp(f->key, "power")   ? power_fields :
			 !strcmp(f->key, "boot")    ? boot_fields :
						      f->sub;
	ret = jfile_validate(&b->jf, r, "", top);
	if (ret)
		return ret;

	b->name = jstr(r, "name");
	b->cpu = jstr(r, "cpu");
	b->family = jstr(r, "family");
	b->description = jstr(r, "description");
	b->emulated = jbool(r, "emulated", false);
	b->icount_shift = jint(r, "icount_shift", -1);
	if (b->icount_shift >= 0 && !b->emulated)
		return board_field_error(
			b, NULL, "icount_shift",
			"instruction counting is a property of an emulated board: set \"emulated\": true or remove \"icount_shift\"");
	if (!lab_name_ok(b->name, (size_t)json_object_get_string_len(jobj(r, "name"))))
		return board_field_error(
			b, NULL, "name",
			"\"%.64s%s\" is not a board name: %s (it names lock files, transcripts and database rows; a NUL is refused)",
			b->name, strlen(b->name) > 64 ? "..." : "", LAB_NAME_RULE);

	ret = load_console(b, jobj(r, "console"));
	if (ret)
		return ret;
	ret = load_power(b, jobj(r, "power"));
	if (ret)
		return ret;

	o = jobj(r, "boot");
	b->boot_method = jstr(o, "method");
	boot = backend_find(BACKEND_BOOT, b->boot_method);
	if (!boot)
		return board_field_error(b, "boot", "method",
					 "unsupported boot method \"%s\"; one of: %s",
					 b->boot_method,
					 backend_names(BACKEND_BOOT, names, sizeof(names)));
	if (check_owners(b, o, "boot", boot))
		return -EINVAL;
	b->append = jstr(o, "append");
	if (!b->append)
		b->append = "";
	b->fail_patterns = jstrv(o, "fail_patterns", NULL);
	if (board_check_regexes(b, "boot", "fail_patterns", b->fail_patterns))
		return -EINVAL;
	ret = backend_conf(boot)->parse ? backend_conf(boot)->parse(b, o) : 0;
	if (ret)
		return ret;

	o = jobj(r, "shell");
	b->prompt = jstr(o, "prompt");
	if (!*b->prompt)
		return board_field_error(b, "shell", "prompt", "must not be empty");
	b->module_path = jstr(o, "module_path");
	if (!b->module_path)
		b->module_path = "/lib/modules/dmabench.ko";
	b->governor = jstr(o, "governor");
	/* typed into the target's shell and written to scaling_governor (at most 15 bytes) */
	if (b->governor &&
	    (!*b->governor || strlen(b->governor) > 15 ||
	     strspn(b->governor, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(b->governor)))
		return board_field_error(
			b, "shell", "governor",
			"\"%s\" is not a cpufreq governor name (1-15 of a-z, 0-9, _; e.g. \"performance\")",
			b->governor);

	o = jobj(r, "timeouts_s");
	b->t_power_s = jint(o, "power", 10);
	b->t_bootloader_s = jint(o, "bootloader", 30);
	b->t_kernel_s = jint(o, "kernel", 120);
	b->t_command_s = jint(o, "command", 300);
	b->t_deploy_s = jint(o, "deploy", 120);
	b->retries = jint(r, "retries", 2);
	b->kernel_recipe = jstr(jobj(r, "kernel"), "recipe");
	return 0;
}

const char *board_dir(void)
{
	const char *dir = getenv("ABLAB_BOARDS");

	return dir && *dir ? dir : "boards";
}

int board_load(struct board *b, const char *path)
{
	int ret = board_load_one(b, path);

	if (ret)
		board_free(b); /* nothing half-loaded is left to the caller */
	return ret;
}

int board_load_by_name(struct board *b, const char *name)
{
	char *path;
	int ret;

	if (strchr(name, '/') || strstr(name, ".json"))
		return board_load(b, name);
	path = xasprintf("%s/%s.json", board_dir(), name);
	if (!is_file(path)) {
		err_msg("no board \"%s\": %s does not exist (set ABLAB_BOARDS or pass a path)",
			name, path);
		free(path);
		memset(b, 0, sizeof(*b));
		return -ENOENT;
	}
	ret = board_load(b, path);
	free(path);
	return ret;
}

void board_free(struct board *b)
{
	const struct backend *bk[] = { backend_find(BACKEND_CONSOLE, b->console_type),
				       backend_find(BACKEND_POWER, b->power_type),
				       backend_find(BACKEND_BOOT, b->boot_method) };

	for (size_t i = 0; i < ARRAY_SIZE(bk); i++)
		if (bk[i] && backend_conf(bk[i])->free)
			backend_conf(bk[i])->free(b);
	strv_free(b->fail_patterns);
	jfile_free(&b->jf);
	memset(b, 0, sizeof(*b));
}

/* --- locks --- */

static char *lock_dir(void)
{
	const char *e = getenv("ABLAB_LOCK_DIR");
	char *d;

	if (e && *e)
		return xstrdup(e);
	if (!mkdir_p("/run/ablab", 0755) && access("/run/ablab", W_OK) == 0)
		return xstrdup("/run/ablab");
	d = data_dir();
	if (!d) /* data_dir() said why; opening a lock there fails */
		return xstrdup("/run/ablab");
	{
		char *l = xasprintf("%s/locks", d);

		free(d);
		return l;
	}
}

/* The lock file for a key: the board name, or "console-" and the console's
 * identity with every byte outside [A-Za-z0-9._-] as %XX. */
static char *lock_path(const char *key, bool console)
{
	char *d = lock_dir(), *p;
	struct buf name = { 0 };
	const char *c;

	mkdir_p(d, 0755);
	if (console) {
		buf_printf(&name, "console-");
		for (c = key; *c; c++) {
			unsigned char u = (unsigned char)*c;

			if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
			    (u >= '0' && u <= '9') || u == '.' || u == '_' || u == '-')
				buf_append(&name, c, 1);
			else
				buf_printf(&name, "%%%02X", u);
		}
	} else {
		buf_printf(&name, "%s", key);
	}
	p = xasprintf("%s/%s.lock", d, name.data);
	buf_free(&name);
	free(d);
	return p;
}

/* What identifies a board's console across board files: its backend's
 * lock_key() (a resolved device, host:port; NULL for a QEMU pty). */
static char *console_key(const struct board *b)
{
	const struct backend *bk = backend_find(BACKEND_CONSOLE, b->console_type);
	const struct console_ops *ops = bk ? bk->ops : NULL;

	return ops && ops->lock_key ? ops->lock_key(b) : NULL;
}

/*
 * Whether a lock file (dev, ino) is held, from /proc/locks (readable by every user, so a
 * file another user's 0600 hides is probed too): 1 held, 0 not, < 0 no /proc/locks.  *pid
 * gets the pid of a POSIX lock on it (lock_take() sets one beside its OFD lock, whose pid
 * the kernel does not show), else 0.
 */
static int lock_held(dev_t dev, ino_t ino, int *pid)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256];
	int held = 0;

	*pid = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char type[16], adv[16], rw[16];
		unsigned int maj, min;
		unsigned long long in;
		const char *p = strchr(line, ':');
		int lp;

		/* "1: OFDLCK ADVISORY  WRITE -1 fe:00:1234 0 0"; "1: -> ..." waits for it */
		if (!p || strstr(p, "->") ||
		    sscanf(p + 1, "%15s %15s %15s %d %x:%x:%llu", type, adv, rw, &lp, &maj, &min,
			   &in) != 7)
			continue;
		if (makedev(maj, min) != dev || in != (unsigned long long)ino)
			continue;
		held = 1;
		if (lp > 0 && !*pid)
			*pid = lp;
	}
	fclose(f);
	return held;
}

/* "pid N (uid U, COMMAND)" of a process: its uid and command (the program's name and
 * first argument: "ablab power") from /proc, readable by every user; "?" when it is
 * gone. */
static void describe_pid(int pid, char *out, size_t len)
{
	char path[64], cmd[256] = "", line[128], *prog, *arg = NULL;
	unsigned int uid = 0;
	bool have_uid = false;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &uid) == 1) {
			have_uid = true;
			break;
		}
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(cmd, 1, sizeof(cmd) - 1, f);
		fclose(f);
	}
	cmd[n] = '\0';
	prog = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	if (strlen(cmd) + 1 < n)
		arg = cmd + strlen(cmd) + 1;
	if (have_uid)
		snprintf(out, len, "pid %d (uid %u, %s%s%s)", pid, uid, *prog ? prog : "?",
			 arg ? " " : "", arg ? arg : "");
	else
		snprintf(out, len, "pid %d (%s%s%s)", pid, *prog ? prog : "?", arg ? " " : "",
			 arg ? arg : "");
}

/*
 * The holder of the lock file at path (st: its stat; fd: open on it, or -1 when this user
 * cannot open it): 1 held ("pid N (uid U, COMMAND) on HOST" into out), 0 not held, -1 not
 * known (no /proc/locks).
 */
static int lock_holder(const char *path, const struct stat *st, int fd, char *out, size_t len)
{
	char text[300] = "", host[256] = "", purpose[256] = "", who[320];
	int pid = 0, lpid, held, tfd = fd;
	ssize_t n;

	*out = '\0';
	held = lock_held(st->st_dev, st->st_ino, &lpid);
	if (held < 0 && fd >= 0) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		held = fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
	}
	if (held <= 0)
		return held;
	if (tfd < 0)
		tfd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	n = tfd >= 0 ? pread(tfd, text, sizeof(text) - 1, 0) : -1;
	if (tfd >= 0 && tfd != fd)
		close(tfd);
	if (n > 0) {
		text[n] = '\0';
		if (sscanf(text, "%d %255s %255[^\n]", &pid, host, purpose) < 2)
			pid = 0;
	}
	if (!pid)
		pid = lpid;
	if (!pid) {
		snprintf(out, len, "a process of uid %u", (unsigned int)st->st_uid);
		return 1;
	}
	describe_pid(pid, who, sizeof(who));
	if (*host && *purpose && !strstr(who, purpose))
		snprintf(out, len, "%s on %s (%s)", who, host, purpose);
	else if (*host)
		snprintf(out, len, "%s on %s", who, host);
	else
		snprintf(out, len, "%s", who);
	return 1;
}

/*
 * Only the owner (and, in a group-writable lock directory, its group: a lab
 * group) may open a lock file: anyone who can open it can lock it.  A file this
 * user may not use is probed first: held, -EBUSY with the holder in why ("pid N
 * (uid U, COMMAND) on HOST (PURPOSE)"), never advice to remove it; only a file no
 * process holds is called stale.
 */
static int lock_open(const char *path, bool create, struct errtext *why)
{
	char *dir = xstrdup(path), *sl = strrchr(dir, '/');
	char who[400];
	struct stat st, ds = { 0 };
	mode_t mode = 0600;
	int fd, held;

	if (sl)
		*sl = '\0';
	if (!stat(dir, &ds) && (ds.st_mode & S_IWGRP))
		mode = 0660;
	free(dir);
	fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;

		if ((e == EACCES || e == EPERM) && !lstat(path, &st) && S_ISREG(st.st_mode)) {
			held = lock_holder(path, &st, -1, who, sizeof(who));
			if (held > 0)
				return errtext_set(why, -EBUSY, "%s", who);
			if (!held)
				return errtext_set(
					why, -e,
					"cannot open lock %s (owner uid %u, mode %04o): %s; no process holds it: it is stale (its owner or root may remove it); run interactive commands in the lab group (README: Board locks)",
					path, (unsigned int)st.st_uid,
					(unsigned int)(st.st_mode & 07777), strerror(e));
		}
		return errtext_set(why, -e, "cannot open lock %s: %s", path, strerror(e));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return errtext_set(why, -EINVAL, "lock %s is not a regular file", path);
	}
	if (create && st.st_uid == geteuid() && (st.st_mode & 0777) != mode &&
	    fchmod(fd, mode) == 0)
		st.st_mode = (st.st_mode & ~0777u) | mode;
	if (create && ((st.st_uid != geteuid() && (mode != 0660 || st.st_gid != ds.st_gid)) ||
		       (st.st_mode & 0007))) {
		held = lock_holder(path, &st, fd, who, sizeof(who));
		close(fd);
		if (held > 0)
			return errtext_set(why, -EBUSY, "%s", who);
		if (st.st_mode & 0007)
			return errtext_set(
				why, -EPERM,
				"lock %s is open to every user (mode %04o, owner uid %u), so anyone can block the board, and no process holds it: remove it",
				path, (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid);
		return errtext_set(
			why, -EPERM,
			"lock %s belongs to uid %u, who can block the board with it, and no process holds it (stale): remove it, and run interactive commands in the lab group (README: Board locks)",
			path, (unsigned int)st.st_uid);
	}
	return fd;
}

/* Another open file's write lock on fd's file: 1 (text of the holder into
 * out), 0 when free.  F_OFD_GETLK takes nothing, so probing never makes a
 * concurrent board_lock() fail. */
static int lock_probe(int fd, char *out, size_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char text[300] = "", host[256] = "", purpose[256] = "";
	int pid = 0;
	ssize_t n;

	*out = '\0';
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return 0;
	n = pread(fd, text, sizeof(text) - 1, 0);
	if (n > 0) {
		text[n] = '\0';
		if (sscanf(text, "%d %255s %255[^\n]", &pid, host, purpose) >= 2) {
			snprintf(out, len, "pid %d on %s (%s)", pid, host,
				 *purpose ? purpose : "?");
			return 1;
		}
	}
	snprintf(out, len, "an unknown process");
	return 1;
}

/* Opens and write-locks one lock file (an OFD lock: the kernel drops it
 * when the holder dies, threads do not share it by accident); what names
 * the holder in "in use" messages is `what`. */
static int lock_take(const char *board, const char *what, const char *path, const char *text)
{
	/* the lock is the OFD lock on byte 0; a POSIX lock on byte 1 only shows this
	 * process's pid in /proc/locks (an OFD lock's pid is not shown) to users who
	 * cannot read the file's text (lock_holder()) */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	struct flock pl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 1, .l_len = 1 };
	struct errtext why = { 0 };
	char who[400];
	struct stat st;
	int fd = lock_open(path, true, &why);

	if (fd == -EBUSY) {
		err_msg("%s: %s is in use by %s (lock %s)", board, what, why.msg, path);
		return fd;
	}
	if (fd < 0) {
		err_msg("%s: %s", board, why.msg);
		return fd;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		int e = errno;

		if (e != EAGAIN && e != EACCES) {
			err_msg("%s: cannot lock %s: %s", board, path, strerror(e));
			close(fd);
			return -e;
		}
		if (fstat(fd, &st) < 0 || lock_holder(path, &st, fd, who, sizeof(who)) <= 0)
			lock_probe(fd, who, sizeof(who));
		err_msg("%s: %s is in use by %s (lock %s)", board, what,
			*who ? who : "another process", path);
		close(fd);
		return -EBUSY;
	}
	if (fcntl(fd, F_SETLK, &pl) < 0) {
		/* only the pid in /proc/locks is missing: lock_holder() then reads the text */
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, strlen(text), 0) < 0) {
		int e = errno;

		err_msg("%s: cannot write lock %s: %s", board, path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int board_lock(struct board_lock *l, const struct board *b, const char *purpose)
{
	char host[256] = "?", *text, *key = console_key(b), *what;
	int ret = 0;

	l->fd = l->cfd = -1;
	l->path = lock_path(b->name, false);
	l->cpath = key ? lock_path(key, true) : NULL;
	gethostname(host, sizeof(host) - 1);
	text = xasprintf("%d %s %s\n", (int)getpid(), host, purpose);
	l->fd = lock_take(b->name, "board", l->path, text);
	free(text);
	if (l->fd < 0) {
		ret = l->fd;
		goto out;
	}
	if (l->cpath) {
		text = xasprintf("%d %s %s, board %s\n", (int)getpid(), host, purpose, b->name);
		what = xasprintf("console %s", key);
		l->cfd = lock_take(b->name, what, l->cpath, text);
		free(what);
		free(text);
		if (l->cfd < 0)
			ret = l->cfd;
	}
out:
	free(key);
	if (ret)
		board_unlock(l);
	else /* while it was not held, another process may have switched it */
		power_forget(b->name);
	return ret;
}

void board_unlock(struct board_lock *l)
{
	/* the lock is what counts; a stale text is ignored when unlocked */
	if (l->cfd >= 0) {
		if (ftruncate(l->cfd, 0) < 0) {
		}
		close(l->cfd);
	}
	if (l->fd >= 0) {
		if (ftruncate(l->fd, 0) < 0) {
		}
		close(l->fd);
	}
	free(l->path);
	free(l->cpath);
	l->path = l->cpath = NULL;
	l->fd = l->cfd = -1;
}

static int holder_of(const char *path, char *out, size_t len)
{
	struct errtext why = { 0 };
	int fd = lock_open(path, false, &why), r;

	*out = '\0';
	if (fd == -ENOENT)
		return 0;
	if (fd == -EBUSY) {
		snprintf(out, len, "%s", why.msg);
		return 1;
	}
	if (fd < 0) {
		snprintf(out, len, "unknown (%s)", why.msg);
		return 1;
	}
	r = lock_probe(fd, out, len);
	close(fd);
	return r;
}

int board_lock_holder(const struct board *b, char *out, size_t len)
{
	char *path = lock_path(b->name, false), *key;
	int r = holder_of(path, out, len);

	free(path);
	if (r)
		return r;
	key = console_key(b);
	if (key) {
		char who[300];

		path = lock_path(key, true);
		r = holder_of(path, who, sizeof(who));
		if (r)
			snprintf(out, len, "%s, through console %s", who, key);
		free(path);
		free(key);
	}
	return r;
}

char *board_recipe_path(const struct board *b)
{
	char real[PATH_MAX], *bdir, *conf;

	if (b->kernel_recipe[0] == '/')
		return xstrdup(b->kernel_recipe);
	bdir = realpath(b->jf.path, real) ? xdirname(real) : xdirname(b->jf.path);
	conf = xasprintf("%s/%s", bdir, b->kernel_recipe);
	free(bdir);
	return conf;
}
