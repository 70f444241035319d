/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CONSOLE_H
#define ABLAB_CONSOLE_H

#include "backend/backends.h"
#include "board.h"
#include "shared/util.h"

#include <regex.h>
#include <stdio.h>

struct console;

/* A backend: open() makes c->fd a non-blocking fd to poll on; read() and
 * write() may transform the byte stream (telnet); NULL means plain. */
struct console_ops {
	struct backend_conf conf; /* its console.* keys (backends.h) */
	const char *name;
	int (*open)(struct console *c);
	ssize_t (*read)(struct console *c, char *p, size_t n);
	ssize_t (*write)(struct console *c, const char *p, size_t n);
	void (*close)(struct console *c);
	/* dry run: one check_line() per field it checks; the number of failed ones */
	int (*check)(const struct board *b, struct buf *out);
	/* what identifies this console across board files, for its lock (caller frees);
	 * NULL: nothing to lock (a QEMU pty, an adapter not plugged in) */
	char *(*lock_key)(const struct board *b);
	/* where the console is, as `ablab boards` shows it after the type ("host:port") */
	void (*describe)(const struct board *b, char *out, size_t len);
	/* the rate its bytes arrive at, in bits/s (console.baud): the engine reads a line
	 * that trickles once per CONSOLE_PACE_BYTES byte times; NULL: CONSOLE_BAUD */
	long (*baud)(const struct board *b);
	/* optional: the label of a console the board's machine makes (a power backend with
	 * CAP_MAKES_CONSOLE: its power_ops.console_path), NULL when the console exists
	 * without it (tty: console.device "qemu:LABEL") */
	const char *(*machine_label)(const struct board *b);
	/* optional: what must hold on this host before a campaign or a night uses the board
	 * (tty, serial: a device given by its path is present); e says why not */
	int (*preflight)(const struct board *b, struct errtext *e);
};

/* The console backends (console-tty.c, console-serial.c, console-tcp.c), listed in
 * backends.c. */
extern const struct console_ops console_tty_ops, console_serial_ops, console_tcp_ops;

/* The expect engine keeps a window of the input, not the whole boot: */
#define CONSOLE_WINDOW (1u << 20) /* unmatched input kept, at least */
#define CONSOLE_PIN_MAX (16u << 20) /* a command's output kept, at most */
#define CONSOLE_LONG_LINE 4096u /* longer partial lines: rescanned lazily */
#define CONSOLE_TRANSCRIPT_MB 64 /* default console.transcript_mb */
#define CONSOLE_BAUD 115200L /* default console.baud */
/* console.baud in a backend's jfield table */
#define CONSOLE_BAUD_FIELD                              \
	{                                               \
		"baud", J_INT, false, NULL, 50, 4000000 \
	}

/* A console: one fd, the bytes received written to the transcript (up to
 * console.transcript_mb per boot, then the boot fails as a console flood)
 * and kept, NULs dropped, in a sliding window `in` over the input stream.
 * Matching is on whole lines (REG_NEWLINE): each expect scans the unmatched
 * input once, then only new lines; a partial line longer than
 * CONSOLE_LONG_LINE is rescanned (its last CONSOLE_WINDOW bytes) only once
 * as many new bytes arrived or the input paused, so every byte is scanned
 * a bounded number of times.  A match shorter than CONSOLE_WINDOW is found
 * wherever the read chunks and the window edges cut it.  A line that
 * trickles (reads of a few bytes: a slow console.baud) is read and scanned
 * once per CONSOLE_PACE_BYTES byte times, not once per byte. */
