// SPDX-License-Identifier: GPL-2.0-only
/* Parser, run checks, report formatting and boot order. */
#include "campaign.h"
#include "check.h"
#include "bench/parse.h"
#include "report/report.h"
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>

static const char seed_line[] =
	"dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=353 min_ns=300 max_ns=900 "
	"ns_per_KiB=1412";

static void test_seed_line(void)
{
	struct line_info li;

	CHECK(parse_line(seed_line, &li) == LINE_SAMPLE);
	CHECK_STR(li.s.scenario, "small-dirty-256B");
	CHECK(li.s.size == 256 && li.s.reps == 5000);
	CHECK(li.s.mean_ns == 353 && li.s.min_ns == 300 && li.s.max_ns == 900);
	CHECK(li.s.ns_per_kib == 1412 && li.s.fmt == 0);
	CHECK_STR(li.s.state, "dirty");
	/* printk prefixes and CR */
	CHECK(parse_line("[   12.345678] dmabench: large-clean-1MiB size= 1048576 reps=300 "
			 "mean_ns=73108 min_ns=72000 max_ns=80000 ns_per_KiB=71\r",
			 &li) == LINE_SAMPLE);
	CHECK_STR(li.s.state, "clean");
	CHECK(li.s.size == 1048576);
	CHECK(parse_line("<6>dmabench: START", &li) == LINE_OTHER);
	CHECK(parse_line("dmabench: DONE", &li) == LINE_OTHER);
	CHECK(parse_line("dmabench: small-dirty-256B: dma_map_single failed", &li) == LINE_DONE);
	CHECK(li.done_status == -EIO);
	CHECK(parse_line("random console noise", &li) == LINE_NONE);
	/* the kernel's own messages about the module are not data */
	CHECK(parse_line("dmabench: loading out-of-tree module taints kernel.", &li) == LINE_OTHER);
	CHECK(parse_line("[    3.1] dmabench: module verification failed: signature and/or required "
			 "key missing - tainting kernel",
			 &li) == LINE_OTHER);
	CHECK(parse_line("", &li) == LINE_NONE);
}

static void test_seed_malformed(void)
{
	struct line_info li;

	/* a corrupted number must fail, never be stored as something else */
	CHECK(parse_line("dmabench: small-dirty-256B size=256 reps=5000 mean_ns=35x3 min_ns=300 "
			 "max_ns=900 ns_per_KiB=1412",
			 &li) == -EINVAL);
	CHECK(strstr(li.error, "mean_ns") != NULL);
	CHECK(parse_line("dmabench: small-dirty-256B size=256 mean_ns=353 min_ns=300 max_ns=900 "
			 "ns_per_KiB=1412",
			 &li) == -EINVAL);
	CHECK(strstr(li.error, "reps") != NULL);
	CHECK(parse_line("dmabench: small-dirty-256B size=256 reps=5000 mean_ns=353 min_ns=400 "
			 "max_ns=900 ns_per_KiB=1412",
			 &li) == -EINVAL);
	CHECK(parse_line("dmabench: small-dirty-256B size=256 reps=0 mean_ns=353 min_ns=300 "
			 "max_ns=900 ns_per_KiB=1412",
			 &li) == -EINVAL);
	CHECK(parse_line("dmabench: small-dirty-256B size=256 reps=5000 mean_ns=99999999999999999999"
			 " min_ns=300 max_ns=900 ns_per_KiB=1412",
			 &li) == -EINVAL);
	CHECK(parse_line("dmabench: small-dirty-256B size=256 reps=5000 mean_ns=-3 min_ns=300 "
			 "max_ns=900 ns_per_KiB=1412",
			 &li) == -EINVAL);
}

