// SPDX-License-Identifier: GPL-2.0
/*
 * validate.c - `make validate`: the statistics of ablab checked by simulation, one table.
 *
 * Boot-level model (Kalibera & Jones' two levels): batch j of boot i of variant v is
 *   Y_ij = mu_v (1 + B_i) (1 + W_ij),  B_i ~ N(0, cv_b^2), W_ij ~ N(0, cv_w^2), j = 1..m,
 * and the boot's value is its mean over the m batches: between-boot CV cv_b (default 2 %),
 * within-boot CV cv_w (1 %) with m = 5 batches. mu_patched = mu_control (1 + delta): the
 * patch scales the times. Every number comes with its Monte-Carlo standard error
 * sqrt(p (1 - p) / N); "met" compares with the target allowing 2 SE. The targets are the
 * levels the statistics state (alpha, beta, an interval's stated confidence), never a
 * figure the design's own simulation produced. Exit status 1 when a target is missed.
 * Seeded and deterministic: the same table on every run.
 *
 * --quick (and test_validate, which `make check` runs): 1,000 campaigns per line, 3 SE, no
 * bootstrap lines, a few seconds; ends with "test_validate: N passed, N failed".
 */
#include "stats/changepoint.h"
#include "stats/seqtest.h"
#include "stats/stats-screen.h"
#include "stats/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MU 73840.0
#define CV_B 0.02
#define CV_W 0.01
#define M_BATCH 5
#define ALPHA 0.05
#define BETA 0.05 /* the sequential design's "same" error */
#define MARGIN 0.01
#define BUDGET 20
#define MAXN 32

static int nfail, npass;
static double nse = 2.0; /* standard errors a "met" allows */
static bool quick;

static void boots(struct stats_rng *g, double mu, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++) {
		double b = 1.0 + CV_B * stats_rng_gauss(g), w = 0.0;

		for (int j = 0; j < M_BATCH; j++)
			w += 1.0 + CV_W * stats_rng_gauss(g);
		out[i] = mu * b * w / M_BATCH;
	}
}

/*
 * one line of the table; kind: 'u' value must be <= target, 'l' >= target, 'L' as 'l' but
 * only reported (an interval the report no longer relies on), ' ' no target
 */
static void line(const char *what, const char *design, double v, double se, long n, char kind,
		 double target, const char *unit)
{
	char t[32] = "", met[12] = "";

	if (kind == 'u' || kind == 'l' || kind == 'L') {
		double e = se > 0 ? nse * se : 0;
		bool ok = kind == 'u' ? v <= target + e : v >= target - e;

		snprintf(t, sizeof(t), "%s %.3g", kind == 'u' ? "<=" : ">=", target);
		snprintf(met, sizeof(met), "%s", ok ? "met" : "MISSED");
		nfail += !ok && kind != 'L';
		npass += ok && kind != 'L';
	}
	if (se >= 0)
		printf("| %-48s | %-22s | %8.4f | %7.4f | %6ld | %-8s | %-6s |%s\n", what, design,
		       v, se, n, t, met, unit);
	else
		printf("| %-48s | %-22s | %8.2f | %7s | %6ld | %-8s | %-6s |%s\n", what, design, v,
		       "-", n, t, met, unit);
}

static double se_p(double p, long n)
{
	return sqrt(p * (1 - p) / (double)n);
}

/* fixed n+n: P(different), P(same), and coverage of the printed intervals */
struct fixed_out {
	double diff, same, cov_hl_rel, cov_hl_ns, cov_boot, conf_hl;
	long boot_n;
};

