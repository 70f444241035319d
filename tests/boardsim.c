// SPDX-License-Identifier: GPL-2.0-only
/*
 * boardsim: a simulated board for ablab's tests (see tests/boardsim.md).
 *
 *   boardsim run --ctl SOCK --pty-link PATH [options]   the board
 *   boardsim ctl SOCK on [--variant V] [--fault K,..] | off | cycle | arm K,.. | status | quit
 *   (status --exit-status: exits 0 when on, 1 when off, 2 without an answer: a power.status)
 *
 * The board is a pty (its slave path published as the symlink PATH, and
 * optionally a TCP console on 127.0.0.1) and a power switch behind a unix
 * control socket, so that ablab's `command` power backend can run
 * `boardsim ctl SOCK on` as an argv.  Power on prints U-Boot SPL + U-Boot
 * with an autoboot countdown; a key gives the `=> ` prompt (dhcp, tftpboot,
 * setenv, printenv, bootz, reset); autoboot or bootz start a kernel whose
 * log comes in one burst, then a busybox-like shell (`lab# `) that echoes
 * its input and runs echo, true, false, uname, cat /proc/version, read, dmesg,
 * insmod/rmmod dmabench.ko (dmabench v1 lines from a seeded distribution)
 * in `;` sequences with $? and '' quote removal.
 *
 * Values: per boot and scenario, mean = base * (1 + effect if patched) *
 * (1 + between * N(0,1)); per batch, times (1 + within * N(0,1)).  The
 * generator is reseeded per boot from (--seed, boot number), and every
 * emitted dmabench line is appended to the --record file with its boot
 * number, so a test can compare stored values with emitted ones.
 *
 * Faults (--fault K for every power-on, --fault N:K for the N-th one only,
 * `ctl arm K` for the next one, `ctl on --fault K` for this one) are listed
 * in fault_names[] and described in boardsim.md.
 *
 * A single-threaded poll loop; the only timers are the autoboot countdown
 * and the 1 byte/ms pacing of the `slow` fault.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "stats/splitmix64.h" /* header only: the simulator links no agent code */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MODULE_PATH "/lib/modules/dmabench.ko"
#define PRESERVE_SIZE 409600
#define LINE_MAX_IN 4096
#define MAX_SCHED 32
#define SH_VARS 32
#define SH_FUNCS 8
#define SH_POS 16
enum { KNOB_UBOOT, KNOB_GOV, KNOB_TEMP };

enum fault {
	F_UBOOT_HANG,
	F_KERNEL_HANG,
	F_PANIC_BOOT,
	F_PANIC_RUN,
	F_OOPS,
	F_BUG,
	F_WARN,
	F_RESET,
	F_GARBAGE,
	F_NUL,
	F_ANSI,
	F_CRLF,
	F_CR,
	F_SPLIT,
	F_BURST,
	F_VANISH,
	F_SLOW,
	F_MODFAIL,
	F_CORRUPT,
	F_GLUE,
	F_FLOOD,
	F_FLOOD_NONL,
	F_POISON_BASE,
	F_OUTLIER,
	F_NR
};

static const char *const fault_names[F_NR] = {
	"uboot-hang", "kernel-hang", "panic-boot", "panic-run",	 "oops",	"bug",
	"warn",	      "reset",	     "garbage",	   "nul",	 "ansi",	"crlf",
	"cr",	      "split",	     "burst",	   "vanish",	 "slow",	"modfail",
	"corrupt",    "printk-glue", "flood",	   "flood-nonl", "poison-base", "outlier",
};

enum state { ST_OFF, ST_DEAD, ST_COUNTDOWN, ST_UBOOT, ST_SHELL };
static const char *const state_names[] = { "off", "dead", "countdown", "uboot", "shell" };

#define SIM_PATCHES 7 /* --patch-effect K:SCEN=F, K = 1..SIM_PATCHES */

struct scen {
	const char *name, *op, *state;
	unsigned int size, reps;
	double mean, effect;
	double patch_effect[SIM_PATCHES]; /* of patch k + 1 of a series */
};

static struct scen scens[] = {
	{ "null", "null", "clean", 0, 5000, 30, 0 },
	{ "small-dirty-256B", "map_unmap", "dirty", 256, 5000, 353, 0.063 },
	{ "large-dirty-1MiB", "map_unmap", "dirty", 1048576, 300, 73840, 0.0021 },
	{ "large-clean-1MiB", "map_unmap", "clean", 1048576, 300, 73108, 0.0001 },
};

struct buf {
	char *d;
	size_t len, cap;
};

struct sched {
	unsigned int power_on; /* 0: every power-on */
	unsigned int faults;
};

struct sim {
	/* configuration */
	const char *ctl_path, *pty_link, *record_path, *tftp_root, *prompt;
	uint64_t seed;
	int tick_ms, countdown0, tcp_port, lost_sd;
	long tftp_max_block; /* --tftp-max-blocksize: a larger tftpblocksize times out; 0: none */
	size_t klog_bytes, log_buf_len, flood_bytes;
	bool direct, timestamps, start_on, batch_timing;
	double between, within;
	long lost[2];
	struct sched sched[MAX_SCHED];
	unsigned int nsched, armed;
	/* devices */
	int ctl, master, slave, tcp_listen, tcp;
	char pts[64];
	struct buf tx, q_pty, q_tcp; /* UART output, then per-sink queues */
	int64_t slow_t;
	long baud; /* --baud: `slow` at baud / 10 bytes/s, else 1 byte/ms */
	double slow_credit; /* bytes the line may send now (a 16-byte FIFO) */
	int64_t slow_us; /* --baud: when slow_credit was last added to */
	bool slow_busy; /* --baud: output was waiting at the last flush (the line never idled) */
	FILE *rec;
	/* board */
	enum state st;
	unsigned int faults, power_on, boot;
	int variant, variant0; /* 0 control, 1 patched */
	bool variant_fixed; /* named by power-on, not by the TFTP file */
	char release[64]; /* from the TFTP'd image, else 6.1.0-sim-VARIANT */
	int patches; /* a series kernel "...-sN": patches 1..N applied */
	int countdown, console_level, status;
	bool mute; /* the command running has its output >/dev/null */
	struct {
		char name[32], val[512];
	} vars[SH_VARS]; /* the shell's variables */
	unsigned int nvars;
	struct {
		char name[32];
		char *body;
	} funcs[SH_FUNCS]; /* its functions */
	unsigned int nfuncs;
	char *pos[SH_POS]; /* $1.. of the function running */
	int npos, err_mute; /* err_mute: stderr goes to /dev/null */
	const char *out_file; /* the running command's > FILE */
	/* the environment (--uboot-version, --governor, --temp: from power-on N on) */
	struct knob {
		unsigned int from;
		char val[48];
	} knobs[3][MAX_SCHED];
	unsigned int nknobs[3];
	char uboot_ver[48], gov[32]; /* of this power-on (gov: what was written last) */
	long temp_mc;
	bool has_cpufreq, has_thermal, warm; /* warm: dmabench ran (+1.5 C) */
	int64_t next_tick;
	struct buf line, env, ring, pending; /* pending: a { } group being typed */
	size_t flood_left, flood_n; /* flood faults: bytes still to send */
	bool last_cr, mod_loaded, kernel_loaded, split_done;
	int sub, errexit, skip; /* ( ) depth; set -e at depth; skipping to its ) */
	uint64_t rng, noise, ktime_ns;
	double boot_mean[ARRAY_SIZE(scens)];
	long boot_lost;
};

static volatile sig_atomic_t quit_sig;

/* --- small helpers --------------------------------------------------- */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("boardsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void buf_add(struct buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->d = realloc(b->d, b->cap);
		if (!b->d)
			die("out of memory");
	}
	memcpy(b->d + b->len, p, n);
	b->len += n;
	b->d[b->len] = '\0';
}

static void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	char tmp[1024];
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);

	buf_add(b, tmp, n < 0 ? 0 : (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->d)
		b->d[0] = '\0';
}

static void buf_drop(struct buf *b, size_t n)
{
	memmove(b->d, b->d + n, b->len - n);
	b->len -= n;
	if (b->d)
		b->d[b->len] = '\0';
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double rnd_unit(uint64_t *s)
{
	return (double)(splitmix64(s) >> 11) / 9007199254740992.0;
}

static double rnd_normal(uint64_t *s)
{
	double u = rnd_unit(s), v = rnd_unit(s);

	return sqrt(-2.0 * log(u > 0 ? u : 1e-300)) * cos(2.0 * M_PI * v);
}

static bool has(const struct sim *s, enum fault f)
{
	return s->faults & (1u << f);
}

/* Adds the comma-separated fault kinds of list to *mask; err names a bad one. */
static int parse_faults(const char *list, unsigned int *mask, char *err, size_t len)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		die("out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i, n;

		for (i = 0; i < F_NR && strcmp(tok, fault_names[i]); i++)
			;
		if (i < F_NR) {
			*mask |= 1u << i;
			continue;
		}
		n = (size_t)snprintf(err, len, "unknown fault '%.32s'; known:", tok);
		for (i = 0; i < F_NR && n < len; i++)
			n += (size_t)snprintf(err + n, len - n, " %s", fault_names[i]);
		ret = -EINVAL;
		break;
	}
	free(copy);
	return ret;
}

static void faults_str(unsigned int mask, char *out, size_t len)
{
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < F_NR; i++)
		if (mask & (1u << i))
			n += snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
				      fault_names[i]);
	if (!n)
		snprintf(out, len, "none");
}

/* --- output: UART, sinks, kernel log ----------------------------------- */

static void out_raw(struct sim *s, const char *p, size_t n)
{
	if (s->st != ST_OFF && !s->mute)
		buf_add(&s->tx, p, n);
}

static void out(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->st == ST_OFF || s->mute)
		return;
	va_start(ap, fmt);
	buf_vprintf(&s->tx, fmt, ap);
	va_end(ap);
}

static void noise_bytes(struct sim *s, int n, bool nul)
{
	while (n--) {
		char c = nul ? '\0' : (char)(0x80 | (splitmix64(&s->noise) & 0x7f));

		out_raw(s, &c, 1);
	}
}

/* Console line ending of kernel text under the crlf / cr faults. */
static const char *keol(const struct sim *s)
{
	return has(s, F_CR) ? "\r" : has(s, F_CRLF) ? "\r\r\n" : "\r\n";
}

static void record(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void record(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->rec)
		return;
	fprintf(s->rec, "boot %u ", s->boot);
	va_start(ap, fmt);
	vfprintf(s->rec, fmt, ap);
	va_end(ap);
	fputc('\n', s->rec);
	fflush(s->rec);
}