static void test_v1(void)
{
	struct line_info li;

	CHECK(parse_line("dmabench: v1 start clock_res_ns=1000 timing=auto batches=5 scenarios=5",
			 &li) == LINE_START);
	CHECK(li.clock_res_ns == 1000);
	CHECK(parse_line("dmabench: v1 result scenario=large-dirty-1MiB batch=3 size=1048576 "
			 "reps=300 dir=from op=map_unmap state=dirty timing=iter mean_ns=656888 "
			 "min_ns=650000 max_ns=700000 ns_per_KiB=641",
			 &li) == LINE_SAMPLE);
	CHECK(li.s.batch == 3 && li.s.kind == SAMPLE_RESULT && li.s.fmt == 1);
	CHECK_STR(li.s.timing, "iter");
	CHECK(parse_line("dmabench: v1 result scenario=small-dirty-256B batch=1 size=256 reps=5000 "
			 "dir=from op=map_unmap state=dirty timing=batch mean_ns=-2 raw_ns=100 "
			 "base_ns=110 ns_per_KiB=-8",
			 &li) == LINE_SAMPLE);
	CHECK(li.s.mean_ns == -2 && li.s.min_ns == -1 && li.s.raw_ns == 100 && li.s.base_ns == 110);
	CHECK(parse_line("dmabench: v1 preserve scenario=preserve-409600B batch=2 size=409600 "
			 "lost=402080",
			 &li) == LINE_SAMPLE);
	CHECK(li.s.kind == SAMPLE_PRESERVE && li.s.lost == 402080);
	CHECK(parse_line("dmabench: v1 preserve scenario=preserve-409600B batch=2 size=409600 "
			 "lost=409601",
			 &li) == -EINVAL);
	CHECK(parse_line("dmabench: v1 done status=0 results=25", &li) == LINE_DONE);
	CHECK(li.done_status == 0);
	CHECK(parse_line("dmabench: v1 done status=-12 results=7 error=ENOMEM "
			 "scenario=large-dirty-1MiB",
			 &li) == LINE_DONE);
	CHECK(li.done_status == -12);
	CHECK_STR(li.error, "ENOMEM in scenario large-dirty-1MiB");
	CHECK(parse_line(
		      "dmabench: v1 done status=-22 results=0 error=EINVAL scenario=bad field=size",
		      &li) == LINE_DONE);
	CHECK_STR(li.error, "EINVAL in scenario bad (field size)");
	CHECK(parse_line("dmabench: v1 result scenario=x batch=1 size=256 reps=5 dir=sideways "
			 "op=map state=dirty timing=iter mean_ns=1 min_ns=1 max_ns=1 ns_per_KiB=4",
			 &li) == -EINVAL);
	CHECK(parse_line("dmabench: v2 result scenario=x", &li) == -EINVAL);
	CHECK(strstr(li.error, "version") != NULL);
}

static void test_log(void)
{
	/* CRLF, lone CR, a NUL, noise, a split-off printk line between samples */
	static const char log[] =
		"Booting Linux\r\n[    0.000] random\r"
		"dmabench: START\r\n"
		"dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=353 min_ns=300 max_ns=900 "
		"ns_per_KiB=1412\r\n"
		"usb 1-1: new device\n\0"
		"dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=355 min_ns=300 max_ns=900 "
		"ns_per_KiB=1420\n"
		"dmabench: DONE\n";
	struct run_result r;
	struct errtext why;

	parse_log(log, sizeof(log) - 1, &r);
	CHECK(r.n == 2 && r.malformed == 0);
	CHECK(r.n == 2 && r.v[0].batch == 1 && r.v[1].batch == 2);
	CHECK(r.have_done);
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);
}

/* A console capture with the kernel's printk output and then a `dmesg` typed at the
 * prompt: the same lines with the same timestamps.  Each counts once; lines without a
 * timestamp (two batches may print the same values) and lines with the same text at
 * another time (the module loaded again) are all kept. */
