// SPDX-License-Identifier: GPL-2.0-only
/* Small helpers shared by every part of the agent. */
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <libgen.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int verbose;
volatile sig_atomic_t stop_requested;
volatile sig_atomic_t off_aborted;
static atomic_int offs_running; /* power-offs in progress, all threads */
static _Thread_local int this_thread_off;

static void say(const char *a, const char *b)
{
	/* write(2) only: this runs in a signal handler */
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0) {
		/* nowhere to report it */
	}
}

static void on_signal(int sig)
{
	const char *name = sig == SIGINT ? "ablab: SIGINT: " :
			   sig == SIGHUP ? "ablab: SIGHUP: " :
					   "ablab: SIGTERM: ";
	int e = errno;

	if (!stop_requested) {
		stop_requested = sig;
		say(name,
		    "stopping; boards that are on are switched off first (another signal while that runs aborts it)\n");
	} else if (!off_aborted && atomic_load(&offs_running) > 0) {
		off_aborted = sig;
		say(name, "aborting the power-off: boards may be left ON\n");
	}
	errno = e;
}

void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void power_off_begin(void)
{
	this_thread_off++;
	atomic_fetch_add(&offs_running, 1);
}

void power_off_end(void)
{
	atomic_fetch_sub(&offs_running, 1);
	this_thread_off--;
}

bool in_power_off(void)
{
	return this_thread_off > 0;
}

bool stop_now(void)
{
	return this_thread_off ? off_aborted != 0 : stop_requested != 0;
}

/* One line "ablab: ..." written at once, so lines of board threads never mix. */
static void vmsg(const char *fmt, va_list ap)
{
	char line[2048];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "ablab: %s\n", line);
	fflush(stderr);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

int errtext_vset(struct errtext *e, int ret, const char *fmt, va_list ap)
{
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return ret;
}

int errtext_set(struct errtext *e, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errtext_vset(e, ret, fmt, ap);
	va_end(ap);
	return ret;
}

void errtext_prefix(struct errtext *e, const char *fmt, ...)
{
	char *pre, *all;
	va_list ap;

	va_start(ap, fmt);
	pre = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	all = xasprintf("%s: %s", pre, e->msg);
	snprintf(e->msg, sizeof(e->msg), "%s", all);
	free(all);
	free(pre);
}

void info_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

static int64_t clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t now_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

int64_t wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		err_msg("out of memory");
		abort();
	}
	return p;
}

char *xstrdup(const char *s)
{
	return s ? strcpy(xmalloc(strlen(s) + 1), s) : NULL;
}

char *xvasprintf(size_t *len, const char *fmt, va_list ap)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);

	if (n < 0) {
		err_msg("out of memory");
		abort();
	}
	if (len)
		*len = (size_t)n;
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	return s;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = xrealloc(b->data, cap);
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(&n, fmt, ap);
	va_end(ap);
	buf_append(b, s, n);
	free(s);
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

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

/* write_file_atomic_at() with the bytes from data, or (srcfd >= 0) from a file */
static int atomic_at(int dirfd, const char *name, const void *data, size_t len, int srcfd,
		     mode_t mode)
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
	if (!ret && fsync(fd) < 0)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	/* rename() replaces a symlink at NAME itself, never its target */
	if (!ret && renameat(dirfd, tmp, dirfd, name) < 0)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	else if (fsync(dirfd) < 0 && errno != EBADF && errno != EINVAL)
		ret = -errno; /* the rename itself durable (EBADF: an O_PATH fd) */
out:
	free(tmp);
	return ret;
}

int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len)
{
	return atomic_at(dirfd, name, data, len, -1, 0644);
}

int copy_file_atomic_at(const char *src, int dirfd, const char *name)
{
	int srcfd = open(src, O_RDONLY | O_CLOEXEC), ret;

	if (srcfd < 0)
		return -errno;
	ret = atomic_at(dirfd, name, NULL, 0, srcfd, 0644);
	close(srcfd);
	return ret;
}

int copy_fd_atomic_at(int srcfd, int dirfd, const char *name)
{
	return atomic_at(dirfd, name, NULL, 0, srcfd, 0644);
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
	ret = atomic_at(dirfd, slash ? slash + 1 : path, data, len, -1, mode);
	close(dirfd);
	return ret;
}