/* printk: into the ring (dmesg), and onto the console below console_level. */
static void klog(struct sim *s, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void klog(struct sim *s, int level, const char *fmt, ...)
{
	char msg[600], ts[32] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->ktime_ns += 9000 + splitmix64(&s->noise) % 30000;
	if (s->timestamps)
		snprintf(ts, sizeof(ts), "[%5llu.%06llu] ",
			 (unsigned long long)(s->ktime_ns / 1000000000),
			 (unsigned long long)(s->ktime_ns / 1000 % 1000000));
	buf_add(&s->ring, ts, strlen(ts));
	buf_add(&s->ring, msg, strlen(msg));
	buf_add(&s->ring, "\n", 1);
	/* like log_buf_len: forget the oldest records (trimmed in bulk) */
	if (s->ring.len > 2 * s->log_buf_len) {
		char *nl = memchr(s->ring.d + s->ring.len - s->log_buf_len, '\n', s->log_buf_len);

		if (nl)
			buf_drop(&s->ring, (size_t)(nl + 1 - s->ring.d));
	}
	if (!strncmp(msg, "dmabench: ", 10))
		record(s, "%s", msg);
	if (level < s->console_level)
		out(s, "%s%s%s", ts, msg, keol(s));
}

static void pty_close(struct sim *s)
{
	if (s->master >= 0)
		close(s->master);
	if (s->slave >= 0)
		close(s->slave);
	s->master = s->slave = -1;
	s->q_pty.len = 0;
	if (s->pty_link)
		unlink(s->pty_link);
}

/* A new pty; the slave stays open here too (raw, so nothing is echoed back)
 * so that the master never sees a hangup when the reader closes it. */
static void pty_open(struct sim *s)
{
	char tmp[PATH_MAX];
	struct termios t;
	char *name;

	s->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
	if (s->master < 0 || grantpt(s->master) || unlockpt(s->master))
		die("posix_openpt: %s", strerror(errno));
	name = ptsname(s->master);
	if (!name)
		die("ptsname: %s", strerror(errno));
	snprintf(s->pts, sizeof(s->pts), "%s", name);
	s->slave = open(s->pts, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s->slave < 0 || tcgetattr(s->slave, &t))
		die("%s: %s", s->pts, strerror(errno));
	cfmakeraw(&t);
	tcsetattr(s->slave, TCSANOW, &t);
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", s->pty_link, (int)getpid());
	unlink(tmp);
	if (symlink(s->pts, tmp) || rename(tmp, s->pty_link))
		die("%s: cannot publish the pty link: %s", s->pty_link, strerror(errno));
}

static void kernel_finish(struct sim *s);

/* The flood faults: the next 64 KiB of the flood once the sinks took the
 * last, lines of kernel log or one line without an end. */
static void flood_fill(struct sim *s)
{
	char line[128];

	if (!s->flood_left || s->tx.len >= 65536 || s->q_pty.len >= 65536)
		return;
	while (s->flood_left && s->tx.len < 65536) {
		int n = has(s, F_FLOOD_NONL) ?
				snprintf(line, sizeof(line), "flood %08zu no newline in sight ",
					 s->flood_n) :
				snprintf(
					line, sizeof(line),
					"[%5zu.%06zu] sim: flood %08zu: a driver logging the same error again and again\r\n",
					s->flood_n / 100000, s->flood_n % 100000 * 10, s->flood_n);
		size_t k = (size_t)n < s->flood_left ? (size_t)n : s->flood_left;

		out_raw(s, line, k);
		s->flood_left -= k;
		s->flood_n++;
	}
	if (!s->flood_left) {
		out(s, "\r\n");
		kernel_finish(s);
	}
}

/* Moves UART output to the sinks (1 byte/ms under `slow`), writes them. */
static void flush_out(struct sim *s)
{
	size_t n;

	flood_fill(s);
	n = s->tx.len;

	if (has(s, F_SLOW) && n && s->baud) {
		int64_t t = now_us();

		/* in microseconds, and saved up while output waits: a wakeup this loop
		 * got late (a loaded host) does not slow the line below its baud */
		s->slow_credit += (double)(t - s->slow_us) * (double)s->baud / 1e7;
		s->slow_us = t;
		if (!s->slow_busy && s->slow_credit > 16) /* idle time: the FIFO only */
			s->slow_credit = 16;
		n = s->slow_credit < (double)n ? (size_t)s->slow_credit : n;
		s->slow_credit -= (double)n;
		s->slow_busy = s->tx.len > n;
	} else if (has(s, F_SLOW) && n) {
		int64_t t = now_ms();

		n = t > s->slow_t ? (size_t)(t - s->slow_t) : 0;
		if (n > s->tx.len)
			n = s->tx.len;
		if (n)
			s->slow_t = t;
	}
	if (n) {
		if (s->master >= 0)
			buf_add(&s->q_pty, s->tx.d, n);
		if (s->tcp >= 0)
			buf_add(&s->q_tcp, s->tx.d, n);
		buf_drop(&s->tx, n);
	}
	if (s->master >= 0 && s->q_pty.len) {
		ssize_t w = write(s->master, s->q_pty.d, s->q_pty.len);

		if (w > 0)
			buf_drop(&s->q_pty, (size_t)w);
	}
	if (s->tcp >= 0 && s->q_tcp.len) {
		ssize_t w = send(s->tcp, s->q_tcp.d, s->q_tcp.len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w > 0) {
			buf_drop(&s->q_tcp, (size_t)w);
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			close(s->tcp);
			s->tcp = -1;
			s->q_tcp.len = 0;
		}
	}
}

/* --- U-Boot ------------------------------------------------------------ */

static const char *variant_name(int v)
{
	return v == 1 ? "patched" : "control";
}

static void kernel_start(struct sim *s);

static void env_set(struct sim *s, const char *k, const char *v)
{
	char *p = s->env.d, *end = p ? p + s->env.len : NULL;
	size_t kl = strlen(k);

	/* env is "k=v\n" lines; drop the old value, append the new one */
	for (; p && p < end; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, k, kl) && p[kl] == '=') {
			size_t l = (size_t)(strchr(p, '\n') + 1 - p);

			memmove(p, p + l, (size_t)(end - p) - l);
			s->env.len -= l;
			s->env.d[s->env.len] = '\0';
			break;
		}
	}
	if (*v) {
		buf_add(&s->env, k, kl);
		buf_add(&s->env, "=", 1);
		buf_add(&s->env, v, strlen(v));
		buf_add(&s->env, "\n", 1);
	}
}

static const char *env_get(struct sim *s, const char *k, char *val, size_t len)
{
	const char *p = s->env.d;
	size_t kl = strlen(k);

	val[0] = '\0';
	for (; p && *p; p = strchr(p, '\n') + 1)
		if (!strncmp(p, k, kl) && p[kl] == '=') {
			snprintf(val, len, "%.*s", (int)strcspn(p + kl + 1, "\n"), p + kl + 1);
			break;
		}
	return val;
}

/* The value of knob kind k for this power-on: the last given for a power-on <= it. */
static const char *knob(const struct sim *s, int k, const char *dflt)
{
	const char *v = dflt;
	unsigned int i, best = 0;

	for (i = 0; i < s->nknobs[k]; i++)
		if (s->knobs[k][i].from <= s->power_on && s->knobs[k][i].from >= best) {
			best = s->knobs[k][i].from;
			v = s->knobs[k][i].val;
		}
	return v;
}

static void boot_start(struct sim *s)
{
	char fs[256];
	unsigned int i;

	s->boot++;
	faults_str(s->faults, fs, sizeof(fs));
	record(s, "power_on=%u faults=%s", s->power_on, fs);
	/* a new shell, and the board's firmware and cpufreq defaults again */
	for (i = 0; i < s->nfuncs; i++) {
		free(s->funcs[i].body);
		s->funcs[i].body = NULL;
	}
	for (i = 0; i < (unsigned int)s->npos; i++)
		free(s->pos[i]);
	s->nvars = s->nfuncs = 0;
	s->npos = 0;
	snprintf(s->uboot_ver, sizeof(s->uboot_ver), "%s", knob(s, KNOB_UBOOT, "2023.01"));
	snprintf(s->gov, sizeof(s->gov), "%s", knob(s, KNOB_GOV, "ondemand"));
	s->has_cpufreq = strcmp(s->gov, "none") != 0;
	s->has_thermal = strcmp(knob(s, KNOB_TEMP, "45000"), "none") != 0;
	s->temp_mc = s->has_thermal ? strtol(knob(s, KNOB_TEMP, "45000"), NULL, 10) : 0;
	record(s, "env uboot=%s governor=%s temp=%s", s->uboot_ver, s->gov,
	       knob(s, KNOB_TEMP, "45000"));
	buf_reset(&s->env);
	buf_reset(&s->line);
	s->kernel_loaded = s->mod_loaded = s->split_done = false;
	env_set(s, "bootargs", "console=ttyS0,115200 rdinit=/init");
	if (has(s, F_GARBAGE))
		noise_bytes(s, 48, false);
	if (has(s, F_NUL))
		noise_bytes(s, 16, true);
	if (s->direct) {
		s->kernel_loaded = true;
		kernel_start(s);
		return;
	}
	out(s,
	    "\r\nU-Boot SPL %s (Jan 09 2023 - 12:00:00 +0000)\r\nTrying to boot from MMC1\r\n"
	    "\r\n\r\nU-Boot %s (Jan 09 2023 - 12:00:00 +0000)\r\n\r\n"
	    "CPU:   SAM9X75 (simulated by boardsim)\r\nDRAM:  256 MiB\r\n"
	    "Core:  42 devices, 14 uclasses, devicetree: separate\r\nMMC:   mmc@f0008000: 0\r\n"
	    "Loading Environment from nowhere... OK\r\nIn:    serial\r\nOut:   serial\r\n"
	    "Err:   serial\r\nNet:   eth0: ethernet@f802c000\r\n",
	    s->uboot_ver, s->uboot_ver);
	if (has(s, F_ANSI))
		out(s, "\033[?25h\033[0m");
	if (has(s, F_UBOOT_HANG)) {
		record(s, "fault uboot-hang");
		s->st = ST_DEAD;
		return;
	}
	s->countdown = s->countdown0;
	out(s, "Hit any key to stop autoboot: %2d ", s->countdown);
	s->st = ST_COUNTDOWN;
	s->next_tick = now_ms() + s->tick_ms;
}

static void countdown_tick(struct sim *s)
{
	s->countdown--;
	out(s, "\b\b\b%2d ", s->countdown);
	s->next_tick = now_ms() + s->tick_ms;
	if (s->countdown > 0)
		return;
	out(s,
	    "\r\nLoading kernel from MMC1... 4718592 bytes read in 212 ms (21.2 MiB/s)\r\n"
	    "Kernel image @ 0x22000000 [ 0x000000 - 0x480000 ]\r\n\r\nStarting kernel ...\r\n\r\n");
	s->kernel_loaded = true;
	kernel_start(s);
}

/* Expands ${name} and $name from the environment, as U-Boot's hush does. */
static void uboot_expand(struct sim *s, const char *in, struct buf *o)
{
	char name[64], val[512];

	while (*in) {
		size_t n = 0;

		if (*in != '$') {
			buf_add(o, in++, 1);
			continue;
		}
		in++;
		if (*in == '{') {
			n = strcspn(++in, "}");
			snprintf(name, sizeof(name), "%.*s", (int)n, in);
			in += n + (in[n] == '}');
		} else {
			while (in[n] == '_' || (in[n] >= 'a' && in[n] <= 'z') ||
			       (in[n] >= 'A' && in[n] <= 'Z') || (in[n] >= '0' && in[n] <= '9'))
				n++;
			snprintf(name, sizeof(name), "%.*s", (int)n, in);
			in += n;
		}
		env_get(s, name, val, sizeof(val));
		buf_add(o, val, strlen(val));
	}
}

/* The release a TFTP'd kernel declares: the "Linux version REL " banner
 * that every kernel image carries (fake test images carry it in clear). */