static void fixed(uint64_t seed, size_t n, double delta, long reps, bool boot, struct fixed_out *o)
{
	struct stats_rng g;
	double a[MAXN], b[MAXN];
	long diff = 0, same = 0, crel = 0, cns = 0, cb = 0, nb = 0;

	stats_rng_seed(&g, seed);
	memset(o, 0, sizeof(*o));
	for (long r = 0; r < reps; r++) {
		struct stats_row_result row;

		boots(&g, MU, n, a);
		boots(&g, MU * (1 + delta), n, b);
		if (stats_row(a, n, b, n, ALPHA, MARGIN, &row))
			continue;
		diff += row.verdict == VERDICT_DIFFERENT;
		same += row.verdict == VERDICT_SAME;
		crel += row.rel.lo <= delta && delta <= row.rel.hi;
		cns += row.shift.lo <= MU * delta && MU * delta <= row.shift.hi;
		o->conf_hl = row.rel.conf;
		if (boot && r < reps / 5) {
			struct ab_result ab;

			if (!stats_ab(a, n, b, n, (uint64_t)r + 1, 1000, &ab) && !isnan(ab.ci_lo)) {
				cb += ab.ci_lo <= delta && delta <= ab.ci_hi;
				nb++;
			}
		}
	}
	o->diff = (double)diff / (double)reps;
	o->same = (double)same / (double)reps;
	o->cov_hl_rel = (double)crel / (double)reps;
	o->cov_hl_ns = (double)cns / (double)reps;
	o->cov_boot = nb ? (double)cb / (double)nb : NAN;
	o->boot_n = nb;
}

/*
 * Batches left out (stats-screen.h).  Each batch is timed as the module times it: net
 * y = mu (1 + B) (1 + W) per iteration over SC_REPS iterations, a memset baseline of 0.4 mu
 * (1 + cv_w N) per iteration subtracted (raw_ns, base_ns the batch totals).  With
 * probability stall a batch is stalled (an interrupt-length stall: its time doubled); each
 * boot listed in poison[] has its middle batch's baseline 200 times its own (a host hiccup:
 * a negative net time).  The boot's value is the mean of its batches, all of them (raw) or
 * the kept ones (screened); one stats_row() verdict each, on the same data.
 */
#define SC_REPS 300
struct scr_sim {
	size_t n; /* boots per variant */
	double delta, cv_b, cv_w, stall;
	int poison; /* patched boots 0..poison-1 get a poisoned baseline batch */
};
struct scr_result {
	double diff_raw, diff_scr, gap_se; /* P(different) all kept / screened; SE of the gap */
	double neg_raw, neg_scr; /* share of campaigns with a negative boot mean */
	double left; /* share of batches left out */
};

/* one boot: its mean over all batches (*raw) and over the kept ones (returned) */
static double scr_boot(struct stats_rng *g, const struct scr_sim *c, double mu, bool poison,
		       double *raw, long *left)
{
	struct screen_in in[M_BATCH];
	struct screen_out o[M_BATCH];
	double b = 1.0 + c->cv_b * stats_rng_gauss(g), sum = 0, ks = 0;
	int nk = 0;

	for (int j = 0; j < M_BATCH; j++) {
		double y = mu * b * (1.0 + c->cv_w * stats_rng_gauss(g));
		double base = 0.4 * mu * (1.0 + c->cv_w * stats_rng_gauss(g));
		long long r, bn;

		if (c->stall > 0 && stats_rng_uniform(g) < c->stall)
			y *= 2;
		r = llround((y + base) * SC_REPS);
		bn = llround(base * SC_REPS);
		if (poison && j == M_BATCH / 2)
			bn *= 200;
		in[j] = (struct screen_in){ (double)(r - bn) / SC_REPS, r, bn, SC_REPS };
		sum += in[j].mean_ns;
	}
	*raw = sum / M_BATCH;
	if (stats_screen(in, M_BATCH, o) < 0)
		return *raw;
	for (int j = 0; j < M_BATCH; j++)
		if (o[j].why == SCREEN_KEPT) {
			ks += in[j].mean_ns;
			nk++;
		}
	*left += M_BATCH - nk;
	return nk ? ks / nk : NAN;
}

