// SPDX-License-Identifier: GPL-2.0-only
/* Power backends.
 *   qemu:    "power on" starts QEMU paused (-S) with a QMP socket, release()
 *            sends "cont" once the console is attached, "off" is QMP quit,
 *            then the process is reaped.
 *   gpiod:   relay lines on a GPIO chip (power_gpiod.c); the line request is
 *            taken at the first switch and held until power_free().
 *   command: argv arrays for on/off/cycle (pduclient, usbrelay...), run
 *            without a shell, with a deadline, exit status checked.
 *   manual:  asks the operator on the controlling terminal. */
#include "power.h"
#include "backends.h"
#include "power_gpiod.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static void set_error(struct power *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_error(struct power *p, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(p->error);
	p->error = s;
}

/* The last two non-empty lines of QEMU's log, for error messages (QEMU
 * often follows its complaint with a hint such as "Use -machine help"). */
static char *log_tail(const char *path)
{
	char *data, *prev = NULL, *line = NULL, *s, *save = NULL, *r;

	if (read_file(path, &data, NULL))
		return xstrdup("(no output)");
	for (s = strtok_r(data, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
		if (*s) {
			prev = line;
			line = s;
		}
	}
	if (!line)
		r = xstrdup("(no output)");
	else if (prev)
		r = xasprintf("%s; %s", prev, line);
	else
		r = xstrdup(line);
	free(data);
	return r;
}

static bool child_exited(struct power *p, int *status)
{
	pid_t r;

	if (p->pid <= 0)
		return true;
	r = waitpid(p->pid, status, WNOHANG);
	if (r == p->pid) {
		p->pid = 0;
		return true;
	}
	return false;
}

/* Reads one QMP message (a line) with a deadline. */
static int qmp_read(struct power *p, struct buf *line, int64_t deadline)
{
	char c;

	line->len = 0;
	for (;;) {
		struct pollfd pf = { .fd = p->qmp, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pf, 1, (int)left) <= 0) {
			if (errno == EINTR)
				continue;
			continue;
		}
		n = read(p->qmp, &c, 1);
		if (n == 0)
			return -EPIPE;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		if (c == '\n')
			return 0;
		buf_append(line, &c, 1);
	}
}

/* Sends a command and waits for its return; *ret gets the "return" value. */
static int qmp_cmd(struct power *p, const char *cmd, json_object **ret, int64_t deadline)
{
	struct buf line = { 0 };
	int r;

	if (write(p->qmp, cmd, strlen(cmd)) < 0 || write(p->qmp, "\n", 1) < 0)
		return -errno;
	for (;;) {
		json_object *o, *v;

		r = qmp_read(p, &line, deadline);
		if (r)
			break;
		o = json_tokener_parse(line.data ? line.data : "");
		if (!o)
			continue;
		if (json_object_object_get_ex(o, "return", &v)) {
			if (ret)
				*ret = json_object_get(v);
			json_object_put(o);
			break;
		}
		if (json_object_object_get_ex(o, "error", &v)) {
			set_error(p, "QMP %s: %s", cmd, json_object_to_json_string(v));
			json_object_put(o);
			r = -EIO;
			break;
		}
		json_object_put(o);	/* an event */
	}
	buf_free(&line);
	return r;
}