static bool file_release(const char *path, char *rel, size_t len)
{
	static const char tag[] = "Linux version ";
	FILE *f = fopen(path, "re");
	struct buf b = { 0 };
	char chunk[65536], *m;
	size_t n = 0;

	while (f && b.len < (64u << 20) && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		buf_add(&b, chunk, n);
	if (f)
		fclose(f);
	m = b.d ? memmem(b.d, b.len, tag, sizeof(tag) - 1) : NULL;
	if (m) {
		m += sizeof(tag) - 1;
		n = strcspn(m, " \n");
		snprintf(rel, len, "%.*s", (int)(n < len ? n : len - 1), m);
	}
	free(b.d);
	return m && n;
}

static int uboot_tftp(struct sim *s, int argc, char **argv)
{
	const char *file = argv[argc - 1], *addr = argc > 2 ? argv[1] : "0x22000000";
	char path[PATH_MAX], hex[32], rel[64];
	long size = 4718592;
	struct stat st;
	int v;

	if (argc < 2) {
		out(s, "tftpboot - load file via network using TFTP protocol\r\n");
		return 1;
	}
	out(s,
	    "Using ethernet@f802c000 device\r\n"
	    "TFTP from server 192.168.0.1; our IP address is 192.168.0.100\r\n"
	    "Filename '%s'.\r\n"
	    "Load address: %s\r\n"
	    "Loading: ",
	    file, addr);
	/* a network dropping IP fragments: blocks larger than the path takes never arrive */
	if (s->tftp_max_block &&
	    atol(env_get(s, "tftpblocksize", hex, sizeof(hex))) > s->tftp_max_block) {
		record(s, "tftp blocksize %s above %ld: timed out", hex, s->tftp_max_block);
		out(s, "T T T T T T T T T T \r\nRetry count exceeded; starting again\r\n");
		return 1;
	}
	if (s->tftp_root) {
		snprintf(path, sizeof(path), "%s/%s", s->tftp_root, file);
		if (stat(path, &st) || !S_ISREG(st.st_mode)) {
			out(s, "*\r\nTFTP error: 'File not found' (1)\r\nNot retrying...\r\n");
			return 1;
		}
		size = (long)st.st_size;
	}
	out(s,
	    "##################################################\r\n\t 2.4 MiB/s\r\ndone\r\n"
	    "Bytes transferred = %ld (%lx hex)\r\n",
	    size, size);
	snprintf(hex, sizeof(hex), "%lx", size);
	env_set(s, "filesize", hex);
	/* the deployed kernel decides the variant unless power-on named one */
	v = strstr(file, "patched") ? 1 : strstr(file, "control") ? 0 : -1;
	if (!s->variant_fixed && s->tftp_root && file_release(path, rel, sizeof(rel))) {
		const char *sn = strrchr(rel, '-');

		snprintf(s->release, sizeof(s->release), "%s", rel);
		s->variant = strstr(rel, "patched") ? 1 : 0;
		s->patches = sn && sn[1] == 's' && sn[2] >= '0' && sn[2] <= '9' ? atoi(sn + 2) : 0;
	} else if (!s->variant_fixed && v >= 0) {
		s->variant = v;
	}
	s->kernel_loaded = true;
	return 0;
}

/* Runs one `=> ` line (commands separated by ';'). */
static void uboot_exec(struct sim *s, const char *line)
{
	struct buf x = { 0 };
	char *cmd, *save = NULL;

	uboot_expand(s, line, &x);
	for (cmd = strtok_r(x.d ? x.d : (char *)"", ";", &save); cmd && s->st == ST_UBOOT;
	     cmd = strtok_r(NULL, ";", &save)) {
		char *argv[16], *w, *save2 = NULL;
		int argc = 0;

		for (w = strtok_r(cmd, " \t", &save2); w && argc < 16;
		     w = strtok_r(NULL, " \t", &save2))
			argv[argc++] = w;
		if (!argc)
			continue;
		if (!strcmp(argv[0], "dhcp")) {
			out(s, "BOOTP broadcast 1\r\n"
			       "DHCP client bound to address 192.168.0.100 (3 ms)\r\n");
			env_set(s, "ipaddr", "192.168.0.100");
		} else if (!strcmp(argv[0], "setenv") && argc >= 2) {
			struct buf v = { 0 };
			int i;

			for (i = 2; i < argc; i++) {
				if (i > 2)
					buf_add(&v, " ", 1);
				buf_add(&v, argv[i], strlen(argv[i]));
			}
			env_set(s, argv[1], v.d ? v.d : "");
			free(v.d);
		} else if (!strcmp(argv[0], "printenv")) {
			char val[512];

			if (argc > 1)
				out(s, "%s=%s\r\n", argv[1], env_get(s, argv[1], val, sizeof(val)));
			else
				for (w = s->env.d; w && *w; w = strchr(w, '\n') + 1)
					out(s, "%.*s\r\n", (int)strcspn(w, "\n"), w);
		} else if (!strcmp(argv[0], "echo")) {
			int i;

			for (i = 1; i < argc; i++)
				out(s, "%s%s", i > 1 ? " " : "", argv[i]);
			out(s, "\r\n");
		} else if (!strcmp(argv[0], "tftpboot") || !strcmp(argv[0], "tftp")) {
			uboot_tftp(s, argc, argv);
		} else if (!strcmp(argv[0], "bootz") || !strcmp(argv[0], "bootm") ||
			   !strcmp(argv[0], "boot")) {
			if (!s->kernel_loaded) {
				out(s, "Bad Linux ARM zImage magic!\r\n");
				continue;
			}
			out(s, "Kernel image @ 0x22000000 [ 0x000000 - 0x480000 ]\r\n"
			       "## Flattened Device Tree blob at 21000000\r\n"
			       "   Booting using the fdt blob at 0x21000000\r\n"
			       "   Loading Device Tree to 2fb2e000, end 2fb37c4f ... OK\r\n\r\n"
			       "Starting kernel ...\r\n\r\n");
			kernel_start(s);
		} else if (!strcmp(argv[0], "reset")) {
			out(s, "resetting ...\r\n");
			boot_start(s);
		} else if (!strcmp(argv[0], "version")) {
			out(s, "U-Boot 2023.01 (Jan 09 2023 - 12:00:00 +0000)\r\n");
		} else {
			out(s, "Unknown command '%s' - try 'help'\r\n", argv[0]);
		}
	}
	free(x.d);
	if (s->st == ST_UBOOT)
		out(s, "=> ");
}

/* --- kernel ----------------------------------------------------------- */

static void release(const struct sim *s, char *r, size_t len)
{
	if (s->release[0])
		snprintf(r, len, "%s", s->release);
	else
		snprintf(r, len, "6.1.0-sim-%s", variant_name(s->variant));
}

static void proc_version(const struct sim *s, char *v, size_t len)
{
	char r[64];

	release(s, r, sizeof(r));
	snprintf(
		v, len,
		"Linux version %s (boardsim@lab) (arm-linux-gnueabi-gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 PREEMPT Mon Jan  9 12:00:00 UTC 2023",
		r);
}

static void panic(struct sim *s, const char *why)
{
	char r[64];

	release(s, r, sizeof(r));
	klog(s, 0, "Kernel panic - not syncing: %s", why);
	klog(s, 0, "CPU: 0 PID: 1 Comm: %s Not tainted %s #1",
	     s->st == ST_SHELL ? "insmod" : "swapper", r);
	klog(s, 0, "Hardware name: Microchip SAM9X75 (boardsim)");
	klog(s, 0, "---[ end Kernel panic - not syncing: %s ]---", why);
	s->st = ST_DEAD;
}

static void shell_prompt(struct sim *s)
{
	out(s, "%s", s->prompt);
	if (has(s, F_ANSI))
		out(s, "\033[6n"); /* busybox cttyhack asks for the cursor position */
}

static const char *const klog_lines[] = {
	"Booting Linux on physical CPU 0x0",
	NULL, /* Linux version */
	"CPU: ARM926EJ-S [41069265] revision 5 (ARMv5TEJ), cr=00093177",
	"CPU: VIVT data cache, VIVT instruction cache",
	"OF: fdt: Machine model: Microchip SAM9X75 (boardsim)",
	"Memory policy: Data cache writeback",
	"Zone ranges:",
	"  Normal   [mem 0x0000000020000000-0x000000002fffffff]",
	"Built 1 zonelists, mobility grouping on.  Total pages: 65024",
	NULL, /* Kernel command line */
	"Memory: 245064K/262144K available (7168K kernel code, 412K rwdata)",
	"NR_IRQS: 16, nr_irqs: 16, preallocated irqs: 16",
	"clocksource: pit: mask: 0xffffffff max_cycles: 0xffffffff",
	"sched_clock: 32 bits at 100 MHz, resolution 10ns, wraps every 21474836475ns",
	"Console: colour dummy device 80x30",
	"Calibrating delay loop... 298.59 BogoMIPS (lpj=1492992)",
	"pid_max: default: 32768 minimum: 301",
	"Mount-cache hash table entries: 1024 (order: 0, 4096 bytes, linear)",
	"devtmpfs: initialized",
	"NET: Registered PF_NETLINK/PF_ROUTE protocol family",
	"DMA: preallocated 256 KiB pool for atomic coherent allocations",
	"f0020000.serial: ttyS0 at MMIO 0xf0020000 (irq = 24, base_baud = 6250000) is a ATMEL_SERIAL",
	"printk: console [ttyS0] enabled",
	"macb f802c000.ethernet eth0: Cadence GEM rev 0x00020203 at 0xf802c000 irq 25",
	"atmel_mci f0008000.mmc: version: 0x505",
	"clk: Disabling unused clocks",
};

static void kernel_start(struct sim *s)
{
	size_t i, want = has(s, F_BURST) ? 1024 * 1024 : s->klog_bytes, total = 0;
	char v[256];
	unsigned int n = 0;

	if (has(s, F_KERNEL_HANG)) {
		record(s, "fault kernel-hang");
		s->st = ST_DEAD;
		return;
	}
	s->st = ST_DEAD; /* not interactive until the shell runs */
	buf_reset(&s->ring);
	s->ktime_ns = 0;
	s->console_level = 7;
	s->status = 0;
	if (s->patches)
		record(s, "kernel variant=%s patches=%d", variant_name(s->variant), s->patches);
	else
		record(s, "kernel variant=%s", variant_name(s->variant));
	/* this boot's values: a fresh generator per (seed, boot) */
	s->rng = s->seed * 0x2545f4914f6cdd1dULL ^ s->boot;
	for (i = 0; i < ARRAY_SIZE(scens); i++) {
		double m = scens[i].mean * (s->variant ? 1 + scens[i].effect : 1);

		for (int k = 0; k < s->patches && k < SIM_PATCHES; k++)
			m *= 1 + scens[i].patch_effect[k];

		s->boot_mean[i] = m * (1 + s->between * rnd_normal(&s->rng));
	}
	s->boot_lost = s->lost[s->variant];
	if (s->boot_lost)
		s->boot_lost += lround(s->lost_sd * rnd_normal(&s->rng));

	for (i = 0; i < ARRAY_SIZE(klog_lines); i++) {
		if (i == 1) {
			proc_version(s, v, sizeof(v));
			klog(s, 5, "%s", v);
		} else if (i == 9) {
			klog(s, 5, "Kernel command line: %s", env_get(s, "bootargs", v, sizeof(v)));
		} else {
			klog(s, 6, "%s", klog_lines[i]);
		}
	}
	for (total = s->ring.len; total < want; n++) {
		if (n == 20 && has(s, F_PANIC_BOOT)) {
			record(s, "fault panic-boot");
			panic(s, "VFS: Unable to mount root fs on unknown-block(0,0)");
			return;
		}
		if (n == 10 && has(s, F_GARBAGE)) {
			noise_bytes(s, 200, false);
			out(s, "%s", keol(s));
		}
		if (n == 12 && has(s, F_NUL))
			noise_bytes(s, 8, true);
		klog(s, 6,
		     "sim: probe %u: platform device sim%u.%u bound to driver simdrv%u (dma mask 0xffffffff)",
		     n, n % 97, n % 13, n % 7);
		total += 80;
	}
	if (has(s, F_FLOOD) || has(s, F_FLOOD_NONL)) {
		record(s, "fault %s", has(s, F_FLOOD) ? "flood" : "flood-nonl");
		s->flood_left = s->flood_bytes;
		s->flood_n = 0;
		return; /* flood_fill() finishes the boot */
	}
	kernel_finish(s);
}

static void kernel_finish(struct sim *s)
{
	klog(s, 6, "Freeing unused kernel image (initmem) memory: 1024K");
	klog(s, 6, "Run /init as init process");
	if (has(s, F_ANSI))
		out(s, "[\033[0;32m  OK  \033[0m] Reached target \033[1;39mlab shell\033[0m.\r\n");
	out(s, "\r\nBusyBox v1.35.0 (Debian 1:1.35.0-4+b3) built-in shell (ash)\r\n\r\n");
	s->st = ST_SHELL;
	shell_prompt(s);
}

/* --- dmabench --------------------------------------------------------- */

/* a baseline of a dirty scenario per iteration: the memset loop, this share of its mean */
#define SIM_BASE_SHARE 0.4
/* poison-base: the baseline of one batch this many times its own (a host stall) */
#define SIM_POISON_FACTOR 200
/* outlier: one batch this many times its own time (an interrupt-length stall) */
#define SIM_OUTLIER_FACTOR 4

/* --batch-timing: raw and baseline totals of the batch, mean_ns = (raw - base) / reps
 * truncated as the module's div_s64 (negative when the baseline is poisoned) */
static void batch_line(struct sim *s, size_t i, unsigned int batch, unsigned int reps, double m,
		       double m0, bool poison)
{
	const struct scen *sc = &scens[i];
	double bp = strcmp(sc->state, "dirty") ? 0 : m0 * SIM_BASE_SHARE; /* m0: no outlier */
	long long base = llround(bp * reps * (1 + s->within * rnd_normal(&s->rng)));
	long long raw = llround((m + bp) * reps), mean;

	if (poison) {
		base *= SIM_POISON_FACTOR;
		record(s, "fault poison-base");
	}
	mean = (raw - base) / (long long)reps;
	s->ktime_ns += (unsigned long long)raw;
	klog(s, 6,
	     "dmabench: v1 result scenario=%s batch=%u size=%u reps=%u dir=from op=%s state=%s timing=batch mean_ns=%lld raw_ns=%lld base_ns=%lld ns_per_KiB=%lld",
	     sc->name, batch, sc->size, reps, sc->op, sc->state, mean, raw, base,
	     sc->size ? mean * 1024 / sc->size : 0);
}

static void result_line(struct sim *s, size_t i, unsigned int batch, unsigned int reps,
			bool corrupt, bool poison, bool outlier)
{
	const struct scen *sc = &scens[i];
	double m = s->boot_mean[i] * (1 + s->within * rnd_normal(&s->rng));
	const double m0 = m;
	unsigned long long mean, min, max;
	char ms[32];
	size_t l;

	if (outlier) {
		m *= SIM_OUTLIER_FACTOR;
		record(s, "fault outlier");
	}
	if (s->batch_timing) {
		batch_line(s, i, batch, reps, m, m0, poison);
		return;
	}
	mean = m < 1 ? 1 : (unsigned long long)llround(m);
	min = (unsigned long long)(mean * (0.80 + 0.15 * rnd_unit(&s->rng)));
	max = (unsigned long long)(mean * (1.5 + 3.0 * rnd_unit(&s->rng))) + 1;
	l = (size_t)snprintf(ms, sizeof(ms), "%llu", mean);
	if (corrupt) { /* 353 -> 35x3 */
		memmove(ms + l, ms + l - 1, 2);
		ms[l - 1] = 'x';
		record(s, "fault corrupt");
	}
	s->ktime_ns += mean * reps;
	klog(s, 6,
	     "dmabench: v1 result scenario=%s batch=%u size=%u reps=%u dir=from op=%s state=%s timing=iter mean_ns=%s min_ns=%llu max_ns=%llu ns_per_KiB=%llu",
	     sc->name, batch, sc->size, reps, sc->op, sc->state, ms, min, max,
	     sc->size ? mean * 1024 / sc->size : 0);
}

/* The non-fatal splats and the fatal ones, in the middle of a run. */
static bool midrun_faults(struct sim *s)
{
	if (has(s, F_WARN)) {
		record(s, "fault warn");
		klog(s, 4, "------------[ cut here ]------------");
		klog(s, 4,
		     "WARNING: CPU: 0 PID: 93 at kernel/dma/debug.c:1032 check_unmap+0x5c4/0x8a0");
		klog(s, 4, "---[ end trace 0000000000000000 ]---");
	}
	if (has(s, F_BUG)) {
		record(s, "fault bug");
		klog(s, 3, "BUG: sleeping function called from invalid context at mm/slab.h:723");
	}
	if (has(s, F_OOPS)) {
		record(s, "fault oops");
		klog(s, 0, "Internal error: Oops: 5 [#1] ARM");
		klog(s, 0, "PC is at dmabench_run+0x1c4/0x3a0 [dmabench]");
	}
	if (has(s, F_PANIC_RUN)) {
		record(s, "fault panic-run");
		klog(s, 1, "8<--- cut here ---");
		klog(s, 1,
		     "Unable to handle kernel NULL pointer dereference at virtual address 00000000");
		klog(s, 0, "Internal error: Oops: 817 [#1] ARM");
		panic(s, "Fatal exception");
		return true;
	}
	if (has(s, F_RESET)) {
		record(s, "fault reset");
		out(s, "\r\n");
		boot_start(s);
		return true;
	}
	return false;
}

static bool parse_uint(const char *v, unsigned int lo, unsigned int hi, unsigned int *res)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno || end == v || *end || *v == '-' || x < lo || x > hi)
		return false;
	*res = (unsigned int)x;
	return true;
}

