/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_REPORT_H
#define ABLAB_REPORT_H

#include "report/envdiff.h"
#include "stats/stats.h"
#include "store/store.h"
#include "variant.h"

#include <stdbool.h>
#include <stdio.h>

/* Bootstrap seed of every report (printed with the CI so a reader can redo it). */
#define REPORT_BOOTSTRAP_SEED 20260910ULL

/* One boot's figures for one scenario, over its batches (the boot is the unit). */
struct rep_boot {
	int64_t id;
	int seq;
	int variant; /* 0 control, 1 patched (a series: its last variant), 2 other */
	int vi; /* position in report.vs */
	size_t nbatch;
	double *batch; /* per-batch value: mean ns per iteration, or bytes lost */
	struct summary s; /* mean, median, min, max, sd over the batches */
	double mod_min, mod_max; /* the module's own per-iteration extremes (NAN: batch timing) */
	double raw_mean, base_mean; /* batch timing: per-iteration raw and baseline (else NAN) */
	size_t nleft; /* batches left out of the boot's mean (samples.excluded), not in batch */
};

/* One board x scenario: the unit of an A/B comparison. */
struct rep_row {
	int board; /* index into report.boards */
	char scenario[64], kind[16], op[16], state[8], timing[8];
	int64_t size, reps;
	struct rep_boot *boots;
	size_t nboots;
	/* boots whose timing mode is not the row's first boot's (timing): such a
	 * row is refused, never averaged (a campaign pins the mode: timing.h) */
	size_t mixed_timing;
	char other_timing[8];
	/* batches the screening rule left out of their boot's mean (stats-screen.h): how
	 * many of all the row's batches, the first one's reason, and the boots left with
	 * no batch at all (no mean: not among boots) */
	size_t nleft, nbatches_all, boots_nomean;
	char left_why[128];
	/* the board's latest A/A calibration of this scenario (`ablab calibrate`), preferring
	 * the same control kernel image: cal_campaign 0 when there is none */
	int64_t cal_campaign;
	double cal_mean, cal_vw, cal_vb;
	double mde; /* at this row's boots and batches (NAN: no calibration) */
	/* filled by report_analyse() */
	bool have_ab;
	struct ab_result ab; /* ab.rel_change, ci_lo, ci_hi: the HL estimate and CI below */
	/* exact Hodges-Lehmann shift and CIs, Cliff's delta, equivalence (stats_row) */
	bool have_sr;
	struct stats_row_result sr;
	double ci_conf; /* achieved confidence of [ab.ci_lo, ab.ci_hi] */
	double p_adj; /* Holm-adjusted over the campaign's timing rows (NAN: none) */
	/* sequential campaigns: the decision at the row's last look (seq < 0: fixed design) */
	int seq; /* enum seq_decision, or -1 */
	int seq_look; /* 1-based look, 0 if the row's boots match no look */
	/* different: adjusted p <= alpha, or a sequential boundary crossed; same: within
	 * +-margin */
	enum verdict verdict;
	bool few; /* undecided because no p these n allow is <= alpha */
	int design_ok; /* 1: design valid; else why not in design_why */
	char design_why[96];
	struct design_advice design; /* of the variant needing more boots */
	struct design_advice dv[2]; /* per variant */
	int dv_ok[2];
};