static int qmp_connect(struct power *p, int64_t deadline)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct buf line = { 0 };
	int status, r;

	if (strlen(p->qmp_path) >= sizeof(sa.sun_path)) {
		set_error(p, "QMP socket path too long: %s", p->qmp_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, p->qmp_path);
	for (;;) {
		p->qmp = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (p->qmp < 0)
			return -errno;
		if (connect(p->qmp, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(p->qmp);
		p->qmp = -1;
		if (child_exited(p, &status)) {
			char *t = log_tail(p->log_path);

			set_error(p, "QEMU exited at start: %s", t);
			free(t);
			return -ECHILD;
		}
		if (now_ms() > deadline) {
			set_error(p, "QEMU did not open its QMP socket within the power timeout");
			return -ETIMEDOUT;
		}
		if (stop_requested)
			return -EINTR;
		/* wait for the socket to appear: short poll on a condition */
		poll(NULL, 0, 5);
	}
	r = qmp_read(p, &line, deadline);	/* greeting */
	buf_free(&line);
	if (!r)
		r = qmp_cmd(p, "{\"execute\":\"qmp_capabilities\"}", NULL, deadline);
	if (r && !p->error)
		set_error(p, "QMP handshake failed: %s", strerror(-r));
	return r;
}

static int qemu_find_pty(struct power *p, int64_t deadline)
{
	json_object *list = NULL;
	size_t i;
	int r;

	r = qmp_cmd(p, "{\"execute\":\"query-chardev\"}", &list, deadline);
	if (r)
		return r;
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);
		const char *label = jstr(e, "label"), *fn = jstr(e, "filename");

		if (label && fn && !strncmp(fn, "pty:", 4) &&
		    !strcmp(label, p->board->console_device + 5)) {
			p->pty_path = xstrdup(fn + 4);
			break;
		}
	}
	json_object_put(list);
	if (!p->pty_path) {
		set_error(p, "QEMU has no pty chardev \"%s\" (board console.device %s: add "
			  "\"-serial\", \"pty\" to power.args)", p->board->console_device + 5,
			  p->board->console_device);
		return -ENOENT;
	}
	return 0;
}

