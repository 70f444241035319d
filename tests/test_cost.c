// SPDX-License-Identifier: GPL-2.0
/*
 * test_cost.c - what an answer will cost (agent/stats/stats-cost.c, `ablab plan`): boots per
 * kernel grow as the effect shrinks and as the noise or the family grows, the plan is the
 * inverse of the MDE a report prints (stats_mde()), a design that cannot decide is planned up
 * to the smallest one plan_decidable() accepts, and the batches trade boot time against
 * batch noise.
 */
#include "stats/seqtest.h"
#include "stats/stats-cost.h"
#include "stats/stats-screen.h"
#include "stats/stats.h"
#include "check.h"

#include <errno.h>
#include <math.h>

/* the simulator's noise model (tests/boardsim.md): 1 % between boots, 0.5 % within */
static const struct cost_row sim = { "large-dirty-1MiB", 73840.0, 73840.0 * 73840.0 * 0.005 * 0.005,
				     73840.0 * 73840.0 * 0.01 * 0.01 };

static struct cost_query query(double effect, size_t rows)
{
	struct cost_query q = { .effect = effect,
				.alpha = 0.05,
				.power = 0.8,
				.rows = rows,
				.batches = 4,
				.boot_s = 20.0,
				.batch_s = 1.0 };

	return q;
}

static void test_monotonic(void)
{
	struct cost_result prev = { 0 }, r;
	double effects[] = { 0.08, 0.04, 0.02, 0.01, 0.005 };

	for (size_t i = 0; i < sizeof(effects) / sizeof(effects[0]); i++) {
		struct cost_query q = query(effects[i], 4);

		CHECK(cost_plan(&q, &sim, 1, &r) == 0);
		CHECK(r.reachable && r.boots >= 2 && r.batches == 4);
		/* a smaller effect never needs fewer boots; once the noise decides, more */
		if (i)
			CHECK(r.boots >= prev.boots);
		if (i && prev.noise_boots > prev.decide_boots)
			CHECK(r.noise_boots > prev.noise_boots);
		/* the wall time is 2 x boots boots of 20 s + 4 batches of 1 s */
		CHECK(fabs(r.seconds - 2.0 * (double)r.boots * 24.0) < 1e-9);
		prev = r;
	}
	/* halving the effect about quadruples the boots the noise needs (n ~ 1 / effect^2) */
	{
		struct cost_query a = query(0.01, 4), b = query(0.005, 4);
		struct cost_result ra, rb;

		CHECK(!cost_plan(&a, &sim, 1, &ra) && !cost_plan(&b, &sim, 1, &rb));
		CHECK(rb.noise_boots >= 3 * ra.noise_boots && rb.noise_boots <= 5 * ra.noise_boots);
	}
}

static void test_noise_and_family(void)
{
	struct cost_row noisy = sim;
	struct cost_query q = query(0.01, 4), q9 = query(0.01, 40);
	struct cost_result r, rn, r9;

	noisy.var_between *= 4.0; /* 2 % between boots */
	CHECK(!cost_plan(&q, &sim, 1, &r));
	CHECK(!cost_plan(&q, &noisy, 1, &rn));
	CHECK(rn.boots > 3 * r.boots);
	/* two rows: the noisier one decides, and its index is the limit */
	{
		struct cost_row two[2] = { sim, noisy };
		struct cost_result r2;

		CHECK(!cost_plan(&q, two, 2, &r2));
		CHECK(r2.boots == rn.boots && r2.limit == 1);
	}
	/* Holm over more rows: a lower level a row, more boots */
	CHECK(!cost_plan(&q9, &sim, 1, &r9));
	CHECK(r9.boots > r.boots);
	CHECK(fabs(r9.row_alpha - 0.05 / 40) < 1e-12);
}

/* the plan is the inverse of the report's MDE: at its boots the MDE is within the effect, one
 * boot fewer it is not (when the noise, not the design, sets the boots) */
static void test_inverse_of_mde(void)
{
	struct cost_query q = query(0.01, 4);
	struct cost_result r;
	double at, below;

	CHECK(!cost_plan(&q, &sim, 1, &r));
	CHECK(r.noise_boots == r.boots && r.boots > 6);
	at = stats_mde(sim.var_between, sim.var_within, 4, r.boots, sim.mean, 0.05 / 4, 0.8);
	below = stats_mde(sim.var_between, sim.var_within, 4, r.boots - 1, sim.mean, 0.05 / 4, 0.8);
	CHECK(at <= 0.01 && below > 0.01);
	CHECK(r.power >= 0.8 && cost_power(&q, &sim, 4, r.boots - 1) < 0.8);
}

/* without noise the noise needs nothing: the plan is the smallest design that can decide, the
 * one plan_decidable() (the refusal before a campaign) names; for "different" the power
 * itself is 0 until the smallest p reaches the row's level, so both agree */
