// SPDX-License-Identifier: GPL-2.0-only
/* Kernel recipes (boards/kernel/NAME.conf and build.sh): a board's recipe, whether the
 * recipe's cache holds a build of the current inputs, and the build itself.  Every path
 * is explicit: the recipe (found from the board file), the patches directory and the
 * module source; nothing here knows about jobs. */
#include "recipe.h"
#include "board.h"
#include "shared/jsonfile.h"
#include "kernel.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* sha256 of a file as 64 hex digits, or NULL */
static char *sha_of(const char *path)
{
	char hex[65];

	return file_sha256(path, hex) ? NULL : xstrdup(hex);
}

void recipe_free(struct recipe *r)
{
	free(r->script);
	free(r->name);
	free(r->kdir);
	free(r->repo);
}

int recipe_of_board(const char *board, struct recipe *r)
{
	struct board b;
	char real[PATH_MAX], *conf, *base, *dot;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = board_load_by_name(&b, board);
	if (ret) {
		board_free(&b);
		return ret;
	}
	if (!b.kernel_recipe) {
		err_msg("%s: board %s has no kernel.recipe, so the job cannot build its kernels: use source type \"prebuilt\" for it",
			b.jf.path, b.name);
		board_free(&b);
		return -EINVAL;
	}
	conf = board_recipe_path(&b);
	if (!realpath(conf, real)) {
		err_msg("%s: kernel.recipe %s: %s", b.jf.path, conf, strerror(errno));
		free(conf);
		board_free(&b);
		return -ENOENT;
	}
	free(conf);
	r->kdir = xdirname(real);
	base = xstrdup(strrchr(real, '/') + 1);
	dot = strstr(base, ".conf");
	if (dot)
		*dot = '\0';
	r->name = base;
	r->script = xasprintf("%s/build.sh", r->kdir);
	r->repo = xasprintf("%s/../..", r->kdir);
	if (realpath(r->repo, real)) {
		free(r->repo);
		r->repo = xstrdup(real);
	}
	board_free(&b);
	if (!is_file(r->script)) {
		err_msg("%s: no kernel build script next to the recipe", r->script);
		recipe_free(r);
		return -ENOENT;
	}
	return 0;
}

/* The job's own module as recorded in a manifest ("module": name, src,
 * files) against the source directory now: NULL when they agree. */
static char *module_mismatch(json_object *mod, const char *src)
{
	json_object *a = jobj(mod, "files");
	size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	size_t i, have = 0;
	struct dirent *de;
	char *why = NULL;
	DIR *d;

	if (!src)
		return mod ? xasprintf("built with the benchmark module %s", jstr(mod, "name")) :
			     NULL;
	/* the same files, not the same path: build.sh keys the build by them */
	if (!mod || !n)
		return xasprintf("benchmark module %s not in this build", src);
	for (i = 0; i < n && !why; i++) {
		json_object *e = json_object_array_get_idx(a, i);
		char *p = xasprintf("%s/%s", src, jstr(e, "name") ? jstr(e, "name") : "?");
		char *sha = sha_of(p);

		if (!sha || !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256")))
			why = xasprintf("benchmark module source %s changed", p);
		free(sha);
		free(p);
	}
	/* a file added since: the same selection as build.sh's */
	d = why ? NULL : opendir(src);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		const char *ext = l > 2 ? de->d_name + l - 2 : "";

		if (!strcmp(de->d_name, "Kbuild") || !strcmp(de->d_name, "Makefile") ||
		    ((!strcmp(ext, ".c") || !strcmp(ext, ".h")) &&
		     !(l > 6 && !strcmp(de->d_name + l - 6, ".mod.c"))))
			have++;
	}
	if (d)
		closedir(d);
	if (!why && have != n)
		why = xasprintf("benchmark module %s: files added or removed", src);
	return why;
}

/* Does the manifest in dir record the inputs we have now?  NULL if it
 * does, else why not (caller frees). */
/* The patches recorded (a) against the series in patches: the same names and contents in
 * order for the patched variant, none for control; why not (caller frees), or NULL. */