static int qemu_on(struct power *p, const struct kernel_art *k)
{
	const char *keys[] = { "kernel", "dtb", "initrd", "append", "module", "tftp_root" };
	const char *vals[] = { k ? k->zimage : "", k ? k->dtb : NULL, k ? k->initrd : "",
			       p->board->append, k ? k->module : "",
			       p->tftp_dir ? p->tftp_dir : "" };
	char **argv;
	size_t n, i, a = 0;
	int64_t deadline = now_ms() + p->board->t_power_s * 1000;
	int logfd, r;

	if (!k) {
		set_error(p, "%s: power type qemu: QEMU is the board and exists only during a boot "
			  "(use `ablab check %s` to boot it)", p->board->name, p->board->name);
		return -EOPNOTSUPP;
	}
	for (n = 0; p->board->qemu_args[n]; n++)
		;
	argv = xcalloc(n + 8, sizeof(*argv));
	argv[a++] = xstrdup(p->board->qemu_binary);
	for (i = 0; i < n; i++) {
		char *bad = NULL;

		r = expand_template(p->board->qemu_args[i], keys, vals, ARRAY_SIZE(keys),
				    &argv[a], &bad);
		if (r) {
			if (r == -ENODATA)
				set_error(p, "%s: power.args: {%s}: the kernel directory %s has none",
					  p->board->jf.path, bad, k->dir);
			else
				set_error(p, "%s: power.args: unknown placeholder {%s}; known: "
					  "{kernel} {dtb} {initrd} {append} {module} {tftp_root}",
					  p->board->jf.path, bad);
			free(bad);
			strv_free(argv);
			return -EINVAL;
		}
		a++;
	}
	free(p->qmp_path);
	free(p->log_path);
	/* per board: the boards of one campaign share the run directory */
	p->qmp_path = xasprintf("%s/%s.qmp", p->rundir, p->board->name);
	p->log_path = xasprintf("%s/%s.qemu.log", p->rundir, p->board->name);
	unlink(p->qmp_path);
	argv[a++] = xstrdup("-S");
	argv[a++] = xstrdup("-qmp");
	argv[a++] = xasprintf("unix:%s,server=on,wait=off", p->qmp_path);
	argv[a] = NULL;

	logfd = open(p->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		r = -errno;
		set_error(p, "cannot create %s: %s", p->log_path, strerror(-r));
		strv_free(argv);
		return r;
	}
	p->pid = fork();
	if (p->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* dup2: 0 stays */

		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* never outlive the agent */
		dup2(devnull, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(logfd);
	strv_free(argv);
	if (p->pid < 0) {
		r = -errno;
		p->pid = 0;
		set_error(p, "fork: %s", strerror(-r));
		return r;
	}
	r = qmp_connect(p, deadline);
	if (!r && p->board->console_device && !strncmp(p->board->console_device, "qemu:", 5))
		r = qemu_find_pty(p, deadline);
	return r;
}

static int qemu_release(struct power *p)
{
	return qmp_cmd(p, "{\"execute\":\"cont\"}", NULL, now_ms() + p->board->t_power_s * 1000);
}

static int qemu_off(struct power *p)
{
	int64_t deadline = now_ms() + p->board->t_power_s * 1000;
	int status;

	if (p->qmp >= 0) {
		qmp_cmd(p, "{\"execute\":\"quit\"}", NULL, deadline);
		close(p->qmp);
		p->qmp = -1;
	}
	while (p->pid > 0 && !child_exited(p, &status)) {
		if (now_ms() > deadline) {
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &status, 0);
			p->pid = 0;
			break;
		}
		poll(NULL, 0, 5);
	}
	free(p->pty_path);
	p->pty_path = NULL;
	if (p->qmp_path)
		unlink(p->qmp_path);
	if (p->log_path)	/* errors quoted it already; the run directory goes */
		unlink(p->log_path);
	return 0;
}

static const char *qemu_console_path(struct power *p, const char *label)
{
	(void)label;
	return p->pty_path;
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

static int qemu_check(const struct board *b, struct buf *out)
{
	return check_line(out, program_exists(b->qemu_binary), "power.binary", "%s%s",
			  b->qemu_binary, program_exists(b->qemu_binary) ? " found" :
			  ": not found in PATH (install qemu-system-arm: make deps)");
}

const struct power_ops power_qemu_ops = {
	.name = "qemu",
	.on = qemu_on,
	.release = qemu_release,
	.off = qemu_off,
	.console_path = qemu_console_path,
	.check = qemu_check,
};

/* Waits (interruptibly) until the board has been off for off_ms. */
static int wait_off_time(struct power *p)
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

/* Boards this process switched on and has not switched off since (or whose
 * power-off failed), with the reason, so that a command that stops says
 * truthfully whether its boards are off. */
static pthread_mutex_t left_on_lock = PTHREAD_MUTEX_INITIALIZER;
struct left_on {
	char *board, *why;
};
static struct left_on *left_on;
static size_t n_left_on;

/* why NULL: the board is off. */
static void note_power(const char *board, const char *why)
{
	size_t i;

	pthread_mutex_lock(&left_on_lock);
	for (i = 0; i < n_left_on && strcmp(left_on[i].board, board); i++)
		;
	if (i == n_left_on && why) {
		left_on = xrealloc(left_on, (n_left_on + 1) * sizeof(*left_on));
		left_on[n_left_on].board = xstrdup(board);
		left_on[n_left_on++].why = NULL;
	}
	if (i < n_left_on && why) {
		free(left_on[i].why);
		left_on[i].why = xstrdup(why);
	} else if (i < n_left_on) {
		free(left_on[i].board);
		free(left_on[i].why);
		left_on[i] = left_on[--n_left_on];
		if (!n_left_on) {
			free(left_on);
			left_on = NULL;
		}
	}
	pthread_mutex_unlock(&left_on_lock);
}

size_t power_left_on(struct buf *out)
{
	size_t i, n;

	pthread_mutex_lock(&left_on_lock);
	for (i = 0; i < n_left_on; i++)
		buf_printf(out, "%s%s", i ? "; " : "", left_on[i].why);
	n = n_left_on;
	pthread_mutex_unlock(&left_on_lock);
	return n;
}

int power_on(struct power *p, const struct kernel_art *k)
{
	char *why = xasprintf("%s: switched on and not off since", p->board->name);

	note_power(p->board->name, why);	/* a failed on may still have switched it */
	free(why);
	return p->ops->on(p, k);
}

int power_off(struct power *p)
{
	const char *name = p->board->name;
	int ret;

	if (stop_requested && !off_aborted)
		info_msg("%s: stopping (signal %d): switching the board off; another signal "
			 "aborts that and may leave it ON", name, (int)stop_requested);
	power_off_begin();
	ret = p->ops->off(p);
	power_off_end();
	if (ret) {
		char *why = xasprintf("%s", p->error ? p->error : strerror(-ret));

		note_power(name, why);
		free(why);
	} else {
		note_power(name, NULL);
	}
	return ret;
}

int power_cycle(struct power *p)
{
	int ret;

	if (p->ops->cycle) {
		char *why = xasprintf("%s: power cycled and not off since", p->board->name);

		note_power(p->board->name, why);
		free(why);
		return p->ops->cycle(p);
	}
	ret = power_off(p);
	if (!ret)
		ret = wait_off_time(p);
	if (!ret)
		ret = power_on(p, NULL);
	return ret;
}

/* --- gpiod --- */

/* The board's line offsets: power.lines, or power.line_names looked up on
 * the chip now (*offs is then allocated). */
static int gpiod_offsets(const struct board *b, long **offs, char *err, size_t elen)
{
	int ret;

	*offs = b->gpio_lines;
	if (!b->gpio_line_names)
		return 0;
	*offs = xcalloc(b->n_gpio_lines, sizeof(**offs));
	ret = gpio_line_offsets(b->gpio_chip, b->gpio_line_names, b->n_gpio_lines, *offs, err,
				elen);
	if (ret) {
		free(*offs);
		*offs = NULL;
	}
	return ret;
}

static void gpiod_offsets_free(const struct board *b, long *offs)
{
	if (offs != b->gpio_lines)
		free(offs);
}

static int gpiod_set(struct power *p, int on)
{
	const struct board *b = p->board;
	char err[300];
	int ret;

	if (!p->relay) {
		char *consumer = xasprintf("ablab:%s", b->name);
		long *offs;

		ret = gpiod_offsets(b, &offs, err, sizeof(err));
		if (!ret)
			ret = gpio_relay_open(&p->relay, b->gpio_chip, offs, b->n_gpio_lines,
					      b->gpio_active_low, on, consumer, err, sizeof(err));
		gpiod_offsets_free(b, offs);
		free(consumer);
		if (ret) {
			set_error(p, "%s: power.chip %s / power.lines: %s", b->name, b->gpio_chip,
				  err);
			return ret;
		}
	} else {
		ret = gpio_relay_set(p->relay, on);
		if (ret) {
			set_error(p, "%s: power.chip %s: cannot set lines: %s", b->name,
				  b->gpio_chip, strerror(-ret));
			return ret;
		}
	}
	if (!on)
		p->t_off = now_ms();
	return 0;
}

static int gpiod_on(struct power *p, const struct kernel_art *k)
{
	int ret = wait_off_time(p);

	(void)k;
	return ret ? ret : gpiod_set(p, 1);
}

static int gpiod_off(struct power *p)
{
	return gpiod_set(p, 0);
}

static void gpiod_close(struct power *p)
{
	gpio_relay_close(p->relay);
	p->relay = NULL;
}

static int gpiod_check(const struct board *b, struct buf *out)
{
	char err[300];
	struct buf lines = { 0 };
	long *offs;
	size_t i;
	int bad;

	for (i = 0; i < b->n_gpio_lines; i++) {
		if (b->gpio_line_names)
			buf_printf(&lines, "%s%s", i ? "," : "", b->gpio_line_names[i]);
		else
			buf_printf(&lines, "%s%ld", i ? "," : "", b->gpio_lines[i]);
	}
	if (gpiod_offsets(b, &offs, err, sizeof(err)) ||
	    gpio_relay_check(b->gpio_chip, offs, b->n_gpio_lines, err, sizeof(err)))
		bad = check_line(out, false, "power.chip", "%s (lines %s): %s", b->gpio_chip,
				 lines.data, err);
	else
		bad = check_line(out, true, "power.chip", "%s lines %s exist and are free (%s, "
				 "%s)", b->gpio_chip, lines.data,
				 b->gpio_active_low ? "active low" : "active high",
				 gpio_api_version());
	gpiod_offsets_free(b, offs);
	buf_free(&lines);
	return bad;
}

const struct power_ops power_gpiod_ops = {
	.name = "gpiod",
	.on = gpiod_on,
	.off = gpiod_off,
	.check = gpiod_check,
	.close = gpiod_close,
};

/* --- command --- */

int run_argv_deadline(char *const argv[], int64_t deadline, struct buf *out, int *exec_errno)
{
	int opipe[2], epipe[2], status = 0, e = 0;
	bool exited = false;
	ssize_t n;
	pid_t pid;

	*exec_errno = 0;
	if (pipe2(opipe, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(epipe, O_CLOEXEC) < 0) {
		e = errno;
		close(opipe[0]);
		close(opipe[1]);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		e = errno;
		close(opipe[0]);
		close(opipe[1]);
		close(epipe[0]);
		close(epipe[1]);
		return -e;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);	/* dup2: 0 stays */

		setpgid(0, 0);		/* a timeout kills the whole group */
		dup2(devnull, 0);
		dup2(opipe[1], 1);
		dup2(opipe[1], 2);
		execvp(argv[0], argv);
		e = errno;
		if (write(epipe[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(opipe[1]);
	close(epipe[1]);
	n = read(epipe[0], &e, sizeof(e));	/* EOF at a successful exec */
	close(epipe[0]);
	if (n == (ssize_t)sizeof(e)) {
		*exec_errno = e;
		close(opipe[0]);
		waitpid(pid, &status, 0);
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
		/* output closed: wait for the exit, still within the deadline */
		while (waitpid(pid, &status, WNOHANG) != pid) {
			if (now_ms() >= deadline || stop_now()) {
				kill(-pid, SIGKILL);
				waitpid(pid, &status, 0);
				return now_ms() < deadline ? -EINTR : -ETIMEDOUT;
			}
			poll(NULL, 0, 10);
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* Last non-empty line of a command's output. */
static char *last_line(const struct buf *b)
{
	char *copy = xstrdup(b->data ? b->data : ""), *s, *save = NULL, *line = NULL, *r;

	for (s = strtok_r(copy, "\r\n", &save); s; s = strtok_r(NULL, "\r\n", &save))
		if (*s)
			line = s;
	r = xstrdup(line ? line : "(no output)");
	free(copy);
	return r;
}

/* Runs one of the board's argv arrays ("power.on"...): placeholders
 * {board}, clear errors naming the board and the field. */
static int command_run(struct power *p, const char *field, char *const *tmpl)
{
	const struct board *b = p->board;
	const char *keys[] = { "board" }, *vals[] = { b->name };
	struct buf out = { 0 }, shown = { 0 };
	char **argv;
	size_t n, i;
	int ret, e;

	for (n = 0; tmpl[n]; n++)
		;
	argv = xcalloc(n + 1, sizeof(*argv));
	for (i = 0; i < n; i++) {
		char *bad = NULL;

		if (expand_template(tmpl[i], keys, vals, 1, &argv[i], &bad)) {
			set_error(p, "%s: %s: unknown placeholder {%s}; known: {board}", b->name,
				  field, bad);
			free(bad);
			strv_free(argv);
			return -EINVAL;
		}
		buf_printf(&shown, "%s%s", i ? " " : "", argv[i]);
	}
	ret = run_argv_deadline(argv, now_ms() + b->t_power_s * 1000, &out, &e);
	if (ret == -ENOENT) {
		set_error(p, "%s: %s: cannot run %s: %s", b->name, field, argv[0], strerror(e));
	} else if (ret == -ETIMEDOUT) {
		set_error(p, "%s: %s: `%s` did not finish within %ld s (timeouts_s.power); killed",
			  b->name, field, shown.data, b->t_power_s);
	} else if (ret == -EINTR && in_power_off()) {
		set_error(p, "%s: %s: aborted by a second signal (`%s` killed); the board may still "
			  "be ON", b->name, field, shown.data);
	} else if (ret == -EINTR) {
		set_error(p, "%s: %s: interrupted", b->name, field);
	} else if (ret < 0) {
		set_error(p, "%s: %s: %s", b->name, field, strerror(-ret));
	} else if (ret > 0) {
		char *l = last_line(&out);

		set_error(p, "%s: %s: `%s` exited with status %d: %s", b->name, field, shown.data,
			  ret, l);
		free(l);
		ret = -EIO;
	}
	if (verbose && out.len)
		info_msg("%s: %s: %.*s", b->name, field, (int)out.len, out.data);
	buf_free(&out);
	buf_free(&shown);
	strv_free(argv);
	return ret;
}

static int command_on(struct power *p, const struct kernel_art *k)
{
	int ret = wait_off_time(p);

	(void)k;
	return ret ? ret : command_run(p, "power.on", p->board->power_on);
}

static int command_off(struct power *p)
{
	int ret = command_run(p, "power.off", p->board->power_off);

	if (!ret)
		p->t_off = now_ms();
	return ret;
}

static int command_cycle(struct power *p)
{
	int ret;

	if (p->board->power_cycle)
		return command_run(p, "power.cycle", p->board->power_cycle);
	ret = command_off(p);
	return ret ? ret : command_on(p, NULL);
}

static int argv_check(struct buf *out, const char *field, char *const *argv)
{
	if (!argv)
		return 0;
	if (program_exists(argv[0]))
		return check_line(out, true, field, "%s found", argv[0]);
	return check_line(out, false, field, "%s: not found%s", argv[0],
			  strchr(argv[0], '/') ? "" : " in PATH");
}

static int command_check(const struct board *b, struct buf *out)
{
	return argv_check(out, "power.on", b->power_on) + argv_check(out, "power.off",
			  b->power_off) +
	       argv_check(out, "power.cycle", b->power_cycle);
}

const struct power_ops power_command_ops = {
	.name = "command",
	.on = command_on,
	.off = command_off,
	.cycle = command_cycle,
	.check = command_check,
};

/* --- manual --- */

static int ask_operator(struct power *p, const char *what)
{
	const struct board *b = p->board;
	char *msg, c;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY), ret = -EIO;

	if (fd < 0) {
		set_error(p, "%s: power.type manual: needs an operator at a terminal to switch the "
			  "board %s, and there is no controlling terminal (%s)", b->name, what,
			  strerror(errno));
		return -ENOTTY;
	}
	msg = xasprintf("\a%s: switch the board %s%s%s, then press Enter: ", b->name, what,
			b->manual_text ? " - " : "", b->manual_text ? b->manual_text : "");
	/* an Enter typed before the prompt does not count; one typed after it
	 * does, however soon (flushing after the write lost it: a flaky t25) */
	tcflush(fd, TCIFLUSH);
	if (write(fd, msg, strlen(msg)) < 0)
		goto out;
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (stop_now()) {
			ret = -EINTR;
			if (in_power_off())
				set_error(p, "%s: power off aborted by a second signal while waiting "
					  "for the operator; the board may still be ON", b->name);
			else
				set_error(p, "%s: interrupted while waiting for the operator",
					  b->name);
			break;
		}
		if (poll(&pf, 1, 200) <= 0)
			continue;
		n = read(fd, &c, 1);
		if (n <= 0) {
			set_error(p, "%s: power.type manual: the terminal closed", b->name);
			break;
		}
		if (c == '\n' || c == '\r') {
			ret = 0;
			break;
		}
	}
out:
	free(msg);
	close(fd);
	return ret;
}

static int manual_on(struct power *p, const struct kernel_art *k)
{
	(void)k;
	return ask_operator(p, "ON");
}

static int manual_off(struct power *p)
{
	int ret = ask_operator(p, "OFF");

	if (!ret)
		p->t_off = now_ms();
	return ret;
}

static int manual_check(const struct board *b, struct buf *out)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);

	(void)b;
	if (fd >= 0) {
		close(fd);
		return check_line(out, true, "power.type", "manual: an operator answers on this "
				  "terminal");
	}
	return check_line(out, false, "power.type", "manual: needs an operator at a terminal; "
			  "this process has none");
}

const struct power_ops power_manual_ops = {
	.name = "manual",
	.on = manual_on,
	.off = manual_off,
	.check = manual_check,
};

static const struct power_ops *find_backend(const char *name)
{
	const struct backend *bk = backend_find(BACKEND_POWER, name);

	return bk ? bk->ops : NULL;
}

int power_init(struct power *p, const struct board *b, const char *rundir)
{
	memset(p, 0, sizeof(*p));
	p->board = b;
	p->qmp = -1;
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

void power_free(struct power *p)
{
	if (p->ops && p->pid > 0)
		power_off(p);
	if (p->ops && p->ops->close)
		p->ops->close(p);
	free(p->rundir);
	free(p->qmp_path);
	free(p->log_path);
	free(p->pty_path);
	free(p->error);
	memset(p, 0, sizeof(*p));
}