static void test_log_dmesg_twice(void)
{
	static const char printk[] =
		"[   41.210021] dmabench: START\n"
		"[   41.221634] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=353 "
		"min_ns=314 max_ns=9260 ns_per_KiB=1412\n"
		"[   41.684512] dmabench: large-dirty-1MiB size= 1048576 reps=300 mean_ns=73840 "
		"min_ns=72911 max_ns=91022 ns_per_KiB=72\n"
		"[   85.991820] dmabench: DONE\r\n";
	static const char again[] = /* the module loaded again: new timestamps */
		"[   90.000001] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=353 "
		"min_ns=314 max_ns=9260 ns_per_KiB=1412\n"
		"dmabench: small-dirty-256B size=256 reps=5000 mean_ns=353 min_ns=314 max_ns=9260 "
		"ns_per_KiB=1412\n"
		"dmabench: small-dirty-256B size=256 reps=5000 mean_ns=353 min_ns=314 max_ns=9260 "
		"ns_per_KiB=1412\n";
	char *log = xasprintf("%slab# dmesg | tail\n%s%s", printk, printk, again);
	struct run_result r;
	struct errtext why;

	parse_log(log, strlen(log), &r);
	CHECK(r.duplicates == 4);
	CHECK(r.n == 5 && r.malformed == 0);
	CHECK(r.n == 5 && r.v[0].batch == 1 && r.v[1].batch == 1 && r.v[2].batch == 2 &&
	      r.v[4].batch == 4);
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);
	free(log);
	/* v1: the dmesg's copy of the start line must not reset the samples */
	log = xasprintf("%s%s",
			"[ 1.5] dmabench: v1 start clock_res_ns=1\n"
			"[ 1.6] dmabench: v1 result scenario=s batch=1 size=256 reps=10 dir=from "
			"op=map_unmap state=dirty timing=iter mean_ns=5 min_ns=4 max_ns=6 "
			"ns_per_KiB=20\n[ 1.7] dmabench: v1 done status=0\n",
			"[ 1.5] dmabench: v1 start clock_res_ns=1\n"
			"[ 1.6] dmabench: v1 result scenario=s batch=1 size=256 reps=10 dir=from "
			"op=map_unmap state=dirty timing=iter mean_ns=5 min_ns=4 max_ns=6 "
			"ns_per_KiB=20\n");
	parse_log(log, strlen(log), &r);
	CHECK(r.duplicates == 2 && r.n == 1 && r.have_done);
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);
	free(log);
}

/* Where each run of a log starts (issue 27 item 2: ingest stored two boots as one): a
 * kernel's Linux version line, or a start line when its boot already had one; not a
 * dmesg's copy of either, nor the running kernel's banner read again (/proc/version). */
