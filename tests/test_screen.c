// SPDX-License-Identifier: GPL-2.0-only
/* The screening rule of a boot's batches (agent/stats/stats-screen.c, docs/STATISTICS.md). */
#include "stats/stats-screen.h"
#include "check.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#define NB(m)                  \
	{                      \
		(m), -1, -1, 0 \
	}
#define BB(m, raw, base, reps)             \
	{                                  \
		(m), (raw), (base), (reps) \
	}

static int left(const struct screen_in *in, size_t n, struct screen_out *out)
{
	return stats_screen(in, n, out);
}

/* the report that started it: [420, -83300, 290] ns, one baseline of 28 us among 150 ns */
static void test_poisoned_baseline(void)
{
	/* 5000 reps: raw and base are batch totals */
	struct screen_in in[3] = {
		BB(420, 2850000, 750000, 5000),
		BB(-83300, 55000, 140215000, 5000),
		BB(290, 2200000, 750000, 5000),
	};
	struct screen_out out[3];
	char why[96];

	CHECK(left(in, 3, out) == 1);
	CHECK(out[0].why == SCREEN_KEPT && out[2].why == SCREEN_KEPT);
	CHECK(out[1].why == SCREEN_BASELINE);
	CHECK_STR(stats_screen_reason(&in[1], &out[1], why, sizeof(why)),
		  "baseline 28 us, the boot's median 150 ns");
	/* net time <= 0 with an ordinary baseline: rule (a) says so */
	in[1] = (struct screen_in)BB(-10, 700000, 750000, 5000);
	CHECK(left(in, 3, out) == 1 && out[1].why == SCREEN_NET);
	CHECK_STR(stats_screen_reason(&in[1], &out[1], why, sizeof(why)),
		  "net time <= 0 (raw 700 us, baseline 750 us)");
	CHECK_STR(stats_screen_reason(&in[0], &out[0], why, sizeof(why)), "");
	/* the same baseline, but the batch still positive: left out by rule (b) */
	in[1] = (struct screen_in)BB(300, 141715000, 140215000, 5000);
	CHECK(left(in, 3, out) == 1 && out[1].why == SCREEN_BASELINE);
	CHECK(fabs(out[1].value - 28043) < 1e-9 && fabs(out[1].ref - 150) < 1e-9);
	CHECK_STR(stats_screen_reason(&in[1], &out[1], why, sizeof(why)),
		  "baseline 28 us, the boot's median 150 ns");
	/* two batches: the larger baseline is the artefact, never both */
	CHECK(left(in, 2, out) == 1 && out[0].why == SCREEN_KEPT && out[1].why == SCREEN_BASELINE);
	CHECK(left(&in[1], 2, out) == 1 && out[0].why == SCREEN_BASELINE && out[1].why == 0);
}

static void test_outlier(void)
{
	struct screen_in in[5] = { NB(1000), NB(1010), NB(990), NB(1005), NB(9000) };
	struct screen_out out[5];
	char why[96];

	CHECK(left(in, 5, out) == 1 && out[4].why == SCREEN_OUTLIER);
	CHECK(out[4].ref == 1005);
	CHECK_STR(stats_screen_reason(&in[4], &out[4], why, sizeof(why)),
		  "time 9 us, the boot's median 1 us");
	/* fewer than 3 batches: no outlier rule */
	CHECK(left(&in[3], 2, out) == 0);
	/* a batch far below the others is an outlier too */
	in[4] = (struct screen_in)NB(100);
	CHECK(left(in, 5, out) == 1 && out[4].why == SCREEN_OUTLIER);
}

/* exact data (QEMU -icount, 0.01 %) and ordinary noise are never flagged */
static void test_no_false_flags(void)
{
	struct screen_in ex[5] = { NB(134932), NB(134948), NB(134940), NB(134933), NB(134947) };
	struct screen_in eq[4] = { NB(256), NB(256), NB(256), NB(257) };
	struct screen_in noisy[6] = { NB(100), NB(130), NB(80), NB(110), NB(95), NB(140) };
	struct screen_in base[4] = { BB(300, 2000000, 500000, 5000), BB(310, 2050000, 500100, 5000),
				     BB(305, 2025000, 499900, 5000),
				     BB(301, 2005000, 500050, 5000) };
	struct screen_in zero[3] = { NB(0), NB(0), NB(9) };
	struct screen_out out[6];

	CHECK(left(ex, 5, out) == 0);
	CHECK(left(eq, 4, out) == 0);
	CHECK(left(noisy, 6, out) == 0);
	CHECK(left(base, 4, out) == 0);
	/* a mean of 0 without a baseline is a coarse clock, not an artefact */
	CHECK(left(zero, 3, out) == 0);
}

/* rule (a) may leave out every batch (no boot mean); (b) and (c) never do */
static void test_never_all(void)
{
	struct screen_in neg[2] = { NB(-5), BB(10, 100, 200, 10) };
	struct screen_in two[4] = { NB(100), NB(100), NB(1000), NB(1000) };
	struct screen_out out[4];

	CHECK(left(neg, 2, out) == 2 && out[0].why == SCREEN_NET && out[1].why == SCREEN_NET);
	CHECK(left(two, 4, out) == 0);
	CHECK(left(neg, 1, out) == 1);
	CHECK(left(NULL, 0, NULL) == 0);
	CHECK(left(NULL, 1, out) == -EINVAL);
	{
		struct screen_in nan[1] = { NB(NAN) };

		CHECK(left(nan, 1, out) == -EINVAL);
	}
}

int main(void)
{
	test_poisoned_baseline();
	test_outlier();
	test_no_false_flags();
	test_never_all();
	CHECK_DONE("test_screen");
}