static int sh_insmod(struct sim *s, int argc, char **argv)
{
	unsigned int batches = 5, reps = 0, b, mid, results = 0;
	bool null = true, preserve = true;
	size_t i;
	int k;

	if (argc < 2) {
		out(s,
		    "BusyBox v1.35.0 multi-call binary.\r\n\r\nUsage: insmod FILE [SYMBOL=VALUE]...\r\n");
		return 1;
	}
	if (strcmp(argv[1], MODULE_PATH)) {
		out(s, "insmod: can't insert '%s': No such file or directory\r\n", argv[1]);
		return 1;
	}
	if (s->mod_loaded) {
		out(s, "insmod: can't insert '%s': File exists\r\n", argv[1]);
		return 1;
	}
	for (k = 2; k < argc; k++) {
		char *eq = strchr(argv[k], '=');
		const char *v = eq ? eq + 1 : "1";
		size_t kl = eq ? (size_t)(eq - argv[k]) : strlen(argv[k]);
		bool bad = false;

		if (kl == 7 && !strncmp(argv[k], "batches", kl))
			bad = !parse_uint(v, 1, 1000, &batches);
		else if (kl == 4 && !strncmp(argv[k], "reps", kl))
			bad = !parse_uint(v, 0, 10000000, &reps);
		else if (kl == 13 && !strncmp(argv[k], "null_baseline", kl))
			null = !strchr("0nN", *v);
		else if (kl == 8 && !strncmp(argv[k], "preserve", kl))
			preserve = !strchr("0nN", *v);
		else if (strncmp(argv[k], "timing", kl) && strncmp(argv[k], "scenarios", kl) &&
			 strncmp(argv[k], "pin_timing", kl)) /* kmod/dmabench.c's, all iter here */
			klog(s, 4, "dmabench: unknown parameter '%.*s' ignored", (int)kl, argv[k]);
		if (bad) {
			klog(s, 3,
			     "dmabench: v1 done status=-22 results=0 error=EINVAL scenario=none %.*s=%s",
			     (int)kl, argv[k], v);
			out(s, "insmod: can't insert '%s': Invalid argument\r\n", argv[1]);
			return 1;
		}
	}
	if (has(s, F_MODFAIL)) {
		record(s, "fault modfail");
		klog(s, 3, "dmabench: v1 done status=-12 results=0 error=ENOMEM scenario=none");
		out(s, "insmod: can't insert '%s': Cannot allocate memory\r\n", argv[1]);
		return 1;
	}
	klog(s, 6, "dmabench: v1 start clock_res_ns=1 timing=auto batches=%u scenarios=%u", batches,
	     null ? 4 : 3);
	mid = (batches + 1) / 2;
	for (b = 1; b <= batches; b++) {
		for (i = null ? 0 : 1; i < ARRAY_SIZE(scens); i++) {
			if (b == mid && i == 2 && midrun_faults(s))
				return -1;
			result_line(s, i, b, reps ? reps : scens[i].reps,
				    b == mid && i == 2 && has(s, F_CORRUPT),
				    b == mid && i == 1 && has(s, F_POISON_BASE),
				    b == mid && i == 2 && has(s, F_OUTLIER));
			results++;
		}
		if (preserve) {
			long lost = s->boot_lost;

			if (lost)
				lost += lround(s->lost_sd / 4.0 * rnd_normal(&s->rng));
			lost = lost < 0 ? 0 : lost > PRESERVE_SIZE ? PRESERVE_SIZE : lost;
			klog(s, 6,
			     "dmabench: v1 preserve scenario=preserve-%uB batch=%u size=%u lost=%ld",
			     PRESERVE_SIZE, b, PRESERVE_SIZE, lost);
			results++;
		}
	}
	klog(s, 6, "dmabench: v1 done status=0 results=%u", results);
	s->mod_loaded = true;
	s->warm = true;
	return 0;
}

/* dmesg: the ring, each line through the console faults. */
static void sh_dmesg_print(struct sim *s)
{
	char *p = s->ring.d, *end = p + s->ring.len;
	unsigned int i = 0, results = 0;
	bool split = false;

	if (has(s, F_GARBAGE)) {
		noise_bytes(s, 40, false);
		out(s, "\r\n");
	}
	for (; p && p < end; i++) {
		size_t l = strcspn(p, "\n");
		bool last = p + l + 1 >= end,
		     res = strstr(p, "dmabench: v1 result") &&
			   (size_t)(strstr(p, "dmabench: v1 result") - p) < l;
		const char *eol = last			? "\r\n" :
				  has(s, F_CR) && i % 2 ? "\r" :
				  has(s, F_CRLF)	? "\r\r\n" :
							  "\r\n";
		size_t cut = l;
		bool here = false;

		if (res && ++results == 3 && has(s, F_SPLIT) && !s->split_done)
			here = split = true;
		if (res && (here || has(s, F_NUL)))
			cut = here ? l / 2 : l / 3;
		out_raw(s, p, cut);
		if (here)
			out(s, "\r\n[%5llu.%06llu] usb 1-1: USB disconnect, device number 2\r\n",
			    (unsigned long long)(s->ktime_ns / 1000000000),
			    (unsigned long long)(s->ktime_ns / 1000 % 1000000));
		else if (cut < l)
			out_raw(s, "\0", 1);
		out_raw(s, p + cut, l - cut);
		out(s, "%s", eol);
		p += l + 1;
	}
	if (split) {
		s->split_done = true; /* a one-off interleave: a second read is clean */
		record(s, "fault split");
		klog(s, 7, "usb 1-1: USB disconnect, device number 2");
	}
}

/* --- the shell's state: variables, functions, the simulated /sys ------- */

static const char *var_get(const struct sim *s, const char *name, size_t n)
{
	unsigned int i;

	if (n == 1 && name[0] >= '1' && name[0] <= '9') /* $1..$9 of the running function */
		return name[0] - '1' < s->npos ? s->pos[name[0] - '1'] : "";
	for (i = 0; i < s->nvars; i++)
		if (strlen(s->vars[i].name) == n && !strncmp(s->vars[i].name, name, n))
			return s->vars[i].val;
	return ""; /* unset: empty, as ash */
}

static void var_set(struct sim *s, const char *name, size_t n, const char *val)
{
	unsigned int i;

	for (i = 0; i < s->nvars; i++)
		if (strlen(s->vars[i].name) == n && !strncmp(s->vars[i].name, name, n))
			break;
	if (i == s->nvars) {
		if (s->nvars == SH_VARS)
			i = SH_VARS - 1; /* the last one is reused: tests set a few */
		else
			s->nvars++;
	}
	snprintf(s->vars[i].name, sizeof(s->vars[i].name), "%.*s", (int)n, name);
	snprintf(s->vars[i].val, sizeof(s->vars[i].val), "%s", val);
}

/* NAME=VALUE: the length of NAME, else 0 */
static size_t assignment(const char *w)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*w) && *w != '_')
		return 0;
	while (isalnum((unsigned char)w[n]) || w[n] == '_')
		n++;
	return w[n] == '=' ? n : 0;
}

