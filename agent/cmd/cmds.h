/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CMDS_H
#define ABLAB_CMDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Subcommands: each lives in a cmd-*.c file (or, for a few, the file of its concept)
 * and is listed once, as a struct cmd, in the table in main.c.  They return the
 * process exit status (0 ok, 1 failure, 2 usage error).  The option parsers shared
 * by several commands are in cli.c. */
#include "campaign.h"
#include "shared/opt.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args, *help; /* for `ablab --help` */
};

/* opt_db (--db), parse_int_opt() and parse_alpha_opt(): shared/opt.h */

/* --margin PCT: a percentage in (0, 50); prints the error and returns -EINVAL */
int parse_margin_opt(const char *s, double *pct);

/* --order abab|abba|random; prints the error and returns -EINVAL */
int parse_order_opt(const char *s, enum order_kind *kind);

/* The design options that ab and bisect share: their getopt_long entries
 * (DESIGN_OPTIONS) and parse_design_opt() for their codes. */
enum design_opt {
	OPT_BOARD = 0x100,
	OPT_BUDGET,
	OPT_FIRST,
	OPT_MARGIN,
	OPT_BATCHES,
	OPT_ORDER,
	OPT_PARAMS,
	OPT_RESULTS,
	OPT_UNDECIDABLE_OK,
};
/* clang-format off */
#define DESIGN_OPTIONS \
	{ "board", 1, NULL, OPT_BOARD }, { "budget", 1, NULL, OPT_BUDGET }, \
	{ "first", 1, NULL, OPT_FIRST }, { "margin", 1, NULL, OPT_MARGIN }, \
	{ "batches", 1, NULL, OPT_BATCHES }, { "order", 1, NULL, OPT_ORDER }, \
	{ "params", 1, NULL, OPT_PARAMS }, { "results", 1, NULL, OPT_RESULTS }, \
	{ "undecidable-ok", 0, NULL, OPT_UNDECIDABLE_OK }
/* clang-format on */
struct design_opts {
	const char *board, *params, *results;
	int budget, first, batches; /* --budget, --first (2..24), --batches (1..1000) */
	bool first_set, undecidable_ok;
	bool rounds_only; /* --order random is refused as it is parsed (a sequential campaign) */
	double margin_pct;
	enum order_kind order;
};
/* Option c of DESIGN_OPTIONS with its argument into d: 0; 2: a bad value (said);
 * -ENOENT: c is not one of them. */
int parse_design_opt(int c, const char *arg, struct design_opts *d);

struct job;
struct job_run_opts;
struct store;

/* Job options (parse_job_opt()'s codes) remembered while parsing: applied once the job is
 * loaded; more than 16 are ignored. */
struct job_overrides {
	struct {
		int c;
		const char *arg;
	} v[16];
	size_t n;
};
void job_override_add(struct job_overrides *ov, int c, const char *arg);
/* JOB (a file or a name in $ABLAB_JOBS) loaded into j, o its run defaults with the overrides
 * applied, *mask the --boards selection (boards, or NULL: all).  0; 1: the job is invalid;
 * 2: an option is (said); j is freed when not 0. */
int cli_job_load(const char *name, struct job *j, struct job_run_opts *o,
		 const struct job_overrides *ov, const char *boards, bool **mask);

/* Before the first boot: can campaign s decide (campaign_plan_check(), need PLAN_NEED_*)?
 * 0: it can, or it cannot and ok (--undecidable-ok) lets it run: warned, s->undecidable =
 * why->msg; 2: refused, the design and the smallest one that can decide printed. */
struct campaign_spec;
struct errtext;
int cli_plan(struct campaign_spec *s, unsigned int need, bool ok, struct errtext *why);

/* The CAMPAIGN argument (arg, or NULL: the latest campaign) with the database opened in st:
 * 0; 2: a bad argument (said); 1: no database or no campaign (said, st closed). */
int cli_campaign_arg(const char *arg, struct store *st, int64_t *id);

int cmd_ab(int argc, char **argv); /* cmd-ab.c */
int cmd_report(int argc, char **argv); /* cmd-report.c */
int cmd_db(int argc, char **argv); /* cmd-db.c */
/* cmd-board.c */
int cmd_check_board(int argc, char **argv);
int cmd_boards(int argc, char **argv);
int cmd_power(int argc, char **argv);
int cmd_console(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_ports(int argc, char **argv);
int cmd_resume(int argc, char **argv); /* cmd-resume.c */
int cmd_spool(int argc, char **argv); /* cmd-spool.c */
int cmd_run(int argc, char **argv); /* cmd-run.c */
int cmd_nightly(int argc, char **argv); /* nightly.c */
int cmd_lava(int argc, char **argv); /* cmd-lava.c */
int cmd_bisect(int argc, char **argv); /* cmd-bisect.c */
int cmd_ingest(int argc, char **argv); /* cmd-ingest.c */
int cmd_query(int argc, char **argv); /* query.c */
int cmd_campaigns(int argc, char **argv); /* query.c */
int cmd_compare(int argc, char **argv); /* query.c */
int cmd_trend(int argc, char **argv); /* query.c */
int cmd_attempts(int argc, char **argv); /* cmd-attempts.c */
int cmd_calibrate(int argc, char **argv); /* cmd-calibrate.c */
int cmd_serve(int argc, char **argv); /* cmd-serve.c */
int cmd_patchwork(int argc, char **argv); /* cmd-patchwork.c */

/* The same commands writing to out instead of stdout: `ablab serve` answers its API with
 * what they print.  Not reentrant (getopt): reset optind to 0 before each call. */
#include "report/query.h" /* cmd_query_to, cmd_campaigns_to, cmd_trend_to */
#include "web/web.h" /* cmd_boards_to */

#endif