static void test_log_runs(void)
{
	static const char boot_a[] =
		"[    0.000000] Linux version 6.1.0-a (x@y) (gcc 12) #1 SMP\n"
		"[   41.210021] dmabench: START\n"
		"[   41.221634] dmabench: s size=256 reps=10 mean_ns=353 min_ns=314 max_ns=9260 "
		"ns_per_KiB=1412\n"
		"[   85.991820] dmabench: DONE\n";
	static const char boot_b[] =
		"U-Boot 2024.01\n"
		"[    0.000000] Linux version 6.1.0-b (x@y) (gcc 12) #1 SMP\n"
		"[   40.100000] dmabench: START\n"
		"[   40.200000] dmabench: s size=256 reps=10 mean_ns=360 min_ns=314 max_ns=9260 "
		"ns_per_KiB=1412\n"
		"[   80.000000] dmabench: DONE\n";
	static const char v1_twice[] =
		"[ 1.5] dmabench: v1 start clock_res_ns=1\n"
		"[ 1.6] dmabench: v1 result scenario=s batch=1 size=256 reps=10 dir=from "
		"op=map_unmap state=dirty timing=iter mean_ns=5 min_ns=4 max_ns=6 ns_per_KiB=20\n"
		"[ 1.7] dmabench: v1 done status=0\n"
		"[ 9.5] dmabench: v1 start clock_res_ns=1\n";
	static const char seed_twice[] = "dmabench: START\ndmabench: s size=256 reps=10 "
					 "mean_ns=5 min_ns=4 max_ns=6 ns_per_KiB=20\n"
					 "dmabench: DONE\ndmabench: START\n";
	struct run_result r;
	char *log;

	/* two boots of two kernels: the second begins at its Linux version line (6) */
	log = xasprintf("%s%s", boot_a, boot_b);
	parse_log(log, strlen(log), &r);
	CHECK(r.runs == 2 && r.run_line[0] == 1 && r.run_line[1] == 6);
	CHECK(r.runs == 2 &&
	      !strncmp(log + r.run_off[1], "[    0.000000] Linux version 6.1.0-b", 36));
	run_result_free(&r);
	free(log);
	/* two boots of one kernel: the banner is the same, the second START begins run 2 */
	log = xasprintf("%s%s", boot_a, boot_a + 0);
	log[strlen(boot_a) +
	    strlen("[    0.000000] Linux version 6.1.0-a (x@y) (gcc 12) #1 SMP\n") + 4] =
		'5'; /* the second START at [   51.210021] */
	parse_log(log, strlen(log), &r);
	CHECK(r.runs == 2 && r.run_line[0] == 1 && r.run_line[1] == 6);
	run_result_free(&r);
	free(log);
	/* one boot, a dmesg of it and the banner read from /proc/version: one run */
	log = xasprintf("%slab# cat /proc/version\nLinux version 6.1.0-a (x@y) (gcc 12) #1 SMP\r\n"
			"lab# dmesg\n%s",
			boot_a, boot_a);
	parse_log(log, strlen(log), &r);
	CHECK(r.runs == 1 && r.run_line[0] == 1 && r.n == 1);
	run_result_free(&r);
	free(log);
	parse_log(v1_twice, strlen(v1_twice), &r);
	CHECK(r.runs == 2 && r.run_line[0] == 1 && r.run_line[1] == 4);
	run_result_free(&r);
	parse_log(seed_twice, strlen(seed_twice), &r);
	CHECK(r.runs == 2 && r.run_line[0] == 1 && r.run_line[1] == 4);
	run_result_free(&r);
	/* a NUL inside a benchmark line is dropped, and counted (ingest says so) */
	{
		static const char nul[] = "noise\0here\ndmabench: START\ndmabench: s size=256 "
					  "reps=10 mean_ns=5\0 min_ns=4 max_ns=6 ns_per_KiB=20\n";

		parse_log(nul, sizeof(nul) - 1, &r);
		CHECK(r.n == 1 && r.nul_lines == 1 && r.nul_line == 3);
		run_result_free(&r);
	}
	/* result lines alone: no run start at all */
	parse_log(seed_twice + 16, strlen(seed_twice + 16) - 16, &r);
	CHECK(r.runs == 0 && r.n == 1);
	run_result_free(&r);
}

/* Thousands of timestamped lines (the set of lines seen grows many times over), all
 * typed again by a dmesg: each counted once.  A NUL inside a line is dropped (the line
 * is read as if it were not there), and a line is cut at 1023 bytes. */
static void test_log_many_dmesg(void)
{
	static const char nul[] =
		"[ 1.1] dma\0bench: v1 result scenario=s batch=1 size=256 reps=10 dir=from "
		"op=map_unmap state=dirty timing=iter mean_ns=5\0 min_ns=4 max_ns=6 ns_per_KiB=20\n";
	struct buf b = { 0 }, log = { 0 };
	struct run_result r;
	struct errtext why = { 0 };
	char pad[1100];
	const int n = 3000;

	buf_printf(&b, "[    0.500000] dmabench: v1 start clock_res_ns=1\n");
	for (int i = 1; i <= n; i++)
		buf_printf(&b,
			   "[ %5d.%06d] dmabench: v1 result scenario=s batch=%d size=256 reps=10 "
			   "dir=from op=map_unmap state=dirty timing=iter mean_ns=5 min_ns=4 "
			   "max_ns=6 ns_per_KiB=20\n",
			   i / 100, i, i);
	buf_printf(&b, "[ 9999.000000] dmabench: v1 done status=0\n");
	buf_append(&log, b.data, b.len);
	buf_append(&log, "lab# dmesg\r\n", 12);
	buf_append(&log, b.data, b.len);
	parse_log(log.data, log.len, &r);
	CHECK(r.duplicates == n + 2 && r.n == (size_t)n && r.malformed == 0);
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);
	/* a NUL in the tag and one in a value: dropped, the sample read; a line of more than
	 * 1023 bytes: its tag past the cut is not seen */
	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	log.len = 0;
	buf_printf(&log,
		   "[ 1.0] dmabench: v1 start clock_res_ns=1\n%s dmabench: v1 done status=-5\n",
		   pad);
	buf_append(&log, nul, sizeof(nul) - 1);
	buf_printf(&log, "[ 1.2] dmabench: v1 done status=0\n");
	parse_log(log.data, log.len, &r);
	CHECK(r.n == 1 && r.malformed == 0 && r.duplicates == 0);
	CHECK(r.n == 1 && r.v[0].batch == 1 && r.v[0].mean_ns == 5.0 && r.v[0].min_ns == 4);
	CHECK(r.have_done && r.done_status == 0);
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);
	buf_free(&b);
	buf_free(&log);
}

