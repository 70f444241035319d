// SPDX-License-Identifier: GPL-2.0-only
/* The expect engine's window (console_take/console_scan, the steps of
 * console_expect without the fd) and the target's markers and output. */
#include "check.h"
#include "backend/console.h"
#include "backend/target.h"

#include <errno.h>
#include <pthread.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct board board = { .name = "unit" };

static void setup(struct console *c)
{
	console_init(c, &board);
	console_expect_begin(c);
}

static size_t fed; /* bytes feed() took */

/* Feeds p in chunks of `step` bytes, scanning after each; returns the index
 * of the first match (m set) or -1; a final forced scan like the engine's
 * when the input pauses. */
static int feed(struct console *c, regex_t *const *res, size_t n, const char *p, size_t len,
		size_t step, regmatch_t *m)
{
	int idx;

	for (fed = 0; fed < len;) {
		size_t k = len - fed < step ? len - fed : step;

		console_take(c, p + fed, k);
		fed += k;
		idx = console_scan(c, res, n, m, false);
		if (idx >= 0)
			return idx;
	}
	return console_scan(c, res, n, m, true);
}

/* feed() for console_scan_pats() */
static int feed_pats(struct console *c, const struct console_pat *pats, size_t n, const char *p,
		     size_t len, size_t step, regmatch_t *m)
{
	int idx;

	for (fed = 0; fed < len;) {
		size_t k = len - fed < step ? len - fed : step;

		console_take(c, p + fed, k);
		fed += k;
		idx = console_scan_pats(c, pats, n, m, false);
		if (idx >= 0)
			return idx;
	}
	return console_scan_pats(c, pats, n, m, true);
}

static char *text_at(const struct console *c, const regmatch_t *m)
{
	return strndup(c->in.data + m->rm_so, (size_t)(m->rm_eo - m->rm_so));
}

static void test_chunks(void)
{
	static const char burst_tail[] = "Kernel panic - not syncing: VFS\r\nlab# ";
	struct console c;
	regex_t prompt, panic, *res[2] = { &prompt, &panic };
	regmatch_t m[10];
	struct buf burst = { 0 };
	size_t step;
	char *s;

	re_compile(&prompt, "lab# ");
	re_compile(&panic, "Kernel panic - not syncing");
	/* a prompt cut by every possible chunk boundary */
	for (step = 1; step <= 5; step++) {
		setup(&c);
		CHECK(feed(&c, res, 1, "boot\r\nlab# ", 11, step, m) == 0);
		s = text_at(&c, &m[0]);
		CHECK_STR(s, "lab# ");
		free(s);
		console_close(&c);
	}
	/* a multi-KB burst in one chunk and byte by byte: the earliest match */
	while (burst.len < 64 * 1024)
		buf_printf(&burst, "[    1.%06zu] sim: probe %zu bound\r\n", burst.len, burst.len);
	buf_append(&burst, burst_tail, strlen(burst_tail));
	for (step = 1; step <= burst.len; step = step * 64 + 1) {
		setup(&c);
		CHECK(feed(&c, res, 2, burst.data, burst.len, step, m) == 1);
		CHECK(c.in_base + (size_t)m[0].rm_so == burst.len - strlen(burst_tail));
		/* the prompt after it is there for the next expect */
		console_expect_begin(&c);
		CHECK(feed(&c, res, 1, burst.data + fed, burst.len - fed, step, m) == 0);
		CHECK(c.in_base + (size_t)m[0].rm_so == burst.len - 5);
		console_close(&c);
	}
	buf_free(&burst);
	regfree(&prompt);
	regfree(&panic);
}

