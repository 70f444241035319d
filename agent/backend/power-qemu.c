// SPDX-License-Identifier: GPL-2.0-only
/* Power backend qemu: "power on" starts QEMU paused (-S) with a QMP socket,
 * release() sends "cont" once the console is attached, "off" is SIGKILL
 * (a power cut) and the reap. */
#include "backend/console.h"
#include "backend/power.h"
#include "shared/util.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* power.* of this backend (board->power_priv) */
struct qemu_conf {
	const char *binary; /* power.binary: the emulator, a name in PATH or a path */
	char **args; /* power.args, with {kernel} {dtb} {initrd} {append} {tftp_root} */
};

static const struct qemu_conf *conf_of(const struct board *b)
{
	return b->power_priv;
}

/* The session's machine: its process, QMP socket and files (struct power's priv, freed by
 * qemu_close). */
struct qemu_state {
	pid_t pid;
	int qmp;
	char *qmp_path, *log_path, *pty_path;
};

static struct qemu_state *state_of(struct power *p)
{
	struct qemu_state *q = p->priv;

	if (!q) {
		q = xcalloc(1, sizeof(*q));
		q->qmp = -1;
		p->priv = q;
	}
	return q;
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
	struct qemu_state *q = state_of(p);
	pid_t r;

	if (q->pid <= 0)
		return true;
	r = waitpid(q->pid, status, WNOHANG);
	if (r == q->pid) {
		q->pid = 0;
		return true;
	}
	return false;
}

/* Reads one QMP message (a line) with a deadline. */
static int qmp_read(struct power *p, struct buf *line, int64_t deadline)
{
	struct qemu_state *q = state_of(p);
	char c;

	line->len = 0;
	for (;;) {
		struct pollfd pf = { .fd = q->qmp, .events = POLLIN };
		int64_t left = deadline - now_ms();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pf, 1, (int)left) <= 0) {
			if (errno == EINTR)
				continue;
			continue;
		}
		n = read(q->qmp, &c, 1);
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
	struct qemu_state *q = state_of(p);
	struct buf line = { 0 };
	int r;

	if (write(q->qmp, cmd, strlen(cmd)) < 0 || write(q->qmp, "\n", 1) < 0)
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
			power_set_error(p, "QMP %s: %s", cmd, json_object_to_json_string(v));
			json_object_put(o);
			r = -EIO;
			break;
		}
		json_object_put(o); /* an event */
	}
	buf_free(&line);
	return r;
}