/* Every rejected line is kept with its line number (as grep -n counts: blank lines
 * and CRLF included), not only the first. */
static void test_log_rejected_lines(void)
{
	static const char log[] =
		"Booting Linux\r\n\r\n" /* lines 1, 2 */
		"dmabench: START\n" /* 3 */
		"dmabench: small-dirty-256B size=256 reps=5000 mean_ns=35[ 3.1] usb 1-1\n" /* 4 */
		"\n" /* 5 */
		"dmabench: large-dirty-1MiB size=1048576 reps=300 mean_ns=73840 min_ns=72911 "
		"max_ns=91022 ns_per_KiB=72\n" /* 6 */
		"dmabench: large-clean-1MiB size=1048576 reps=0\n"; /* 7 */
	struct run_result r;
	struct errtext why;

	parse_log(log, sizeof(log) - 1, &r);
	CHECK(r.n == 1 && r.malformed == 2 && !r.have_done);
	CHECK(r.malformed == 2 && r.rejected[0].lineno == 4 && r.rejected[1].lineno == 7);
	CHECK(r.malformed == 2 && strstr(r.rejected[0].error, "mean_ns") != NULL);
	CHECK(r.malformed == 2 && !strncmp(r.rejected[1].text, "dmabench: large-clean-1MiB", 26));
	CHECK(run_check(&r, &why) == -EINVAL);
	run_result_free(&r);
}

static void test_checks(void)
{
	static const char missing_batch[] =
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=2 scenarios=1\n"
		"dmabench: v1 preserve scenario=p batch=2 size=10 lost=0\n"
		"dmabench: v1 done status=0 results=1\n";
	static const char bad_number[] =
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=1 scenarios=1\n"
		"dmabench: v1 preserve scenario=p batch=1 size=10 lost=1O\n"
		"dmabench: v1 done status=0 results=1\n";
	static const char failed[] =
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=1 scenarios=1\n"
		"dmabench: v1 done status=-12 results=0 error=ENOMEM scenario=big\n";
	static const char reloaded[] =
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=1 scenarios=1\n"
		"dmabench: v1 preserve scenario=p batch=1 size=10 lost=1O\n"
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=1 scenarios=1\n"
		"dmabench: v1 preserve scenario=p batch=1 size=10 lost=3\n"
		"dmabench: v1 done status=0 results=1\n";
	static const char cut[] =
		"dmabench: v1 start clock_res_ns=1 timing=auto batches=1 scenarios=1\n"
		"dmabench: v1 preserve scenario=p batch=1 size=10 lost=0\n";
	struct run_result r;
	struct errtext why;

	parse_log(missing_batch, strlen(missing_batch), &r);
	CHECK(run_check(&r, &why) == -EINVAL && strstr(why.msg, "missing"));
	run_result_free(&r);
	parse_log(bad_number, strlen(bad_number), &r);
	CHECK(run_check(&r, &why) == -EINVAL && strstr(why.msg, "malformed"));
	run_result_free(&r);
	parse_log(failed, strlen(failed), &r);
	CHECK(run_check(&r, &why) == -EIO && strstr(why.msg, "ENOMEM"));
	run_result_free(&r);
	parse_log(reloaded, strlen(reloaded), &r);
	CHECK(run_check(&r, &why) == 0 && r.n == 1 && r.v[0].lost == 3);
	run_result_free(&r);
	parse_log(cut, strlen(cut), &r);
	CHECK(run_check(&r, &why) == -EINVAL && strstr(why.msg, "done"));
	run_result_free(&r);
}

