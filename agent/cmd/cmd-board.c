// SPDX-License-Identifier: GPL-2.0-only
/* The board commands: `ablab boards`, `ablab power`, `ablab console`,
 * `ablab check`, `ablab ports`, `ablab check-board`. */
#include "board.h"
#include "backend/backends.h"
#include "backend/boot.h"
#include "cmd/cmds.h"
#include "backend/console.h"
#include "shared/jsonfile.h"
#include "backend/power_gpiod.h"
#include "kernel.h"
#include "backend/power.h"
#include "power-stale.h"
#include "store/store-board.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <libserialport.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int cmd_boards(int argc, char **argv)
{
	return cmd_boards_to(stdout, argc, argv);
}

/* --- power --- */

static int hold_until_interrupted(const struct board *b)
{
	info_msg(
		"%s: power on; holding the GPIO line request (releasing it may switch the relay back): Ctrl-C to release",
		b->name);
	while (!stop_requested)
		poll(NULL, 0, 200);
	return 0;
}

/* `ablab power --stale-off`: the boards of every stale campaign (its agent was killed, e.g.
 * SIGKILL, the OOM killer or a hard stop of the service) switched off; a board an agent
 * holds now is left alone.  0 when every such board is off. */
static int stale_off(void)
{
	struct store st;
	size_t n;
	int ret;

	if (store_open(&st, opt_db))
		return 1;
	ret = power_stale_off(&st, false, &n);
	store_close(&st);
	if (!ret && !n)
		info_msg("no stale campaign");
	return ret ? 1 : 0;
}

/* `ablab power BOARD on|off|cycle`: board, op.  0; 2: a usage error (said); 3: --help
 * (printed); 4: --stale-off. */
static int parse_power_opts(int argc, char **argv, const char **board, const char **op)
{
	if (argc == 2 && !strcmp(argv[1], "--stale-off"))
		return 4;
	if (argc != 3 ||
	    (strcmp(argv[2], "on") && strcmp(argv[2], "off") && strcmp(argv[2], "cycle"))) {
		bool help = argc == 2 && !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"usage: ablab power BOARD on|off|cycle\n"
			"       ablab power --stale-off\n"
			"Switches a board through its power backend (gpiod, command, manual).\n"
			"With gpiod, `on` and `cycle` stay in the foreground holding the line until Ctrl-C.\n"
			"--stale-off: switches off the boards of every stale campaign (its agent was killed), except a board an agent holds now (the nightly unit's ExecStopPost).\n");
		return help ? 3 : 2;
	}
	*board = argv[1];
	*op = argv[2];
	return 0;
}

/* Board name switched on, off or cycled (op), under its lock: the exit status. */
static int power_switch(const char *name, const char *op)
{
	struct board_lock lock;
	struct power pw;
	struct board b;
	int ret;

	if (board_load_by_name(&b, name)) {
		board_free(&b);
		return 1;
	}
	if (backend_has(BACKEND_POWER, b.power_type, CAP_MAKES_MACHINE)) {
		err_msg("%s: power.type qemu: the emulated board is a QEMU process that exists only during a boot; use `ablab check %s` or `ablab ab`",
			b.name, b.name);
		board_free(&b);
		return 1;
	}
	if (board_lock(&lock, &b, "ablab power")) {
		board_free(&b);
		return 1;
	}
	install_signal_handlers();
	power_init(&pw, &b, NULL);
	if (!strcmp(op, "on"))
		ret = power_on(&pw, NULL);
	else if (!strcmp(op, "off"))
		ret = power_off(&pw);
	else
		ret = power_cycle(&pw);
	if (ret)
		err_msg("%s", power_error(&pw, ret));
	else
		info_msg("%s: power %s", b.name, op);
	if (!ret && backend_has(BACKEND_POWER, b.power_type, CAP_HOLDS_STATE) && strcmp(op, "off"))
		hold_until_interrupted(&b);
	power_free(&pw);
	board_unlock(&lock);
	board_free(&b);
	return ret ? 1 : 0;
}

int cmd_power(int argc, char **argv)
{
	const char *board = NULL, *op = NULL;
	int ret = parse_power_opts(argc, argv, &board, &op);

	if (ret == 4)
		return stale_off();
	if (ret)
		return ret == 3 ? 0 : ret;
	return power_switch(board, op);
}

/* --- console --- */

/* Interactive passthrough; "~." at the start of a line quits (as ssh, cu,
 * cdba).  Returns 0 on the escape, -EPIPE when the console went away. */
