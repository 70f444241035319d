// SPDX-License-Identifier: GPL-2.0-only
/* `ablab query`, `ablab campaigns`: the results database for people (`ablab compare`:
 * cmd-compare.c, `ablab trend`: trend.c); their SQL is store-query.c's. */
#include "report/query.h"
#include "shared/opt.h"
#include "store/store-query.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ tables */

/* Prints a result: table (aligned), csv (RFC 4180) or json (array of objects; columns
 * flagged numeric become numbers, NULL becomes null). */
static void print_cols(const struct store_rows *r, int nc, const char *const *names,
		       const bool *numeric, const char *format, FILE *out)
{
	int nr = (int)r->nrows;

	if (!strcmp(format, "json")) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < nr; i++) {
			json_object *o = json_object_new_object();

			for (int c = 0; c < nc; c++) {
				const char *v = store_cell(r, (size_t)i, (size_t)c);
				json_object *jv = NULL;

				if (v)
					jv = numeric[c] ? (strchr(v, '.') || strchr(v, 'e') ?
								   json_object_new_double(
									   strtod(v, NULL)) :
								   json_object_new_int64(
									   strtoll(v, NULL, 10))) :
							  json_object_new_string(v);
				json_object_object_add(o, names[c], jv);
			}
			json_object_array_add(a, o);
		}
		fprintf(out, "%s\n",
			json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_SPACED));
		json_object_put(a);
	} else if (!strcmp(format, "csv")) {
		for (int i = -1; i < nr; i++) {
			for (int c = 0; c < nc; c++) {
				csv_cell(out, i < 0 ? names[c] : store_text(r, i, c));
				fputc(c + 1 < nc ? ',' : '\n', out);
			}
		}
	} else {
		size_t *w = xcalloc((size_t)nc, sizeof(*w));

		for (int c = 0; c < nc; c++) {
			w[c] = strlen(names[c]);
			for (int i = 0; i < nr; i++)
				if (strlen(store_text(r, i, c)) > w[c])
					w[c] = strlen(store_text(r, i, c));
		}
		for (int i = -1; i < nr; i++) {
			for (int c = 0; c < nc; c++) {
				const char *v = i < 0 ? names[c] : store_text(r, i, c);

				if (i >= 0 && !store_cell(r, (size_t)i, (size_t)c))
					v = "-";

				fprintf(out, numeric[c] ? "%*s%s" : "%-*s%s", (int)w[c], v,
					c + 1 < nc ? "  " : "\n");
			}
		}
		if (!nr)
			fprintf(out, "(no rows)\n");
		free(w);
	}
}

static bool format_ok(const char *f, const char *what)
{
	if (!strcmp(f, "table") || !strcmp(f, "json") || !strcmp(f, "csv"))
		return true;
	err_msg("%s: --format \"%s\" is not one of table, json, csv", what, f);
	return false;
}

/* ------------------------------------------------------------------ query */

int query_parse_when(const char *s, char *out, unsigned long len, int *date_only)
{
	static const char *const fmts[] = { "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
					    "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d" };
	char *end;
	long n;

	*date_only = 0;
	n = strtol(s, &end, 10);
	if (end != s && n >= 0 && n < 100000 && end[0] && !end[1] && strchr("hdw", end[0])) {
		snprintf(out, len, "%ld %s", n,
			 end[0] == 'h' ? "hours" :
			 end[0] == 'd' ? "days" :
					 "weeks");
		return 1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fmts); i++) {
		struct tm tm = { 0 };
		const char *e = strptime(s, fmts[i], &tm);

		if (e && !*e && tm.tm_mon >= 0 && tm.tm_mday >= 1) {
			snprintf(out, len, "%s", s);
			*date_only = i == ARRAY_SIZE(fmts) - 1;
			return 0;
		}
	}
	return -EINVAL;
}

