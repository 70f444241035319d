// SPDX-License-Identifier: GPL-2.0-only
/* What every power backend shares: power_on/off/cycle through the backend's
 * ops, the off time of a cycle, the boards left on, running a command with a
 * deadline.  The backends, one file each:
 *   power-qemu.c:    "power on" starts QEMU paused (-S) with a QMP socket,
 *                    release() sends "cont" once the console is attached,
 *                    "off" is SIGKILL (a power cut), then the reap.
 *   power-gpiod.c:   relay lines on a GPIO chip (power_gpiod.c); the line
 *                    request is taken at the first switch and held until
 *                    power_free().
 *   power-command.c: argv arrays for on/off/cycle (pduclient, usbrelay...),
 *                    run without a shell, with a deadline, exit status checked.
 *   power-manual.c:  asks the operator on the controlling terminal. */
#include "backend/power.h"
#include "backend/backends.h"
#include "shared/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void power_set_error(struct power *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errtext_vset(&p->error, 0, fmt, ap);
	va_end(ap);
}

const char *power_error(const struct power *p, int ret)
{
	return errtext_isset(&p->error) ? p->error.msg : strerror(-ret);
}

bool program_exists(const char *prog)
{
	const char *path = getenv("PATH");
	char *dirs, *d, *save = NULL;
	bool found = false;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 && is_file(prog);
	dirs = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *f = xasprintf("%s/%s", *d ? d : ".", prog);

		found = is_file(f) && access(f, X_OK) == 0;
		free(f);
	}
	free(dirs);
	return found;
}

/* Waits (interruptibly) until the board has been off for off_ms. */
int power_wait_off_time(struct power *p)
{
	int64_t until = p->t_off + p->board->off_ms;

	while (p->t_off && now_ms() < until) {
		int64_t left = until - now_ms();

		if (stop_requested)
			return -EINTR;
		poll(NULL, 0, left > 100 ? 100 : (int)left);
	}
	return 0;
}

/*
 * Per board this process switched: left on (why: switched on and not off since, or its
 * power-off failed), so that a command that stops says truthfully whether its boards are
 * off; or switched off at t_off and not on since, so that the next boot's power off is not
 * needed (power_known_off), forgotten when a lock on the board is taken anew (power_forget),
 * as another process may have switched it while it was not held.  An entry with neither is
 * dropped.
 */
static pthread_mutex_t left_on_lock = PTHREAD_MUTEX_INITIALIZER;
struct board_power {
	char *board, *why;
	int64_t t_off;
};
static struct board_power *powered;
static size_t n_powered;

/* Under left_on_lock: the board's state set (why_set: why too, else it is kept). */
static void set_power(const char *board, bool why_set, const char *why, int64_t t_off)
{
	size_t i;

	for (i = 0; i < n_powered && strcmp(powered[i].board, board); i++)
		;
	if (i == n_powered) {
		if (!why && !t_off)
			return;
		powered = xrealloc(powered, (n_powered + 1) * sizeof(*powered));
		powered[n_powered++] = (struct board_power){ xstrdup(board), NULL, 0 };
	}
	if (why_set) {
		free(powered[i].why);
		powered[i].why = why ? xstrdup(why) : NULL;
	}
	powered[i].t_off = t_off;
	if (!powered[i].why && !t_off) {
		free(powered[i].board);
		powered[i] = powered[--n_powered];
		if (!n_powered) {
			free(powered);
			powered = NULL;
		}
	}
}

/* why NULL: the board is off (since t_off, 0: not known) */
static void note_power(const char *board, const char *why, int64_t t_off)
{
	pthread_mutex_lock(&left_on_lock);
	set_power(board, true, why, t_off);
	pthread_mutex_unlock(&left_on_lock);
}

size_t power_left_on(struct buf *out)
{
	size_t i, n = 0;

	pthread_mutex_lock(&left_on_lock);
	for (i = 0; i < n_powered; i++)
		if (powered[i].why)
			buf_printf(out, "%s%s", n++ ? "; " : "", powered[i].why);
	pthread_mutex_unlock(&left_on_lock);
	return n;
}

int64_t power_known_off(const char *board)
{
	int64_t t = 0;
	size_t i;

	pthread_mutex_lock(&left_on_lock);
	for (i = 0; i < n_powered; i++)
		if (!strcmp(powered[i].board, board))
			t = powered[i].t_off;
	pthread_mutex_unlock(&left_on_lock);
	return t;
}

void power_forget(const char *board)
{
	pthread_mutex_lock(&left_on_lock);
	set_power(board, false, NULL, 0);
	pthread_mutex_unlock(&left_on_lock);
}

int power_on(struct power *p, const struct kernel_art *k)
{
	char *why = xasprintf("%s: switched on and not off since", p->board->name);

	note_power(p->board->name, why, 0); /* a failed on may still have switched it */
	free(why);
	errtext_clear(&p->error);
	return p->ops->on(p, k);
}