static void screening(uint64_t seed, const struct scr_sim *c, long reps, struct scr_result *o)
{
	struct stats_rng g;
	double a[MAXN], b[MAXN], ar[MAXN], br[MAXN];
	long dr = 0, ds = 0, only_r = 0, only_s = 0, nr = 0, ns = 0, left = 0;

	stats_rng_seed(&g, seed);
	for (long r = 0; r < reps; r++) {
		struct stats_row_result x, y;
		bool neg_r = false, neg_s = false, vr, vs;

		for (size_t i = 0; i < c->n; i++) {
			a[i] = scr_boot(&g, c, MU, false, &ar[i], &left);
			b[i] = scr_boot(&g, c, MU * (1 + c->delta), (int)i < c->poison, &br[i],
					&left);
			neg_r |= ar[i] < 0 || br[i] < 0;
			neg_s |= a[i] < 0 || b[i] < 0;
		}
		vr = !stats_row(ar, c->n, br, c->n, ALPHA, MARGIN, &x) &&
		     x.verdict == VERDICT_DIFFERENT;
		vs = !stats_row(a, c->n, b, c->n, ALPHA, MARGIN, &y) &&
		     y.verdict == VERDICT_DIFFERENT;
		dr += vr;
		ds += vs;
		only_r += vr && !vs;
		only_s += vs && !vr;
		nr += neg_r;
		ns += neg_s;
	}
	o->diff_raw = (double)dr / (double)reps;
	o->diff_scr = (double)ds / (double)reps;
	/* paired: the SE of the difference of two shares on the same campaigns */
	o->gap_se = sqrt((double)(only_r + only_s) -
			 (double)(only_s - only_r) * (double)(only_s - only_r) / (double)reps) /
		    (double)reps;
	o->neg_raw = (double)nr / (double)reps;
	o->neg_scr = (double)ns / (double)reps;
	o->left = (double)left / ((double)reps * 2.0 * (double)c->n * M_BATCH);
}

struct seq_out {
	double diff, same, boots, cov;
};

static void sequential(const struct seq_design *d, uint64_t seed, double delta, long reps,
		       struct seq_out *o)
{
	struct stats_rng g;
	double a[MAXN], b[MAXN];
	long diff = 0, same = 0, used = 0, cov = 0;
	size_t na = d->look[d->nlooks - 1].na, nb = d->look[d->nlooks - 1].nb;

	stats_rng_seed(&g, seed);
	for (long r = 0; r < reps; r++) {
		struct seq_result res;

		boots(&g, MU, na, a);
		boots(&g, MU * (1 + delta), nb, b);
		for (size_t k = 0; k < d->nlooks; k++) {
			const struct seq_look *l = &d->look[k];

			if (seq_decide(d, k, a, l->na, b, l->nb, &res))
				break;
			if (res.decision == SEQ_CONTINUE)
				continue;
			diff += res.decision == SEQ_DIFFERENT;
			same += res.decision == SEQ_SAME;
			used += (long)(l->na + l->nb);
			/* the repeated CI at the stopping look (a missing one covers) */
			cov += isnan(res.rci_rel.lo) ||
			       (res.rci_rel.lo <= delta && delta <= res.rci_rel.hi);
			break;
		}
	}
	o->diff = (double)diff / (double)reps;
	o->same = (double)same / (double)reps;
	o->boots = (double)used / (double)reps;
	o->cov = (double)cov / (double)reps;
}

/* 15 independent rows under no change at n+n: FWER unadjusted, Holm, BH */
static void fwer(uint64_t seed, size_t n, long reps, double *raw, double *holm, double *bh)
{
	struct stats_rng g;
	double a[MAXN], b[MAXN], p[15], adj[15];
	long cr = 0, ch = 0, cb = 0;

	stats_rng_seed(&g, seed);
	for (long r = 0; r < reps; r++) {
		int any = 0, anyh = 0, anyb = 0;

		for (int k = 0; k < 15; k++) {
			struct stats_row_result row;

			boots(&g, MU, n, a);
			boots(&g, MU, n, b);
			p[k] = stats_row(a, n, b, n, ALPHA, MARGIN, &row) ? NAN : row.p;
			any |= p[k] <= ALPHA;
		}
		stats_holm(p, 15, adj);
		for (int k = 0; k < 15; k++)
			anyh |= adj[k] <= ALPHA;
		stats_bh(p, 15, adj);
		for (int k = 0; k < 15; k++)
			anyb |= adj[k] <= ALPHA;
		cr += any;
		ch += anyh;
		cb += anyb;
	}
	*raw = (double)cr / (double)reps;
	*holm = (double)ch / (double)reps;
	*bh = (double)cb / (double)reps;
}

/*
 * The nightly change-point rule on 20 simulated nights, one value per night with 1 % noise
 * (5 boots at 2 % between-boot CV), with a +5 % step from night 11 or none: on night N the
 * nights 1..N are searched, a change point at night N with |change| >= 3 % is an alert.
 */