struct rep_board {
	char name[64], cpu[64], family[32];
	char *description;
	char *lava_jobs; /* ok boots run through LAVA: "SERVER#ID ..." in boot order, or "" */
	bool emulated;
	/* "icount_shift" of its board file: QEMU counts instructions, each 2^N ns of
	 * virtual time (-1: absent, the host's wall clock) */
	int icount_shift;
	char order[256]; /* "ABAB..." in boot order, A = control */
	size_t failed;
	size_t not_retried; /* failed attempts with no later attempt of their slot */
	char *not_retried_why; /* "slot N (variant) attempt A: reason; ...", or NULL */
	size_t partial; /* ok boots ingested with --partial (scenarios or lines missing) */
	/* boots whose transcript could not be fully written (a full disk): "boot 4 (control,
	 * BOARD): transcript incomplete: No space left on device (ENOSPC)", a line each;
	 * NULL: none */
	char *logs_incomplete;
	size_t nlogs_incomplete;
	/* its phase medians in this campaign (store_board_phases(): JSON text); NULL: no ok boot
	 * with phases */
	char *phases;
	double boot_s, run_s; /* mean boot-to-prompt and module-run seconds (NAN: unknown) */
	int64_t clock_res_ns; /* largest of the boots (-1: unknown) */
	/* campaign-level design: one (batches, boots) for every timing row of the board */
	bool design_ok;
	unsigned int d_batches, d_boots;
	double d_seconds; /* per kernel */
	int d_binding; /* row index that needs the most boots */
	/* what else differed between its ok boots besides the kernel under test (envdiff.h,
	 * boots without a fingerprint skipped), and the phrase every format shows with the
	 * board's rows: "environment changed between boots: ..." (NULL: nothing changed) */
	struct env_diff env;
	char *env_changed;
};

/* A series campaign: variant b against variant a on one row (a = 0: b vs control; a = b - 1:
 * what b adds to the variant before it, a patch's own increment). */
struct rep_cmp {
	size_t row; /* index into report.rows */
	int a, b; /* positions in report.vs */
	size_t na, nb;
	bool have; /* stats_row ran */
	double change, lo, hi, conf; /* Hodges-Lehmann b/a - 1, its interval (NAN: none) */
	double p, p_adj; /* exact Mann-Whitney p; Holm over every comparison's rows */
	enum verdict verdict; /* same: within the margin */
	int seq; /* sequential: enum seq_decision at the last look, or -1 */
};

struct report {
	int64_t campaign;
	/* the kernels compared in series order (control, patched for an A/B campaign); a
	 * series campaign (more, or other names: campaign_variants) is analysed per
	 * comparison below, its A/B table is control against the last variant */
	struct variant_set vs;
	char *vpatch[VARIANTS_MAX]; /* what each variant adds (NULL: not recorded) */
	bool series;
	struct rep_cmp *cmp;
	size_t ncmp, cmp_family; /* comparisons; how many the Holm family holds */
	char trigger[16], order_kind[16], status[16], created[40], job[128];
	int batches, boots_per_variant;
	int64_t order_seed;
	struct rep_board *boards;
	size_t nboards;
	struct rep_row *rows;
	size_t nrows;
	size_t ignored; /* boots with a variant not of the campaign's variants */
	double alpha, target, margin;
	size_t nfamily; /* timing rows in the Holm family */
	/* the series b4 took for the patched kernel (campaigns.job->'series'), else msgid "" */
	char series_msgid[256], series_subject[256];
	int series_version;
	char *series_patches; /* every patch's subject, ", " between them */
	/* the design could not decide and ran anyway (--undecidable-ok): why; else NULL */
	char *undecidable;
	/* sequential design of the campaign (campaigns.run->'sequential'), else budget 0 */
	struct {
		int first, budget; /* first look first+first boots, at most budget+budget */
		int boards; /* boards of the campaign (the Bonferroni factor) */
		double alpha, beta, margin;
		size_t nlooks, nrows_tested;
		/* "4+4:-1/0 5+5:1/2 ...": per look, different iff U <= u_diff or U >=
		 * n^2 - u_diff, same needs the interval of rank u_eq + 1 (-1: cannot) */
		char bounds[512];
		double fpr, fpr_se, same_err, p_diff, p_eq, row_alpha;
		/* power against a change of the margin at the last look (the A/A calibration's
		 * variances, stats_power() at p_diff): the lowest over the power_rows rows
		 * with a calibration; NAN when none has one */
		double power;
		size_t power_rows;
	} seq;
};

struct report_opts {
	double alpha; /* significance level, default 0.05 */
	double target; /* design: CI half-width as a fraction of the mean, default 0.01 */
	bool detail; /* text/csv: per-boot statistics */
	const char *only_scenario; /* analyse just this scenario's rows (NULL: all) */
	double margin; /* equivalence margin, a fraction; 0: the campaign's, else 0.01 */
	bool reply; /* email: headers of a reply to the series' first message */
};

