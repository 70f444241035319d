/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats-screen.h - which batches of one boot are artefacts (docs/STATISTICS.md, "Batches
 * left out"): pure C, no I/O, no global state, callers' arrays never modified.
 *
 * A boot's batches of one timing scenario are screened together; a batch is left out of the
 * boot's mean when
 *   (a) its net time is <= 0: a baseline was subtracted (base_ns > 0) and raw_ns <= base_ns
 *       or mean_ns <= 0, or mean_ns < 0 in any mode;
 *   (b) its baseline lies far above the boot's other baselines of the scenario (one-sided:
 *       an interrupt only lengthens a timing); the reason given for a batch of (a) too
 *       when its baseline is the cause;
 *   (c) its time lies far outside the boot's other batches (3 or more batches only).
 * "Far" is |x - median| > max(SCREEN_K * 1.4826 * MAD, SCREEN_REL * |median|,
 * SCREEN_ABS_NS), x and the median per iteration: a
 * median/MAD rule that one bad batch cannot move, with a relative floor so that exact,
 * near-constant data (QEMU -icount) is never flagged for a tiny difference.  Rules (b) and
 * (c) never leave out every batch rule (a) kept: when they would, they leave out none.
 */
#ifndef ABLAB_STATS_SCREEN_H
#define ABLAB_STATS_SCREEN_H

#include <stddef.h>
#include <stdint.h>

/* the MAD multiple, as in |x - median| > SCREEN_K * 1.4826 * MAD */
#define SCREEN_K 5.0
/* the relative floor: |x - median| must also exceed this share of |median| */
#define SCREEN_REL 0.5
/* and an absolute floor in ns (per iteration): a clock step is never an artefact */
#define SCREEN_ABS_NS 10.0
/* the fewest batches rule (c) judges (rules (a) and (b) apply from 1 and 2) */
#define SCREEN_MIN_OUTLIER_N 3

enum screen_why {
	SCREEN_KEPT = 0,
	SCREEN_NET, /* (a) net time <= 0 */
	SCREEN_BASELINE, /* (b) baseline far above the boot's others */
	SCREEN_OUTLIER, /* (c) time far outside the boot's other batches */
};

/* One batch: mean_ns per iteration; raw_ns and base_ns the batch's totals when a baseline
 * was measured (batch timing), else -1; reps the iterations per batch (<= 0: unknown). */
struct screen_in {
	double mean_ns;
	int64_t raw_ns, base_ns, reps;
};

/* The verdict on one batch: why (SCREEN_KEPT: kept); value the figure that was judged
 * (mean ns, or the baseline per iteration in ns) and ref the boot's median of it. */
struct screen_out {
	enum screen_why why;
	double value, ref;
};

/*
 * Screens in[0..n-1] (one boot, one timing scenario) into out[0..n-1].  Returns the number
 * of batches left out (n when rule (a) leaves out every one: the boot then has no mean for
 * the scenario), -EINVAL if in or out is NULL with n > 0 or a mean is not finite, -ENOMEM.
 */
int stats_screen(const struct screen_in *in, size_t n, struct screen_out *out);

/*
 * The reason of a left-out batch as one line without a negative figure, e.g. "baseline
 * 28 us, the boot's median 150 ns", "time 12.4 us, the boot's median 290 ns", "net time
 * <= 0 (raw 1.24 ms, baseline 1.29 ms)"; "" for a kept batch.  Returns buf.
 */
char *stats_screen_reason(const struct screen_in *in, const struct screen_out *o, char *buf,
			  size_t len);

#endif
