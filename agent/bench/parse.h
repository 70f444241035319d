/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_PARSE_H
#define ABLAB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct errtext; /* util.h */

/* One measurement line of the benchmark module: a `result` (timing) or a
 * `preserve` (lost bytes) line, in dmabench's v1 format or the seed module's. */
enum sample_kind { SAMPLE_RESULT = 1, SAMPLE_PRESERVE = 2 };

struct sample {
	enum sample_kind kind;
	int fmt; /* 0: seed module line, 1: dmabench v1 */
	char scenario[64];
	int batch; /* 1-based */
	int64_t size, reps;
	char dir[8], op[16], state[8], timing[8];
	double mean_ns;
	int64_t min_ns, max_ns; /* -1 when not measured (batch timing) */
	int64_t raw_ns, base_ns; /* batch timing only, else -1 */
	double ns_per_kib;
	int64_t lost; /* preserve only, else -1 */
};

/* The one rule for a scenario name, wherever one comes from (a dmabench or module line, a regex
 * benchmark's scenario group, the scenario of a line ingest rejected): 1..63 (it fits
 * struct sample's scenario) letters, digits or ._:+/- (docs/OWN-BENCHMARK.md). */
bool scenario_name_ok(const char *s, size_t len);

/* The parser's rule for a timing sample's min/mean/max (min <= mean <= max
 * where min and max were measured; a baseline-subtracted batch mean has
 * neither and may be negative): shared with the spool loader. */
bool sample_minmax_ok(const struct sample *s);

enum line_kind {
	LINE_NONE = 0, /* not a dmabench line */
	LINE_START,
	LINE_SAMPLE,
	LINE_DONE,
	LINE_OTHER, /* a dmabench line with no data (seed START/DONE) */
};

/* an error text of the parser: why a line is malformed, a LINE_DONE error= */
#define PARSE_ERROR_LEN 96

struct line_info {
	enum line_kind kind;
	struct sample s;
	int64_t clock_res_ns;
	int done_status; /* LINE_DONE */
	char error[PARSE_ERROR_LEN]; /* LINE_DONE error=, or why a line is malformed */
};

/* Parses one console line (prefixes such as "[   1.23] " or "<6>" and
 * trailing CR tolerated).  Returns the kind, or -EINVAL for a dmabench line
 * whose values do not parse (li->error says which). */
int parse_line(const char *line, struct line_info *li);

/* A refused line is quoted in first_error cut to PARSE_EXCERPT bytes. */
#define PARSE_EXCERPT 100

/* A benchmark line the parser refused: where and why (`ablab ingest` names each). */
struct rejected_line {
	int lineno; /* 1-based, as grep -n counts them (a line ends at \n) */
	char error[PARSE_ERROR_LEN];
	char text[112]; /* the line, cut to fit */
};

/* the runs of a log whose starts run_result keeps */
#define PARSE_RUNS_MAX 16

/* All dmabench output of one boot. */
struct run_result {
	struct sample *v;
	size_t n, cap;
	bool have_start, have_done;
	int done_status;
	char done_error[PARSE_ERROR_LEN];
	int64_t clock_res_ns;
	int malformed; /* number of malformed dmabench lines */
	/* the first malformed line: its error, then `: "` the line's first PARSE_EXCERPT bytes `"` */
	char first_error[PARSE_ERROR_LEN + PARSE_EXCERPT + 4];
	int fmt;
	struct rejected_line *rejected; /* the malformed lines, in log order */
	int duplicates; /* timestamped lines seen before, skipped (printk + dmesg) */
	int nul_lines, nul_line; /* dmabench lines with a NUL dropped inside; the first's line */
	/*
	 * The runs of the log: where each starts, as a 1-based line number and the byte
	 * offset of that line (the first PARSE_RUNS_MAX).  A run starts at a kernel's
	 * "Linux version" line, or at a benchmark start line (v1 start, seed START) when
	 * none came before it or its boot already had one.  A timestamped line seen before
	 * (a dmesg typed afterwards) starts nothing.  More than one: several boots (or
	 * module loads) in one capture; `ablab ingest` refuses or splits such a file.
	 */
	int runs;
	int run_line[PARSE_RUNS_MAX];
	size_t run_off[PARSE_RUNS_MAX];
};

/* Parses a whole log (any line endings, NULs ignored).  A v1 `start` line
 * resets what came before it (a module loaded twice).  Seed-format lines get
 * batch numbers in order of appearance per scenario.  A dmabench line with a
 * printk timestamp ("[   41.22] dmabench: ...") seen before with the same
 * timestamp and text is the same kernel message printed twice (the console's
 * printk output and a `dmesg` typed afterwards): it counts once. */
void parse_log(const char *text, size_t len, struct run_result *r);
/* 0 when the run is complete and clean (why untouched); else -EINVAL (-EIO: the module's
 * status) with the reason in why. */
int run_check(const struct run_result *r, struct errtext *why);
/* qsort() of struct sample pointers by scenario, then batch (0: the same batch). */
int sample_cmp_batch(const void *a, const void *b);
/* Appends a copy of s to r (grows r->v). */
void run_result_add(struct run_result *r, const struct sample *s);
void run_result_free(struct run_result *r);

#endif