static void test_nul_and_bol(void)
{
	struct console c;
	regex_t prompt, bol, *res[1] = { &prompt }, *bres[1] = { &bol };
	regmatch_t m[10];
	char *big = malloc(8192);

	re_compile(&prompt, "lab# ");
	re_compile(&bol, "^foo");
	setup(&c);
	CHECK(feed(&c, res, 1, "x\0y\0\0lab\0# ", 11, 3, m) == 0);
	CHECK(c.in.len == 7 && !memcmp(c.in.data, "xylab# ", 7));
	console_close(&c);
	/* ^ matches at line starts only, also when a long line's tail is
	 * rescanned from its middle */
	memset(big, 'x', 8192);
	setup(&c);
	CHECK(feed(&c, bres, 1, big, 8192, 1000, m) < 0);
	CHECK(feed(&c, bres, 1, "foo", 3, 1, m) < 0);
	CHECK(feed(&c, bres, 1, "\nfoo", 4, 1, m) == 0);
	CHECK(c.in_base + (size_t)m[0].rm_so == 8192 + 3 + 1);
	console_close(&c);
	free(big);
	regfree(&prompt);
	regfree(&bol);
}

/* A 3 MiB line without a newline: the window stays bounded, every byte is
 * scanned a bounded number of times, the prompt at its end is found. */
static void test_long_line(void)
{
	size_t len = 3u << 20, i;
	char *big = malloc(len);
	struct console c;
	regex_t prompt, *res[1] = { &prompt };
	regmatch_t m[10];
	int idx = -1;

	re_compile(&prompt, "lab# ");
	memset(big, 'x', len);
	setup(&c);
	for (i = 0; i < len; i += 4096) {
		console_take(&c, big + i, 4096);
		CHECK(c.in.len <= CONSOLE_WINDOW + CONSOLE_WINDOW / 2 + 4096);
		if (console_scan(&c, res, 1, m, false) >= 0)
			idx = 0;
	}
	CHECK(idx < 0);
	CHECK(c.in_base >= len - CONSOLE_WINDOW - CONSOLE_WINDOW / 2);
	console_take(&c, "lab# ", 5);
	CHECK(console_scan(&c, res, 1, m, true) == 0);
	CHECK(c.in_base + (size_t)m[0].rm_so == len);
	CHECK(c.scan_bytes < 3 * len);
	console_close(&c);
	free(big);
	regfree(&prompt);
}

/* A 900 KiB match (shorter than the window) across a window slide. */
static void test_window_edge(void)
{
	size_t n = 900u << 10, i;
	struct buf in = { 0 };
	struct console c;
	regex_t re, *res[1] = { &re };
	regmatch_t m[10];

	re_compile(&re, "START y*END");
	while (in.len < CONSOLE_WINDOW)
		buf_printf(&in, "noise line %zu\n", in.len);
	buf_append(&in, "START ", 6);
	for (i = 0; i < n; i++)
		buf_append(&in, "y", 1);
	buf_append(&in, "END\n", 4);
	setup(&c);
	CHECK(feed(&c, res, 1, in.data, in.len, 65536, m) == 0);
	CHECK(c.in_base > 0); /* the window did slide */
	CHECK(m[0].rm_eo - m[0].rm_so == (regoff_t)(n + 9));
	CHECK(c.in_base + (size_t)m[0].rm_so ==
	      CONSOLE_WINDOW + (in.len - n - 10 - CONSOLE_WINDOW));
	console_close(&c);
	buf_free(&in);
	regfree(&re);
}

static void test_cap_and_pin(void)
{
	size_t len = 17u << 20, got;
	char *big = malloc(len);
	struct console c;
	const char *d;

	memset(big, 'z', len);
	for (got = 0; got < len; got += 4096)
		big[got] = '\n';
	/* the transcript cap */
	setup(&c);
	c.rx_max = 1u << 20;
	console_take(&c, big, 600u << 10);
	CHECK(!c.flooded);
	console_take(&c, big, 600u << 10);
	CHECK(c.flooded && c.rx_bytes == c.rx_max);
	CHECK(strstr(c.error.msg, "unit: console flood: more than 1 MiB") != NULL);
	console_close(&c);
	/* a pinned command output is kept up to CONSOLE_PIN_MAX */
	setup(&c);
	console_take(&c, "ABLAB_B\n", 8);
	console_pin(&c, 8);
	console_take(&c, big, 3u << 20);
	d = console_pinned(&c, c.in.len, &got);
	CHECK(d && got == 3u << 20 && !memcmp(d, big, got));
	console_take(&c, big, 14u << 20);
	CHECK(console_pinned(&c, c.in.len, &got) == NULL);
	CHECK(c.in.len <= CONSOLE_WINDOW + CONSOLE_WINDOW / 2 + (14u << 20));
	console_unpin(&c);
	console_take(&c, big, 2u << 20);
	CHECK(c.in.len <= CONSOLE_WINDOW + CONSOLE_WINDOW / 2);
	console_close(&c);
	free(big);
}