/* An error message, unless stderr goes to /dev/null (2>/dev/null). */
static void err_out(struct sim *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void err_out(struct sim *s, const char *fmt, ...)
{
	va_list ap;

	if (s->st == ST_OFF || s->err_mute)
		return;
	va_start(ap, fmt);
	buf_vprintf(&s->tx, fmt, ap);
	va_end(ap);
}

#define CPUFREQ "/sys/devices/system/cpu/cpufreq/policy0"
#define THERMAL "/sys/class/thermal/thermal_zone0"
#define GOVERNORS "conservative ondemand userspace powersave performance schedutil"

struct vfile {
	char path[96], val[96];
	bool dir;
};

/* The simulated sysfs of this power-on, in sorted order: one cpufreq policy
 * (--governor; "none": no cpufreq) and one thermal zone (--temp; "none": none). */
static int vfs_list(const struct sim *s, struct vfile *f)
{
	static const char *const names[] = { "affected_cpus",	 "scaling_available_governors",
					     "scaling_cur_freq", "scaling_driver",
					     "scaling_governor", "scaling_max_freq",
					     "scaling_min_freq", "scaling_setspeed" };
	int n = 0;
	size_t i;

	if (s->has_cpufreq) {
		long cur = !strcmp(s->gov, "performance") ? 800000 :
			   !strcmp(s->gov, "powersave")	  ? 200000 :
							    600000;
		const char *vals[] = { "0",    GOVERNORS, NULL,	    "cpufreq-dt",
				       s->gov, "800000",  "200000", "<unsupported>" };
		char c[16];

		snprintf(c, sizeof(c), "%ld", cur);
		vals[2] = c;
		f[n++] = (struct vfile){ CPUFREQ, "", true };
		for (i = 0; i < ARRAY_SIZE(names); i++, n++) {
			snprintf(f[n].path, sizeof(f[n].path), CPUFREQ "/%s", names[i]);
			snprintf(f[n].val, sizeof(f[n].val), "%s", vals[i]);
			f[n].dir = false;
		}
	}
	if (s->has_thermal) {
		f[n++] = (struct vfile){ THERMAL, "", true };
		f[n] = (struct vfile){ THERMAL "/temp", "", false };
		snprintf(f[n++].val, sizeof(f[0].val), "%ld", s->temp_mc + (s->warm ? 1500 : 0));
		f[n++] = (struct vfile){ THERMAL "/type", "cpu-thermal", false };
	}
	return n;
}
#define VFS_MAX 16

/* The first line of a file `read` can open: 0, else the shell's error printed and
 * its status. */
static int vfs_read(struct sim *s, const char *path, char *v, size_t len)
{
	struct vfile f[VFS_MAX];
	int n = vfs_list(s, f), i;

	if (!strcmp(path, "/proc/version")) {
		proc_version(s, v, len);
		return 0;
	}
	if (!strcmp(path, "/proc/cmdline")) {
		env_get(s, "bootargs", v, len);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(f[i].path, path)) {
			if (f[i].dir) {
				err_out(s, "-sh: read: read error: Is a directory\r\n");
				return 1;
			}
			snprintf(v, len, "%s", f[i].val);
			return 0;
		}
	err_out(s, "-sh: can't open '%s': No such file or directory\r\n", path);
	return 2;
}

/* echo VALUE >path: the governor is the one writable file */
static int vfs_write(struct sim *s, const char *path, const char *val)
{
	struct vfile f[VFS_MAX];
	int n = vfs_list(s, f), i;
	char g[40];

	for (i = 0; i < n && strcmp(f[i].path, path); i++)
		;
	if (i == n) {
		err_out(s, "-sh: can't create %s: nonexistent directory\r\n", path);
		return 2;
	}
	if (strcmp(path, CPUFREQ "/scaling_governor")) {
		err_out(s, "-sh: can't create %s: Permission denied\r\n", path);
		return 2;
	}
	snprintf(g, sizeof(g), " %s ", val);
	if (!*val || strchr(val, ' ') || !strstr(" " GOVERNORS " ", g)) {
		err_out(s, "-sh: echo: write error: Invalid argument\r\n");
		return 1;
	}
	snprintf(s->gov, sizeof(s->gov), "%s", val);
	record(s, "governor %s", val);
	return 0;
}

/* --- the shell: words, simple commands, lists, for loops, functions ----- */

struct redir {
	bool out_null, err_null;
	char out_file[128]; /* > FILE (not /dev/null) */
};

/* The words of one simple command being split (sh_words). */
struct words {
	char **argv, *store;
	int argc, max;
	size_t k, len;
	struct redir *rd;
	int pending; /* 1 or 2: the previous word was a bare > or 2>, this one its file */
	bool assign_ok; /* no command word yet: NAME=VALUE is an assignment (no glob) */
};

static void redir_to(struct redir *rd, int fd, const char *file)
{
	if (!strcmp(file, "/dev/null")) {
		if (fd == 2)
			rd->err_null = true;
		else
			rd->out_null = true;
	} else if (fd == 1) {
		snprintf(rd->out_file, sizeof(rd->out_file), "%s", file);
	}
}

static void word_add(struct words *w, const char *p)
{
	size_t n = strlen(p) + 1;

	if (w->argc >= w->max || w->k + n > w->len)
		return; /* cut short, as a full line would be */
	memcpy(w->store + w->k, p, n);
	w->argv[w->argc++] = w->store + w->k;
	w->k += n;
}

/* The word at store[start..k) ends: a redirection, a glob over the simulated
 * files (none matching: the word as typed), or a word. */
static void word_end(struct sim *s, struct words *w, size_t start, bool redir, bool glob,
		     bool quoted)
{
	char *word;

	w->store[w->k] = '\0';
	word = strdup(w->store + start);
	if (!word)
		die("out of memory");
	w->k = start;
	if (w->pending) {
		redir_to(w->rd, w->pending, word);
		w->pending = 0;
	} else if (redir) {
		int fd = isdigit((unsigned char)word[0]) ? word[0] - '0' : 1;
		const char *t = strchr(word, '>') + 1;

		t += *t == '>';
		if (!*t)
			w->pending = fd;
		else if (*t != '&')
			redir_to(w->rd, fd, t);
	} else if (!*word && !quoted) {
		/* an unquoted expansion to nothing is no word */
	} else if (glob && !(w->assign_ok && assignment(word))) {
		struct vfile f[VFS_MAX];
		int n = vfs_list(s, f), i, hits = 0;

		for (i = 0; i < n; i++)
			if (!fnmatch(word, f[i].path, FNM_PATHNAME | FNM_PERIOD)) {
				word_add(w, f[i].path);
				hits++;
			}
		if (!hits)
			word_add(w, word);
		w->assign_ok = false;
	} else {
		word_add(w, word);
		w->assign_ok = w->assign_ok &&
			       (!strcmp(word, "{") || !strcmp(word, "(") || assignment(word));
	}
	free(word);
}

/* $NAME, ${NAME}, ${NAME##PATTERN} (the longest matching prefix removed), $1..$9,
 * $? at p: its value into *v (valid until the next call), p past it; NULL: not an
 * expansion ($ stays). */
static const char *sh_param(struct sim *s, const char *p, const char **v)
{
	static char val[512];

	if (p[1] == '?') {
		snprintf(val, sizeof(val), "%d", s->status);
		*v = val;
		return p + 2;
	}
	if (isdigit((unsigned char)p[1])) {
		*v = var_get(s, p + 1, 1);
		return p + 2;
	}
	if (isalpha((unsigned char)p[1]) || p[1] == '_') {
		size_t n = 1;

		while (isalnum((unsigned char)p[1 + n]) || p[1 + n] == '_')
			n++;
		*v = var_get(s, p + 1, n);
		return p + 1 + n;
	}
	if (p[1] == '{') {
		const char *e = strchr(p + 2, '}'), *name = p + 2;
		size_t n = strcspn(name, "#}"), m;
		char pat[128];

		if (!e || !n)
			return NULL;
		snprintf(val, sizeof(val), "%s", var_get(s, name, n));
		if (name[n] == '#' && name[n + 1] == '#') {
			snprintf(pat, sizeof(pat), "%.*s", (int)(e - (name + n + 2)), name + n + 2);
			for (m = strlen(val) + 1; m-- > 0;) {
				char c = val[m];

				val[m] = '\0';
				if (!fnmatch(pat, val, 0)) {
					val[m] = c;
					memmove(val, val + m, strlen(val + m) + 1);
					break;
				}
				val[m] = c;
			}
		} else if (name[n] != '}') {
			return NULL; /* other ${...} forms: not simulated */
		}
		*v = val;
		return e + 1;
	}
	return NULL;
}

/* Splits one simple command into words: '' and "" removed, parameters expanded
 * outside single quotes (unquoted: split at blanks, globbed over the simulated
 * files), redirections into rd (>/dev/null, 2>/dev/null, > FILE; 2>&1 ignored). */
static int sh_words(struct sim *s, const char *p, char **argv, int max, char *store, size_t len,
		    struct redir *rd)
{
	struct words w = { argv, store, 0, max, 0, len, rd, 0, true };

	memset(rd, 0, sizeof(*rd));
	while (*p) {
		size_t start;
		bool redir, glob = false, quoted = false;
		char q = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		start = w.k;
		redir = !w.pending && (*p == '>' || (isdigit((unsigned char)p[0]) && p[1] == '>'));
		while (*p && (q || (*p != ' ' && *p != '\t'))) {
			const char *v, *e;

			if (q && *p == q) {
				q = 0;
				p++;
			} else if (!q && (*p == '\'' || *p == '"')) {
				q = *p++;
				quoted = true;
			} else if (q != '\'' && *p == '$' && (e = sh_param(s, p, &v))) {
				for (p = e; *v; v++) {
					if (!q && (*v == ' ' || *v == '\t')) { /* field splitting */
						if (w.k > start)
							word_end(s, &w, start, false, glob, false);
						start = w.k;
						glob = false;
						continue;
					}
					glob |= !q && strchr("*?[", *v);
					if (w.k + 16 < len)
						store[w.k++] = *v;
				}
			} else {
				glob |= !q && strchr("*?[", *p);
				if (w.k + 16 < len)
					store[w.k++] = *p;
				p++;
			}
		}
		word_end(s, &w, start, redir, glob, quoted);
	}
	return w.argc;
}

/* ablab's end marker (target.c): 8 hex digits of the boot's id, E, the command's number */
static bool end_marker(const char *w)
{
	size_t n = strspn(w, "0123456789abcdef");

	return n == 8 && w[8] == 'E' && isdigit((unsigned char)w[9]);
}

static int sh_cmd(struct sim *s, int argc, char **argv)
{
	char v[512];
	int i;

	if (!strcmp(argv[0], "echo")) {
		bool nl = !(argc > 1 && !strcmp(argv[1], "-n"));

		if (has(s, F_GLUE) && argc > 1 && end_marker(argv[1])) {
			/* a console printk whose newline has not come yet */
			s->ktime_ns += 1000000;
			out(s,
			    "[%5llu.%06llu] usb 1-1: new high-speed USB device number 3 using atmel-ehci",
			    (unsigned long long)(s->ktime_ns / 1000000000),
			    (unsigned long long)(s->ktime_ns / 1000 % 1000000));
			record(s, "fault printk-glue");
		}

		if (s->out_file) { /* echo VALUE >FILE: a sysfs write */
			char val[256] = "";

			for (i = nl ? 1 : 2; i < argc; i++)
				snprintf(val + strlen(val), sizeof(val) - strlen(val), "%s%s",
					 i > (nl ? 1 : 2) ? " " : "", argv[i]);
			return vfs_write(s, s->out_file, val);
		}
		for (i = nl ? 1 : 2; i < argc; i++)
			out(s, "%s%s", i > (nl ? 1 : 2) ? " " : "", argv[i]);
		out(s, "%s", nl ? "\r\n" : "");
		return 0;
	}
	if (!strcmp(argv[0], "printf") && argc > 1) {
		const char *f = argv[1];
		int a = 2;

		for (; *f; f++) {
			if (f[0] == '\\' && f[1]) {
				f++;
				out(s, "%c",
				    *f == 'n' ? '\n' :
				    *f == 'r' ? '\r' :
				    *f == 't' ? '\t' :
						*f);
			} else if (f[0] == '%' && f[1] == '%') {
				out(s, "%%");
				f++;
			} else if (f[0] == '%' && (f[1] == 's' || f[1] == 'd')) {
				out(s, "%s", a < argc ? argv[a++] : "");
				f++;
			} else {
				out(s, "%c", *f);
			}
		}
		return 0;
	}
	if (!strcmp(argv[0], "true") || !strcmp(argv[0], ":"))
		return 0;
	if (!strcmp(argv[0], "false"))
		return 1;
	if (!strcmp(argv[0], "uname")) {
		release(s, v, sizeof(v));
		if (argc > 1 && !strcmp(argv[1], "-r"))
			out(s, "%s\r\n", v);
		else if (argc > 1 && !strcmp(argv[1], "-a"))
			out(s,
			    "Linux lab %s #1 PREEMPT Mon Jan  9 12:00:00 UTC 2023 armv5tejl GNU/Linux\r\n",
			    v);
		else
			out(s, "Linux\r\n");
		return 0;
	}
	if (!strcmp(argv[0], "read") && argc == 4 && !strcmp(argv[1], "-r") && argv[3][0] == '<') {
		/* read -r NAME <FILE: the first line of /proc/version, /proc/cmdline or a
		 * simulated sysfs file */
		int ret = vfs_read(s, argv[3] + 1, v, sizeof(v));

		if (!ret)
			var_set(s, argv[2], strlen(argv[2]), v);
		return ret;
	}
	if (!strcmp(argv[0], "shift")) {
		if (!s->npos)
			return 1;
		free(s->pos[0]);
		memmove(s->pos, s->pos + 1, (size_t)--s->npos * sizeof(*s->pos));
		return 0;
	}
	if (!strcmp(argv[0], "cat") && argc == 2) {
		if (!strcmp(argv[1], "/proc/version")) {
			proc_version(s, v, sizeof(v));
			out(s, "%s\r\n", v);
		} else if (!strcmp(argv[1], "/proc/cmdline")) {
			out(s, "%s\r\n", env_get(s, "bootargs", v, sizeof(v)));
		} else {
			out(s, "cat: can't open '%s': No such file or directory\r\n", argv[1]);
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[0], "dmesg")) {
		unsigned int lvl;

		if (argc == 3 && !strcmp(argv[1], "-n") && parse_uint(argv[2], 1, 8, &lvl)) {
			s->console_level = (int)lvl;
		} else if (argc == 2 && !strcmp(argv[1], "-C")) {
			buf_reset(&s->ring);
		} else if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-c"))) {
			sh_dmesg_print(s);
			if (argc == 2)
				buf_reset(&s->ring);
		} else {
			out(s, "dmesg: invalid option\r\n");
			return 1;
		}
		return 0;
	}
	if (!strcmp(argv[0], "insmod"))
		return sh_insmod(s, argc, argv);
	if (!strcmp(argv[0], "rmmod") && argc == 2) {
		if (!s->mod_loaded || !strstr(argv[1], "dmabench")) {
			out(s, "rmmod: can't unload module '%s': No such file or directory\r\n",
			    argv[1]);
			return 1;
		}
		s->mod_loaded = false;
		return 0;
	}
	if (!strcmp(argv[0], "reboot")) {
		klog(s, 5, "reboot: Restarting system");
		boot_start(s);
		return 0;
	}
	out(s, "-sh: %s: not found\r\n", argv[0]);
	return 127;
}