static void test_format(void)
{
	char s[32];

	fmt_time(s, sizeof(s), 353);
	CHECK_STR(s, "353 ns");
	fmt_time(s, sizeof(s), 1208);
	CHECK_STR(s, "1.208 us");
	fmt_time(s, sizeof(s), 73840);
	CHECK_STR(s, "73.840 us");
	fmt_time(s, sizeof(s), 16380000);
	CHECK_STR(s, "16.380 ms");
	fmt_change(s, sizeof(s), 0.063);
	CHECK_STR(s, "+6.3%");
	fmt_change(s, sizeof(s), 0.0021);
	CHECK_STR(s, "+0.21%");
	fmt_change(s, sizeof(s), -0.00009);
	CHECK_STR(s, "-0.0090%");
	fmt_change(s, sizeof(s), -0.333);
	CHECK_STR(s, "-33.3%");
}

static void test_order(void)
{
	int v[10], w[10], i, sum = 0;

	campaign_order(ORDER_ABAB, 3, 0, v);
	CHECK(v[0] == 0 && v[1] == 1 && v[2] == 0 && v[3] == 1 && v[4] == 0 && v[5] == 1);
	campaign_order(ORDER_ABBA, 2, 0, v);
	CHECK(v[0] == 0 && v[1] == 1 && v[2] == 1 && v[3] == 0);
	campaign_order(ORDER_RANDOM, 5, 7, v);
	campaign_order(ORDER_RANDOM, 5, 7, w);
	for (i = 0; i < 10; i++)
		sum += v[i];
	CHECK(sum == 5);
	CHECK(!memcmp(v, w, sizeof(v)));
	CHECK(campaign_order(ORDER_ABAB, 0, 0, v) == -EINVAL);
}

/* Within the rounds of v (nv variants, rounds rounds): is every variant booted once per
 * round, equally often in each position, and followed by every other variant equally
 * often (first-order carry-over balance)? */
static bool carryover_balanced(const int *v, int nv, int rounds)
{
	int follows[VARIANTS_MAX][VARIANTS_MAX] = { { 0 } };
	int pos[VARIANTS_MAX][VARIANTS_MAX] = { { 0 } };
	int r, j, a, b;

	for (r = 0; r < rounds; r++) {
		int seen[VARIANTS_MAX] = { 0 };

		for (j = 0; j < nv; j++) {
			if (v[r * nv + j] < 0 || v[r * nv + j] >= nv || seen[v[r * nv + j]]++)
				return false;
			pos[v[r * nv + j]][j]++;
			if (j)
				follows[v[r * nv + j - 1]][v[r * nv + j]]++;
		}
	}
	for (a = 0; a < nv; a++)
		for (b = 0; b < nv; b++) {
			if (pos[a][b] != pos[0][0])
				return false;
			if (a != b && follows[a][b] != follows[0][1])
				return false;
		}
	return true;
}