/* The end marker wherever the cursor was, its status parsed robustly. */
static void test_markers(void)
{
	static const struct {
		const char *in;
		int status; /* -1: no match */
	} cases[] = {
		{ "0123abcdE3 0\r\nlab# ", 0 },
		{ "output without a final newline0123abcdE3 1\r\n", 1 },
		{ "10%\r50%\r100%\r0123abcdE3 0\r\n", 0 },
		{ "[    3.1] usb 1-1: new high-speed USB device0123abcdE3 127\r\n", 127 },
		{ "0123abcdE3 2[    3.1] usb 1-1: glued after\r\n", 2 },
		{ "0123abcdE3 0", -1 }, /* its end has not arrived */
		{ "0123abcdE31 0\r\n", -1 }, /* another command's marker */
		{ "echo 0123abcd''E3 $?\r\n", -1 }, /* the typed line's echo */
		{ "0123abcdE3 1234\r\n", -1 }, /* not an exit status */
	};
	char mk[64], *line;
	struct console_pat pat = target_marker(mk, sizeof(mk), "0123abcd", "E", 3, true), pats[2];
	struct console c;
	regex_t panic;
	regmatch_t m[10];
	struct buf out = { 0 };
	size_t i, step;

	CHECK_STR(mk, "0123abcdE3 ");
	for (step = 1; step <= 7; step += 6) {
		for (i = 0; i < ARRAY_SIZE(cases); i++) {
			int idx;

			setup(&c);
			idx = feed_pats(&c, &pat, 1, cases[i].in, strlen(cases[i].in), step, m);
			CHECK(cases[i].status < 0 ? idx < 0 : idx == 0);
			if (idx == 0 && cases[i].status >= 0) {
				CHECK(strtol(c.in.data + m[1].rm_so, NULL, 10) == cases[i].status);
				/* the match ends after the byte that ends the status */
				CHECK(m[2].rm_eo == m[0].rm_eo && m[2].rm_so == m[1].rm_eo);
			}
			console_close(&c);
		}
	}
	/* the begin marker: its line's end (CR LF or LF), not a longer number */
	pats[0] = target_marker(mk, sizeof(mk), "0123abcd", "B", 4, false);
	{
		static const char *const in[] = { "x\r\n0123abcdB4\r\n", "0123abcdB4\n",
						  "0123abcdB41\r\n0123abcdB4\r",
						  "0123abcdB4\r\r\n" };
		static const int want[] = { 3, 0, -1, -1 }; /* where it starts; -1: none */

		for (i = 0; i < ARRAY_SIZE(in); i++) {
			int idx;

			setup(&c);
			idx = feed_pats(&c, pats, 1, in[i], strlen(in[i]), 1, m);
			CHECK(want[i] < 0 ? idx < 0 : idx == 0 && m[0].rm_so == want[i]);
			console_close(&c);
		}
	}
	/* a line without an end, 16 bytes a read (a slow console): the literal is
	 * searched in the new bytes and its own length before them, not the line */
	{
		size_t len = 64u << 10;
		char *x = malloc(len + 16);

		memset(x, 'x', len);
		memcpy(x + len, "0123abcdB4\r\n", 12);
		setup(&c);
		CHECK(feed_pats(&c, pats, 1, x, len + 12, 16, m) == 0 &&
		      m[0].rm_so == (regoff_t)len);
		printf("markers: %zu bytes searched for a %zu-byte line in 16-byte reads\n",
		       c.lit_bytes, len + 12);
		CHECK(c.lit_bytes < 3 * len && c.scan_bytes == 0);
		console_close(&c);
		free(x);
	}
	/* a marker and a regex: the earlier match wins, whichever kind */
	CHECK(re_compile(&panic, "Kernel panic - not [a-z]+") == 0);
	pats[1] = console_pat_re(&panic);
	for (step = 1; step <= 64; step *= 4) {
		static const char a[] = "Kernel panic - not syncing\n0123abcdB4\n";
		static const char b[] = "0123abcdB4\nKernel panic - not syncing\n";

		setup(&c);
		CHECK(feed_pats(&c, pats, 2, a, strlen(a), step, m) == 1 && m[0].rm_so == 0);
		console_close(&c);
		setup(&c);
		CHECK(feed_pats(&c, pats, 2, b, strlen(b), step, m) == 0 && m[0].rm_so == 0);
		console_close(&c);
	}
	regfree(&panic);
	CHECK(console_is_literal("Kernel panic - not syncing"));
	CHECK(!console_is_literal("^U-Boot SPL "));
	CHECK(!console_is_literal(""));
	/* a # in the command cannot reach the end marker */
	line = target_command_line("0123abcd", 3, "echo x # a comment");
	CHECK_STR(line, "{ echo 0123abcd''B3;echo x # a comment\n};echo 0123abcd''E3 $?\n");
	free(line);
	/* output: CR LF and lone CR end lines, a trailing CR goes */
	target_output(&out, "a\r\nb\rc\r\r\nd\r", 11);
	CHECK_STR(out.data, "a\nb\nc\nd");
	buf_free(&out);
}