static int qmp_connect(struct power *p, int64_t deadline)
{
	struct qemu_state *q = state_of(p);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct buf line = { 0 };
	int status, r;

	if (strlen(q->qmp_path) >= sizeof(sa.sun_path)) {
		power_set_error(
			p,
			"QMP socket path too long (%zu bytes, at most %zu): %s; set TMPDIR to a shorter directory",
			strlen(q->qmp_path), sizeof(sa.sun_path) - 1, q->qmp_path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, q->qmp_path);
	for (;;) {
		q->qmp = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (q->qmp < 0)
			return -errno;
		if (connect(q->qmp, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			break;
		close(q->qmp);
		q->qmp = -1;
		if (child_exited(p, &status)) {
			char *t = log_tail(q->log_path);

			power_set_error(p, "QEMU exited at start: %s", t);
			free(t);
			return -ECHILD;
		}
		if (now_ms() > deadline) {
			power_set_error(
				p, "QEMU did not open its QMP socket within the power timeout");
			return -ETIMEDOUT;
		}
		if (stop_requested)
			return -EINTR;
		/* wait for the socket to appear: short poll on a condition */
		poll(NULL, 0, 5);
	}
	r = qmp_read(p, &line, deadline); /* greeting */
	buf_free(&line);
	if (!r)
		r = qmp_cmd(p, "{\"execute\":\"qmp_capabilities\"}", NULL, deadline);
	if (r && !errtext_isset(&p->error))
		power_set_error(p, "QMP handshake failed: %s", strerror(-r));
	return r;
}

static int qemu_find_pty(struct power *p, int64_t deadline)
{
	struct qemu_state *q = state_of(p);
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
		    !strcmp(label, console_machine_label(p->board))) {
			q->pty_path = xstrdup(fn + 4);
			break;
		}
	}
	json_object_put(list);
	if (!q->pty_path) {
		power_set_error(
			p,
			"QEMU has no pty chardev \"%s\" (board console.device qemu:%s: add \"-serial\", \"pty\" to power.args)",
			console_machine_label(p->board), console_machine_label(p->board));
		return -ENOENT;
	}
	return 0;
}

static int qemu_on(struct power *p, const struct kernel_art *k)
{
	struct qemu_state *q = state_of(p);
	const struct qemu_conf *qc = conf_of(p->board);
	const char *keys[] = { "kernel", "dtb", "initrd", "append", "module", "tftp_root" };
	const char *vals[] = { k ? k->zimage : "", k ? k->dtb : NULL,
			       k ? k->initrd : "", p->board->append,
			       k ? k->module : "", p->tftp_dir ? p->tftp_dir : "" };
	char **argv;
	size_t n, i, a = 0;
	int64_t deadline = now_ms() + p->board->t_power_s * 1000;
	int logfd, r;

	if (!k) {
		power_set_error(
			p,
			"%s: power type qemu: QEMU is the board and exists only during a boot (use `ablab check %s` to boot it)",
			p->board->name, p->board->name);
		return -EOPNOTSUPP;
	}
	for (n = 0; qc->args[n]; n++)
		;
	argv = xcalloc(n + 10, sizeof(*argv));
	argv[a++] = xstrdup(qc->binary);
	for (i = 0; i < n; i++) {
		char *bad = NULL;

		r = expand_template(qc->args[i], keys, vals, ARRAY_SIZE(keys), &argv[a], &bad);
		if (r) {
			if (r == -ENODATA)
				power_set_error(
					p, "%s: power.args: {%s}: the kernel directory %s has none",
					p->board->jf.path, bad, k->dir);
			else
				power_set_error(
					p,
					"%s: power.args: unknown placeholder {%s}; known: {kernel} {dtb} {initrd} {append} {module} {tftp_root}",
					p->board->jf.path, bad);
			free(bad);
			strv_free(argv);
			return -EINVAL;
		}
		a++;
	}
	free(q->qmp_path);
	free(q->log_path);
	/* per board: the boards of one campaign share the run directory */
	q->qmp_path = xasprintf("%s/%s.qmp", p->rundir, p->board->name);
	q->log_path = xasprintf("%s/%s.qemu.log", p->rundir, p->board->name);
	unlink(q->qmp_path);
	if (p->board->icount_shift >= 0) {
		/* exact virtual time: each guest instruction takes 2^shift ns */
		argv[a++] = xstrdup("-icount");
		argv[a++] = xasprintf("shift=%ld,sleep=off,align=off", p->board->icount_shift);
	}
	argv[a++] = xstrdup("-S");
	argv[a++] = xstrdup("-qmp");
	argv[a++] = xasprintf("unix:%s,server=on,wait=off", q->qmp_path);
	argv[a] = NULL;

	logfd = open(q->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (logfd < 0) {
		r = -errno;
		power_set_error(p, "cannot create %s: %s", q->log_path, strerror(-r));
		strv_free(argv);
		return r;
	}
	q->pid = fork();
	if (q->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC); /* dup2: 0 stays */

		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the agent */
		dup2(devnull, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(logfd);
	strv_free(argv);
	if (q->pid < 0) {
		r = -errno;
		q->pid = 0;
		power_set_error(p, "fork: %s", strerror(-r));
		return r;
	}
	r = qmp_connect(p, deadline);
	if (!r && console_machine_label(p->board)) /* a console "qemu:LABEL": its pty */
		r = qemu_find_pty(p, deadline);
	return r;
}

static int qemu_release(struct power *p)
{
	return qmp_cmd(p, "{\"execute\":\"cont\"}", NULL, now_ms() + p->board->t_power_s * 1000);
}

/* Power off is a power cut, as a relay gives a real board: SIGKILL, then the
 * reap.  No QMP quit: nobody needs the guest's state (its console is closed
 * already, and a disk image the guest writes is left as a cut would leave
 * it), and QEMU's orderly exit and its reap polled every 5 ms cost more
 * than the kill (docs/BENCHMARKS.md, P1).  When this returns the process is
 * gone: waitpid() blocks until the kernel has torn it down. */
static int qemu_off(struct power *p)
{
	struct qemu_state *q = state_of(p);
	int status;

	if (q->qmp >= 0) {
		close(q->qmp);
		q->qmp = -1;
	}
	if (q->pid > 0) {
		kill(q->pid, SIGKILL);
		while (waitpid(q->pid, &status, 0) < 0 && errno == EINTR)
			;
		q->pid = 0;
	}
	free(q->pty_path);
	q->pty_path = NULL;
	if (q->qmp_path)
		unlink(q->qmp_path);
	if (q->log_path) /* errors quoted it already; the run directory goes */
		unlink(q->log_path);
	return 0;
}

static bool qemu_running(struct power *p)
{
	return p->priv && ((struct qemu_state *)p->priv)->pid > 0;
}

static void qemu_close(struct power *p)
{
	struct qemu_state *q = p->priv;

	if (!q)
		return;
	if (q->qmp >= 0)
		close(q->qmp);
	free(q->qmp_path);
	free(q->log_path);
	free(q->pty_path);
	free(q);
	p->priv = NULL;
}

static const char *qemu_console_path(struct power *p, const char *label)
{
	struct qemu_state *q = state_of(p);

	(void)label;
	return q->pty_path;
}

static int qemu_check(const struct board *b, struct buf *out)
{
	const char *bin = conf_of(b)->binary;
	bool found = program_exists(bin);

	return check_line(out, found, "power.binary", "%s%s", bin,
			  found ? " found" :
				  ": not found in PATH (install qemu-system-arm: make deps)");
}

/* Before a campaign or a night: the emulator is on this host. */
static int qemu_preflight(const struct board *b, struct errtext *e)
{
	const char *bin = conf_of(b)->binary;

	if (program_exists(bin))
		return 0;
	return errtext_set(e, -ENOENT,
			   "%s: %s not found (power.binary; install qemu-system-arm: make deps)",
			   b->jf.path, bin);
}

/* The word after the first of names ("-M", "-machine") in power.args, or NULL. */
static const char *qemu_machine_arg(const struct board *b, const char *const *names)
{
	char **v = conf_of(b)->args;
	size_t i, k;

	for (i = 0; v[i]; i++)
		for (k = 0; names[k]; k++)
			if (!strcmp(v[i], names[k]) && v[i + 1])
				return v[i + 1];
	return NULL;
}

static const struct jfield qemu_fields[] = { { "binary", J_STRING },
					     { "args", J_ARRAY_STRING },
					     { NULL } };

static int qemu_parse(struct board *b, json_object *o)
{
	struct qemu_conf *q = xcalloc(1, sizeof(*q));

	b->power_priv = q;
	q->binary = jstr(o, "binary");
	q->args = jstrv(o, "args", NULL);
	if (!q->binary)
		return board_field_error(
			b, "power", "type",
			"power type qemu needs \"binary\" (e.g. \"qemu-system-arm\")");
	return 0;
}

static void qemu_free(struct board *b)
{
	struct qemu_conf *q = b->power_priv;

	if (!q)
		return;
	strv_free(q->args);
	free(q);
	b->power_priv = NULL;
}

const struct power_ops power_qemu_ops = {
	.conf = { .fields = qemu_fields, .parse = qemu_parse, .free = qemu_free },
	.name = "qemu",
	.on = qemu_on,
	.release = qemu_release,
	.off = qemu_off,
	.running = qemu_running,
	.close = qemu_close,
	.console_path = qemu_console_path,
	.check = qemu_check,
	.preflight = qemu_preflight,
	.machine_arg = qemu_machine_arg,
};