static int passthrough(struct console *c)
{
	bool at_bol = true, tilde = false;
	char buf[4096];

	for (;;) {
		struct pollfd p[2] = { { .fd = 0, .events = POLLIN },
				       { .fd = c->fd, .events = POLLIN } };
		ssize_t n, i;

		if (stop_requested)
			return -EINTR;
		if (poll(p, 2, 500) <= 0)
			continue;
		if (p[1].revents) {
			n = console_read(c, buf, sizeof(buf), false);
			if (n < 0) {
				if (c->reopen_ms > 0 && !console_reopen(c, now_ms() + c->reopen_ms))
					continue;
				return -EPIPE;
			}
			if (n > 0 && write(1, buf, (size_t)n) < 0)
				return -errno;
		}
		if (!p[0].revents)
			continue;
		n = read(0, buf, sizeof(buf));
		if (n <= 0)
			return 0; /* stdin closed */
		for (i = 0; i < n; i++) {
			char ch = buf[i];

			if (tilde) {
				tilde = false;
				if (ch == '.')
					return 0;
				if (ch != '~' && console_write_n(c, "~", 1))
					return -EPIPE;
			} else if (at_bol && ch == '~') {
				tilde = true;
				continue;
			}
			if (console_write_n(c, &ch, 1))
				return -EPIPE;
			at_bol = ch == '\r' || ch == '\n';
		}
	}
}

/* Attached to open console con of board b until "~." or a signal: 0, or -errno. */
static int console_attach(const struct board *b, struct console *con)
{
	struct termios saved, raw;
	const char *at = con->device;
	bool tty = isatty(0);
	char where[256];
	int ret;

	install_signal_handlers();
	if (tty) { /* raw before the banner: what is typed after it goes through as is */
		tcgetattr(0, &saved);
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(0, TCSANOW, &raw);
	}
	if (!at) { /* a network console: where it is */
		console_describe(b, where, sizeof(where));
		at = where;
	}
	info_msg("%s: connected to %s; ~. quits\r", b->name, at);
	ret = passthrough(con);
	if (tty)
		tcsetattr(0, TCSANOW, &saved);
	if (ret == -EPIPE)
		err_msg("%s: the console went away", b->name);
	else
		info_msg("%s: disconnected", b->name);
	return ret;
}

/* Board name's console, under its lock: the exit status. */
static int console_run(const char *name)
{
	struct board_lock lock;
	struct console con;
	struct board b;
	int ret;

	if (board_load_by_name(&b, name)) {
		board_free(&b);
		return 1;
	}
	if (console_machine_label(&b)) {
		err_msg("%s: console.device qemu:%s is a pty QEMU creates during a boot; there is nothing to attach to now",
			b.name, console_machine_label(&b));
		board_free(&b);
		return 1;
	}
	if (board_lock(&lock, &b, "ablab console")) {
		board_free(&b);
		return 1;
	}
	ret = console_open(&con, &b, NULL, NULL);
	if (ret) {
		err_msg("%s", con.error.msg);
		board_unlock(&lock);
		board_free(&b);
		return 1;
	}
	ret = console_attach(&b, &con);
	console_close(&con);
	board_unlock(&lock);
	board_free(&b);
	return ret && ret != -EINTR ? 1 : 0;
}

int cmd_console(int argc, char **argv)
{
	if (argc != 2 || !strcmp(argv[1], "--help")) {
		bool help = argc == 2;

		fprintf(help ? stdout : stderr,
			"usage: ablab console BOARD\n"
			"Interactive console of a board; the board stays locked while attached.\n"
			"Type ~. at the start of a line to quit.\n");
		return help ? 0 : 2;
	}
	return console_run(argv[1]);
}

/* --- check --- */

static int dry_run(const struct board *b)
{
	struct buf out = { 0 };
	int bad = 0;

	bad += console_check(b, &out);
	bad += power_check(b, &out);
	bad += boot_check(b, &out);
	printf("%s: %s (console %s, power %s, boot %s)\n%s", b->name, b->jf.path, b->console_type,
	       b->power_type, b->boot_method, out.data ? out.data : "");
	printf("%s: %s\n", b->name,
	       bad ? "problems found (FAIL lines above); nothing was switched" :
		     "configuration ok; nothing was switched");
	buf_free(&out);
	return bad ? 1 : 0;
}

static void store_health(const struct board *b, bool ok, const char *uname_r, int64_t boot_ms,
			 const char *error, const char *log)
{
	char host[256] = "?";
	struct store st;

	gethostname(host, sizeof(host) - 1);
	if (store_open(&st, opt_db)) {
		err_msg("%s: health result not stored: database unreachable", b->name);
		return;
	}
	store_health_add(&st, b->name, ok, uname_r, boot_ms, error, host, log);
	store_close(&st);
}

/* The kernel a health check boots (--kernel DIR, else the board's control build)
 * into k: 0, or 1 (said). */
