/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CAMPAIGN_H
#define ABLAB_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "variant.h"

struct store;

struct bench_def;
struct runner;

enum order_kind { ORDER_ABAB, ORDER_ABBA, ORDER_RANDOM, ORDER_WILLIAMS };

/* Fills v[0..NVARIANTS*n-1] with variants (variant.h): n of each. */
int campaign_order(enum order_kind kind, int n, uint64_t seed, int *v);
/* The same for nv variants (2..VARIANTS_MAX): v[0..nv*n-1].  Two variants are
 * ordered exactly as campaign_order() orders them.  More are booted in rounds
 * of one boot of each: abab repeats 0 1 .. nv-1, abba reverses every second
 * round, williams takes the rows of a Williams design in turn (each variant
 * follows every other equally often after nv rounds, 2 nv for an odd nv),
 * random is a seeded permutation per round. */
int campaign_order_n(enum order_kind kind, int nv, int n, uint64_t seed, int *v);
int order_parse(const char *s, enum order_kind *kind);
const char *order_name(enum order_kind kind);

/* One board of a campaign and its two kernels (NULL: the board's default
 * build from `make kernels`). */
struct campaign_board {
	const char *board; /* name (boards/NAME.json) or path */
	const char *control_dir, *patched_dir;
	const char *const *dirs; /* a series campaign: [variants->n]; NULL: the two above */
};

struct campaign_spec {
	const struct campaign_board *boards;
	size_t nboards;
	int boots, batches; /* boots per variant, batches per scenario per boot */
	enum order_kind order;
	uint64_t seed;
	const char *modparams; /* extra dmabench parameters */
	const struct bench_def *bench; /* what runs on the target; NULL: dmabench */
	/* the kernels compared, in series order ([0] the control); NULL: control,
	 * patched.  patch[v]: what variant v adds to v - 1 (stored, named by the
	 * report; NULL entries or NULL: nothing said) */
	const struct variant_set *variants;
	const char *const *patch;
	const char *trigger; /* cli (default), nightly, lava */
	const char *job_name; /* for nightly jobs; NULL for ad-hoc campaigns */
	const char *job_json; /* the job definition to store; NULL: generated */
	const char *db;
	const char *results; /* transcripts go to RESULTS/campaign-N */
	const char *format; /* report printed at the end; NULL: none */
	const struct runner *runner; /* what runs each attempt; NULL: boots here (runner.h) */
	int64_t resume_id; /* continue this campaign after its last stored boot */
	/* sequential design: boots > 0 is then the budget per variant; after each round
	 * (one boot of each variant) from first+first on, a board stops as soon as
	 * every timing row of every comparison is decided (report_seq_board) */
	int first; /* 0: fixed design of boots per variant */
	double alpha, beta; /* overall false-alarm rate, "same" error */
	double margin_pct; /* equivalence margin (0: 1 %) */
	/* the design could not decide and ran anyway (--undecidable-ok): why, stored in the
	 * run record as "undecidable" and stated by the report; NULL: it can decide */
	const char *undecidable;
	/* called once the campaign is stored and before its first boot, in the calling
	 * thread, with its id (not on resume); whatever it does cannot fail the campaign.
	 * NULL: nothing (the command layer posts patchwork's pending checks with it) */
	void (*started)(int64_t id, void *arg);
	void *started_arg;
	/* called once the boards and kernels are loaded and checked and the database is
	 * open (st: the campaign's connection, to read), before anything of the campaign is
	 * stored (new campaigns and resumed ones); NULL: nothing (the commands print each
	 * board's plan with it) */
	void (*loaded)(void *arg, struct store *st);
	void *loaded_arg;
};

/* Runs one A/B campaign over every board at once (a thread per board, each
 * with its own database connection).  The one campaign engine: it orders the
 * slots, numbers and retries the attempts (the runner runs them), stores
 * every attempt or spools it when the database is away, resumes
 * (resume_id), stops a board on a fatal error, after its retries or when a
 * sequential campaign is decided.  A board that fails stops only its own
 * part.  Returns 0 when every board completed, else -errno after printing
 * why; *id (if not NULL) gets the campaign id (0 if none was created). */
int campaign_run(const struct campaign_spec *s, int64_t *id);

/* Before the first boot (campaign-plan.c): can the design decide?  need: what every timing
 * row must be able to end with (an A/B campaign: "different"; an A/A calibration: "same"). */
#define PLAN_NEED_DIFF 1u
#define PLAN_NEED_SAME 2u
struct errtext;
struct plan_design;
/* The timing rows of a benchmark: dmabench's scenarios (its scenarios= parameter in
 * modparams, else its 3 defaults; not the null baseline nor the preservation check);
 * another benchmark's are not known before it runs: 1, *known = false. */
size_t campaign_timing_rows(const struct bench_def *bd, const char *modparams, bool *known);
/* The design a report will test s's rows with: boards x timing rows x comparisons. */
void campaign_plan_design(const struct campaign_spec *s, struct plan_design *p, bool *known);
/* 0 when every row can end as need asks; else -EDOM and why says the design, the reason and
 * the smallest boots (or budget) that can end each way. */
int campaign_plan_check(const struct campaign_spec *s, unsigned int need, struct errtext *why);

#endif