static void query_usage(FILE *f)
{
	fprintf(f,
		"usage: ablab query [--board B] [--scenario S] [--variant L] [--kernel RELEASE]\n"
		"                   [--campaign N] [--since WHEN] [--until WHEN]\n"
		"                   [--trigger cli|nightly|lava|ingest] [--format table|json|csv]\n"
		"                   [--limit N] [--offset N]\n"
		"One row per successful boot and scenario: its mean, min and max over the\n"
		"batches kept in its mean (ns; bytes lost for the preservation check; a\n"
		"batch left out as an artefact: docs/STATISTICS.md).  WHEN is a date\n"
		"(YYYY-MM-DD, inclusive for --until; or YYYY-MM-DD HH:MM[:SS]) or an age\n"
		"(30d, 12h, 2w).  Times are the boots' start times.  A boot run through\n"
		"LAVA names its job as SERVER#ID (lava_job): an id alone is not unique.\n"
		"--limit and --offset page the rows (at most N, after skipping N).\n");
}

static const char *const triggers[] = { "cli", "nightly", "lava", "ingest" };

static bool trigger_ok(const char *t)
{
	for (size_t i = 0; i < ARRAY_SIZE(triggers); i++)
		if (!strcmp(t, triggers[i]))
			return true;
	err_msg("--trigger: \"%s\" is not one of cli, nightly, lava, ingest", t);
	return false;
}

/* Runs the query (made by fn from arg) against the results database and prints it. */
static int run_and_print(int (*fn)(struct store *, const void *, struct store_rows *),
			 const void *arg, const char *const *names, const bool *numeric,
			 const char *format, FILE *out, bool drop_empty_last)
{
	struct store_rows r;
	struct store st;
	int ret = 0, nc;
	size_t i;

	if (store_open(&st, opt_db))
		return 1;
	if (!fn(&st, arg, &r)) {
		nc = (int)r.ncols;
		/* `query`: its last column (a series campaign's variant position) only when a
		 * row has one, so that the rows of A/B campaigns read as they always have */
		for (i = 0; drop_empty_last && i < r.nrows && !store_cell(&r, i, r.ncols - 1); i++)
			;
		print_cols(&r, drop_empty_last && i == r.nrows ? nc - 1 : nc, names, numeric,
			   format, out);
		store_rows_free(&r);
	} else {
		ret = 1;
	}
	store_close(&st);
	return ret;
}

static int samples_of(struct store *st, const void *f, struct store_rows *r)
{
	return store_query_samples(st, f, r);
}

struct campaigns_arg {
	const char *trigger, *job, *limit;
};

static int campaigns_of(struct store *st, const void *arg, struct store_rows *r)
{
	const struct campaigns_arg *a = arg;

	return store_query_campaigns(st, a->trigger, a->job, a->limit, r);
}

/* `ablab query`'s options */
struct query_opts {
	const char *format, *board, *scen, *var, *kern, *since, *until, *trig;
	char camp[32], limit[16], offset[16]; /* "" when not given */
};

/* argv into o: -1 to go on, else the command's exit status (--help, a usage error) */
static int query_parse(struct query_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "board", 1, NULL, 'b' },    { "scenario", 1, NULL, 's' },
		{ "variant", 1, NULL, 'v' },  { "kernel", 1, NULL, 'k' },
		{ "campaign", 1, NULL, 'c' }, { "since", 1, NULL, 'S' },
		{ "until", 1, NULL, 'U' },    { "trigger", 1, NULL, 't' },
		{ "format", 1, NULL, 'f' },   { "help", 0, NULL, 'h' },
		{ "limit", 1, NULL, 'l' },    { "offset", 1, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	int c;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->board = optarg;
			break;
		case 's':
			o->scen = optarg;
			break;
		case 'v':
			o->var = optarg;
			break;
		case 'k':
			o->kern = optarg;
			break;
		case 'c':
			if (parse_int_opt("--campaign", optarg, 1, 0x7fffffffL, &v))
				return 2;
			snprintf(o->camp, sizeof(o->camp), "%ld", v);
			break;
		case 'l':
			if (parse_int_opt("--limit", optarg, 1, 0x7fffffffL, &v))
				return 2;
			snprintf(o->limit, sizeof(o->limit), "%ld", v);
			break;
		case 'o':
			if (parse_int_opt("--offset", optarg, 0, 0x7fffffffL, &v))
				return 2;
			snprintf(o->offset, sizeof(o->offset), "%ld", v);
			break;
		case 'S':
			o->since = optarg;
			break;
		case 'U':
			o->until = optarg;
			break;
		case 't':
			o->trig = optarg;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'h':
			query_usage(stdout);
			return 0;
		default:
			query_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		err_msg("query: unexpected argument \"%s\" (filters are options: see --help)",
			argv[optind]);
		return 2;
	}
	if (!format_ok(o->format, "query") || (o->trig && !trigger_ok(o->trig)))
		return 2;
	return -1;
}