static int health_kernel(const struct board *b, const char *kdir_opt, struct kernel_art *k)
{
	char *kdir = kdir_opt ? xstrdup(kdir_opt) : kernel_default_dir(b->name, "control");
	int ret;

	if (kdir && !kdir_opt && !is_dir(kdir)) {
		/* the default: only a board with a recipe has one `make kernels` builds */
		if (b->kernel_recipe)
			err_msg("%s: no control kernel in %s: build it with `make kernels` (recipe %s), or pass a kernel directory (with manifest.json) with --kernel DIR",
				b->name, kdir, b->kernel_recipe);
		else
			err_msg("%s: no kernel to boot: pass your kernel directory (with manifest.json) with --kernel DIR (%s has none, and the board has no kernel.recipe for `make kernels`)",
				b->name, kdir);
		free(kdir);
		return 1;
	}
	if (kdir_opt && !is_dir(kdir_opt)) {
		err_msg("%s: --kernel %s: no such directory (pass a kernel directory with manifest.json)",
			b->name, kdir_opt);
		free(kdir);
		return 1;
	}
	ret = kernel_load(k, kdir);
	free(kdir);
	if (ret) {
		kernel_free(k);
		return 1;
	}
	return 0;
}

/* `uname -r` on the booted target into out (line ends cut): 0 or -errno (in s->error). */
static int health_uname(struct boot_session *s, const struct board *b, struct buf *out)
{
	int status = -1;
	int ret = target_run(&s->tgt, "uname -r", now_ms() + b->t_command_s * 1000, out, &status);

	if (!ret && status)
		ret = -EIO;
	while (out->len && (out->data[out->len - 1] == '\n' || out->data[out->len - 1] == '\r'))
		out->data[--out->len] = '\0';
	if (ret)
		errtext_set(&s->error, ret, "%s: `uname -r` failed on the target (%s)", b->name,
			    ret == -EIO	  ? "exit status" :
			    ret == -EFBIG ? s->con.error.msg :
					    strerror(-ret));
	return ret;
}

/* Keeps the transcript log where the results live; abs_log: its path, or "none: why". */
static void health_keep_log(const struct board *b, const char *log, char *abs_log)
{
	char *dir = data_dir(), *keep, *dst;
	char *data = NULL;
	size_t len = 0;

	snprintf(abs_log, PATH_MAX, "none: no data directory");
	if (!dir)
		return;
	keep = xasprintf("%s/health", dir);
	mkdir_p(keep, 0755);
	dst = xasprintf("%s/%s-%lld.log", keep, b->name, (long long)wall_ms());
	if (read_file(log, &data, &len) || write_file_atomic(dst, data, len) ||
	    !realpath(dst, abs_log))
		snprintf(abs_log, PATH_MAX, "none: the console was not reached");
	free(data);
	free(dst);
	free(keep);
	free(dir);
}

/* The check's verdict (ret: how the boot and uname went), said and stored; the result. */
static int health_verdict(const struct board *b, const struct kernel_art *k, struct boot_session *s,
			  const struct buf *out, const char *abs_log, int ret)
{
	const char *uname = out->data ? out->data : "";

	if (ret) {
		err_msg("%s: health check FAILED: %s (transcript %s)", b->name, s->error.msg,
			abs_log);
		store_health(b, false, NULL, -1, s->error.msg, abs_log[0] == '/' ? abs_log : NULL);
		return ret;
	}
	if (!k->release || !strcmp(uname, k->release)) {
		printf("%s: ok: booted to the shell in %.1f s, uname -r = %s\n", b->name,
		       (double)(s->t_prompt - s->t_on) / 1000.0, uname);
	} else {
		errtext_set(
			&s->error, -EIO,
			"wrong kernel: uname -r = %s, the kernel deployed is %s (a stale kernel on the board's boot medium, or boot.commands that load another image?)",
			uname, k->release);
		err_msg("%s: health check FAILED: %s (transcript %s)", b->name, s->error.msg,
			abs_log);
		ret = -EIO;
	}
	store_health(b, !ret, out->data, s->t_prompt - s->t_on, ret ? s->error.msg : NULL, abs_log);
	return ret;
}