#define CONSOLE_PACE_BYTES 16u
struct console {
	const struct console_ops *ops;
	const struct board *board;
	char *device; /* tty/serial: the resolved path */
	int fd;
	void *port; /* serial: struct sp_port * */
	void *priv; /* a backend's own state (its open() sets, close() frees) */
	int telnet_state; /* tcp telnet: decoder state */
	unsigned char telnet_cmd;
	struct buf in; /* the window: stream bytes [in_base, in_base + in.len) */
	size_t in_base; /* stream offset of in.data[0] */
	size_t consumed; /* stream offset: input before it has been matched */
	size_t scanned; /* stream offset: input before it was scanned in this expect */
	size_t scan_from; /* stream offset: start of the line partial at `scanned` */
	size_t pin; /* stream offset kept by console_pin(); SIZE_MAX: none */
	bool pin_lost; /* more than CONSOLE_PIN_MAX arrived after the pin */
	bool hold; /* nothing leaves the window (console_complete_line) */
	bool flooded; /* rx_max reached: the transcript and the window stop */
	size_t rx_bytes; /* bytes received in this session, up to rx_max */
	size_t rx_max; /* console.transcript_mb in bytes */
	int64_t t_scan; /* last scan, for the lazy rescan of a long line */
	long pace_us; /* a trickle is read this often at most (console.baud) */
	size_t scan_bytes; /* bytes handed to regexec (per pattern), for tests */
	size_t lit_bytes; /* bytes searched for literals (per pattern), for tests */
	FILE *log;
	int log_err; /* errno of the first failed transcript write, flush or close; 0: none */
	long reopen_ms; /* > 0: a vanished console is reopened within this */
	int reopens;
	int64_t t_open;
	int64_t t_last_rx;
	int64_t t_first_rx; /* the first byte received (0: none yet; boot.c zeroes it at power on) */
	struct errtext error; /* why open failed or the console flooded, naming the board */
};

/* Opens the board's console (console.type); `device` overrides
 * console.device (a pty QEMU created).  On failure c->error says why. */
int console_open(struct console *c, const struct board *b, const char *device,
		 const char *transcript);
void console_close(struct console *c);
/* The errno of the first transcript write, flush or close that failed (ENOSPC: a full
 * disk; the transcript is incomplete from there, nothing more was written), else 0.
 * Still known after console_close(). */
int console_log_error(const struct console *c);
/* "TYPE WHERE": the board's console type and where it is (console_ops.describe) */
void console_describe(const struct board *b, char *out, size_t len);
/* Closes and opens again until it works or the deadline passes (a USB serial
 * adapter powered by the board vanishes at power off; ser2net drops). */
int console_reopen(struct console *c, int64_t deadline);
int console_write(struct console *c, const char *s);
int console_write_n(struct console *c, const char *s, size_t n);
/* One non-blocking read into p (transcript written, `in` appended when
 * keep); 0 = nothing available, -EPIPE when the other side is gone. */
ssize_t console_read(struct console *c, char *p, size_t n, bool keep);

/* Waits until one of res[] matches in the input after `consumed`; returns the
 * index of the earliest match and moves `consumed` past it.  m gets offsets
 * into c->in.data, valid until the next console_expect() or console_read()
 * (console_complete_line() keeps them).  Returns -ETIMEDOUT at the deadline
 * (monotonic ms), -EPIPE when the other side is gone (after a failed reopen
 * when reopen_ms is set), -EINTR when a stop was requested, -EFBIG when the
 * board sent more than console.transcript_mb (c->error says so). */
int console_expect(struct console *c, regex_t *const *res, size_t n, int64_t deadline,
		   regmatch_t *m);

/* A pattern of console_expect_pats(): a regex (as console_expect()), or a
 * literal found anywhere in a line by memmem, then its tail: nothing, the
 * line's end (\r?\n, in the match), or an exit status (group 1: 1-3 digits;
 * group 2: the byte after them, any but a digit, in the match).  A literal
 * is searched in the new bytes and the last (its length + 4) bytes before
 * them only: no compiled tables, no rescan of a partial line. */
enum console_tail { CONSOLE_TAIL_NONE, CONSOLE_TAIL_EOL, CONSOLE_TAIL_STATUS };
struct console_rx;
struct console_pat {
	const regex_t *re; /* a REG_NEWLINE regex; NULL: the literal (or rx's regex) */
	const char *lit; /* rx's regex: NULL, or what every match holds (a prefilter) */
	size_t len;
	enum console_tail tail;
	struct console_rx *rx; /* console_pat_compile(): what console_pat_free() frees */
};
/* The pattern of a regex, and of a literal (lit must stay valid) */
struct console_pat console_pat_re(const regex_t *re);
struct console_pat console_pat_lit(const char *lit, enum console_tail tail);
/* A REG_NEWLINE regex source that is a plain string (no ERE special byte)
 * matches where memmem finds it: true. */