int cmd_query_to(FILE *out, int argc, char **argv)
{
	static const char *const names[] = { "campaign", "trigger", "started",	"board",
					     "variant",	 "kernel",  "boot",	"seq",
					     "scenario", "batches", "mean",	"min",
					     "max",	 "unit",    "lava_job", "position" };
	static const bool numeric[] = { 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1 };
	struct query_opts o = { .format = "table" };
	char sincev[64], untilv[64];
	struct store_query_filter f;
	int s_age = 0, u_age = 0, s_d, u_d = 0, ret = query_parse(&o, argc, argv);

	if (ret >= 0)
		return ret;
	if (o.since && (s_age = query_parse_when(o.since, sincev, sizeof(sincev), &s_d)) < 0) {
		err_msg("--since: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, 12h, 2w)",
			o.since);
		return 2;
	}
	if (o.until && (u_age = query_parse_when(o.until, untilv, sizeof(untilv), &u_d)) < 0) {
		err_msg("--until: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, 12h, 2w)",
			o.until);
		return 2;
	}
	f = (struct store_query_filter){ .board = o.board,
					 .scenario = o.scen,
					 .variant = o.var,
					 .kernel = o.kern,
					 .trigger = o.trig,
					 .campaign = o.camp[0] ? o.camp : NULL,
					 .since = o.since ? sincev : NULL,
					 .until = o.until ? untilv : NULL,
					 .since_age = s_age,
					 .until_age = u_age,
					 .until_date = u_d,
					 .limit = o.limit[0] ? o.limit : NULL,
					 .offset = o.offset[0] ? o.offset : NULL };
	return run_and_print(samples_of, &f, names, numeric, o.format, out, true);
}

/* ------------------------------------------------------------------ campaigns */

int cmd_campaigns_to(FILE *out, int argc, char **argv)
{
	static const struct option lo[] = { { "trigger", 1, NULL, 't' }, { "job", 1, NULL, 'j' },
					    { "limit", 1, NULL, 'l' },	 { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },	 { NULL, 0, NULL, 0 } };
	static const char *const names[] = { "id",	"created", "trigger", "job",
					     "status",	"order",   "batches", "boards",
					     "control", "patched", "failed",  "scenarios" };
	static const bool numeric[] = { 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1 };
	const char *format = "table", *trig = NULL, *job = NULL;
	char limit[16] = "50";
	struct campaigns_arg a;
	int c;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't':
			trig = optarg;
			break;
		case 'j':
			job = optarg;
			break;
		case 'l':
			if (parse_int_opt("--limit", optarg, 1, 1000000, &v))
				return 2;
			snprintf(limit, sizeof(limit), "%ld", v);
			break;
		case 'f':
			format = optarg;
			break;
		case 'h':
			printf("usage: ablab campaigns [--trigger T] [--job NAME] [--limit N] [--format table|json|csv]\n"
			       "Campaigns, newest first, with their boards and successful boots per kernel (\"patched\": every variant but control, so a series campaign's +1, +1-2, ... together).  Status: running, complete, failed, interrupted, or stale (running, but its agent died: `ablab resume ID` continues it).\n");
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc) {
		err_msg("campaigns: unexpected argument \"%s\"", argv[optind]);
		return 2;
	}
	if (!format_ok(format, "campaigns") || (trig && !trigger_ok(trig)))
		return 2;
	a = (struct campaigns_arg){ .trigger = trig, .job = job, .limit = limit };
	return run_and_print(campaigns_of, &a, names, numeric, format, out, false);
}

int cmd_query(int argc, char **argv)
{
	return cmd_query_to(stdout, argc, argv);
}

int cmd_campaigns(int argc, char **argv)
{
	return cmd_campaigns_to(stdout, argc, argv);
}