/* A line that trickles in at ~1 byte/ms (a 9600-baud console): read and
 * scanned once per few bytes (console.baud paces the reads), not once per
 * byte; the prompt at its end is still found. */
static int trickle_fd;

static void *trickle(void *arg)
{
	const char *s = arg;
	struct timespec ms = { 0, 1000000 };

	for (; *s; s++) {
		if (write(trickle_fd, s, 1) != 1)
			break;
		nanosleep(&ms, NULL);
	}
	return NULL;
}

static void test_trickle(void)
{
	static char line[300];
	struct board b = { .name = "unit-9600", .console_type = "tty" };
	json_object *section;
	struct console c;
	regex_t prompt, *res[1] = { &prompt };
	regmatch_t m[10];
	pthread_t th;
	char name[64];
	int master, slave;

	memset(line, 'x', 200);
	strcpy(line + 200, "lab# ");
	CHECK(openpty(&master, &slave, name, NULL, NULL) == 0);
	/* the section as the tty backend's own parser reads it (console_tty_ops.conf) */
	section = json_object_new_object();
	json_object_object_add(section, "device", json_object_new_string(name));
	json_object_object_add(section, "baud", json_object_new_int(9600));
	CHECK(console_tty_ops.conf.parse(&b, section) == 0);
	CHECK(console_open(&c, &b, NULL, NULL) == 0);
	/* 16 byte times at 9600 baud, 10 bits a byte: 16.7 ms */
	CHECK(c.pace_us == 16666);
	trickle_fd = master;
	re_compile(&prompt, "lab# ");
	CHECK(pthread_create(&th, NULL, trickle, line) == 0);
	CHECK(console_expect(&c, res, 1, now_ms() + 10000, m) == 0);
	pthread_join(th, NULL);
	CHECK(c.in_base + (size_t)m[0].rm_so == 200);
	/* once per byte: 205 scans of the growing line, ~21,000 bytes */
	printf("trickle: %zu bytes scanned for a 205-byte line\n", c.scan_bytes);
	CHECK(c.scan_bytes < 8000);
	console_close(&c);
	close(master);
	close(slave);
	regfree(&prompt);
	console_tty_ops.conf.free(&b);
	json_object_put(section);
}

/* The console pre-flight's device rule (console_ops.preflight of tty and serial): a
 * device given by its path must be there, unless the board is emulated or
 * console.reopen_s waits for it to appear at power on. */