bool console_is_literal(const char *pattern);
/* The pattern of a regex source (REG_EXTENDED | REG_NEWLINE, as re_compile()), owned:
 * a plain string is a literal; a regex whose matches never cross a line and all hold
 * one literal (its longest plain run outside groups and brackets, "U-Boot 20" of
 * "^U-Boot 20[0-9][0-9]") is searched for that literal with memmem and compiled and
 * run only on the lines that hold it (none, mostly: no compiled tables, which glibc
 * grows per board and per state as the input goes by); any other regex is compiled
 * at once.  -EINVAL when it does not compile.  console_pat_free(): what it holds. */
int console_pat_compile(struct console_pat *pt, const char *src);
void console_pat_free(struct console_pat *pt);
/* The literal every match of a line-bound regex source holds, its longest (caller
 * frees), or NULL: the source may match across lines or has no such literal. */
char *console_re_literal(const char *src);
int console_expect_pats(struct console *c, const struct console_pat *pats, size_t n,
			int64_t deadline, regmatch_t *m);

/* After a match inside a line (an error message), waits up to the deadline
 * for the rest of that line (at most 4 KiB more), so that the message is
 * quoted whole; offsets into c->in.data stay valid. */
int console_complete_line(struct console *c, size_t pos, int64_t deadline);

/* console_expect() without the fd, for tests and fuzzing: begin a wait, take
 * bytes as if read, scan (force: a long line's rescan now, not lazily);
 * console_scan() returns the index of the earliest match or -1. */
void console_init(struct console *c, const struct board *b);
void console_expect_begin(struct console *c);
void console_take(struct console *c, const char *p, size_t n);
int console_scan(struct console *c, regex_t *const *res, size_t n, regmatch_t *m, bool force);
int console_scan_pats(struct console *c, const struct console_pat *pats, size_t n, regmatch_t *m,
		      bool force);

/* Keeps the input from c->in.data offset `off` on across later reads (up to
 * CONSOLE_PIN_MAX), for a command's output between two markers. */
void console_pin(struct console *c, size_t off);
/* The pinned input up to c->in.data offset `end` (*len bytes), or NULL when
 * more than CONSOLE_PIN_MAX arrived and its start was dropped. */
const char *console_pinned(const struct console *c, size_t end, size_t *len);
void console_unpin(struct console *c);
/* The stream offset after the last byte received, and a pointer to the input
 * at a stream offset (the window start when that input was dropped). */
size_t console_tell(const struct console *c);
const char *console_at(const struct console *c, size_t pos);

/* The last non-empty line received, quoted (at most its last 120 bytes,
 * control bytes as '?'), or "(nothing received)": what a timeout quotes. */
void console_last_line(const struct console *c, char *out, size_t len);

/* For the backends: c->error = the message (naming the board); closes c->fd. */
void console_set_err(struct console *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void console_fd_close(struct console *c);

/* Compiles an extended, line-anchored regex; -EINVAL on error. */
int re_compile(regex_t *re, const char *pattern);
/* Escapes a literal string for re_compile (caller frees). */
char *re_quote(const char *s);

/* The ops of the board's console.type, or NULL (not a registered type). */
const struct console_ops *console_ops_of(const struct board *b);
/* The board's console's machine_label() (console_ops), or NULL. */
const char *console_machine_label(const struct board *b);
/* The board's console's preflight() (console_ops; none: 0), for boot_preflight(). */
int console_preflight(const struct board *b, struct errtext *e);
/* tty, serial: a device given by an absolute path, on a board that is not emulated and
 * has no console.reopen_s, is a character device or a file (console_ops.preflight); 0,
 * or -ENODEV with e saying so (the board file, the field). */
int console_device_present(const struct board *b, const char *device, struct errtext *e);

#endif