/* An unquoted # starting a word: a comment up to the end of the line. */
static bool sh_comment(const char *line, size_t i)
{
	return line[i] == '#' && (!i || strchr(" \t;\n", line[i - 1]));
}

/* Whether the lines typed so far leave a { group (or a function body) open (then ash
 * asks for more with its PS2 prompt). */
static bool sh_group_open(const char *p)
{
	int depth = 0;
	char q = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		bool word_start = !i || strchr(" \t;\n", p[i - 1]) ||
				  (p[i] == '{' && p[i - 1] == ')');

		if (q) {
			q = p[i] == q ? 0 : q;
		} else if (p[i] == '\'' || p[i] == '"') {
			q = p[i];
		} else if (sh_comment(p, i)) {
			i += strcspn(p + i, "\n");
			if (!p[i])
				break;
		} else if (word_start && strchr("{}()", p[i]) &&
			   (!p[i + 1] || strchr(" \t;\n", p[i + 1]))) {
			depth += p[i] == '{' || p[i] == '(' ? 1 : -1;
		}
	}
	return depth > 0;
}

static void sh_list(struct sim *s, const char *line);

/* One simple command (cmd, its words split by sh_words()); run: false when an &&
 * or || before it says not to (its { } ( ) words still count). */
static void sh_simple(struct sim *s, const char *cmd, bool run)
{
	size_t len = 2 * strlen(cmd) + 16384;
	char *store = malloc(len), *argv[64];
	struct redir rd;
	unsigned int f;
	int argc, k;

	if (!store)
		die("out of memory");
	argc = sh_words(s, cmd, argv, (int)ARRAY_SIZE(argv), store, len, &rd);
	for (k = 0; k < argc && argv[k][0] && strchr("{}()", argv[k][0]) && !argv[k][1]; k++) {
		if (argv[k][0] == '(') {
			s->sub++;
		} else if (argv[k][0] == ')' && s->sub) {
			/* the subshell ends: its set -e, and a skip to its end */
			if (s->errexit == s->sub)
				s->errexit = 0;
			if (s->skip == s->sub)
				s->skip = 0;
			s->sub--;
		}
	}
	if (argc <= k || s->skip || !run)
		goto out;
	if (argc - k == 2 && !strcmp(argv[k], "set") && !strcmp(argv[k + 1], "-e")) {
		if (s->sub) /* only in a subshell: the login shell stays */
			s->errexit = s->sub;
		s->status = 0;
		goto out;
	}
	if (argc - k == 1 && assignment(argv[k])) {
		var_set(s, argv[k], assignment(argv[k]), argv[k] + assignment(argv[k]) + 1);
		s->status = 0;
		goto out;
	}
	{
		bool mute = s->mute;

		s->mute |= rd.out_null;
		s->err_mute += rd.err_null;
		s->out_file = rd.out_file[0] ? rd.out_file : NULL;
		for (f = 0; f < s->nfuncs && strcmp(s->funcs[f].name, argv[k]); f++)
			;
		if (f < s->nfuncs) { /* a function: $1.. are its arguments */
			char *saved[SH_POS], *body = strdup(s->funcs[f].body);
			int nsaved = s->npos, i;

			if (!body)
				die("out of memory");
			memcpy(saved, s->pos, sizeof(saved));
			for (i = 0; i + k + 1 < argc && i < SH_POS; i++)
				s->pos[i] = strdup(argv[k + 1 + i]);
			s->npos = i;
			s->out_file = NULL;
			sh_list(s, body);
			for (i = 0; i < s->npos; i++)
				free(s->pos[i]);
			memcpy(s->pos, saved, sizeof(saved));
			s->npos = nsaved;
			free(body);
		} else {
			s->status = sh_cmd(s, argc - k, argv + k);
		}
		s->out_file = NULL;
		s->mute = mute;
		s->err_mute -= rd.err_null;
	}
	if (s->errexit && s->status)
		s->skip = s->errexit;
out:
	free(store);
}

/* At line[i], after blanks: the start of a command (the list's start, after ; newline
 * && || or the keywords do, then, else, {). */
static bool cmd_start(const char *line, size_t from, size_t i)
{
	size_t j = i, w;

	while (j > from && (line[j - 1] == ' ' || line[j - 1] == '\t'))
		j--;
	if (j == from || strchr(";\n&|", line[j - 1]))
		return true;
	for (w = j; w > from && !strchr(" \t;\n", line[w - 1]); w--)
		;
	return (j - w == 2 && (!strncmp(line + w, "do", 2))) ||
	       (j - w == 4 && (!strncmp(line + w, "then", 4) || !strncmp(line + w, "else", 4))) ||
	       (j - w == 1 && line[w] == '{') || (j - w >= 3 && !strncmp(line + j - 3, "(){", 3));
}

static bool kw_at(const char *line, size_t i, const char *kw)
{
	size_t n = strlen(kw);

	return !strncmp(line + i, kw, n) && (!line[i + n] || strchr(" \t;\n)", line[i + n]));
}

/* A function definition NAME(){ at line[i]: the length up to its {, else 0. */
static size_t func_def(const char *line, size_t i)
{
	size_t n = 0, j;

	while (isalnum((unsigned char)line[i + n]) || line[i + n] == '_')
		n++;
	if (!n || isdigit((unsigned char)line[i]) || strncmp(line + i + n, "()", 2))
		return 0;
	for (j = i + n + 2; line[j] == ' ' || line[j] == '\t'; j++)
		;
	return line[j] == '{' && (!line[j + 1] || strchr(" \t\n", line[j + 1])) ? j - i : 0;
}

/* The compound command at line[i] (for ... done, NAME(){ ... }): the offset of its
 * closing keyword, or 0 when it is not closed. */
static size_t compound_end(const char *line, size_t i, bool func)
{
	size_t j;
	int depth = 0;
	char q = 0;

	for (j = i; line[j]; j++) {
		if (q) {
			q = line[j] == q ? 0 : q;
			continue;
		}
		if (line[j] == '\'' || line[j] == '"') {
			q = line[j];
			continue;
		}
		if (sh_comment(line, j)) {
			j += strcspn(line + j, "\n");
			if (!line[j])
				break;
			continue;
		}
		if (!cmd_start(line, i, j) ||
		    (j > 0 && !strchr(" \t;\n&|", line[j - 1]) && !(func && line[j] == '{')))
			continue;
		if (func ? (line[j] == '{' && (!line[j + 1] || strchr(" \t\n", line[j + 1]))) :
			   kw_at(line, j, "for") || kw_at(line, j, "while") ||
				    kw_at(line, j, "until"))
			depth++;
		else if (func ? (line[j] == '}' &&
				 (!line[j + 1] || strchr(" \t;\n)", line[j + 1]))) :
				kw_at(line, j, "done"))
			if (--depth == 0)
				return j;
	}
	return 0;
}

/* for NAME [in WORDS]; do BODY; done, the text between `for` and `done` (hd) */
static void sh_for(struct sim *s, const char *hd)
{
	const char *p = hd + 3, *body;
	char name[32], *items = NULL, **argv = NULL, *store = NULL, *bcopy;
	size_t n, blen;
	struct redir rd;
	int argc = 0, i;

	while (*p == ' ' || *p == '\t')
		p++;
	n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	snprintf(name, sizeof(name), "%.*s", (int)n, p);
	p += n;
	while (*p == ' ' || *p == '\t')
		p++;
	if (kw_at(p, 0, "in")) {
		size_t wl = strcspn(p + 2, ";\n");

		items = strndup(p + 2, wl);
		p += 2 + wl;
	}
	p += strspn(p, " \t;\n");
	if (!n || !kw_at(p, 0, "do")) {
		err_out(s, "-sh: syntax error: unexpected \"%.20s\"\r\n", p);
		s->status = 2;
		free(items);
		return;
	}
	body = p + 2;
	blen = strlen(body);
	bcopy = strndup(body, blen);
	if (!bcopy)
		die("out of memory");
	if (items) {
		size_t len = 2 * strlen(items) + 16384;

		store = malloc(len);
		argv = calloc(256, sizeof(*argv));
		if (!store || !argv)
			die("out of memory");
		argc = sh_words(s, items, argv, 256, store, len, &rd);
	}
	s->status = 0;
	for (i = 0; i < (items ? argc : s->npos) && s->st == ST_SHELL && !s->skip; i++) {
		var_set(s, name, strlen(name), items ? argv[i] : s->pos[i]);
		sh_list(s, bcopy);
	}
	free(bcopy);
	free(items);
	free(argv);
	free(store);
}

/* Runs a command list: commands separated by ; or newlines outside quotes, && and
 * ||, # comments, { } groups (run in order: no redirections to apply), ( ) subshells
 * with `set -e` (a failing command skips to the subshell's end, whose status it is),
 * for loops and function definitions (their redirections: >/dev/null, 2>/dev/null). */
static void sh_list(struct sim *s, const char *line)
{
	size_t i = 0;
	bool run = true;

	while (s->st == ST_SHELL && line[i]) {
		size_t st, end, fd;
		char q = 0, *cmd;

		i += strspn(line + i, " \t");
		if (line[i] == ';' || line[i] == '\n') {
			i++;
			run = true;
			continue;
		}
		if (!line[i])
			break;
		if (sh_comment(line, i)) {
			i += strcspn(line + i, "\n");
			continue;
		}
		st = i;
		fd = func_def(line, st);
		if ((fd || kw_at(line, st, "for")) && (end = compound_end(line, st + fd, fd))) {
			size_t kw = fd ? 1 : 4, r = end + kw, re;
			struct redir rd;
			char *tail, *argv[8], store[512];

			/* its redirections, up to the list's next separator */
			for (re = r; line[re] && !strchr(";\n", line[re]) &&
				     !(line[re] == '&' && line[re + 1] == '&') &&
				     !(line[re] == '|' && line[re + 1] == '|');
			     re++)
				;
			tail = strndup(line + r, re - r);
			if (!tail)
				die("out of memory");
			sh_words(s, tail, argv, 8, store, sizeof(store), &rd);
			free(tail);
			if (run && !s->skip) {
				char *text = strndup(line + st, end - st);
				bool mute = s->mute;

				if (!text)
					die("out of memory");
				s->mute |= rd.out_null;
				s->err_mute += rd.err_null;
				if (fd) {
					unsigned int f;
					char name[32];

					snprintf(name, sizeof(name), "%.*s",
						 (int)strcspn(text, "( \t"), text);
					for (f = 0; f < s->nfuncs && strcmp(s->funcs[f].name, name);
					     f++)
						;
					if (f == s->nfuncs && s->nfuncs < SH_FUNCS)
						s->nfuncs++;
					if (f < SH_FUNCS) {
						free(s->funcs[f].body);
						snprintf(s->funcs[f].name, sizeof(s->funcs[f].name),
							 "%s", name);
						s->funcs[f].body = strdup(text + fd + 1);
					}
					s->status = 0;
				} else {
					sh_for(s, text);
				}
				free(text);
				s->mute = mute;
				s->err_mute -= rd.err_null;
			}
			i = re;
		} else {
			for (; line[i]; i++) {
				if (q ? line[i] == q : line[i] == '\'' || line[i] == '"') {
					q = q ? 0 : line[i];
					continue;
				}
				if (q)
					continue;
				if (sh_comment(line, i) || line[i] == ';' || line[i] == '\n' ||
				    (line[i] == '&' && line[i + 1] == '&') ||
				    (line[i] == '|' && line[i + 1] == '|'))
					break;
			}
			cmd = strndup(line + st, i - st);
			if (!cmd)
				die("out of memory");
			sh_simple(s, cmd, run);
			free(cmd);
		}
		if ((line[i] == '&' && line[i + 1] == '&') ||
		    (line[i] == '|' && line[i + 1] == '|')) {
			run = line[i] == '&' ? s->status == 0 : s->status != 0;
			i += 2;
		} else if (line[i] == ';' || line[i] == '\n') {
			i++;
			run = true;
		}
	}
}