static char *patches_mismatch(json_object *a, const char *patches, const char *variant)
{
	char *why = NULL, *sha, *p;
	size_t n;

	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	if (!strcmp(variant, "patched")) {
		struct dirent **de = NULL;
		int nd = patches ? scandir(patches, &de, NULL, alphasort) : -1, k;
		size_t np = 0;

		for (k = 0; k < nd; k++) {
			const char *f = de[k]->d_name;
			size_t l = strlen(f);

			if (!why && l > 6 && !strcmp(f + l - 6, ".patch")) {
				json_object *e = np < n ? json_object_array_get_idx(a, np) : NULL;

				p = xasprintf("%s/%s", patches, f);
				sha = sha_of(p);
				free(p);
				if (!e || !jstr(e, "name") || strcmp(jstr(e, "name"), f) || !sha ||
				    !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256")))
					why = xasprintf("patch series differs at %s", f);
				free(sha);
				np++;
			}
			free(de[k]);
		}
		free(de);
		if (!why && np != n)
			why = xstrdup("patch series differs (number of patches)");
	} else if (n) {
		why = xstrdup("control build has patches");
	}
	return why;
}

static char *manifest_mismatch(const char *dir, const struct recipe *rc, const char *patches,
			       const char *variant)
{
	char *mpath = xasprintf("%s/manifest.json", dir), *why = NULL, *sha = NULL, *p;
	json_object *m, *a;
	struct jfile jf;
	size_t i, n;

	if (!is_file(mpath)) {
		free(mpath);
		return xstrdup("no complete build");
	}
	if (jfile_load(&jf, mpath)) {
		jfile_free(&jf);
		free(mpath);
		return xstrdup("unreadable manifest");
	}
	free(mpath);
	m = jf.root;
#define DIFF(file, recorded, what)                                    \
	do {                                                          \
		sha = sha_of(file);                                   \
		if (!sha || !(recorded) || strcmp(sha, (recorded))) { \
			why = xstrdup(what);                          \
			goto out;                                     \
		}                                                     \
		free(sha);                                            \
		sha = NULL;                                           \
	} while (0)
	DIFF(rc->script, jstr(m, "build_script_sha256"), "build script changed");
	p = xasprintf("%s/%s", rc->kdir,
		      jstr(jobj(m, "fragment"), "name") ? jstr(jobj(m, "fragment"), "name") : "?");
	sha = sha_of(p);
	free(p);
	if (!sha || !jstr(jobj(m, "fragment"), "sha256") ||
	    strcmp(sha, jstr(jobj(m, "fragment"), "sha256"))) {
		why = xstrdup("config fragment changed");
		goto out;
	}
	free(sha);
	sha = NULL;
	p = xasprintf("%s/init.sh", rc->kdir);
	DIFF(p, jstr(jobj(m, "initramfs"), "init_sha256"), "initramfs /init changed");
	free(p);
	a = jobj(m, "kmod");
	n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		p = xasprintf("%s/kmod/%s", rc->repo, jstr(e, "name") ? jstr(e, "name") : "?");
		sha = sha_of(p);
		if (!sha || !jstr(e, "sha256") || strcmp(sha, jstr(e, "sha256"))) {
			why = xasprintf("benchmark module source %s changed", jstr(e, "name"));
			free(p);
			goto out;
		}
		free(p);
		free(sha);
		sha = NULL;
	}
	if (!n) {
		why = xstrdup("no benchmark module recorded");
		goto out;
	}
	why = module_mismatch(jobj(m, "module"), rc->module_src);
	if (why)
		goto out;
	why = patches_mismatch(jobj(m, "patches"), patches, variant);
out:
#undef DIFF
	free(sha);
	jfile_free(&jf);
	return why;
}

/* Without building: which VARIANT-* directory of the recipe's cache holds
 * a build of the current inputs (build.sh keys them the same way; the
 * recipe .conf and the source tarball are not recorded in manifests, so a
 * change of those is found only by build.sh itself). */