static int health_check(const struct board *b, const char *kdir_opt)
{
	char *rundir, *log = NULL, abs_log[PATH_MAX];
	struct boot_session s;
	struct board_lock lock;
	struct kernel_art k;
	struct buf out = { 0 };
	int ret;

	if (health_kernel(b, kdir_opt, &k))
		return 1;
	if (board_lock(&lock, b, "ablab check")) {
		kernel_free(&k);
		return 1;
	}
	rundir = make_run_dir("ablab-check");
	if (!rundir) {
		board_unlock(&lock);
		kernel_free(&k);
		return 1;
	}
	log = xasprintf("%s/console.log", rundir);
	install_signal_handlers();
	info_msg("%s: health check: booting %s", b->name, k.dir);
	ret = boot_start(&s, b, &k, rundir, log);
	if (!ret)
		ret = health_uname(&s, b, &out);
	health_keep_log(b, log, abs_log);
	ret = health_verdict(b, &k, &s, &out, abs_log, ret);
	boot_end(&s);
	buf_free(&out);
	unlink(log);
	free(log);
	remove_tree(rundir); /* the run dir and its TFTP copy */
	free(rundir);
	board_unlock(&lock);
	kernel_free(&k);
	return ret ? 1 : 0;
}

/* `ablab check`'s command line. */
struct check_opts {
	const char *board, *kdir;
	bool dry;
};

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_check_opts(int argc, char **argv, struct check_opts *o)
{
	static const struct option lo[] = { { "dry-run", 0, NULL, 'n' },
					    { "kernel", 1, NULL, 'k' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->dry = true;
			break;
		case 'k':
			o->kdir = optarg;
			break;
		case 'h':
			printf("usage: ablab check BOARD [--dry-run] [--kernel DIR]\n"
			       "Health check: boots the board's control kernel to the shell, runs `uname -r`,\n"
			       "stores the result (`ablab boards` shows it).  --dry-run only validates the\n"
			       "board file and its backends' configuration (devices, GPIO chip, commands,\n"
			       "TFTP root) without switching anything.\n");
			return 3;
		default:
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: ablab check BOARD [--dry-run] [--kernel DIR]\n");
		return 2;
	}
	o->board = argv[optind];
	return 0;
}

int cmd_check(int argc, char **argv)
{
	struct check_opts o = { 0 };
	struct board b;
	int ret = parse_check_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	if (board_load_by_name(&b, o.board)) {
		board_free(&b);
		return 1;
	}
	ret = o.dry ? dry_run(&b) : health_check(&b, o.kdir);
	board_free(&b);
	return ret;
}

/* --- ports --- */

int cmd_ports(int argc, char **argv)
{
	struct sp_port **list = NULL;
	size_t i;

	if (argc > 1) {
		bool help = !strcmp(argv[1], "--help");

		fprintf(help ? stdout : stderr,
			"usage: ablab ports\n"
			"Serial adapters found by libserialport: device, USB VID:PID, serial number, description.\n"
			"Use the serial number as console.usb_serial, or the by-id name as console.device.\n");
		return help ? 0 : 2;
	}
	if (sp_list_ports(&list) != SP_OK) {
		err_msg("cannot list serial ports: %s", sp_last_error_message());
		return 1;
	}
	for (i = 0; list[i]; i++) {
		struct sp_port *p = list[i];
		const char *sn = NULL, *desc = sp_get_port_description(p);
		char ids[16] = "-";
		int vid, pid;

		if (sp_get_port_transport(p) == SP_TRANSPORT_USB) {
			if (sp_get_port_usb_vid_pid(p, &vid, &pid) == SP_OK)
				snprintf(ids, sizeof(ids), "%04x:%04x", vid, pid);
			sn = sp_get_port_usb_serial(p);
		}
		if (!i)
			printf("%-16s %-9s %-20s %s\n", "DEVICE", "VID:PID", "SERIAL",
			       "DESCRIPTION");
		printf("%-16s %-9s %-20s %s\n", sp_get_port_name(p), ids, sn ? sn : "-",
		       desc ? desc : "-");
	}
	if (!i)
		printf("no serial ports found (libserialport sees no UART; USB serial adapters appear as /dev/ttyUSB* or /dev/ttyACM* when plugged in)\n");
	sp_free_port_list(list);
	return 0;
}

int cmd_check_board(int argc, char **argv)
{
	static const char usage[] =
		"usage: ablab check-board FILE|NAME...\n"
		"Loads and validates each board definition (a file, or NAME for $ABLAB_BOARDS/NAME.json); prints one ok line per valid board, file:line:col errors otherwise.\n";
	int i, bad = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			return 0;
		}
		if (argv[i][0] == '-') {
			err_msg("check-board: unknown option \"%s\" (see ablab check-board --help)",
				argv[i]);
			return 2;
		}
	}
	if (argc < 2) {
		fputs(usage, stderr);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct board b;

		if (board_load_by_name(&b, argv[i])) {
			bad = 1;
		} else {
			struct buf more = { 0 };

			boot_summary(&b, &more);
			printf("%s: ok (%s, %s, console %s, power %s, boot %s%s)\n", b.jf.path,
			       b.name, b.cpu, b.console_type, b.power_type, b.boot_method,
			       more.len ? more.data : "");
			buf_free(&more);
		}
		board_free(&b);
	}
	return bad;
}