static void test_device_present(void)
{
	static char path[] = "pre.json";
	struct board b = { .name = "unit-pre", .jf = { .path = path } };
	struct errtext e = { "" };

	CHECK(console_device_present(&b, "/dev/null", &e) == 0);
	CHECK(console_device_present(&b, "usb-FTDI-if00-port0", &e) == 0); /* by-id: at open */
	CHECK(console_device_present(&b, NULL, &e) == 0); /* usb_serial: at open */
	CHECK(console_device_present(&b, "/dev/ttyABLAB-gone0", &e) == -ENODEV);
	CHECK(strstr(e.msg, "pre.json: console.device /dev/ttyABLAB-gone0 is not present (") ==
	      e.msg);
	b.console_reopen_ms = 5000;
	CHECK(console_device_present(&b, "/dev/ttyABLAB-gone0", &e) == 0);
	b.console_reopen_ms = 0;
	b.emulated = true;
	CHECK(console_device_present(&b, "/dev/ttyABLAB-gone0", &e) == 0);
}

/* console_pat_compile(): a literal for a plain string; a line-bound regex run only on
 * the lines that hold its literal, with the matches of the regex run on everything */
static void test_compiled_pats(void)
{
	static const struct {
		const char *src, *lit; /* lit NULL: none (an alternative, a class with \n) */
	} lits[] = {
		{ "^U-Boot SPL ", "U-Boot SPL " },
		{ "^U-Boot 20[0-9][0-9]", "U-Boot 20" },
		{ "Bad (Linux ARM (z)?Image )?magic", "magic" },
		{ "Wrong (Ramdisk )?Image Format", "Image Format" },
		{ "[Rr]amdisk image is corrupt", "amdisk image is corrupt" },
		{ "[Ii]nvalid (image|format)", "nvalid " },
		{ "Kernel panic - not [a-z]+", "Kernel panic - not " },
		{ "abc?d", "ab" },
		{ "x{0,3}yz", "yz" },
		{ "xy{2}z", "xy" },
		{ "[[:digit:]]+ ms", " ms" },
		{ "\\.config\\b", ".config" },
		{ "a\\(b", "a(b" },
		{ "caf\xc3\xa9?s", "caf" },
		{ "ready|done", NULL },
		{ "foo\\s+bar", NULL },
		{ "[[:space:]]foo", NULL },
		{ "foo\nbar", NULL },
		{ "^[0-9]+$", NULL },
	};
	static const char *const srcs[] = { "^U-Boot SPL ",
					    "^U-Boot 20[0-9][0-9]",
					    "[Ii]nvalid (image|format)",
					    "Kernel panic - not [a-z]+",
					    "x{0,3}yz$",
					    "ready|done",
					    "lab# " };
	static const char *const in[] = {
		"xU-Boot SPL 2024\r\nU-Boot SPL 2024\r\n",
		"boot\r\nU-Boot 2023.10 (Jan 1)\r\n",
		"U-Boot 20xx\r\nU-Boot 2099\r\n",
		"TFTP: Invalid format\r\n",
		"xxxyz\r\nyz\r\n",
		"Kernel panic - not \nKernel panic - not syncing\n",
		"all done\r\n",
		"lab# ",
	};
	struct console c;
	struct console_pat pc[ARRAY_SIZE(srcs)], pr[ARRAY_SIZE(srcs)];
	regex_t re[ARRAY_SIZE(srcs)];
	regmatch_t m1[10], m2[10];
	size_t i, j, step;

	for (i = 0; i < ARRAY_SIZE(lits); i++) {
		char *l = console_re_literal(lits[i].src);

		if (lits[i].lit ? !l || strcmp(l, lits[i].lit) : l != NULL)
			printf("literal of /%s/: %s, want %s\n", lits[i].src, l ? l : "none",
			       lits[i].lit ? lits[i].lit : "none");
		CHECK(lits[i].lit ? l && !strcmp(l, lits[i].lit) : !l);
		free(l);
	}
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		CHECK(console_pat_compile(&pc[i], srcs[i]) == 0);
		CHECK(re_compile(&re[i], srcs[i]) == 0);
		pr[i] = console_pat_re(&re[i]);
	}
	{
		struct console_pat bad;

		CHECK(console_pat_compile(&bad, "a(") == -EINVAL && !bad.rx);
	}
	/* each input against each pattern alone and all together, in reads of 1, 3, 64 */
	for (j = 0; j < ARRAY_SIZE(in); j++) {
		for (step = 1; step <= 64; step = step == 1 ? 3 : step == 3 ? 64 : 65) {
			for (i = 0; i <= ARRAY_SIZE(srcs); i++) {
				size_t k = i < ARRAY_SIZE(srcs) ? i : 0;
				size_t n = i < ARRAY_SIZE(srcs) ? 1 : ARRAY_SIZE(srcs);
				int a, b;

				setup(&c);
				a = feed_pats(&c, pc + k, n, in[j], strlen(in[j]), step, m1);
				console_close(&c);
				setup(&c);
				b = feed_pats(&c, pr + k, n, in[j], strlen(in[j]), step, m2);
				console_close(&c);
				if (a != b || (a >= 0 && (m1[0].rm_so != m2[0].rm_so ||
							  m1[0].rm_eo != m2[0].rm_eo)))
					printf("input %zu step %zu pattern %zu: %d at %d, regex %d at %d\n",
					       j, step, i, a, a >= 0 ? (int)m1[0].rm_so : -1, b,
					       b >= 0 ? (int)m2[0].rm_so : -1);
				CHECK(a == b);
				CHECK(a < 0 ||
				      (m1[0].rm_so == m2[0].rm_so && m1[0].rm_eo == m2[0].rm_eo));
			}
		}
	}
	/* a boot log without the literal: regexec never runs, no tables */
	setup(&c);
	CHECK(feed_pats(&c, pc, 1, "Booting Linux\r\nU-Boot 2024\r\nlab# ", 32, 4, m1) < 0);
	CHECK(c.scan_bytes == 0 && c.lit_bytes > 0);
	console_close(&c);
	for (i = 0; i < ARRAY_SIZE(srcs); i++) {
		console_pat_free(&pc[i]);
		CHECK(!pc[i].rx && !pc[i].lit);
		regfree(&re[i]);
	}
}