int recipe_probe(const struct recipe *rc, const char *patches, const char *variant, char **odir,
		 char **ostate)
{
	char *cache = cache_dir(), *kd, *prefix, *first_why = NULL, *link, pub[PATH_MAX];
	struct dirent *de;
	bool have_pub;
	DIR *d;

	if (!cache)
		return -ENOENT; /* cache_dir() said why */
	kd = xasprintf("%s/kernels/%s", cache, rc->name);
	if (!strcmp(variant, "git")) {
		/* git builds are named by their commit: git-<commit12>-<key16> */
		char *ref = rc->git_ref ? xasprintf("%s^{commit}", rc->git_ref) : NULL;
		char *argv[] = { "git",	      "-C", (char *)(rc->git_tree ? rc->git_tree : "."),
				 "rev-parse", "-q", "--verify",
				 ref,	      NULL };
		struct buf out = { 0 };

		if (!ref || run_argv(argv, &out) || out.len < 40) {
			err_msg("%s: \"%s\" is not a commit of this git tree",
				rc->git_tree ? rc->git_tree : "(no git tree)",
				rc->git_ref ? rc->git_ref : "");
			free(ref);
			buf_free(&out);
			free(kd);
			free(cache);
			return -EINVAL;
		}
		prefix = xasprintf("git-%.12s-", out.data);
		free(ref);
		buf_free(&out);
	} else {
		prefix = xasprintf("%s-", variant);
	}
	link = xasprintf("%s/%s", kd, variant);
	have_pub = realpath(link, pub) != NULL;
	d = opendir(kd);

	while (d && (de = readdir(d))) {
		char *dir, *why;

		if (strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		dir = xasprintf("%s/%s", kd, de->d_name);
		why = manifest_mismatch(dir, rc, patches, variant);
		if (!why) {
			*odir = dir;
			*ostate = xstrdup("cached");
			break;
		}
		/* the reason that matters: what differs from the current build */
		if (!first_why || (have_pub && !strcmp(dir, pub))) {
			free(first_why);
			first_why = why;
		} else {
			free(why);
		}
		free(dir);
	}
	free(link);
	if (d)
		closedir(d);
	if (!*odir)
		*ostate = xasprintf("would build (%s)", first_why ? first_why : "never built");
	free(first_why);
	free(cache);
	free(kd);
	free(prefix);
	return 0;
}

/* Runs the build script; its progress goes to stderr; the artefact
 * directory is read from its last "cached (DIR)" / "done: ... -> DIR" line. */
/* The build script's environment: ablab's, with the recipe's variables set (NULL: not
 * set, and not passed on from ablab's). */
static char **build_env(char *pd, char *ms, char *gt, char *gr)
{
	size_t n = 0, i;
	char **envp;

	while (environ[n])
		n++;
	envp = xcalloc(n + 5, sizeof(*envp));
	for (i = 0, n = 0; environ[i]; i++)
		if ((!pd || strncmp(environ[i], "PATCHES_DIR=", 12)) &&
		    strncmp(environ[i], "ABLAB_MODULE_SRC=", 17) &&
		    strncmp(environ[i], "ABLAB_GIT_TREE=", 15) &&
		    strncmp(environ[i], "ABLAB_GIT_REF=", 14))
			envp[n++] = environ[i];
	if (pd)
		envp[n++] = pd;
	if (ms)
		envp[n++] = ms;
	if (gt)
		envp[n++] = gt;
	if (gr)
		envp[n++] = gr;
	return envp;
}

/* The build script's output (fd, closed), echoed: the kernel directory it names, built or
 * *cached (NULL: none named). */
static char *build_output(int fd, bool *cached)
{
	FILE *f = fdopen(fd, "r");
	char *dir = NULL;

	*cached = false;
	if (f) {
		char *l = NULL;
		size_t cap = 0;
		ssize_t len;

		while ((len = getline(&l, &cap, f)) > 0) {
			char *p;

			fprintf(stderr, "  | %s", l);
			if (l[len - 1] == '\n')
				l[--len] = '\0';
			if ((p = strstr(l, ": cached (")) && len > 0 && l[len - 1] == ')') {
				free(dir);
				dir = strndup(p + 10, (size_t)(l + len - 1 - (p + 10)));
				*cached = true;
			} else if (strstr(l, ": done: ") && (p = strstr(l, " -> "))) {
				free(dir);
				dir = xstrdup(p + 4);
				*cached = false;
			}
		}
		free(l);
		fclose(f);
	} else {
		close(fd);
	}
	return dir;
}

int recipe_build(const struct recipe *rc, const char *patches, const char *variant, char **odir,
		 char **ostate)
{
	char *argv[] = { "bash", rc->script, rc->name, (char *)variant, NULL };
	char *pd = patches ? xasprintf("PATCHES_DIR=%s", patches) : NULL;
	char *ms = rc->module_src ? xasprintf("ABLAB_MODULE_SRC=%s", rc->module_src) : NULL;
	char *gt = rc->git_tree ? xasprintf("ABLAB_GIT_TREE=%s", rc->git_tree) : NULL;
	char *gr = rc->git_ref ? xasprintf("ABLAB_GIT_REF=%s", rc->git_ref) : NULL;
	char *dir = NULL, **envp;
	bool cached = false;
	int pfd[2], status;
	pid_t pid;

	envp = build_env(pd, ms, gt, gr);
	fflush(stderr);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		free(envp);
		free(pd);
		free(ms);
		free(gt);
		free(gr);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		free(envp);
		free(pd);
		free(ms);
		free(gt);
		free(gr);
		return -e;
	}
	if (pid == 0) {
		/* its own process group (a stop is forwarded to the whole build below), and
		 * SIGPIPE at its default (ablab ignores it; an ignored signal stays so) */
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		dup2(pfd[1], 1);
		execve("/bin/bash", argv, envp);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	free(envp);
	dir = build_output(pfd[0], &cached);
	if (stop_requested)
		kill(-pid, SIGTERM); /* SIGTERM to ablab alone: the build stops too */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		if (stop_requested)
			kill(-pid, SIGTERM);
	free(pd);
	free(ms);
	free(gt);
	free(gr);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		err_msg("%s %s %s failed (exit %d); see its messages above", rc->script, rc->name,
			variant, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		free(dir);
		return -EIO;
	}
	if (!dir) {
		err_msg("%s did not say where it put the %s kernel", rc->script, variant);
		return -EIO;
	}
	*odir = dir;
	*ostate = xstrdup(cached ? "cached" : "built");
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR/NAME for the first n *.patch of patches (byte order of names, as build.sh globs
 * them): links in a directory of the cache that holds nothing else.  0 or -errno. */
static int prefix_dir(const char *cache, const char *patches, int n, char **odir)
{
	char real[PATH_MAX], **names = NULL;
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a of the directory's path */
	struct dirent *de;
	size_t nn = 0, i;
	char *dir;
	DIR *d;
	int ret = 0;

	if (!realpath(patches, real)) {
		err_msg("%s: %s", patches, strerror(errno));
		return -errno;
	}
	for (const char *p = real; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	dir = xasprintf("%s/prefixes/%016llx-%d", cache, (unsigned long long)h, n);
	d = opendir(real);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 6 && !strcmp(de->d_name + l - 6, ".patch")) {
			names = xrealloc(names, (nn + 1) * sizeof(*names));
			names[nn++] = xstrdup(de->d_name);
		}
	}
	if (d)
		closedir(d);
	qsort(names, nn, sizeof(*names), cmp_name);
	if ((size_t)n > nn) {
		err_msg("%s: %zu *.patch, not the %d of the series variant (patches removed since the job was read?)",
			real, nn, n);
		ret = -ENOENT;
	} else if (mkdir_p(dir, 0755)) {
		err_msg("cannot create %s: %s", dir, strerror(errno));
		ret = -EIO;
	}
	/* what an earlier run left: the links of another series, or of this one */
	d = ret ? NULL : opendir(dir);
	while (d && (de = readdir(d))) {
		char *p = xasprintf("%s/%s", dir, de->d_name);

		if (de->d_name[0] != '.')
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	for (i = 0; !ret && i < (size_t)n; i++) {
		char *from = xasprintf("%s/%s", real, names[i]), *to;

		to = xasprintf("%s/%s", dir, names[i]);
		if (symlink(from, to)) {
			err_msg("cannot link %s to %s: %s", to, from, strerror(errno));
			ret = -errno;
		}
		free(from);
		free(to);
	}
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	if (ret)
		free(dir);
	else
		*odir = dir;
	return ret;
}

int recipe_variant(const struct recipe *rc, const char *patches, int npatches, bool build,
		   char **odir, char **ostate)
{
	char *cache = cache_dir(), *dir = NULL, *link, *tmp, was[PATH_MAX];
	ssize_t wl;
	int ret;

	if (!cache)
		return -ENOENT; /* cache_dir() said why */
	if (!patches) {
		err_msg("%s: a series variant needs its patches (a recipe build of control + patches)",
			rc->name);
		free(cache);
		return -EINVAL;
	}
	ret = npatches > 0 ? prefix_dir(cache, patches, npatches, &dir) : 0;
	if (ret) {
		free(cache);
		return ret;
	}
	if (!dir)
		dir = xstrdup(patches);
	if (!build) {
		ret = recipe_probe(rc, dir, "patched", odir, ostate);
		free(dir);
		free(cache);
		return ret;
	}
	/* build.sh points kernels/BOARD/patched at what it built: put the link back */
	link = xasprintf("%s/kernels/%s/patched", cache, rc->name);
	tmp = xasprintf("%s/kernels/%s/.patched.ablab.%d", cache, rc->name, (int)getpid());
	wl = readlink(link, was, sizeof(was) - 1);
	if (wl >= 0)
		was[wl] = '\0';
	ret = recipe_build(rc, dir, "patched", odir, ostate);
	if (wl < 0) {
		unlink(link);
	} else {
		unlink(tmp);
		if (symlink(was, tmp) || rename(tmp, link))
			err_msg("warning: cannot point %s back at %s: %s", link, was,
				strerror(errno));
	}
	free(tmp);
	free(link);
	free(dir);
	free(cache);
	return ret;
}

char *recipe_git_log(const struct recipe *rc, const char *commit)
{
	char *cache = cache_dir(), *p;

	if (!cache)
		return NULL;
	p = xasprintf("%s/logs/%s-git-%.12s.log", cache, rc->name, commit);
	free(cache);
	return p;
}