int power_off(struct power *p)
{
	const char *name = p->board->name;
	int ret;

	if (stop_requested && !off_aborted)
		info_msg(
			"%s: stopping (signal %d): switching the board off; another signal aborts that and may leave it ON",
			name, (int)stop_requested);
	power_off_begin();
	errtext_clear(&p->error);
	ret = p->ops->off(p);
	power_off_end();
	if (ret) {
		note_power(name, power_error(p, ret), 0);
	} else {
		note_power(name, NULL, p->t_off ? p->t_off : now_ms());
	}
	return ret;
}

int power_cycle(struct power *p)
{
	int ret;

	if (p->ops->cycle) {
		char *why = xasprintf("%s: power cycled and not off since", p->board->name);

		note_power(p->board->name, why, 0);
		free(why);
		errtext_clear(&p->error);
		return p->ops->cycle(p);
	}
	ret = power_off(p);
	if (!ret)
		ret = power_wait_off_time(p);
	if (!ret)
		ret = power_on(p, NULL);
	return ret;
}

int run_argv_deadline(char *const argv[], int64_t deadline, struct buf *out, int *exec_errno)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int opipe[2], status = 0, r;
	sigset_t none, dfl;
	bool exited = false;
	ssize_t n;
	pid_t pid;

	*exec_errno = 0;
	if (pipe2(opipe, O_CLOEXEC) < 0)
		return -errno;
	/* posix_spawn, not fork: a fork of a campaign's process (a thread per board) copies
	 * its page tables for every power command, most of the agent's CPU at 50 boards
	 * (perf, docs/BENCHMARKS.md P3); glibc's posix_spawn is a vfork-style clone and
	 * reports a failed exec as its return value.  The child gets its own process group
	 * (a timeout kills all of it), stdin /dev/null, stdout+stderr the pipe, no signal
	 * blocked, SIGPIPE at its default. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, opipe[1], 1);
	posix_spawn_file_actions_adddup2(&fa, opipe[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &dfl);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	r = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(opipe[1]);
	if (r) {
		close(opipe[0]);
		if (r == ENOMEM || r == EAGAIN)
			return -r;
		*exec_errno = r;
		return -ENOENT;
	}
	fcntl(opipe[0], F_SETFL, O_NONBLOCK);
	for (;;) {
		struct pollfd pf = { .fd = opipe[0], .events = POLLIN };
		char chunk[4096];
		int64_t left = deadline - now_ms();

		if (!exited && waitpid(pid, &status, WNOHANG) == pid)
			exited = true;
		while ((n = read(opipe[0], chunk, sizeof(chunk))) > 0)
			if (out)
				buf_append(out, chunk, (size_t)n);
		if (exited || n == 0)
			break;
		if (left <= 0 || stop_now()) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			close(opipe[0]);
			return left > 0 ? -EINTR : -ETIMEDOUT;
		}
		poll(&pf, 1, left > 100 ? 100 : (int)left);
	}
	close(opipe[0]);
	if (!exited) {
		/* output closed: wait for the exit, still within the deadline; the exit
		 * follows the close by microseconds, woken by its pidfd (a 10 ms nap was
		 * 5 ms of every power command on average) */
		int pfd = (int)syscall(SYS_pidfd_open, pid, 0);

		while (waitpid(pid, &status, WNOHANG) != pid) {
			int64_t left = deadline - now_ms();
			struct pollfd q = { .fd = pfd, .events = POLLIN };

			if (left <= 0 || stop_now()) {
				kill(-pid, SIGKILL);
				waitpid(pid, &status, 0);
				if (pfd >= 0)
					close(pfd);
				return left > 0 ? -EINTR : -ETIMEDOUT;
			}
			if (pfd >= 0)
				poll(&q, 1, left > 100 ? 100 : (int)left);
			else
				poll(NULL, 0, 1);
		}
		if (pfd >= 0)
			close(pfd);
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

static const struct power_ops *find_backend(const char *name)
{
	const struct backend *bk = backend_find(BACKEND_POWER, name);

	return bk ? bk->ops : NULL;
}

int power_init(struct power *p, const struct board *b, const char *rundir)
{
	memset(p, 0, sizeof(*p));
	p->board = b;
	p->rundir = xstrdup(rundir ? rundir : "/tmp");
	p->ops = find_backend(b->power_type);
	return p->ops ? 0 : -EPROTONOSUPPORT;
}

int power_check(const struct board *b, struct buf *out)
{
	const struct power_ops *ops = find_backend(b->power_type);

	if (!ops)
		return check_line(out, false, "power.type", "%s: unsupported", b->power_type);
	return ops->check ? ops->check(b, out) : 0;
}

int power_preflight(const struct board *b, struct errtext *e)
{
	const struct power_ops *ops = find_backend(b->power_type);

	return ops && ops->preflight ? ops->preflight(b, e) : 0;
}

const char *power_machine_arg(const struct board *b, const char *const *names)
{
	const struct power_ops *ops = find_backend(b->power_type);

	return ops && ops->machine_arg ? ops->machine_arg(b, names) : NULL;
}

void power_free(struct power *p)
{
	if (p->ops && p->ops->running && p->ops->running(p))
		power_off(p);
	if (p->ops && p->ops->close)
		p->ops->close(p);
	free(p->rundir);
	memset(p, 0, sizeof(*p));
}