/* Loads every successful boot of a campaign with its samples. -ENOENT: no such campaign. */
int report_load(struct store *st, int64_t campaign, struct report *rep);
/* A/B statistics, verdicts and design advice for every row. */
void report_analyse(struct report *rep, const struct report_opts *o);
/* Renders an analysed report: text, email, json, csv, svg, html. -EINVAL: unknown format. */
int report_write(const struct report *rep, const char *format, const struct report_opts *o,
		 FILE *out);
void report_free(struct report *rep);
/* Index of a row for board/scenario (board NULL: any), or -1. */
int report_find(const struct report *rep, const char *board, const char *scenario);

/* Sequential campaigns: 1 when every timing row of board is decided at the look its
 * boots reached, 0 when some row is open (why: the counts), -ENODATA without rows. */
int report_seq_board(struct store *st, int64_t campaign, const char *board, struct errtext *why);
/* load + analyse + write to stdout (alpha: the rest default). */
int report_campaign(struct store *st, int64_t campaign, const char *format, double alpha);
int report_campaign_opts(struct store *st, int64_t campaign, const char *format,
			 const struct report_opts *o);
/* The same to out (`ablab serve` answers with what the command prints). */
int report_campaign_to(struct store *st, int64_t campaign, const char *format,
		       const struct report_opts *o, FILE *out);
/* What changed in each board's environment since the previous night (campaign prev) besides
 * the kernel: its last boot with a fingerprint then against its first tonight (campaign
 * cid), a line "BOARD: environment changed since the previous night (...): WHAT" a change
 * (*lines malloc'd, NULL when none).  0, or -EIO. */
int report_env_since(struct store *st, int64_t prev, int64_t cid, char **lines);
/* text, email, json, csv, svg, html */
bool report_format_ok(const char *format);

/* The report formats (report.c): `ablab report --help`, its errors and nightly read this table. */
struct report_format {
	const char *name;
	void (*write)(const struct report *rep, const struct report_opts *o, FILE *f);
	const char *nightly_file; /* the file nightly writes it to (NULL: not written) */
	bool needs_rows; /* an empty report is an error (-ENOENT), not a document */
	const char *help; /* one line for --help */
};
extern const struct report_format report_formats[];
extern const size_t report_nformats;
/* The format called name, or NULL. */
const struct report_format *report_format_find(const char *name);
/* "text, email, json, csv, svg, html": the names for an error message; returns buf. */
char *report_format_names(char *buf, size_t len);

/* "353 ns", "1.208 us", "16.380 ms": units per value, as on the mailing list. */
void fmt_time(char *out, size_t len, double ns);
/* "+6.3%", "-0.009%": two significant digits, at least one decimal. */
void fmt_change(char *out, size_t len, double rel);
/* "[+5.1%, +7.4%]" from two changes; "-" when lo is NaN. */
void fmt_ci(char *out, size_t len, double lo, double hi);
/* "256 B dirty", "1 MiB clean map", "null call", "lost of 400 KiB": a row without its board */
/* The boot means of a row's boots of one variant: by its position in the campaign's
 * variants (by_position), else by its side of the A/B table (0 control, 1 the last
 * variant, 2 a series' middle variants).  Caller frees; *n is their number. */
double *report_boot_means(const struct rep_row *r, int var, bool by_position, size_t *n);
void report_row_label(const struct rep_row *r, char *out, size_t len);
/* The same prefixed with "CPU, family, " as in the seed's table. */
void report_row_label_full(const struct report *rep, const struct rep_row *r, char *out,
			   size_t len);
/* Wraps text at width columns (words never split); returns a malloc'd string. */
char *report_wrap(const char *text, size_t width, const char *indent);
/* Writes s (NULL: nothing) with &, <, >, " and ' escaped for XML/HTML; the report's
 * non-breaking marker becomes a space. */
void xml_escape(FILE *f, const char *s);

#endif
