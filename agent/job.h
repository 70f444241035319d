/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_JOB_H
#define ABLAB_JOB_H

#include "bench/bench.h"
#include "campaign.h"
#include "shared/jsonfile.h"
#include "series.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A job file (jobs/NAME.json, documented in jobs/README.md): boards, the two
 * kernel variants, the benchmark, the campaign design, nightly or not. */

enum job_source { SRC_RECIPE, SRC_PREBUILT, SRC_GIT };

struct job_variant {
	enum job_source kind;
	char *prebuilt; /* SRC_PREBUILT: directory, "{board}" expanded */
	char *git_tree; /* SRC_GIT: absolute path of the git tree */
	const char *git_ref; /* SRC_GIT: the ref to build (points into jf) */
	char *patches; /* SRC_RECIPE patched: absolute patch series directory */
	struct series series; /* "patches": {"mbox", "msgid"}: the series b4 took (dir: patches) */
	char *mbox; /* its mailbox, absolute; NULL for a patch directory */
	int npatches; /* "series": "prefixes": the first npatches of patches (0: all) */
	char *adds; /* a series prefix: the patch (file) it adds to the one before */
};

struct job {
	struct jfile jf;
	char *name; /* "name", else the file name without .json */
	char **boards; /* NULL-terminated */
	size_t nboards;
	struct job_variant v[VARIANTS_MAX]; /* [0] control, [1] patched, or the series */
	struct variant_set vs; /* their labels, in the same order */
	bool series; /* "series": "prefixes": v[k] = control + patches 1..k */
	const char *benchmark; /* "dmabench", "regex", "dma_map_benchmark", "module" */
	struct bench_def bench; /* its definition (bench.h) */
	const char *params; /* extra module parameters, or NULL */
	int boots, batches; /* boots 0: not given (job_run_defaults(): the fewest that decide) */
	int budget, first; /* sequential design ("budget", "first"), 0: fixed */
	double margin_pct; /* equivalence margin in % ("margin_pct", default 1) */
	enum order_kind order;
	uint64_t seed;
	bool nightly;
	bool bisect; /* nightly: `ablab bisect` a change between two nights' git commits */
	double threshold; /* nightly: relative change that matters (0.05 = 5%) */
	double alpha; /* significance level of the nightly comparison */
	json_object *lava; /* "lava" section (validated), or NULL */
	/* "patchwork": the campaign posts its checks itself (patchwork.h, pw_auto) */
	const char *pw_url, *pw_web_url; /* point into jf; NULL: not configured */
	char *pw_token_file; /* absolute */
	bool pw_insecure;
};

/* Loads and validates PATH.  Every problem is printed as
 * "file:line:col: key.path: message" and -EINVAL returned. */
/* "control", "patched": index 0 and 1 of job.v[] */

int job_load(struct job *j, const char *path);
void job_free(struct job *j);
/* The job as stored with its campaign (the file's text, re-serialised). */
char *job_json(const struct job *j);

/* How a variant's kernel of one board is obtained. */
struct job_kernel {
	char *dir; /* the artefact directory (with manifest.json), or NULL */
	char *state; /* "cached", "built", "prebuilt", "would build: <why>" */
};

/* Resolves (and with build, builds through the board's recipe script) the
 * kernel of BOARD for variant v (an index into j->v).  With build == false nothing is run: state
 * says whether a build would be needed and why.  0 or -errno (printed). */
int job_kernel(const struct job *j, const char *board, int v, bool build, struct job_kernel *out);
void job_kernel_free(struct job_kernel *k);

/* The boards directory used for board names (ABLAB_BOARDS or ./boards). */
char *job_board_path(const char *board);
/* 0 if the job's board i has a board file, else -ENOENT with a job error naming it. */
int job_board_check(const struct job *j, size_t i);

/* One run of a job (`ablab run`, `ablab nightly`, `ablab lava`). */
struct job_run_opts {
	const bool *boards; /* [nboards]: which of the job's boards; NULL: all */
	int boots, batches;
	int budget, first; /* sequential: boots per variant at most, first look */
	double margin_pct;
	enum order_kind order;
	uint64_t seed;
	const char *params;
	const char *trigger; /* cli, nightly, lava */
	const char *db, *results, *format;
	bool dry_run; /* print boards and kernels (cached / would build) */
	const struct runner *runner; /* what runs the boots; NULL: here (runner.h) */
	bool undecidable_ok; /* run a design that cannot decide (the report says so) */
	/* post patchwork checks: pending at the start, the verdict at the end (NULL url:
	 * none); the job's "patchwork", --patchwork-url ... */
	const char *pw_url, *pw_token_file, *pw_web_url;
	bool pw_insecure;
	/* the campaign's loaded hook (campaign_spec.loaded) */
	void (*loaded)(void *arg, struct store *st);
	void *loaded_arg;
};
/* Fills the run options from the job's own values. */
void job_run_defaults(const struct job *j, struct job_run_opts *o);
/* Can the campaign job_run() would run decide (campaign_plan_check(), every row able to end
 * "different")?  0, or -EDOM with why filled; the design in *p (may be NULL). */
struct errtext;
struct plan_design;
int job_plan(const struct job *j, const struct job_run_opts *o, struct plan_design *p,
	     struct errtext *why);
/* Resolves (builds) every selected board's kernels, then runs one campaign
 * over them all at once.  A missing board file is an error naming it. */
int job_run(const struct job *j, const struct job_run_opts *o, int64_t *cid);

/* JOB name -> $ABLAB_JOBS/NAME.json (default ./jobs); a path stays a path. */
char *job_path(const char *name);
/* "--boards a,b" -> a mask over j->boards (caller frees); -EINVAL if unknown. */
int job_select_boards(const struct job *j, const char *list, bool **mask);
/* The shared campaign overrides: getopt codes n (boots), m (batches),
 * o (order), s (seed), P (params).  0, -EINVAL (printed), -ENOENT (not one). */
int parse_job_opt(int c, const char *arg, struct job_run_opts *o);

/* Prints "file:line:col: jpath: message" for a semantic problem, locating
 * jpath ("variants.patched.patches") key by key in the file's text. */
void job_error(const struct job *j, const char *jpath, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
