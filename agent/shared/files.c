// SPDX-License-Identifier: GPL-2.0-only
/* Files and directories: read, atomic write, safe directory walks, the XDG directories. */
#include "shared/files.h"
#include "shared/mem.h"
#include "shared/text.h"
#include "shared/errtext.h"
#include "shared/msg.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <ftw.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int read_token_file(const char *file, char **token)
{
	size_t len;
	int ret;

	ret = read_file(file, token, &len);
	if (ret) {
		err_msg("--token-file %s: %s", file, strerror(-ret));
		return ret;
	}
	(*token)[strcspn(*token, " \t\r\n")] = '\0';
	if (!(*token)[0]) {
		err_msg("--token-file %s is empty", file);
		free(*token);
		*token = NULL;
		return -EINVAL;
	}
	return 0;
}

int read_file(const char *path, char **data, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			buf_free(&b);
			return -e;
		}
		buf_append(&b, chunk, (size_t)n);
	}
	close(fd);
	if (!b.data)
		buf_append(&b, "", 0);
	*data = b.data;
	if (len)
		*len = b.len;
	return 0;
}

/* Copies srcfd from its offset to its end into fd: copy_file_range() (no
 * bytes through this process), else read/write through a 64 KiB buffer, so
 * that memory stays flat in the file's size. */
static int copy_fd(int srcfd, int fd)
{
	char *chunk = NULL;
	ssize_t n, w;
	int ret = 0;

	while ((n = copy_file_range(srcfd, NULL, fd, NULL, 1 << 30, 0)) != 0) {
		if (n > 0 || errno == EINTR)
			continue;
		if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
			return -errno;
		break; /* not between these files: through a buffer */
	}
	if (n == 0)
		return 0;
	chunk = xmalloc(65536);
	while ((n = read(srcfd, chunk, 65536)) != 0 && !ret) {
		char *p = chunk;

		if (n < 0) {
			if (errno != EINTR)
				ret = -errno;
			continue;
		}
		while (n > 0 && !ret) {
			w = write(fd, p, (size_t)n);
			if (w < 0 && errno != EINTR)
				ret = -errno;
			if (w > 0) {
				p += w;
				n -= w;
			}
		}
	}
	free(chunk);
	return ret;
}

/* write_file_atomic_at() with the bytes from data, or (srcfd >= 0) from a file; durable:
 * the file and the rename fsynced */
