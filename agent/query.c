// SPDX-License-Identifier: GPL-2.0-only
/* `ablab query`, `ablab campaigns`: the results database for people (`ablab compare`:
 * cmd-compare.c, `ablab trend`: cmd-trend.c).  Only parameterised SQL: a filter value is
 * always a $n parameter. */
#include "query.h"
#include "cmds.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_PARAMS 16

/* ------------------------------------------------------------------ tables */

/* Prints a result: table (aligned), csv (RFC 4180) or json (array of objects; columns
 * flagged numeric become numbers, NULL becomes null). */
static void print_cols(PGresult *r, int nc, const char *const *names, const bool *numeric,
		       const char *format, FILE *out)
{
	int nr = PQntuples(r);

	if (!strcmp(format, "json")) {
		json_object *a = json_object_new_array();

		for (int i = 0; i < nr; i++) {
			json_object *o = json_object_new_object();

			for (int c = 0; c < nc; c++) {
				const char *v = PQgetvalue(r, i, c);
				json_object *jv = NULL;

				if (!PQgetisnull(r, i, c))
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
				const char *v = i < 0 ? names[c] : PQgetvalue(r, i, c);

				if (strpbrk(v, ",\"\n\r")) {
					fputc('"', out);
					for (; *v; v++) {
						if (*v == '"')
							fputc('"', out);
						fputc(*v, out);
					}
					fputc('"', out);
				} else {
					fputs(v, out);
				}
				fputc(c + 1 < nc ? ',' : '\n', out);
			}
		}
	} else {
		size_t *w = xcalloc((size_t)nc, sizeof(*w));

		for (int c = 0; c < nc; c++) {
			w[c] = strlen(names[c]);
			for (int i = 0; i < nr; i++)
				if (strlen(PQgetvalue(r, i, c)) > w[c])
					w[c] = strlen(PQgetvalue(r, i, c));
		}
		for (int i = -1; i < nr; i++) {
			for (int c = 0; c < nc; c++) {
				const char *v = i < 0		     ? names[c] :
						PQgetisnull(r, i, c) ? "-" :
								       PQgetvalue(r, i, c);

				fprintf(out, numeric[c] ? "%*s%s" : "%-*s%s", (int)w[c], v,
					c + 1 < nc ? "  " : "\n");
			}
		}
		if (!nr)
			fprintf(out, "(no rows)\n");
		free(w);
	}
}

static void print_result(PGresult *r, const char *const *names, const bool *numeric,
			 const char *format, FILE *out)
{
	print_cols(r, PQnfields(r), names, numeric, format, out);
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
		"One row per successful boot and scenario: its mean, min and max over the\n"
		"batches (ns; bytes lost for the preservation check).  WHEN is a date\n"
		"(YYYY-MM-DD, inclusive for --until; or YYYY-MM-DD HH:MM[:SS]) or an age\n"
		"(30d, 12h, 2w).  Times are the boots' start times.  A boot run through\n"
		"LAVA names its job as SERVER#ID (lava_job): an id alone is not unique.\n");
}