static void test_undecidable_designs(void)
{
	struct cost_row quiet = { "null", 30.0, 0.0, 0.0 };
	struct plan_design pd = { .n = 1, .rows = 9, .alpha = 0.05, .beta = 0.05, .margin = 0.01 };
	struct plan_result pr;
	struct cost_query q = query(0.01, 9);
	struct cost_result r;

	CHECK(!plan_decidable(&pd, &pr));
	CHECK(!cost_plan(&q, &quiet, 1, &r));
	CHECK(r.decide_boots == pr.diff_n && r.boots == pr.diff_n);
	CHECK(r.boots == 6); /* 9 rows at 0.05: 5+5 cannot (README), 6+6 can */
	CHECK(r.reachable);
	/* one boot fewer is what the refusal refuses */
	pd.n = r.boots - 1;
	CHECK(!plan_decidable(&pd, &pr) && !pr.can_diff);
	pd.n = r.boots;
	CHECK(!plan_decidable(&pd, &pr) && pr.can_diff);
	/* "same": each bound at alpha, 3+3 is the smallest that can (1/20 <= 0.05) */
	q.effect = 0;
	q.margin = 0.01;
	CHECK(!cost_plan(&q, &quiet, 1, &r));
	CHECK(r.boots == 3 && r.decide_boots == 3 && r.reachable);
	/* an effect far below the noise: more than COST_MAX_BOOTS, never */
	q = query(0.0001, 4);
	CHECK(!cost_plan(&q, &sim, 1, &r));
	CHECK(!r.reachable && r.noise_boots == 0 && isinf(r.seconds));
}

static void test_same_margin(void)
{
	struct cost_query q = query(0, 4);
	struct cost_result r1, r2;

	q.margin = 0.02;
	CHECK(!cost_plan(&q, &sim, 1, &r1));
	q.margin = 0.01;
	CHECK(!cost_plan(&q, &sim, 1, &r2));
	CHECK(r2.boots > 3 * r1.boots / 2 && r2.reachable);
	/* "same" does not depend on the family: each bound of the interval at alpha */
	q.rows = 40;
	CHECK(!cost_plan(&q, &sim, 1, &r1));
	CHECK(r1.boots == r2.boots && r1.row_alpha == 0.05);
}

static void test_batches(void)
{
	struct cost_query q = query(0.01, 4);
	struct cost_row batchy = sim;
	struct cost_result r;

	/* batches cost little against a boot and the batch noise is large: many batches */
	batchy.var_within = batchy.var_between * 25.0;
	q.batches = 0;
	q.boot_s = 30.0;
	q.batch_s = 0.1;
	CHECK(!cost_plan(&q, &batchy, 1, &r));
	CHECK(r.batches > 10);
	/* the chosen m is no worse than any other */
	for (unsigned int m = SCREEN_MIN_OUTLIER_N; m <= COST_MAX_BATCHES; m += 7) {
		struct cost_query f = q;
		struct cost_result rf;

		f.batches = m;
		CHECK(!cost_plan(&f, &batchy, 1, &rf));
		CHECK(rf.seconds >= r.seconds - 1e-9);
	}
	/* a batch costs as much as a boot and its noise is small: the fewest batches the
	 * outlier screening judges */
	q.boot_s = 1.0;
	q.batch_s = 1.0;
	CHECK(!cost_plan(&q, &sim, 1, &r));
	CHECK(r.batches == SCREEN_MIN_OUTLIER_N);
	/* given: any m, one included */
	q.batches = 1;
	CHECK(!cost_plan(&q, &sim, 1, &r));
	CHECK(r.batches == 1);
}

static void test_bad_input(void)
{
	struct cost_query q = query(0.01, 4);
	struct cost_row zero = { "z", 0.0, 1.0, 1.0 }, neg = { "n", 1.0, -1.0, 0.0 };
	struct cost_result r;

	CHECK(cost_plan(NULL, &sim, 1, &r) == -EINVAL);
	CHECK(cost_plan(&q, &sim, 0, &r) == -EINVAL);
	CHECK(cost_plan(&q, &zero, 1, &r) == -EINVAL);
	CHECK(cost_plan(&q, &neg, 1, &r) == -EINVAL);
	q.rows = 0;
	CHECK(cost_plan(&q, &sim, 1, &r) == -EINVAL);
	q = query(0, 4); /* neither an effect nor a margin */
	CHECK(cost_plan(&q, &sim, 1, &r) == -EINVAL);
	q = query(0.01, 4);
	q.alpha = 0.5;
	CHECK(cost_plan(&q, &sim, 1, &r) == -EINVAL);
	CHECK(isnan(cost_power(&q, &sim, 4, 5)));
}

int main(void)
{
	test_monotonic();
	test_noise_and_family();
	test_inverse_of_mde();
	test_undecidable_designs();
	test_same_margin();
	test_batches();
	test_bad_input();
	CHECK_DONE("test_cost");
}