static void test_williams(void)
{
	int v[4 * VARIANTS_MAX * VARIANTS_MAX], w[4 * VARIANTS_MAX * VARIANTS_MAX], nv, k;
	static const enum order_kind kinds[] = { ORDER_ABAB, ORDER_ABBA, ORDER_RANDOM };

	for (nv = 2; nv <= VARIANTS_MAX; nv++) {
		int rounds = nv % 2 ? 2 * nv : nv;

		CHECK(campaign_order_n(ORDER_WILLIAMS, nv, rounds, 1, v) == 0);
		CHECK(carryover_balanced(v, nv, rounds));
		/* the same rows again: two squares are balanced too */
		CHECK(campaign_order_n(ORDER_WILLIAMS, nv, 2 * rounds, 1, w) == 0);
		CHECK(carryover_balanced(w, nv, 2 * rounds));
		/* a plain rotation (ABC ABC, or its cyclic shifts) is not */
		if (nv > 2) {
			CHECK(campaign_order_n(ORDER_ABAB, nv, rounds, 1, w) == 0);
			CHECK(!carryover_balanced(w, nv, rounds));
			for (k = 0; k < rounds * nv; k++)
				w[k] = (k % nv + k / nv) % nv;
			CHECK(!carryover_balanced(w, nv, rounds));
		}
	}
	/* an odd count needs the mirrored square: the first square alone is unbalanced */
	CHECK(campaign_order_n(ORDER_WILLIAMS, 3, 3, 1, v) == 0);
	CHECK(!carryover_balanced(v, 3, 3));
	/* two variants are ordered exactly as before */
	for (k = 0; k < (int)ARRAY_SIZE(kinds); k++) {
		campaign_order(kinds[k], 5, 7, v);
		campaign_order_n(kinds[k], 2, 5, 7, w);
		CHECK(!memcmp(v, w, 10 * sizeof(int)));
	}
	/* random: a seeded permutation in every round, the same for the same seed */
	CHECK(campaign_order_n(ORDER_RANDOM, 4, 6, 9, v) == 0);
	CHECK(campaign_order_n(ORDER_RANDOM, 4, 6, 9, w) == 0);
	CHECK(!memcmp(v, w, 24 * sizeof(int)));
	for (k = 0; k < 6; k++) {
		int seen = 0;

		for (nv = 0; nv < 4; nv++)
			seen |= 1 << v[k * 4 + nv];
		CHECK(seen == 15);
	}
	CHECK(campaign_order_n(ORDER_WILLIAMS, 9, 1, 1, v) == -EINVAL);
	CHECK(campaign_order_n(ORDER_WILLIAMS, 1, 1, 1, v) == -EINVAL);
}

/* One scenario-name rule (scenario_name_ok()): the result lines take what a regex benchmark
 * takes, 1..63 letters, digits or ._:+/-, and nothing else. */
static void test_scenario_name(void)
{
	struct line_info li;
	char long_name[65];

	CHECK(scenario_name_ok("small-dirty-256B", 16));
	CHECK(scenario_name_ok("read:4k/seq+1.0_x", 17));
	CHECK(!scenario_name_ok("", 0));
	CHECK(!scenario_name_ok("a b", 3));
	CHECK(!scenario_name_ok("a=b", 3));
	CHECK(!scenario_name_ok("a\"b", 3));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[64] = '\0';
	CHECK(scenario_name_ok(long_name, 63));
	CHECK(!scenario_name_ok(long_name, 64));
	CHECK(parse_line("dmabench: v1 result scenario=read:4k/seq batch=1 size=4096 reps=10 "
			 "dir=from op=map_unmap state=dirty timing=iter mean_ns=100 min_ns=90 "
			 "max_ns=110 ns_per_KiB=25",
			 &li) == LINE_SAMPLE);
	CHECK_STR(li.s.scenario, "read:4k/seq");
	CHECK(parse_line("dmabench: v1 result scenario=a=b batch=1 size=4096 reps=10 "
			 "dir=from op=map_unmap state=dirty timing=iter mean_ns=100 min_ns=90 "
			 "max_ns=110 ns_per_KiB=25",
			 &li) == -EINVAL);
}

int main(void)
{
	test_williams();
	test_seed_line();
	test_seed_malformed();
	test_v1();
	test_log();
	test_log_dmesg_twice();
	test_log_runs();
	test_log_many_dmesg();
	test_log_rejected_lines();
	test_checks();
	test_format();
	test_order();
	test_scenario_name();
	CHECK_DONE("test_parse");
}