/* " AND expr" with the value as the next parameter; expr holds one "$%d" */
static void add_filter(struct buf *sql, const char **params, int *np, const char *val,
		       const char *expr)
{
	if (!val || *np >= MAX_PARAMS)
		return;
	params[(*np)++] = val;
	buf_append(sql, " AND ", 5);
	buf_printf(sql, expr, *np);
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

/* Runs the built query against the results database and prints it; frees sql. */
static int run_and_print(struct buf *sql, int np, const char *const *params,
			 const char *const *names, const bool *numeric, const char *format,
			 FILE *out)
{
	struct store st;
	PGresult *r;
	int ret = 0;

	if (store_open(&st, opt_db)) {
		buf_free(sql);
		return 1;
	}
	r = store_query(&st, sql->data, np, params);
	if (r) {
		print_result(r, names, numeric, format, out);
		PQclear(r);
	} else {
		ret = 1;
	}
	buf_free(sql);
	store_close(&st);
	return ret;
}

/* `query`: its last column (a series campaign's variant position) only when a row has one,
 * so that the rows of A/B campaigns read as they always have. */
static int run_query(struct buf *sql, int np, const char *const *params, const char *const *names,
		     const bool *numeric, const char *format, FILE *out)
{
	struct store st;
	PGresult *r;
	int ret = 0, nc, i;

	if (store_open(&st, opt_db)) {
		buf_free(sql);
		return 1;
	}
	r = store_query(&st, sql->data, np, params);
	if (r) {
		nc = PQnfields(r);
		for (i = 0; i < PQntuples(r) && PQgetisnull(r, i, nc - 1); i++)
			;
		print_cols(r, i < PQntuples(r) ? nc : nc - 1, names, numeric, format, out);
		PQclear(r);
	} else {
		ret = 1;
	}
	buf_free(sql);
	store_close(&st);
	return ret;
}

int cmd_query_to(FILE *out, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "board", 1, NULL, 'b' },    { "scenario", 1, NULL, 's' },
		{ "variant", 1, NULL, 'v' },  { "kernel", 1, NULL, 'k' },
		{ "campaign", 1, NULL, 'c' }, { "since", 1, NULL, 'S' },
		{ "until", 1, NULL, 'U' },    { "trigger", 1, NULL, 't' },
		{ "format", 1, NULL, 'f' },   { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const names[] = { "campaign", "trigger", "started",	"board",
					     "variant",	 "kernel",  "boot",	"seq",
					     "scenario", "batches", "mean",	"min",
					     "max",	 "unit",    "lava_job", "position" };
	static const bool numeric[] = { 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1 };
	const char *format = "table", *board = NULL, *scen = NULL, *var = NULL, *kern = NULL;
	const char *since = NULL, *until = NULL, *trig = NULL;
	char sincev[64], untilv[64], camp[32] = "";
	const char *params[MAX_PARAMS];
	struct buf sql = { 0 };
	int np = 0, c, s_age = 0, u_age = 0, s_d, u_d = 0;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			board = optarg;
			break;
		case 's':
			scen = optarg;
			break;
		case 'v':
			var = optarg;
			break;
		case 'k':
			kern = optarg;
			break;
		case 'c':
			if (parse_int_opt("--campaign", optarg, 1, 0x7fffffffL, &v))
				return 2;
			snprintf(camp, sizeof(camp), "%ld", v);
			break;
		case 'S':
			since = optarg;
			break;
		case 'U':
			until = optarg;
			break;
		case 't':
			trig = optarg;
			break;
		case 'f':
			format = optarg;
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
	if (!format_ok(format, "query") || (trig && !trigger_ok(trig)))
		return 2;
	if (since && (s_age = query_parse_when(since, sincev, sizeof(sincev), &s_d)) < 0) {
		err_msg("--since: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, 12h, 2w)",
			since);
		return 2;
	}
	if (until && (u_age = query_parse_when(until, untilv, sizeof(untilv), &u_d)) < 0) {
		err_msg("--until: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, 12h, 2w)",
			until);
		return 2;
	}
	buf_printf(
		&sql,
		"SELECT c.id, c.trigger, to_char(coalesce(b.started, b.inserted), "
		"'YYYY-MM-DD HH24:MI:SS'), bo.name, b.variant, coalesce(b.uname_r, k.release), "
		"b.id, b.seq, s.scenario, count(*), "
		"round(avg(coalesce(s.mean_ns, s.lost_bytes))::numeric, 1), "
		"round(min(coalesce(s.mean_ns, s.lost_bytes))::numeric, 1), "
		"round(max(coalesce(s.mean_ns, s.lost_bytes))::numeric, 1), "
		"CASE WHEN s.kind = 'preserve' THEN 'bytes lost' ELSE 'ns' END, "
		/* a LAVA job id is only unique on its server: both, "SERVER#ID" */
		"CASE WHEN b.lava_job_id IS NOT NULL THEN coalesce(b.lava_server, "
		"'(server not recorded)') || '#' || b.lava_job_id ELSE '' END, "
		/* a series campaign's variant: its position (0 control) */
		"cv.position "
		"FROM boots b JOIN campaigns c ON c.id = b.campaign_id "
		"JOIN boards bo ON bo.id = b.board_id LEFT JOIN kernels k ON k.id = b.kernel_id "
		"LEFT JOIN campaign_variants cv ON cv.campaign_id = c.id AND cv.label = b.variant "
		"JOIN samples s ON s.boot_id = b.id WHERE b.status = 'ok'");
	add_filter(&sql, params, &np, board, "bo.name = $%d");
	add_filter(&sql, params, &np, scen, "s.scenario = $%d");
	add_filter(&sql, params, &np, var, "b.variant = $%d");
	add_filter(&sql, params, &np, kern, "coalesce(b.uname_r, k.release) = $%d");
	add_filter(&sql, params, &np, camp[0] ? camp : NULL, "c.id = $%d::int");
	add_filter(&sql, params, &np, trig, "c.trigger = $%d");
	if (since)
		add_filter(&sql, params, &np, sincev,
			   s_age ? "coalesce(b.started, b.inserted) >= now() - $%d::interval" :
				   "coalesce(b.started, b.inserted) >= $%d::timestamptz");
	if (until) /* a date alone: up to the end of that day */
		add_filter(&sql, params, &np, untilv,
			   u_age ? "coalesce(b.started, b.inserted) < now() - $%d::interval" :
			   u_d	 ? "coalesce(b.started, b.inserted) < $%d::date + 1" :
				   "coalesce(b.started, b.inserted) <= $%d::timestamptz");
	buf_printf(&sql,
		   " GROUP BY c.id, b.id, bo.name, k.release, s.scenario, s.kind, cv.position "
		   "ORDER BY coalesce(b.started, b.inserted), c.id, b.seq, b.id, s.scenario");
	return run_query(&sql, np, params, names, numeric, format, out);
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
	const char *params[3];
	struct buf sql = { 0 };
	int np = 0, c;
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
	buf_printf(
		&sql,
		"SELECT c.id, to_char(c.created, 'YYYY-MM-DD HH24:MI'), c.trigger, "
		"c.job->>'job', " STORE_CAMPAIGN_STATUS_SQL(
			"c") ", c.order_kind, c.batches, "
			     "(SELECT string_agg(DISTINCT bo.name, ',') FROM boots b JOIN boards bo "
			     "  ON bo.id = b.board_id WHERE b.campaign_id = c.id), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
			     "  AND b.variant = 'control'), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
			     "  AND b.variant <> 'control'), "
			     "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND "
			     "  b.status = 'failed'), "
			     "(SELECT count(DISTINCT s.scenario) FROM boots b JOIN samples s ON "
			     "  s.boot_id = b.id WHERE b.campaign_id = c.id) "
			     "FROM campaigns c WHERE true");
	if (trig) {
		params[np++] = trig;
		buf_printf(&sql, " AND c.trigger = $%d", np);
	}
	if (job) {
		params[np++] = job;
		buf_printf(&sql, " AND c.job->>'job' = $%d", np);
	}
	params[np++] = limit;
	buf_printf(&sql, " ORDER BY c.id DESC LIMIT $%d::int", np);
	return run_and_print(&sql, np, params, names, numeric, format, out);
}

int cmd_query(int argc, char **argv)
{
	return cmd_query_to(stdout, argc, argv);
}

int cmd_campaigns(int argc, char **argv)
{
	return cmd_campaigns_to(stdout, argc, argv);
}