void csv_cell(FILE *f, const char *s)
{
	/* a cell a spreadsheet would read as a formula (=HYPERLINK(...), @SUM(...), a tab or
	 * CR before one, or + or - before anything but [A-Za-z0-9._+-]: a function, a DDE
	 * "|") is prefixed with ': it stays text.  A number (-35) and a series label
	 * (+1-2) are kept as they are. */
	bool formula = s[0] && strchr("=@\t\r", s[0]);
	static const char plain[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";

	if ((s[0] == '-' || s[0] == '+') && s[strspn(s, plain)])
		formula = true;
	if (!formula && !strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

bool modparams_ok(const char *s)
{
	return strspn(s,
		      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 =,:._-+") ==
	       strlen(s);
}

bool shell_word_ok(const char *s)
{
	size_t l = strlen(s);

	return l && s[0] != '-' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == l;
}

bool lab_name_ok(const char *s, size_t len)
{
	return len >= 1 && len <= LAB_NAME_MAX && strlen(s) == len && s[0] != '-' && s[0] != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") ==
		       len;
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

int run_argv(char *const argv[], struct buf *out)
{
	int pfd[2] = { -1, -1 };
	int status;
	pid_t pid;

	if (out && pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid > 0)
		setpgid(pid, pid);
	if (pid < 0) {
		int e = errno;

		if (out) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -e;
	}
	if (pid == 0) {
		setpgid(0, 0); /* a stop of ablab is forwarded to its whole group below */
		signal(SIGPIPE, SIG_DFL); /* ignored by ablab; an ignored signal stays so */
		if (out)
			dup2(pfd[1], 1);
		execvp(argv[0], argv);
		fprintf(stderr, "ablab: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out) {
		char chunk[4096];
		ssize_t n;

		close(pfd[1]);
		while ((n = read(pfd[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0) {
				if (errno != EINTR)
					break;
				if (stop_requested)
					kill(-pid, SIGTERM);
				continue;
			}
			buf_append(out, chunk, (size_t)n);
		}
		close(pfd[0]);
	}
	if (stop_requested)
		kill(-pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (stop_requested)
			kill(-pid, SIGTERM);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
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

int expand_template_flags(const char *tmpl, const char *const *keys, const char *const *vals,
			  size_t n, unsigned int flags, char **out, char **bad)
{
	struct buf b = { 0 };
	const char *p = tmpl;

	*bad = NULL;
	while (*p) {
		const char *open = strchr(p, '{'), *close;
		size_t i, klen;

		if (!open) {
			buf_append(&b, p, strlen(p));
			break;
		}
		close = strchr(open, '}');
		buf_append(&b, p, (size_t)(open - p));
		if (!close) {
			buf_append(&b, open, strlen(open));
			break;
		}
		if ((flags & TMPL_KEEP_DOLLAR) && open > p && open[-1] == '$') {
			buf_append(&b, open, (size_t)(close - open + 1));
			p = close + 1;
			continue;
		}
		klen = (size_t)(close - open - 1);
		for (i = 0; i < n; i++)
			if (strlen(keys[i]) == klen && !strncmp(keys[i], open + 1, klen))
				break;
		if (i == n || !vals[i]) {
			*bad = strndup(open + 1, klen);
			buf_free(&b);
			return i == n ? -ENOENT : -ENODATA;
		}
		buf_append(&b, vals[i], strlen(vals[i]));
		p = close + 1;
	}
	if (!b.data)
		buf_append(&b, "", 0);
	*out = b.data;
	return 0;
}

int expand_template(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
		    char **out, char **bad)
{
	return expand_template_flags(tmpl, keys, vals, n, 0, out, bad);
}

void random_hex(char *out, size_t nhex)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char r[64];
	size_t i;

	if (nhex > 2 * sizeof(r))
		nhex = 2 * sizeof(r);
	if (getrandom(r, (nhex + 1) / 2, 0) < 0) {
		for (i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)(rand() ^ (int)getpid());
	}
	for (i = 0; i < nhex; i++)
		out[i] = hex[(r[i / 2] >> ((i & 1) ? 0 : 4)) & 0xf];
	out[nhex] = '\0';
}

void uuid_v4(char out[37])
{
	char h[33];

	random_hex(h, 32);
	h[12] = '4';
	h[16] = "89ab"[h[16] % 4];
	snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", h, h + 8, h + 12, h + 16, h + 20);
}

char *xdirname(const char *path)
{
	char *tmp = xstrdup(path), *d = xstrdup(dirname(tmp));

	free(tmp);
	return d;
}