static void nightly(uint64_t seed, long reps, double *hit11, double *other, double *flat)
{
	struct stats_rng g;
	double x[20], y[20];
	long h = 0, o = 0, f = 0;

	stats_rng_seed(&g, seed);
	for (long r = 0; r < reps; r++) {
		int any = 0, first = 0, n_alert = 0;

		for (int i = 0; i < 20; i++) {
			y[i] = MU * (1 + 0.01 * stats_rng_gauss(&g));
			x[i] = y[i] * (i >= 10 ? 1.05 : 1.0);
		}
		for (size_t n = 3; n <= 20; n++) {
			struct cp_point cp;

			if (cp_new_last(x, n, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, 0.03, &cp) ==
			    1) {
				n_alert++;
				if (!first)
					first = (int)n;
			}
			any |= cp_new_last(y, n, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, 0.03,
					   &cp) == 1;
		}
		h += first == 11;
		o += n_alert - (first == 11) > 0;
		f += any;
	}
	*hit11 = (double)h / (double)reps;
	*other = (double)o / (double)reps;
	*flat = (double)f / (double)reps;
}

#ifndef VALIDATE_QUICK
#define VALIDATE_QUICK 0
#endif

int main(int argc, char **argv)
{
	long R;
	size_t na[SEQ_MAX_LOOKS], nb[SEQ_MAX_LOOKS];
	struct seq_design d;
	struct fixed_out f;
	struct seq_out s0, s5, sm;
	struct timespec t0, t1;
	double raw, holm, bh, pw[11] = { 0 };
	size_t eq_n = 0;
	char des[64];
	int nl;

	quick = VALIDATE_QUICK || (argc > 1 && !strcmp(argv[1], "--quick"));
	R = quick ? 1000 : argc > 1 ? atol(argv[1]) : 20000;
	if (R < 10) {
		fprintf(stderr, "usage: validate [CAMPAIGNS_PER_LINE | --quick]\n");
		return 2;
	}
	if (quick)
		nse = 3.0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	nl = seq_schedule_balanced(3, BUDGET, na, nb, SEQ_MAX_LOOKS);
	if (nl < 0 ||
	    seq_design_init(&d, na, nb, (size_t)nl, ALPHA, BETA, MARGIN, 0, SEQ_DEFAULT_SEED)) {
		fprintf(stderr, "validate: cannot build the sequential design\n");
		return 1;
	}
	printf("ablab statistics validation: boot-level model, between-boot CV %.0f%%, within-boot "
	       "CV %.0f%% x %d batches, alpha %.2f, margin +-%.0f%%, %ld campaigns per line\n",
	       CV_B * 100, CV_W * 100, M_BATCH, ALPHA, MARGIN * 100, R);
	printf("sequential design: looks 3+3 .. %zu+%zu (%d looks, budget %d boots), two-sided p "
	       "threshold %.5f per look (null simulation: FPR %.4f +- %.4f, %lu sims), "
	       "equivalence one-sided threshold %.5f (same-error %.4f)\n",
	       na[nl - 1], nb[nl - 1], nl, BUDGET, d.p_diff, d.fpr, d.fpr_se, d.sims, d.p_eq,
	       d.same_err);
	printf("boundaries (different iff U <= u or U >= n^2 - u; same needs the interval of rank "
	       "u_eq + 1 inside the margin):");
	for (int k = 0; k < nl; k++)
		printf(" %zu+%zu:%ld/%ld", d.look[k].na, d.look[k].nb, d.look[k].u_diff,
		       d.look[k].u_eq);
	printf("\n\n| %-48s | %-22s | %8s | %7s | %6s | %-8s | %-6s |\n", "figure", "design",
	       "value", "MC SE", "N", "target", "");
	printf("|%s|%s|%s|%s|%s|%s|%s|\n", "----------------------------------------------",
	       "------------------------", "----------", "---------", "--------", "----------",
	       "--------");

	/* false positives under no change */
	for (size_t n = 3; n <= 10; n += n == 3 ? 2 : 5) {
		fixed(100 + n, n, 0.0, R, false, &f);
		snprintf(des, sizeof(des), "fixed %zu+%zu", n, n);
		line("FPR, no change (model)", des, f.diff, se_p(f.diff, R), R, 'u', ALPHA, "");
	}
	sequential(&d, 201, 0.0, R, &s0);
	snprintf(des, sizeof(des), "sequential <= %d boots", BUDGET);
	line("FPR, no change (model)", des, s0.diff, se_p(s0.diff, R), R, 'u', ALPHA, "");
	printf("| %-48s | %-22s | %8s | %7s | %6s | %-8s | %-6s |\n",
	       "FPR, no change (board simulator, real path)", "fixed and sequential", "not run",
	       "-", ">= 200", "<= 0.05", "lead");

	/* power and boots at +5 % */
	for (size_t n = 3; n <= 10; n++) {
		fixed(300 + n, n, 0.05, R / 2, false, &f);
		pw[n] = f.diff;
	}
	line("power, +5 % change (model)", "fixed 5+5", pw[5], se_p(pw[5], R / 2), R / 2, ' ', 0,
	     "");
	sequential(&d, 202, 0.05, R, &s5);
	line("power, +5 % change (model)", des, s5.diff, se_p(s5.diff, R), R, ' ', 0, "");
	for (size_t n = 3; n <= 10 && !eq_n; n++)
		if (pw[n] >= s5.diff - 2 * se_p(s5.diff, R))
			eq_n = n;
	line("mean boots used, +5 % change", des, s5.boots, -1, R, ' ', 0, "");
	if (eq_n) {
		snprintf(des, sizeof(des), "fixed %zu+%zu (power %.3f)", eq_n, eq_n, pw[eq_n]);
		line("boots of the fixed design of equal power", des, (double)(2 * eq_n), -1, R / 2,
		     ' ', 0, "");
		snprintf(des, sizeof(des), "sequential vs fixed %zu+%zu", eq_n, eq_n);
		/* no standard error: with --quick's 500 campaigns the fixed design of equal
		 * power is itself uncertain by a step, so the line is only reported there */
		line("boots saved by the sequential design", des, 1 - s5.boots / (double)(2 * eq_n),
		     -1, R, quick ? ' ' : 'l', 0.30, "");
	} else {
		line("boots of the fixed design of equal power", "> 10+10", NAN, -1, R, ' ', 0, "");
	}
	snprintf(des, sizeof(des), "sequential <= %d boots", BUDGET);
	line("mean boots used, no change", des, s0.boots, -1, R, ' ', 0, "");

	/* equivalence: P(same) at |change| = margin must be <= alpha (fixed) / beta (seq) */
	fixed(400, 10, MARGIN, R, false, &f);
	line("P(same), change = +1 % = margin", "fixed 10+10", f.same, se_p(f.same, R), R, 'u',
	     ALPHA, "");
	sequential(&d, 203, MARGIN, R, &sm);
	snprintf(des, sizeof(des), "sequential <= %d boots", BUDGET);
	line("P(same), change = +1 % = margin", des, sm.same, se_p(sm.same, R), R, 'u', BETA, "");
	fixed(401, 10, 0.0, R, false, &f);
	line("P(same), no change", "fixed 10+10", f.same, se_p(f.same, R), R, ' ', 0, "");
	line("P(same), no change", des, s0.same, se_p(s0.same, R), R, ' ', 0, "");

	/* multiple comparisons */
	fwer(500, 10, R / 4, &raw, &holm, &bh);
	line("FWER of 15 rows, no change, unadjusted", "fixed 10+10 x 15", raw, se_p(raw, R / 4),
	     R / 4, ' ', 0, "");
	line("FWER of 15 rows, no change, Holm", "fixed 10+10 x 15", holm, se_p(holm, R / 4), R / 4,
	     'u', ALPHA, "");
	line("FWER of 15 rows, no change, BH (= FDR here)", "fixed 10+10 x 15", bh, se_p(bh, R / 4),
	     R / 4, 'u', ALPHA, "");

	/* nightly change points */
	{
		double hit, other, flat;

		nightly(700, R / 4, &hit, &other, &flat);
		line("nightly: +5 % step after night 10, alert on 11", "change point, 20 nights",
		     hit, se_p(hit, R / 4), R / 4, ' ', 0, "");
		line("nightly: +5 % step, an alert on another night", "change point, 20 nights",
		     other, se_p(other, R / 4), R / 4, ' ', 0, "");
		line("nightly: no step, any alert in 20 nights", "change point, 20 nights", flat,
		     se_p(flat, R / 4), R / 4, ' ', 0, "");
	}

	/* coverage of the intervals, +5 % change */
	for (size_t n = 3; n <= 10; n += n == 3 ? 2 : 5) {
		char what[64];

		fixed(600 + n, n, 0.05, R, !quick, &f);
		snprintf(des, sizeof(des), "fixed %zu+%zu", n, n);
		snprintf(what, sizeof(what), "coverage, HL exact CI of %% (states %.1f%%)",
			 f.conf_hl * 100);
		line(what, des, f.cov_hl_rel, se_p(f.cov_hl_rel, R), R, 'l', f.conf_hl, "");
		snprintf(what, sizeof(what), "coverage, HL exact CI of ns (states %.1f%%)",
			 f.conf_hl * 100);
		line(what, des, f.cov_hl_ns, se_p(f.cov_hl_ns, R), R, 'l', f.conf_hl, "");
		if (!quick)
			line("coverage, stats_ab percentile bootstrap 95%", des, f.cov_boot,
			     se_p(f.cov_boot, f.boot_n), f.boot_n, 'L', 0.95, " (label it)");
	}
	snprintf(des, sizeof(des), "sequential <= %d boots", BUDGET);
	/* the design's stated level: every look's interval at once with 1 - alpha (the report
	 * prints 1 - its simulated rate, >= that); not the simulation's own 1 - fpr */
	line("coverage, repeated CI at the stop (+5 %)", des, s5.cov, se_p(s5.cov, R), R, 'l',
	     1 - ALPHA, "");
	line("coverage, repeated CI at the stop (no change)", des, s0.cov, se_p(s0.cov, R), R, 'l',
	     1 - ALPHA, "");

	/* batches left out (stats-screen.h): no more false alarms, the verdict restored */
	{
		static const struct scr_sim nochg = { 5, 0.0, CV_B, CV_W, 0.02, 0 };
		static const struct scr_sim exact = { 5, 0.0, 0.0001, 0.0001, 0.0, 0 };
		static const struct scr_sim pois = { 10, 0.05, CV_B, CV_W, 0.0, 3 };
		struct scr_result x;

		screening(701, &nochg, R / 4, &x);
		line("FPR, no change, 2 % stalled batches, all kept", "fixed 5+5", x.diff_raw,
		     se_p(x.diff_raw, R / 4), R / 4, 'u', ALPHA, "");
		line("FPR, the same campaigns, artefacts left out", "fixed 5+5", x.diff_scr,
		     se_p(x.diff_scr, R / 4), R / 4, 'u', ALPHA, "");
		line("FPR raised by leaving out (paired difference)", "fixed 5+5",
		     x.diff_scr - x.diff_raw, x.gap_se, R / 4, 'u', 0, "");
		line("batches left out, no change, 2 % stalled", "fixed 5+5", x.left,
		     se_p(x.left, R / 4 * 2 * 5 * M_BATCH), R / 4, ' ', 0, " (share of batches)");
		screening(702, &exact, R / 4, &x);
		line("batches left out, exact data (CV 0.01 %)", "fixed 5+5", x.left, 0, R / 4, 'u',
		     0, "");
		screening(703, &pois, R / 4, &x);
		line("power +5 %, 3 poisoned baselines, all kept", "fixed 10+10", x.diff_raw,
		     se_p(x.diff_raw, R / 4), R / 4, ' ', 0, "");
		line("power +5 %, 3 poisoned baselines, left out", "fixed 10+10", x.diff_scr,
		     se_p(x.diff_scr, R / 4), R / 4, 'l', 0.95, "");
		line("campaigns with a negative boot mean, all kept", "fixed 10+10", x.neg_raw,
		     se_p(x.neg_raw, R / 4), R / 4, ' ', 0, "");
		line("campaigns with a negative boot mean, left out", "fixed 10+10", x.neg_scr,
		     se_p(x.neg_scr, R / 4), R / 4, 'u', 0, "");
	}

	printf("\nfixed-design power at +5 %% (N = %ld each):", R / 2);
	for (size_t n = 3; n <= 10; n++)
		printf(" %zu+%zu %.4f", n, n, pw[n]);
	printf("\n");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n%d target(s) missed (the percentile bootstrap's shortfall is reported, not "
	       "counted; \"met\" allows %.0f SE); %.1f s (seeded: the same table on every run)\n",
	       nfail, nse,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (quick)
		printf("test_validate: %d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