static int atomic_at(int dirfd, const char *name, const void *data, size_t len, int srcfd,
		     mode_t mode, bool durable)
{
	const char *p = data;
	char *tmp = NULL;
	int fd = -1, ret = 0, i;

	/* a unique name, created here (O_EXCL): whatever sits in the directory
	 * already, a planted symlink included, is never opened */
	for (i = 0; i < 16 && fd < 0; i++) {
		char rnd[13];

		random_hex(rnd, 12);
		free(tmp);
		tmp = xasprintf("%s.tmp.%s", name, rnd);
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	if (srcfd >= 0)
		ret = copy_fd(srcfd, fd);
	while (srcfd < 0 && len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (!ret && durable && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	/* rename() replaces a symlink at NAME itself, never its target */
	if (!ret && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	else if (durable && fsync(dirfd) < 0 && errno != EBADF && errno != EINVAL)
		ret = -errno; /* the rename itself durable (EBADF: an O_PATH fd) */
out:
	free(tmp);
	return ret;
}

int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len)
{
	return atomic_at(dirfd, name, data, len, -1, 0644, true);
}

int copy_file_atomic_at(const char *src, int dirfd, const char *name)
{
	int srcfd = open(src, O_RDONLY | O_CLOEXEC), ret;

	if (srcfd < 0)
		return -errno;
	ret = atomic_at(dirfd, name, NULL, 0, srcfd, 0644, true);
	close(srcfd);
	return ret;
}

int copy_fd_atomic_at(int srcfd, int dirfd, const char *name)
{
	return atomic_at(dirfd, name, NULL, 0, srcfd, 0644, false);
}

int write_file_atomic(const char *path, const void *data, size_t len)
{
	return write_file_atomic_mode(path, data, len, 0644);
}

int write_file_atomic_mode(const char *path, const void *data, size_t len, mode_t mode)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : xstrdup(".");
	int dirfd, ret;

	if (!dir)
		return -ENOMEM;
	dirfd = open(*dir ? dir : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dirfd < 0)
		return -errno;
	ret = atomic_at(dirfd, slash ? slash + 1 : path, data, len, -1, mode, true);
	close(dirfd);
	return ret;
}

int dir_free_check(const char *dir, uint64_t floor_mb, struct errtext *why)
{
	struct statvfs vs;
	uint64_t mb;

	if (statvfs(dir, &vs) < 0)
		return errtext_set(why, -errno, "%s: cannot see its free space: %s", dir,
				   strerror(errno));
	mb = (uint64_t)vs.f_bavail * vs.f_frsize >> 20;
	if (mb < floor_mb)
		return errtext_set(
			why, -ENOSPC,
			"%s: %llu MiB free, below the %llu MiB a campaign needs for its transcripts and spool (ABLAB_MIN_FREE_MB sets the floor): free some space or pass another --results",
			dir, (unsigned long long)mb, (unsigned long long)floor_mb);
	return 0;
}

int open_dir_nofollow(const char *path, char **link)
{
	char *p = xstrdup(path), *comp, *save = NULL;
	int fd, rfd, e;

	*link = NULL;
	fd = open(*p == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (comp = strtok_r(p, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		struct stat st;

		if (nfd < 0) {
			e = errno;
			if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				*link = strndup(path, (size_t)(comp - p) + strlen(comp));
				e = ELOOP;
			}
			close(fd);
			errno = e;
			goto fail;
		}
		close(fd);
		fd = nfd;
	}
	free(p);
	/* readable, so that it can be fsynced; "." of it is no symlink */
	rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return fd; /* search-only directory: keep the O_PATH fd */
	close(fd);
	return rfd;
fail:
	e = errno;
	free(p);
	return -e;
}

static int rm_err;

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT && !rm_err)
		rm_err = -errno;
	return 0;
}

char *make_run_dir(const char *prefix)
{
	const char *t = getenv("TMPDIR");
	char *d;
	int e;

	if (!t || t[0] != '/')
		t = "/tmp";
	d = xasprintf("%s/%s.XXXXXX", t, prefix);
	if (mkdtemp(d))
		return d;
	e = errno;
	err_msg("cannot create a run directory in %s (TMPDIR): %s", t, strerror(e));
	free(d);
	errno = e;
	return NULL;
}

int remove_tree(const char *path)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* nftw's callback has no arg */
	int ret;

	pthread_mutex_lock(&lock);
	rm_err = 0;
	if (nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT)
		rm_err = -errno;
	ret = rm_err;
	pthread_mutex_unlock(&lock);
	return ret;
}

int mkdir_p(const char *path, mode_t mode)
{
	char *p = xstrdup(path), *s;
	int ret = 0;

	for (s = p + 1;; s++) {
		if (*s == '/' || !*s) {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				ret = -errno;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
	if (!ret && !is_dir(path))
		ret = -ENOTDIR;
	return ret;
}

bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* No fallback to a shared directory such as /tmp: without HOME (a service
 * started without one) the caller is told which variable to set. */
static char *xdg_dir(const char *own_env, const char *xdg_env, const char *home_sub,
		     const char *root_dir, const char *what)
{
	const char *e = getenv(own_env);

	if (e && *e)
		return xstrdup(e);
	if (root_dir && geteuid() == 0)
		return xstrdup(root_dir);
	e = getenv(xdg_env);
	if (e && *e)
		return xasprintf("%s/ablab", e);
	e = getenv("HOME");
	if (e && *e)
		return xasprintf("%s/%s/ablab", e, home_sub);
	err_msg("%s: HOME is not set and neither is %s: set one of them (systemd units: jobs/systemd/README.md)",
		what, own_env);
	return NULL;
}

char *cache_dir(void)
{
	return xdg_dir("ABLAB_CACHE", "XDG_CACHE_HOME", ".cache", NULL,
		       "cache directory (built kernels)");
}

char *data_dir(void)
{
	return xdg_dir("ABLAB_DATA", "XDG_DATA_HOME", ".local/share", "/var/lib/ablab",
		       "data directory (database, locks, health logs)");
}

char *xdirname(const char *path)
{
	char *tmp = xstrdup(path), *d = xstrdup(dirname(tmp));

	free(tmp);
	return d;
}

int file_sha256(const char *path, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int mdlen = 0, i;
	EVP_MD_CTX *ctx;
	struct stat st;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		ret = -ENOMEM;
	while (!ret && (n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno != EINTR)
			ret = -errno;
		else if (n > 0 && !EVP_DigestUpdate(ctx, chunk, (size_t)n))
			ret = -EIO;
	}
	if (!ret && !EVP_DigestFinal_ex(ctx, md, &mdlen))
		ret = -EIO;
	EVP_MD_CTX_free(ctx);
	close(fd);
	for (i = 0; !ret && i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	if (!ret)
		hex[64] = '\0';
	return ret;
}