static void sh_exec(struct sim *s, const char *line)
{
	sh_list(s, line);
	s->sub = s->errexit = s->skip = 0;
	if (s->st == ST_SHELL)
		shell_prompt(s);
}

/* --- input, power, control socket -------------------------------------- */

static void input(struct sim *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char c = p[i];

		if (s->st == ST_OFF || s->st == ST_DEAD)
			return;
		if (s->st == ST_COUNTDOWN) { /* any key stops autoboot */
			out(s, "\b\b\b%2d \r\n=> ", 0);
			s->st = ST_UBOOT;
			continue;
		}
		if (c == '\n' && s->last_cr) {
			s->last_cr = false;
			continue;
		}
		s->last_cr = c == '\r';
		if (c == '\r' || c == '\n') {
			char *line = strndup(s->line.d ? s->line.d : "", s->line.len);

			if (!line)
				die("out of memory");
			out(s, "\r\n");
			s->line.len = 0;
			if (s->st == ST_UBOOT) {
				uboot_exec(s, line);
			} else {
				buf_add(&s->pending, line, strlen(line));
				buf_add(&s->pending, "\n", 1);
				if (sh_group_open(s->pending.d)) {
					out(s, "> "); /* PS2 */
				} else {
					char *all = strdup(s->pending.d);

					if (!all)
						die("out of memory");
					buf_reset(&s->pending);
					sh_exec(s, all);
					free(all);
				}
			}
			free(line);
		} else if (c == 0x7f || c == '\b') {
			if (s->line.len) {
				s->line.len--;
				out(s, "\b \b");
			}
		} else if (c == 0x03) {
			s->line.len = 0;
			buf_reset(&s->pending);
			out(s, "^C\r\n");
			if (s->st == ST_UBOOT)
				out(s, "=> ");
			else
				shell_prompt(s);
		} else if ((unsigned char)c >= 0x20 && s->line.len < LINE_MAX_IN) {
			buf_add(&s->line, &c, 1);
			out_raw(s, &c, 1);
		}
	}
}

static void power_off(struct sim *s)
{
	if (s->st == ST_OFF)
		return;
	s->st = ST_OFF;
	s->tx.len = s->q_pty.len = s->q_tcp.len = s->line.len = s->pending.len = 0;
	s->flood_left = 0;
	if (has(s, F_VANISH)) { /* the USB serial adapter loses power too */
		pty_close(s);
		if (s->tcp >= 0)
			close(s->tcp);
		s->tcp = -1;
	}
	record(s, "power off");
}

static void power_on(struct sim *s, int variant, unsigned int faults)
{
	unsigned int i;

	if (s->st != ST_OFF)
		return;
	s->power_on++;
	s->faults = faults | s->armed;
	s->armed = 0;
	for (i = 0; i < s->nsched; i++)
		if (!s->sched[i].power_on || s->sched[i].power_on == s->power_on)
			s->faults |= s->sched[i].faults;
	s->variant_fixed = variant >= 0;
	s->release[0] = '\0';
	s->patches = 0;
	s->variant = variant >= 0 ? variant : s->variant0;
	s->warm = false;
	if (s->master < 0)
		pty_open(s);
	s->slow_t = now_ms();
	s->slow_us = now_us();
	s->slow_busy = false;
	s->slow_credit = 0;
	s->st = ST_DEAD;
	boot_start(s);
}

static int variant_parse(const char *v)
{
	return !strcmp(v, "control") ? 0 : !strcmp(v, "patched") ? 1 : -1;
}

/* One request line per connection; one reply line "ok ..." or "error ...". */
static void ctl_handle(struct sim *s, int fd)
{
	char req[512], reply[512], fs[256], *w, *save = NULL;
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	size_t n = 0;

	while (n < sizeof(req) - 1 && !memchr(req, '\n', n) && poll(&pf, 1, 2000) > 0) {
		ssize_t r = read(fd, req + n, sizeof(req) - 1 - n);

		if (r <= 0)
			break;
		n += (size_t)r;
	}
	req[n] = '\0';
	req[strcspn(req, "\r\n")] = '\0';
	w = strtok_r(req, " ", &save);
	snprintf(reply, sizeof(reply), "ok");
	if (w && (!strcmp(w, "on") || !strcmp(w, "cycle") || !strcmp(w, "arm"))) {
		bool arm = !strcmp(w, "arm");
		unsigned int faults = 0;
		int variant = -1;
		char *a;

		if (!strcmp(w, "cycle"))
			power_off(s);
		while ((a = strtok_r(NULL, " ", &save))) {
			if (!strncmp(a, "variant=", 8) && !arm && variant_parse(a + 8) >= 0) {
				variant = variant_parse(a + 8);
				continue;
			}
			if (!strncmp(a, "fault=", 6)) {
				if (!parse_faults(a + 6, &faults, fs, sizeof(fs)))
					continue;
				snprintf(reply, sizeof(reply), "error %s", fs);
			} else {
				snprintf(
					reply, sizeof(reply),
					"error bad argument '%.64s' (variant=control|patched, fault=K[,K])",
					a);
			}
			goto done;
		}
		if (arm) {
			s->armed |= faults;
		} else if (s->st != ST_OFF) {
			snprintf(reply, sizeof(reply), "ok already on");
		} else {
			power_on(s, variant, faults);
			faults_str(s->faults, fs, sizeof(fs));
			snprintf(reply, sizeof(reply), "ok on power_on=%u variant=%s faults=%s",
				 s->power_on, variant_name(s->variant), fs);
		}
	} else if (w && !strcmp(w, "off")) {
		power_off(s);
	} else if (w && !strcmp(w, "status")) {
		faults_str(s->faults, fs, sizeof(fs));
		snprintf(reply, sizeof(reply),
			 "ok state=%s power_on=%u boot=%u variant=%s faults=%s pty=%s tcp=%d",
			 state_names[s->st], s->power_on, s->boot, variant_name(s->variant), fs,
			 s->master >= 0 ? s->pts : "none", s->tcp_port);
	} else if (w && !strcmp(w, "quit")) {
		quit_sig = 1;
	} else {
		snprintf(reply, sizeof(reply),
			 "error unknown request '%.64s' (on, off, cycle, arm, status, quit)",
			 w ? w : "");
	}
done:
	strcat(reply, "\n");
	if (write(fd, reply, strlen(reply)) < 0)
		perror("boardsim: ctl reply");
	close(fd);
}

static void unix_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		die("%s: socket path too long (max %zu bytes)", path, sizeof(sa->sun_path) - 1);
	strcpy(sa->sun_path, path);
}

/* boardsim ctl SOCK REQUEST [ARGS]: one request, exit 0 on "ok". */
static int ctl_main(int argc, char **argv)
{
	char req[512], reply[512];
	struct sockaddr_un sa;
	size_t n = 0;
	int fd, i, fail = 1;
	bool power_exit = false; /* status --exit-status: 0 on, 1 off, 2 no answer */

	if (argc < 4)
		die("usage: boardsim ctl SOCK on [--variant V] [--fault K,..] | off | cycle | arm K,.. | status [--exit-status] | quit");
	n = (size_t)snprintf(req, sizeof(req), "%s", argv[3]);
	for (i = 4; i < argc && n < sizeof(req); i++) {
		if (!strcmp(argv[i], "--variant") && i + 1 < argc)
			n += (size_t)snprintf(req + n, sizeof(req) - n, " variant=%s", argv[++i]);
		else if (!strcmp(argv[i], "--fault") && i + 1 < argc)
			n += (size_t)snprintf(req + n, sizeof(req) - n, " fault=%s", argv[++i]);
		else if (!strcmp(argv[3], "status") && !strcmp(argv[i], "--exit-status"))
			power_exit = true;
		else if (!strcmp(argv[3], "arm"))
			n += (size_t)snprintf(req + n, sizeof(req) - n, " fault=%s", argv[i]);
		else
			die("ctl: unexpected argument '%s'", argv[i]);
	}
	if (n >= sizeof(req) - 1)
		die("ctl: request too long");
	if (power_exit)
		fail = 2;
	strcat(req, "\n");
	unix_addr(&sa, argv[2]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) < 0) {
		fprintf(stderr, "boardsim ctl: %s: %s (is `boardsim run --ctl %s` running?)\n",
			argv[2], strerror(errno), argv[2]);
		return fail;
	}
	for (n = 0; n < sizeof(reply) - 1;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&pf, 1, 5000) <= 0)
			break;
		r = read(fd, reply + n, sizeof(reply) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	reply[n] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	if (strncmp(reply, "ok", 2)) {
		fprintf(stderr, "boardsim ctl: %s\n",
			!strncmp(reply, "error ", 6) ? reply + 6 :
			reply[0]		     ? reply :
						       "no reply");
		return fail;
	}
	if (reply[2])
		printf("%s\n", reply + 3);
	return power_exit && strstr(reply, " state=off ") ? 1 : 0;
}

/* --- the board process -------------------------------------------------- */

static void on_signal(int sig)
{
	(void)sig;
	quit_sig = 1;
}

static int listen_unix(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	unix_addr(&sa, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("%s: another boardsim is listening there", path);
	close(fd);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 8))
		die("%s: %s", path, strerror(errno));
	return fd;
}

static int listen_tcp(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd, one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)*port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len))
		die("tcp port %d: %s", *port, strerror(errno));
	*port = ntohs(sa.sin_port);
	return fd;
}

