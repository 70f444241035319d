// SPDX-License-Identifier: GPL-2.0-only
/* The expect engine (deadlines, no fixed windows) and what every console
 * backend shares: open/close/read/write through the backend's ops, the
 * transcript, the sliding window.  The backends, one file each:
 *   console-tty.c:    any terminal device through termios (QEMU -serial pty;
 *                     a UART by path when libserialport is not wanted)
 *   console-serial.c: real UARTs through libserialport, found by path,
 *                     /dev/serial/by-id name or USB serial number
 *   console-tcp.c:    ser2net or QEMU -serial tcp:HOST:PORT,server, raw or telnet */
#include "backend/console.h"
#include "backend/console-int.h"
#include "backend/backends.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void console_set_err(struct console *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errtext_vset(&c->error, 0, fmt, ap);
	va_end(ap);
}

/* The transcript: every write and flush checked; the first failure (a full disk) is
 * kept in c->log_err and nothing more is written (the transcript is incomplete from
 * there: console_log_error() says so to the boot). */
static void log_failed(struct console *c)
{
	if (!c->log_err)
		c->log_err = errno ? errno : EIO;
}

static void log_put(struct console *c, const void *p, size_t n)
{
	if (!c->log || c->log_err || !n)
		return;
	errno = 0;
	if (fwrite(p, 1, n, c->log) != n)
		log_failed(c);
}

static void log_flush(struct console *c)
{
	if (!c->log || c->log_err)
		return;
	errno = 0;
	if (fflush(c->log))
		log_failed(c);
}

static void log_close(struct console *c)
{
	if (!c->log)
		return;
	errno = 0;
	if (fclose(c->log) && !c->log_err)
		log_failed(c);
	c->log = NULL;
}

int console_log_error(const struct console *c)
{
	return c->log_err;
}