/* target_banner(): this boot's banner, and its "Kernel command line: " after it only */
static void test_banner(void)
{
	static const char *const logs[] = {
		/* an earlier boot's command line, then this boot's, with time stamps */
		"[    0.000000] Kernel command line: old\r\nU-Boot 2023.01\r\n"
		"[    0.000000] Linux version 6.1.0 (gcc) #1\r\n"
		"[    0.000000] Kernel command line: console=ttyS0,115200 rdinit=/init\r\nlab# ",
		/* no time stamps */
		"Linux version 6.1.0 (gcc) #1\r\nKernel command line: root=/dev/sda\r\nlab# ",
		/* `quiet`: the banner only, and an earlier boot's line before it */
		"Kernel command line: old\r\nLinux version 6.1.0 (gcc) #1\r\nlab# ",
		/* not at a line's start: neither */
		"x Linux version 6.1.0\r\nx Kernel command line: a\r\nlab# ",
	};
	static const char *const want[][2] = {
		{ "Linux version 6.1.0 (gcc) #1", "console=ttyS0,115200 rdinit=/init" },
		{ "Linux version 6.1.0 (gcc) #1", "root=/dev/sda" },
		{ "Linux version 6.1.0 (gcc) #1", NULL },
		{ NULL, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++) {
		struct console c;
		struct target t = { 0 };
		struct console_pat p = console_pat_lit("lab# ", CONSOLE_TAIL_NONE);
		regmatch_t m[10];

		setup(&c);
		CHECK(feed_pats(&c, &p, 1, logs[i], strlen(logs[i]), 7, m) == 0);
		CHECK(target_init(&t, &c, "lab# ") == 0);
		target_banner(&t);
		CHECK(want[i][0] ? t.banner && !strcmp(t.banner, want[i][0]) : !t.banner);
		CHECK(want[i][1] ? t.cmdline && !strcmp(t.cmdline, want[i][1]) : !t.cmdline);
		target_free(&t);
		console_close(&c);
	}
}

int main(void)
{
	test_device_present();
	test_trickle();
	test_chunks();
	test_nul_and_bol();
	test_long_line();
	test_window_edge();
	test_cap_and_pin();
	test_markers();
	test_compiled_pats();
	test_banner();
	CHECK_DONE("test_console");
}