static void loop(struct sim *s)
{
	sigset_t none;

	sigemptyset(&none);
	while (!quit_sig) {
		struct pollfd pf[4];
		struct timespec ts, *tp = NULL;
		int64_t t = -1, now;
		int n = 0, i;
		bool more;

		flush_out(s);
		pf[n++] = (struct pollfd){ .fd = s->ctl, .events = POLLIN };
		/* a flood still to send once the queues drained: wake when the sink
		 * takes more (a write that took the whole queue, 64 KiB into an empty
		 * pty, leaves nothing else to wake the loop: the flood stalled) */
		more = s->flood_left && !s->tx.len;
		pf[n++] =
			(struct pollfd){ .fd = s->master,
					 .events = POLLIN | (s->q_pty.len || more ? POLLOUT : 0) };
		pf[n++] = (struct pollfd){ .fd = s->tcp_listen, .events = POLLIN };
		pf[n++] =
			(struct pollfd){ .fd = s->tcp,
					 .events = POLLIN | (s->q_tcp.len || more ? POLLOUT : 0) };
		now = now_ms();
		if (s->st == ST_COUNTDOWN)
			t = s->next_tick > now ? s->next_tick - now : 0;
		if (s->tx.len && has(s, F_SLOW))
			t = 1;
		if (t >= 0) {
			ts.tv_sec = t / 1000;
			ts.tv_nsec = t % 1000 * 1000000;
			tp = &ts;
		}
		if (ppoll(pf, (nfds_t)n, tp, &none) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		for (i = 0; i < n; i++) {
			char data[4096];
			ssize_t r;
			int fd;

			if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (i == 0 || i == 2) {
				fd = accept4(pf[i].fd, NULL, NULL, SOCK_CLOEXEC);
				if (fd < 0)
					continue;
				if (i == 0) {
					ctl_handle(s, fd);
					continue;
				}
				if (s->tcp >= 0) /* the newest client wins */
					close(s->tcp);
				s->tcp = fd;
				s->q_tcp.len = 0;
				continue;
			}
			if (pf[i].fd != (i == 1 ? s->master : s->tcp))
				continue; /* closed by a request handled above */
			r = read(pf[i].fd, data, sizeof(data));
			if (r > 0) {
				input(s, data, (size_t)r);
			} else if (i == 3 && (r == 0 || errno != EAGAIN)) {
				close(s->tcp);
				s->tcp = -1;
				s->q_tcp.len = 0;
			}
		}
		if (s->st == ST_COUNTDOWN && now_ms() >= s->next_tick)
			countdown_tick(s);
	}
}

static void usage(void)
{
	fputs("usage: boardsim run --ctl SOCK --pty-link PATH [options]\n"
	      "       boardsim ctl SOCK on [--variant V] [--fault K,..] | off | cycle | arm K,.. | status [--exit-status] | quit\n"
	      "run options (see tests/boardsim.md):\n"
	      "  --tcp PORT          also a raw TCP console on 127.0.0.1 (0: any free port)\n"
	      "  --seed N            value generator seed (default 1)\n"
	      "  --variant V         control|patched when power-on and TFTP do not say\n"
	      "  --fault [N:]K,..    fault kinds for every power-on, or power-on N only\n"
	      "  --record FILE       append every boot's dmabench lines and faults\n"
	      "  --tftp-root DIR     tftpboot reads files from DIR (default: any name works)\n"
	      "  --tftp-max-blocksize N  a tftpboot with tftpblocksize above N times out\n"
	      "                      (\"Retry count exceeded\": a path dropping IP fragments)\n"
	      "  --direct            no U-Boot: power-on starts the kernel\n"
	      "  --autoboot N        countdown steps (default 3); --tick-ms MS per step (50)\n"
	      "  --baud N            the `slow` fault paces output at N baud (10 bits a byte,\n"
	      "                      a 16-byte FIFO), not 1 byte/ms\n"
	      "  --klog-bytes N      kernel boot log size (default 8192)\n"
	      "  --log-buf-len N     dmesg ring size (default 131072)\n"
	      "  --flood-mb N        size of the flood faults (default 200)\n"
	      "  --between F         between-boot sd as a fraction of the mean (0.01)\n"
	      "  --within F          within-boot (batch) sd as a fraction (0.005)\n"
	      "  --mean SCEN=NS      base mean of a scenario\n"
	      "  --effect SCEN=F     patched/control - 1 for a scenario\n"
	      "  --patch-effect K:SCEN=F  what patch K of a series adds (a kernel \"...-sN\" has 1..N)\n"
	      "  --lost V=N          preserve lost= mean for variant V; --lost-sd N (5000)\n"
	      "  --prompt STR        shell prompt (default \"lab# \")\n"
	      "  --no-timestamps     dmesg without [    1.234567] times\n"
	      "  --batch-timing      result lines timing=batch (raw_ns, base_ns: a memset baseline for dirty scenarios)\n"
	      "  --uboot-version [N:]VER  from power-on N on, U-Boot (and SPL) say VER (2023.01)\n"
	      "  --governor [N:]GOV  from power-on N on, the cpufreq governor at boot (ondemand;\n"
	      "                      none: no cpufreq)\n"
	      "  --temp [N:]MILLIC   from power-on N on, the thermal zone's temperature at boot\n"
	      "                      (45000; a dmabench run adds 1500; none: no thermal zone)\n"
	      "  --on                start powered on\n"
	      "  --daemon            fork once ready; --pid-file FILE gets the pid\n",
	      stderr);
	exit(2);
}

static double num_opt(const char *name, const char *v, double lo, double hi)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || x < lo || x > hi)
		die("--%s %s: expected a number in [%g, %g]", name, v, lo, hi);
	return x;
}

static struct scen *scen_opt(const char *name, const char *v, const char **val)
{
	const char *eq = strchr(v, '=');
	size_t i;

	for (i = 0; eq && i < ARRAY_SIZE(scens); i++)
		if (strlen(scens[i].name) == (size_t)(eq - v) &&
		    !strncmp(v, scens[i].name, (size_t)(eq - v))) {
			*val = eq + 1;
			return &scens[i];
		}
	die("--%s %s: expected SCENARIO=VALUE, SCENARIO one of null, small-dirty-256B, large-dirty-1MiB, large-clean-1MiB",
	    name, v);
}

int main(int argc, char **argv)
{
	static struct sim sim = {
		.seed = 1,
		.tick_ms = 50,
		.countdown0 = 3,
		.tcp_port = -1,
		.lost_sd = 5000,
		.klog_bytes = 8192,
		.log_buf_len = 131072,
		.flood_bytes = 200u << 20,
		.timestamps = true,
		.between = 0.01,
		.within = 0.005,
		.lost = { 340000, 0 },
		.prompt = "lab# ",
		.ctl = -1,
		.master = -1,
		.slave = -1,
		.tcp_listen = -1,
		.tcp = -1,
	};
	struct sim *s = &sim;
	const char *pid_file = NULL, *val;
	FILE *pidf = NULL;
	char err[256];
	bool daemon = false;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;
	int i;

	if (argc >= 2 && !strcmp(argv[1], "ctl"))
		return ctl_main(argc, argv);
	if (argc < 2 || strcmp(argv[1], "run"))
		usage();
	for (i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool flag = true;

		if (!strcmp(o, "--direct"))
			s->direct = true;
		else if (!strcmp(o, "--no-timestamps"))
			s->timestamps = false;
		else if (!strcmp(o, "--on"))
			s->start_on = true;
		else if (!strcmp(o, "--batch-timing"))
			s->batch_timing = true;
		else if (!strcmp(o, "--daemon"))
			daemon = true;
		else
			flag = false;
		if (flag)
			continue;
		if (strncmp(o, "--", 2) || !v)
			usage();
		o += 2;
		i++;
		if (!strcmp(o, "ctl")) {
			s->ctl_path = v;
		} else if (!strcmp(o, "pty-link")) {
			s->pty_link = v;
		} else if (!strcmp(o, "tcp")) {
			s->tcp_port = (int)num_opt(o, v, 0, 65535);
		} else if (!strcmp(o, "seed")) {
			s->seed = (uint64_t)num_opt(o, v, 0, 9e15);
		} else if (!strcmp(o, "variant")) {
			s->variant0 = variant_parse(v);
			if (s->variant0 < 0)
				die("--variant %s: expected control or patched", v);
		} else if (!strcmp(o, "fault")) {
			struct sched *sc = &s->sched[s->nsched];
			const char *colon = strchr(v, ':');

			if (s->nsched == MAX_SCHED)
				die("--fault: at most %d", MAX_SCHED);
			if (colon) {
				char n[16];

				snprintf(n, sizeof(n), "%.*s", (int)(colon - v), v);
				sc->power_on = (unsigned int)num_opt(o, n, 1, 1e9);
			}
			if (parse_faults(colon ? colon + 1 : v, &sc->faults, err, sizeof(err)))
				die("--fault %s: %s", v, err);
			s->nsched++;
		} else if (!strcmp(o, "uboot-version") || !strcmp(o, "governor") ||
			   !strcmp(o, "temp")) {
			int kk = o[0] == 'u' ? KNOB_UBOOT : o[0] == 'g' ? KNOB_GOV : KNOB_TEMP;
			struct knob *kn = &s->knobs[kk][s->nknobs[kk]];
			const char *colon = strchr(v, ':'), *kv = colon ? colon + 1 : v;

			if (s->nknobs[kk] == MAX_SCHED)
				die("--%s: at most %d", o, MAX_SCHED);
			kn->from = 1;
			if (colon) {
				char n[16];

				snprintf(n, sizeof(n), "%.*s", (int)(colon - v), v);
				kn->from = (unsigned int)num_opt(o, n, 1, 1e9);
			}
			if (!*kv || strlen(kv) >= sizeof(kn->val) || strchr(kv, ' ') ||
			    (kk == KNOB_TEMP && strcmp(kv, "none") &&
			     (num_opt(o, kv, -40000, 200000), false)))
				die("--%s %s: expected [N:]VALUE", o, v);
			snprintf(kn->val, sizeof(kn->val), "%s", kv);
			s->nknobs[kk]++;
		} else if (!strcmp(o, "record")) {
			s->record_path = v;
		} else if (!strcmp(o, "tftp-root")) {
			s->tftp_root = v;
		} else if (!strcmp(o, "autoboot")) {
			s->countdown0 = (int)num_opt(o, v, 1, 99);
		} else if (!strcmp(o, "tftp-max-blocksize")) {
			s->tftp_max_block = (long)num_opt(o, v, 8, 65464);
		} else if (!strcmp(o, "tick-ms")) {
			s->tick_ms = (int)num_opt(o, v, 0, 60000);
		} else if (!strcmp(o, "baud")) {
			s->baud = (long)num_opt(o, v, 300, 4000000);
		} else if (!strcmp(o, "klog-bytes")) {
			s->klog_bytes = (size_t)num_opt(o, v, 0, 64 << 20);
		} else if (!strcmp(o, "flood-mb")) {
			s->flood_bytes = (size_t)num_opt(o, v, 1, 65536) << 20;
		} else if (!strcmp(o, "log-buf-len")) {
			s->log_buf_len = (size_t)num_opt(o, v, 4096, 64 << 20);
		} else if (!strcmp(o, "between")) {
			s->between = num_opt(o, v, 0, 0.5);
		} else if (!strcmp(o, "within")) {
			s->within = num_opt(o, v, 0, 0.5);
		} else if (!strcmp(o, "mean")) {
			struct scen *sc = scen_opt(o, v, &val);

			sc->mean = num_opt(o, val, 1, 1e10);
		} else if (!strcmp(o, "effect")) {
			struct scen *sc = scen_opt(o, v, &val);

			sc->effect = num_opt(o, val, -0.9, 10);
		} else if (!strcmp(o, "patch-effect")) {
			char *colon;
			long k = strtol(v, &colon, 10);
			struct scen *sc;

			if (k < 1 || k > SIM_PATCHES || *colon != ':')
				die("--patch-effect %s: expected K:SCEN=F with K 1..%d", v,
				    SIM_PATCHES);
			sc = scen_opt(o, colon + 1, &val);
			sc->patch_effect[k - 1] = num_opt(o, val, -0.9, 10);
		} else if (!strcmp(o, "lost")) {
			const char *eq = strchr(v, '=');
			char name[16];
			int vi;

			snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - v) : 0, v);
			vi = variant_parse(name);
			if (vi < 0)
				die("--lost %s: expected control=N or patched=N", v);
			s->lost[vi] = (long)num_opt(o, eq + 1, 0, PRESERVE_SIZE);
		} else if (!strcmp(o, "lost-sd")) {
			s->lost_sd = (int)num_opt(o, v, 0, PRESERVE_SIZE);
		} else if (!strcmp(o, "prompt")) {
			s->prompt = v;
		} else if (!strcmp(o, "pid-file")) {
			pid_file = v;
		} else {
			usage();
		}
	}
	if (!s->ctl_path || !s->pty_link)
		die("run: --ctl SOCK and --pty-link PATH are required");
	if (s->record_path) {
		s->rec = fopen(s->record_path, "ae");
		if (!s->rec)
			die("%s: %s", s->record_path, strerror(errno));
	}
	s->noise = s->seed ^ 0x5eedULL;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, NULL);

	s->ctl = listen_unix(s->ctl_path);
	if (s->tcp_port >= 0)
		s->tcp_listen = listen_tcp(&s->tcp_port);
	for (i = 0; i < (int)s->nsched; i++) /* the adapter is unplugged while off */
		if (!s->sched[i].power_on && (s->sched[i].faults & (1u << F_VANISH)))
			break;
	if (i == (int)s->nsched || s->start_on)
		pty_open(s);
	if (s->start_on)
		power_on(s, -1, 0);
	if (pid_file) {
		pidf = fopen(pid_file, "we");
		if (!pidf)
			die("%s: %s", pid_file, strerror(errno));
	}
	if (daemon) { /* the parent returns once the board is ready */
		pid_t pid = fork();
		int null = open("/dev/null", O_RDWR);

		if (pid < 0)
			die("fork: %s", strerror(errno));
		if (pid > 0) {
			if (pidf)
				fprintf(pidf, "%d\n", (int)pid);
			_exit(pidf && fclose(pidf) ? 1 : 0);
		}
		setsid();
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			close(null);
		}
	} else if (pidf) {
		fprintf(pidf, "%d\n", (int)getpid());
	}
	if (pidf)
		fclose(pidf);
	loop(s);
	pty_close(s);
	if (s->tcp >= 0)
		close(s->tcp);
	if (s->tcp_listen >= 0)
		close(s->tcp_listen);
	close(s->ctl);
	unlink(s->ctl_path);
	if (s->rec)
		fclose(s->rec);
	free(s->tx.d);
	free(s->q_pty.d);
	free(s->q_tcp.d);
	free(s->line.d);
	free(s->env.d);
	free(s->ring.d);
	free(s->pending.d);
	return 0;
}