void console_fd_close(struct console *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

const struct console_ops *console_ops_of(const struct board *b)
{
	const struct backend *bk = backend_find(BACKEND_CONSOLE, b->console_type);

	return bk ? bk->ops : NULL;
}

void console_init(struct console *c, const struct board *b)
{
	const struct console_ops *ops = console_ops_of(b);
	long baud;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->board = b;
	c->reopen_ms = b->console_reopen_ms;
	c->pin = SIZE_MAX;
	c->rx_max = (size_t)(b->console_transcript_mb > 0 ? b->console_transcript_mb :
							    CONSOLE_TRANSCRIPT_MB)
		    << 20;
	/* 10 bits a byte on the line, at the backend's rate (no backend, a test's board:
	 * not paced) */
	baud = !ops ? 0 : ops->baud ? ops->baud(b) : CONSOLE_BAUD;
	c->pace_us = baud > 0 ? (long)(CONSOLE_PACE_BYTES * 10 * 1000000L / baud) : 0;
}

int console_open(struct console *c, const struct board *b, const char *device,
		 const char *transcript)
{
	int ret;

	console_init(c, b);
	c->ops = console_ops_of(b);
	if (!c->ops) {
		console_set_err(c, "%s: console.type %s: unsupported", b->name, b->console_type);
		return -EPROTONOSUPPORT;
	}
	if (device)
		c->device = xstrdup(device);
	if (transcript) {
		/* a boot's whole console: the lab's (group) only, not every user's */
		int fd = open(transcript, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

		c->log = fd >= 0 ? fdopen(fd, "a") : NULL;
		if (!c->log) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			console_set_err(c, "%s: transcript %s: %s", b->name, transcript,
					strerror(-ret));
			free(c->device);
			c->device = NULL;
			c->ops = NULL;
			return ret;
		}
	}
	ret = c->ops->open(c);
	if ((ret == -ENOENT || ret == -ENODEV || ret == -ECONNREFUSED) && c->reopen_ms > 0) {
		/* an adapter powered by the board (or ser2net before the board is
		 * on): the device appears at power on; console_expect() reopens */
		c->fd = -1;
		c->t_open = c->t_last_rx = now_ms();
		return 0;
	}
	if (ret) {
		log_close(c);
		free(c->device);
		c->device = NULL;
		c->ops = NULL;
		return ret;
	}
	c->t_open = c->t_last_rx = now_ms();
	return 0;
}

void console_close(struct console *c)
{
	if (c->ops)
		c->ops->close(c);
	log_close(c);
	buf_free(&c->in);
	free(c->device);
	c->device = NULL;
	c->ops = NULL;
}

void console_describe(const struct board *b, char *out, size_t len)
{
	const struct console_ops *ops = console_ops_of(b);
	char where[200];

	where[0] = '\0';
	if (ops && ops->describe)
		ops->describe(b, where, sizeof(where));
	snprintf(out, len, "%s %s", b->console_type, where);
}

const char *console_machine_label(const struct board *b)
{
	const struct console_ops *ops = console_ops_of(b);

	return ops && ops->machine_label ? ops->machine_label(b) : NULL;
}

int console_preflight(const struct board *b, struct errtext *e)
{
	const struct console_ops *ops = console_ops_of(b);

	return ops && ops->preflight ? ops->preflight(b, e) : 0;
}

int console_device_present(const struct board *b, const char *device, struct errtext *e)
{
	struct stat st;

	/* a by-id name or a USB serial number is resolved at open; an adapter powered by
	 * the board appears at power on (console.reopen_s: console_open() waits for it) */
	if (!device || device[0] != '/' || b->emulated || b->console_reopen_ms > 0)
		return 0;
	if (!stat(device, &st) && (S_ISCHR(st.st_mode) || S_ISREG(st.st_mode)))
		return 0;
	return errtext_set(
		e, -ENODEV,
		"%s: console.device %s is not present (is the adapter plugged in? console.reopen_s waits for one the board powers)",
		b->jf.path, device);
}

int console_reopen(struct console *c, int64_t deadline)
{
	int64_t t0 = now_ms();
	int ret;

	c->ops->close(c);
	for (;;) {
		ret = c->ops->open(c);
		if (!ret) {
			errtext_clear(&c->error);
			c->reopens++;
			log_put(c, "\n[ablab: console reopened after it vanished]\n",
				strlen("\n[ablab: console reopened after it vanished]\n"));
			log_flush(c);
			return 0;
		}
		if (stop_requested)
			return -EINTR;
		if (now_ms() >= deadline) {
			/* the open's own error names the board and the device; c->fd < 0
			 * with c->error set tells the caller it did not come back */
			struct errtext why = c->error;

			if (!errtext_isset(&why))
				errtext_set(&why, ret, "%s", strerror(-ret));
			return errtext_set(
				&c->error, ret,
				"%s; still absent after %.1f s of waiting (console.reopen_s %ld)",
				why.msg, (double)(now_ms() - t0) / 1000.0, c->reopen_ms / 1000);
		}
		/* the device node or the ser2net port comes back by itself: retry */
		poll(NULL, 0, 50);
	}
}

int console_write_n(struct console *c, const char *s, size_t len)
{
	int64_t deadline = now_ms() + 5000;

	while (len) {
		ssize_t n = c->ops->write ? c->ops->write(c, s, len) : write(c->fd, s, len);

		if (n < 0) {
			struct pollfd p = { .fd = c->fd, .events = POLLOUT };

			if (errno != EAGAIN && errno != EINTR)
				return -errno;
			if (now_ms() > deadline)
				return -ETIMEDOUT;
			poll(&p, 1, 100);
			continue;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

int console_write(struct console *c, const char *s)
{
	return console_write_n(c, s, strlen(s));
}

/* Drops input nobody needs any more from the front of the window: it keeps
 * the last CONSOLE_WINDOW bytes, and from the pin on up to CONSOLE_PIN_MAX.
 * Runs once the window has grown by half its size, so the move is amortised. */
static void slide(struct console *c)
{
	size_t end = c->in_base + c->in.len, cut;

	if (c->hold || c->in.len <= CONSOLE_WINDOW + CONSOLE_WINDOW / 2)
		return;
	cut = end - CONSOLE_WINDOW;
	if (c->pin != SIZE_MAX && c->pin < cut) {
		if (end - c->pin <= CONSOLE_PIN_MAX) {
			cut = c->pin;
		} else {
			c->pin = SIZE_MAX;
			c->pin_lost = true;
		}
	}
	if (cut <= c->in_base)
		return;
	memmove(c->in.data, c->in.data + (cut - c->in_base), end - cut + 1);
	c->in.len = end - cut;
	c->in_base = cut;
	if (c->in.cap > 4 * CONSOLE_WINDOW && c->in.len <= CONSOLE_WINDOW) {
		c->in.data = xrealloc(c->in.data, 2 * CONSOLE_WINDOW);
		c->in.cap = 2 * CONSOLE_WINDOW;
	}
}

/* Writes received bytes to the transcript (up to the cap: then the console
 * is flooded) and appends them to the window, dropping NULs (they would end
 * regexec's string). */
static void take_input(struct console *c, const char *p, size_t n, bool keep)
{
	size_t i, start = 0, nlog = n;
	bool flood = false;

	if (keep && c->flooded)
		return;
	if (keep && c->rx_max && c->rx_bytes + n > c->rx_max) {
		nlog = c->rx_max - c->rx_bytes;
		flood = true;
	}
	if (keep)
		c->rx_bytes += nlog;
	if (c->log) {
		log_put(c, p, nlog);
		if (flood && !c->log_err) {
			errno = 0;
			if (fprintf(c->log,
				    "\n"
				    "[ablab: console flood: more than %zu MiB in this boot (console.transcript_mb); nothing more recorded]\n",
				    c->rx_max >> 20) < 0)
				log_failed(c);
		}
		if (!keep || flood)
			log_flush(c);
	}
	c->t_last_rx = now_ms();
	if (!c->t_first_rx && n)
		c->t_first_rx = c->t_last_rx;
	if (flood) {
		c->flooded = true;
		console_set_err(
			c,
			"%s: console flood: more than %zu MiB of console output in one boot (console.transcript_mb); the transcript keeps the first %zu MiB",
			c->board->name, c->rx_max >> 20, c->rx_max >> 20);
	}
	if (!keep)
		return;
	for (i = 0; i <= nlog; i++) {
		if (i == nlog || p[i] == '\0') {
			if (i > start)
				buf_append(&c->in, p + start, i - start);
			start = i + 1;
		}
	}
	if (!c->in.data)
		buf_append(&c->in, "", 0);
	slide(c);
}

ssize_t console_read(struct console *c, char *p, size_t n, bool keep)
{
	for (;;) {
		ssize_t got = c->ops->read ? c->ops->read(c, p, n) : read(c->fd, p, n);

		if (got > 0) {
			take_input(c, p, (size_t)got, keep);
			return got;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return 0;
		/* EOF or EIO: the peer (QEMU, ser2net, the adapter) went away */
		return -EPIPE;
	}
}

void console_last_line(const struct console *c, char *out, size_t len)
{
	const char *d = c->in.data;
	size_t e = c->in.len, a, n = 0;

	while (e > 0 && (d[e - 1] == '\n' || d[e - 1] == '\r' || d[e - 1] == ' '))
		e--;
	if (!e) {
		snprintf(out, len, "(nothing received)");
		return;
	}
	a = e;
	while (a > 0 && d[a - 1] != '\n' && d[a - 1] != '\r')
		a--;
	if (e - a > 120)
		a = e - 120;
	if (len < 3) {
		*out = '\0';
		return;
	}
	out[n++] = '"';
	for (; a < e && n + 2 < len; a++) /* control bytes (ANSI codes) as '?' */
		out[n++] = (unsigned char)d[a] < 0x20 || d[a] == 0x7f ? '?' : d[a];
	out[n++] = '"';
	out[n] = '\0';
}

size_t console_tell(const struct console *c)
{
	return c->in_base + c->in.len;
}

const char *console_at(const struct console *c, size_t pos)
{
	if (!c->in.data)
		return "";
	if (pos < c->in_base)
		return c->in.data;
	if (pos > c->in_base + c->in.len)
		pos = c->in_base + c->in.len;
	return c->in.data + (pos - c->in_base);
}

void console_pin(struct console *c, size_t off)
{
	c->pin = c->in_base + off;
	c->pin_lost = false;
}

const char *console_pinned(const struct console *c, size_t end, size_t *len)
{
	*len = 0;
	if (c->pin_lost || c->pin == SIZE_MAX || c->pin < c->in_base || !c->in.data)
		return NULL;
	if (c->in_base + end < c->pin)
		return c->in.data + (c->pin - c->in_base);
	*len = c->in_base + end - c->pin;
	return c->in.data + (c->pin - c->in_base);
}

void console_unpin(struct console *c)
{
	c->pin = SIZE_MAX;
	c->pin_lost = false;
}

/* Where the next scan starts: the unmatched input at the start of an expect,
 * else the start of the line that was partial at the last scan, but at most
 * CONSOLE_WINDOW back from there (a longer line: only its tail). */
static size_t scan_start(const struct console *c)
{
	size_t from = c->scan_from > c->consumed ? c->scan_from : c->consumed;

	if (c->scanned > CONSOLE_WINDOW && from < c->scanned - CONSOLE_WINDOW)
		from = c->scanned - CONSOLE_WINDOW;
	return from > c->in_base ? from : c->in_base;
}

/* A long partial line is rescanned once as many new bytes arrived as would
 * be rescanned, or 50 ms after the last scan: not once per read. */
static bool scan_deferred(const struct console *c)
{
	size_t from = scan_start(c), end = c->in_base + c->in.len;
	size_t again = c->scanned > from ? c->scanned - from : 0;

	return again > CONSOLE_LONG_LINE && end - c->scanned < again && now_ms() - c->t_scan < 50;
}

void console_expect_begin(struct console *c)
{
	c->scanned = c->scan_from = c->consumed;
}

void console_take(struct console *c, const char *p, size_t n)
{
	take_input(c, p, n, true);
}

/* a regex pattern, with or without a literal prefilter */
static bool pat_is_re(const struct console_pat *pt)
{
	return pt->re || (pt->rx && pt->rx->regex);
}

/* The earliest match of a prefiltered regex (console_pat_compile) in c->in.data from
 * offset off on (eflags as regexec's there): regexec runs on the lines that hold the
 * literal only, one line at a time (a line-bound regex cannot match across lines), and
 * its tables are made at the first such line.  Offsets into c->in.data. */
static bool rx_find(struct console *c, const struct console_pat *pt, size_t off, int eflags,
		    size_t before, regmatch_t *m)
{
	struct console_rx *rx = pt->rx;
	const char *d = c->in.data, *hit, *nl;
	size_t p = off, e = c->in.len, ls, le, k;

	c->lit_bytes += e - off;
	while (p + pt->len <= e && p < before) {
		hit = memmem(d + p, e - p, pt->lit, pt->len);
		if (!hit)
			return false;
		nl = memrchr(d + p, '\n', (size_t)(hit - (d + p)));
		ls = nl ? (size_t)(nl + 1 - d) : p;
		if (ls >= before)
			return false;
		nl = memchr(hit + pt->len, '\n', (size_t)(d + e - (hit + pt->len)));
		le = nl ? (size_t)(nl - d) : e;
		if (!rx->compiled && re_compile(&rx->re, rx->src))
			return false; /* it compiled in console_pat_compile() */
		rx->compiled = true;
		m[0].rm_so = (regoff_t)(ls - off);
		m[0].rm_eo = (regoff_t)(le - off);
		c->scan_bytes += le - ls;
		if (!regexec(&rx->re, d + off, 10, m, eflags | REG_STARTEND)) {
			for (k = 0; k < 10; k++) {
				if (m[k].rm_so >= 0) {
					m[k].rm_so += (regoff_t)off;
					m[k].rm_eo += (regoff_t)off;
				}
			}
			return true;
		}
		p = le + 1;
	}
	return false;
}

/* The most bytes a literal's tail adds: \r\n, or 3 digits and the byte after */
#define TAIL_MAX 4u

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* The literal of pt found at d[p], its tail checked in d[.. e): 1 matched (m set,
 * offsets into d), 0 no match here, -1 the input ends inside the tail (not yet). */
static int lit_match(const char *d, size_t p, size_t e, const struct console_pat *pt, regmatch_t *m)
{
	size_t q = p + pt->len, k;

	for (k = 0; k < 10; k++)
		m[k].rm_so = m[k].rm_eo = -1;
	m[0].rm_so = (regoff_t)p;
	switch (pt->tail) {
	case CONSOLE_TAIL_NONE:
		break;
	case CONSOLE_TAIL_EOL:
		if (q < e && d[q] == '\r')
			q++;
		if (q >= e)
			return -1;
		if (d[q] != '\n')
			return 0;
		q++;
		break;
	case CONSOLE_TAIL_STATUS:
		for (k = 0; k < 3 && q + k < e && is_digit(d[q + k]); k++)
			;
		if (q + k >= e)
			return -1;
		if (!k || is_digit(d[q + k]))
			return 0;
		m[1].rm_so = (regoff_t)q;
		m[1].rm_eo = (regoff_t)(q + k);
		m[2].rm_so = (regoff_t)(q + k);
		m[2].rm_eo = (regoff_t)(q + k + 1);
		q += k + 1;
		break;
	}
	m[0].rm_eo = (regoff_t)q;
	return 1;
}

/* The earliest match of literal pt from stream offset `from` on (offsets into
 * c->in.data), if it starts before `before`; false when none. */
static bool lit_find(struct console *c, const struct console_pat *pt, size_t from, size_t before,
		     regmatch_t *m)
{
	const char *d = c->in.data, *hit;
	size_t p = from - c->in_base, e = c->in.len;

	c->lit_bytes += e - p;
	while (pt->len && p + pt->len <= e && p < before) {
		hit = memmem(d + p, e - p, pt->lit, pt->len);
		if (!hit || (size_t)(hit - d) >= before)
			return false;
		switch (lit_match(d, (size_t)(hit - d), e, pt, m)) {
		case 1:
			return true;
		case -1:
			return false; /* its end has not arrived: found again next scan */
		}
		p = (size_t)(hit - d) + 1;
	}
	return false;
}

int console_scan_pats(struct console *c, const struct console_pat *pats, size_t n, regmatch_t *m,
		      bool force)
{
	size_t from = scan_start(c), end = c->in_base + c->in.len, off, i, prev, best_so = SIZE_MAX;
	const char *base, *nl;
	int best = -1, eflags = 0;
	bool any_re = false;

	for (i = 0; i < n; i++)
		any_re = any_re || pat_is_re(&pats[i]);
	if (!c->in.data || end <= c->scanned ||
	    (any_re && (end <= from || (!force && scan_deferred(c)))))
		return -1; /* nothing new, or a long line's rescan can wait */
	if (from > end)
		from = end;
	off = from - c->in_base;
	base = c->in.data + off;
	/* the middle of a line (a long one's tail, a dropped window start):
	 * no ^ there; at the end of the last match ^ matches, as always */
	if (from != c->consumed && (off ? base[-1] != '\n' : c->in_base > 0))
		eflags = REG_NOTBOL;
	for (i = 0; i < n; i++) {
		regmatch_t mm[10];
		size_t k;

		if (!pat_is_re(&pats[i])) {
			/* a match not complete at the last scan ends after it */
			size_t lf = c->scanned > c->consumed + pats[i].len + TAIL_MAX ?
					    c->scanned - pats[i].len - TAIL_MAX :
					    c->consumed;

			if (lf < c->in_base)
				lf = c->in_base;
			if (lit_find(c, &pats[i], lf, best_so, mm)) {
				best = (int)i;
				best_so = (size_t)mm[0].rm_so;
				memcpy(m, mm, sizeof(mm));
			}
			continue;
		}
		if (!pats[i].re) { /* prefiltered by its literal */
			if (rx_find(c, &pats[i], off, eflags, best_so, mm) &&
			    (size_t)mm[0].rm_so < best_so) {
				best = (int)i;
				best_so = (size_t)mm[0].rm_so;
				memcpy(m, mm, sizeof(mm));
			}
			continue;
		}
		c->scan_bytes += end - from;
		if (regexec(pats[i].re, base, 10, mm, eflags) ||
		    off + (size_t)mm[0].rm_so >= best_so)
			continue;
		best = (int)i;
		best_so = off + (size_t)mm[0].rm_so;
		for (k = 0; k < 10; k++) {
			m[k] = mm[k];
			if (m[k].rm_so >= 0) {
				m[k].rm_so += (regoff_t)off;
				m[k].rm_eo += (regoff_t)off;
			}
		}
	}
	c->t_scan = now_ms();
	if (best >= 0) {
		c->consumed = c->in_base + (size_t)m[0].rm_eo;
		c->scan_from = c->consumed;
		c->scanned = c->consumed;
		return best;
	}
	/* the next scan starts at the line still partial here: the input before
	 * `scanned` has no newline after the partial line's start */
	prev = c->scanned > from ? c->scanned : from;
	nl = memrchr(c->in.data + (prev - c->in_base), '\n', end - prev);
	c->scan_from = nl ? c->in_base + (size_t)(nl + 1 - c->in.data) : from;
	c->scanned = end;
	return -1;
}

/* console_expect()'s regexes as patterns (pats: room for `room`, else allocated) */
static struct console_pat *re_pats(regex_t *const *res, size_t n, struct console_pat *pats,
				   size_t room)
{
	size_t i;

	if (n > room)
		pats = xcalloc(n, sizeof(*pats));
	for (i = 0; i < n; i++)
		pats[i] = console_pat_re(res[i]);
	return pats;
}

int console_scan(struct console *c, regex_t *const *res, size_t n, regmatch_t *m, bool force)
{
	struct console_pat room[16] = { 0 }, *pats = re_pats(res, n, room, ARRAY_SIZE(room));
	int ret = console_scan_pats(c, pats, n, m, force);

	if (pats != room)
		free(pats);
	return ret;
}

int console_expect(struct console *c, regex_t *const *res, size_t n, int64_t deadline,
		   regmatch_t *m)
{
	struct console_pat room[16] = { 0 }, *pats = re_pats(res, n, room, ARRAY_SIZE(room));
	int ret = console_expect_pats(c, pats, n, deadline, m);

	if (pats != room)
		free(pats);
	return ret;
}

/* What is there (into chunk), but scanned at least every half window: *round bytes.  0, or
 * -EPIPE when the console closed and could not be reopened by deadline. */
static int read_round(struct console *c, char *chunk, size_t size, int64_t deadline, size_t *round)
{
	while (*round < CONSOLE_WINDOW / 2 && !c->flooded) {
		ssize_t got = console_read(c, chunk, size, true);

		if (got == 0)
			break;
		if (got > 0) {
			*round += (size_t)got;
			if ((size_t)got < size)
				break; /* drained (else the next poll says so) */
			continue;
		}
		if (c->reopen_ms > 0) {
			int64_t d = now_ms() + c->reopen_ms;

			if (!console_reopen(c, d < deadline ? d : deadline))
				break;
		}
		return -EPIPE;
	}
	return 0;
}

int console_expect_pats(struct console *c, const struct console_pat *pats, size_t n,
			int64_t deadline, regmatch_t *m)
{
	char chunk[4096]; /* on each board thread's stack (RSS per board): a tty reads <= 4 KiB */
	bool force = true, trickle = false;
	int ret;

	/* input not consumed yet was scanned for other patterns, if at all: scan
	 * it once for these (then only new lines, within this call) */
	console_expect_begin(c);
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int64_t left;
		size_t round = 0;
		bool paced = false;
		int idx, r;

		if (c->fd < 0 && c->reopen_ms > 0 && !c->flooded) {
			int64_t d = now_ms() + c->reopen_ms;

			if (console_reopen(c, d < deadline ? d : deadline)) {
				ret = -EPIPE;
				break;
			}
			p.fd = c->fd;
		}
		idx = console_scan_pats(c, pats, n, m, force);
		if (idx >= 0) {
			ret = idx;
			break;
		}
		force = false;
		if (c->flooded) {
			ret = -EFBIG;
			break;
		}
		if (stop_requested) {
			ret = -EINTR;
			break;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			if (c->scanned < c->in_base + c->in.len) {
				force = true; /* a deferred scan first */
				deadline = now_ms();
				continue;
			}
			ret = -ETIMEDOUT;
			break;
		}
		if (c->scanned < c->in_base + c->in.len && left > 20)
			left = 20; /* a deferred scan once the input pauses */
		if (trickle && c->pace_us && left * 1000 > c->pace_us) {
			/* the last read got a byte or two of a slow line (9600 baud: one
			 * per ms) and nothing matched: let a few more arrive before the
			 * next read, transcript write and scan (the per-byte cost of P3
			 * in docs/BENCHMARKS.md); the match comes at most
			 * CONSOLE_PACE_BYTES byte times later.  Then read at once: the
			 * bytes are there (a poll would only say so). */
			struct timespec ts = { 0, c->pace_us * 1000L };

			nanosleep(&ts, NULL);
			paced = true;
		}
		if (!paced) {
			r = poll(&p, 1, left > 1000 ? 1000 : (int)left);
			if (r < 0) {
				if (errno == EINTR)
					continue;
				ret = -errno;
				break;
			}
			if (r == 0) {
				log_flush(c); /* a pause: the transcript is up to date */
				force = true;
				continue;
			}
		}
		if (read_round(c, chunk, sizeof(chunk), deadline, &round)) {
			ret = -EPIPE;
			break;
		}
		trickle = round && round < 2 * CONSOLE_PACE_BYTES;
	}
	log_flush(c);
	return ret;
}

int console_complete_line(struct console *c, size_t pos, int64_t deadline)
{
	char chunk[4096];
	int ret = -ETIMEDOUT;

	c->hold = true;
	for (;;) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int64_t left;

		if (pos <= c->in.len && (memchr(c->in.data + pos, '\n', c->in.len - pos) ||
					 c->in.len - pos > sizeof(chunk) || c->flooded)) {
			ret = 0;
			break;
		}
		left = deadline - now_ms();
		if (left <= 0 || stop_requested)
			break;
		if (poll(&p, 1, left > 1000 ? 1000 : (int)left) <= 0)
			continue;
		if (console_read(c, chunk, sizeof(chunk), true) < 0) {
			ret = -EPIPE;
			break;
		}
	}
	c->hold = false;
	log_flush(c);
	return ret;
}
