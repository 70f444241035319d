// SPDX-License-Identifier: GPL-2.0-only
/* `ablab query`, `ablab campaigns`, `ablab compare`, `ablab trend`: the
 * results database for people.  Only parameterised SQL: a filter value is
 * always a $n parameter. */
#include "query.h"
#include "changepoint.h"
#include "cmds.h"
#include "compare.h"
#include "report.h"
#include "stats.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
							   json_object_new_double(strtod(v, NULL)) :
							   json_object_new_int64(strtoll(v, NULL, 10))) :
							  json_object_new_string(v);
				json_object_object_add(o, names[c], jv);
			}
			json_object_array_add(a, o);
		}
		fprintf(out, "%s\n", json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY |
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
				const char *v = i < 0 ? names[c] : PQgetisnull(r, i, c) ? "-" :
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
		snprintf(out, len, "%ld %s", n, end[0] == 'h' ? "hours" : end[0] == 'd' ? "days" :
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
static int run_query(struct buf *sql, int np, const char *const *params,
		     const char *const *names, const bool *numeric, const char *format, FILE *out)
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
		{ "board", 1, NULL, 'b' }, { "scenario", 1, NULL, 's' },
		{ "variant", 1, NULL, 'v' }, { "kernel", 1, NULL, 'k' },
		{ "campaign", 1, NULL, 'c' }, { "since", 1, NULL, 'S' },
		{ "until", 1, NULL, 'U' }, { "trigger", 1, NULL, 't' },
		{ "format", 1, NULL, 'f' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	static const char *const names[] = {
		"campaign", "trigger", "started", "board", "variant", "kernel", "boot", "seq",
		"scenario", "batches", "mean", "min", "max", "unit", "lava_job", "position"
	};
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
		case 'b': board = optarg; break;
		case 's': scen = optarg; break;
		case 'v': var = optarg; break;
		case 'k': kern = optarg; break;
		case 'c':
			if (parse_int_opt("--campaign", optarg, 1, 0x7fffffffL, &v))
				return 2;
			snprintf(camp, sizeof(camp), "%ld", v);
			break;
		case 'S': since = optarg; break;
		case 'U': until = optarg; break;
		case 't': trig = optarg; break;
		case 'f': format = optarg; break;
		case 'h': query_usage(stdout); return 0;
		default: query_usage(stderr); return 2;
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
		err_msg("--since: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, "
			"12h, 2w)", since);
		return 2;
	}
	if (until && (u_age = query_parse_when(until, untilv, sizeof(untilv), &u_d)) < 0) {
		err_msg("--until: \"%s\" is not a date (YYYY-MM-DD[ HH:MM[:SS]]) or an age (30d, "
			"12h, 2w)", until);
		return 2;
	}
	buf_printf(&sql,
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
		add_filter(&sql, params, &np, sincev, s_age ?
			   "coalesce(b.started, b.inserted) >= now() - $%d::interval" :
			   "coalesce(b.started, b.inserted) >= $%d::timestamptz");
	if (until)	/* a date alone: up to the end of that day */
		add_filter(&sql, params, &np, untilv, u_age ?
			   "coalesce(b.started, b.inserted) < now() - $%d::interval" : u_d ?
			   "coalesce(b.started, b.inserted) < $%d::date + 1" :
			   "coalesce(b.started, b.inserted) <= $%d::timestamptz");
	buf_printf(&sql, " GROUP BY c.id, b.id, bo.name, k.release, s.scenario, s.kind, cv.position "
		   "ORDER BY coalesce(b.started, b.inserted), c.id, b.seq, b.id, s.scenario");
	return run_query(&sql, np, params, names, numeric, format, out);
}

/* ------------------------------------------------------------------ campaigns */

int cmd_campaigns_to(FILE *out, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "trigger", 1, NULL, 't' }, { "job", 1, NULL, 'j' }, { "limit", 1, NULL, 'l' },
		{ "format", 1, NULL, 'f' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	static const char *const names[] = {
		"id", "created", "trigger", "job", "status", "order", "batches", "boards",
		"control", "patched", "failed", "scenarios"
	};
	static const bool numeric[] = { 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1 };
	const char *format = "table", *trig = NULL, *job = NULL;
	char limit[16] = "50";
	const char *params[3];
	struct buf sql = { 0 };
	int np = 0, c;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 't': trig = optarg; break;
		case 'j': job = optarg; break;
		case 'l':
			if (parse_int_opt("--limit", optarg, 1, 1000000, &v))
				return 2;
			snprintf(limit, sizeof(limit), "%ld", v);
			break;
		case 'f': format = optarg; break;
		case 'h':
			printf("usage: ablab campaigns [--trigger T] [--job NAME] [--limit N] "
			       "[--format table|json|csv]\nCampaigns, newest first, with their "
			       "boards and successful boots per kernel.  Status: running, complete, "
			       "failed, interrupted, or stale (running, but its agent died: `ablab "
			       "resume ID` continues it).\n");
			return 0;
		default: return 2;
		}
	}
	if (optind < argc) {
		err_msg("campaigns: unexpected argument \"%s\"", argv[optind]);
		return 2;
	}
	if (!format_ok(format, "campaigns") || (trig && !trigger_ok(trig)))
		return 2;
	buf_printf(&sql,
		   "SELECT c.id, to_char(c.created, 'YYYY-MM-DD HH24:MI'), c.trigger, "
		   "c.job->>'job', " STORE_CAMPAIGN_STATUS_SQL("c") ", c.order_kind, c.batches, "
		   "(SELECT string_agg(DISTINCT bo.name, ',') FROM boots b JOIN boards bo "
		   "  ON bo.id = b.board_id WHERE b.campaign_id = c.id), "
		   "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
		   "  AND b.variant = 'control'), "
		   "(SELECT count(*) FROM boots b WHERE b.campaign_id = c.id AND b.status = 'ok' "
		   "  AND b.variant = 'patched'), "
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

/* ------------------------------------------------------------------ compare */

static int load_analysed(struct store *st, int64_t id, struct report *rep, double alpha,
			 const char *only_scenario)
{
	struct report_opts o = { .alpha = alpha, .target = 0.01, .only_scenario = only_scenario };
	int ret = report_load(st, id, rep);

	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", id);
	if (ret)
		return ret;
	report_analyse(rep, &o);
	return 0;
}

/* the previous complete nightly campaign of the same job (store_previous_nightly: the rule
 * `ablab nightly` compares with), or a negative errno (printed) */
static int previous_nightly(struct store *st, int64_t id, int64_t *prev)
{
	char job[256];
	int ret = store_previous_nightly(st, id, job, sizeof(job), prev);

	if (ret == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database", id);
	else if (ret == -EINVAL)
		err_msg("compare --previous: campaign %" PRId64 " is not a nightly job's campaign; "
			"name two campaigns instead", id);
	else if (ret == -ENODATA)
		err_msg("compare --previous: campaign %" PRId64 " has no complete nightly campaign "
			"of job \"%s\" before it", id, job);
	return ret;
}

static void fmt_v(const struct rep_row *r, char *out, size_t len, double v)
{
	if (isnan(v))
		snprintf(out, len, "-");
	else if (!strcmp(r->kind, "preserve"))
		snprintf(out, len, "%.0f B", v);
	else
		fmt_time(out, len, v);
}

static void fmt_ci(char *out, size_t len, double lo, double hi)
{
	char a[24], b[24];

	if (isnan(lo)) {
		snprintf(out, len, "-");
		return;
	}
	fmt_change(a, sizeof(a), lo);
	fmt_change(b, sizeof(b), hi);
	snprintf(out, len, "[%s, %s]", a, b);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "previous", 0, NULL, 'p' }, { "alpha", 1, NULL, 'a' },
		{ "format", 1, NULL, 'f' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *format = "text";
	bool previous = false;
	double alpha = 0.05;
	int64_t id[2] = { 0, 0 };
	struct report rep[2];
	json_object *jroot = NULL, *jrows = NULL;
	struct store st;
	int c, ret = 0, matched = 0;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'p': previous = true; break;
		case 'a':
			if (parse_alpha_opt(optarg, &alpha))
				return 2;
			break;
		case 'f': format = optarg; break;
		case 'h':
			printf("usage: ablab compare A B | ablab compare A --previous "
			       "[--format text|json] [--alpha A]\nPer board and scenario: each "
			       "kernel's boot means in campaign A against campaign B (change from "
			       "A to B,\nMann-Whitney p), and the patched-vs-control change of "
			       "both. --previous: B = A, and A = the\nprevious nightly campaign of "
			       "the same job.\n");
			return 0;
		default: return 2;
		}
	}
	if (strcmp(format, "text") && strcmp(format, "json")) {
		err_msg("compare: --format \"%s\" is not one of text, json", format);
		return 2;
	}
	if (argc - optind != (previous ? 1 : 2)) {
		err_msg("usage: ablab compare A B, or ablab compare A --previous");
		return 2;
	}
	for (int i = 0; i < argc - optind; i++) {
		if (parse_int_opt("CAMPAIGN", argv[optind + i], 1, 0x7fffffffL, &v))
			return 2;
		id[i] = v;
	}
	if (store_open(&st, opt_db))
		return 1;
	if (previous) {
		id[1] = id[0];
		if (previous_nightly(&st, id[1], &id[0])) {
			store_close(&st);
			return 1;
		}
	}
	memset(rep, 0, sizeof(rep));
	if (load_analysed(&st, id[0], &rep[0], alpha, NULL) ||
	    load_analysed(&st, id[1], &rep[1], alpha, NULL)) {
		ret = 1;
		goto out;
	}
	if (!strcmp(format, "json")) {
		jroot = json_object_new_object();
		jrows = json_object_new_array();
		json_object_object_add(jroot, "a", json_object_new_int64(id[0]));
		json_object_object_add(jroot, "b", json_object_new_int64(id[1]));
		json_object_object_add(jroot, "alpha", json_object_new_double(alpha));
		json_object_object_add(jroot, "rows", jrows);
	} else {
		printf("campaign %" PRId64 " (%s, %s) -> campaign %" PRId64 " (%s, %s); change = "
		       "B vs A, p: Mann-Whitney U on boot means, \"~\" = not significant at %g\n\n",
		       id[0], rep[0].created, rep[0].trigger, id[1], rep[1].created,
		       rep[1].trigger, alpha);
		printf("  %-36s %11s %11s %9s p\n", "", "A", "B", "change");
	}
	for (size_t i = 0; i < rep[0].nrows; i++) {
		const struct rep_row *ra = &rep[0].rows[i], *rb;
		const char *bname = rep[0].boards[ra->board].name;
		int j = report_find(&rep[1], bname, ra->scenario);
		char l[160];
		json_object *jo = NULL;

		if (j < 0)
			continue;
		rb = &rep[1].rows[j];
		matched++;
		report_row_label_full(&rep[0], ra, l, sizeof(l));
		if (jrows) {
			jo = json_object_new_object();
			json_object_object_add(jo, "board", json_object_new_string(bname));
			json_object_object_add(jo, "scenario", json_object_new_string(ra->scenario));
			json_object_object_add(jo, "label", json_object_new_string(l));
		} else {
			printf("  %s\n", l);
		}
		for (int var = 0; var < 2; var++) {
			struct stats_row_result sr;
			struct ab_result ab;
			char va[32], vb[32], ch[32], p[40];
			size_t na, nb;
			int verdict = -1;

			/* the one comparison rule (compare.h): exact Mann-Whitney p of the boot
			 * means; verdict -1 when no p these n allow reaches alpha */
			memset(&ab, 0, sizeof(ab));
			ab.a.mean = ab.b.mean = ab.rel_change = ab.p_mwu = NAN;
			if (!cmp_rows(ra, rb, var, alpha, 0.01, &sr)) {
				ab.a.mean = sr.mean_a;
				ab.b.mean = sr.mean_b;
				ab.rel_change = sr.mean_a != 0.0 ? sr.mean_b / sr.mean_a - 1.0 : NAN;
				ab.p_mwu = sr.p;
				verdict = sr.p_min > alpha ? -1 : sr.p <= alpha;
			}
			na = sr.na;
			nb = sr.nb;
			if (jo) {
				json_object *o = json_object_new_object();

				json_object_object_add(o, "n_a", json_object_new_int((int)na));
				json_object_object_add(o, "n_b", json_object_new_int((int)nb));
				json_object_object_add(o, "mean_a", isnan(ab.a.mean) ? NULL :
						       json_object_new_double(ab.a.mean));
				json_object_object_add(o, "mean_b", isnan(ab.b.mean) ? NULL :
						       json_object_new_double(ab.b.mean));
				json_object_object_add(o, "rel_change", isnan(ab.rel_change) ?
						       NULL : json_object_new_double(ab.rel_change));
				json_object_object_add(o, "p_mwu", isnan(ab.p_mwu) ? NULL :
						       json_object_new_double(ab.p_mwu));
				json_object_object_add(o, "verdict", json_object_new_string(
					verdict == 1 ? "significant" : verdict == 0 ?
					"not significant" : "too few boots"));
				json_object_object_add(jo, var ? "patched" : "control", o);
				continue;
			}
			fmt_v(ra, va, sizeof(va), ab.a.mean);
			fmt_v(ra, vb, sizeof(vb), ab.b.mean);
			fmt_change(ch, sizeof(ch), ab.rel_change);
			if (verdict < 0)
				snprintf(p, sizeof(p), "too few boots");
			else
				snprintf(p, sizeof(p), "%.3f%s", ab.p_mwu, verdict ? "" : " ~");
			printf("    %-34s %11s %11s %9s %-13s  (n %zu, %zu)\n", var ? "patched" :
			       "control", va, vb, verdict == 0 ? "~" : ch, p, na, nb);
		}
		if (jo) {
			json_object_object_add(jo, "ab_change_a", isnan(ra->ab.rel_change) ? NULL :
					       json_object_new_double(ra->ab.rel_change));
			json_object_object_add(jo, "ab_change_b", isnan(rb->ab.rel_change) ? NULL :
					       json_object_new_double(rb->ab.rel_change));
			json_object_array_add(jrows, jo);
		} else {
			char ca[32], cb[32], cia[48], cib[48];

			fmt_change(ca, sizeof(ca), ra->ab.rel_change);
			fmt_change(cb, sizeof(cb), rb->ab.rel_change);
			fmt_ci(cia, sizeof(cia), ra->ab.ci_lo, ra->ab.ci_hi);
			fmt_ci(cib, sizeof(cib), rb->ab.ci_lo, rb->ab.ci_hi);
			printf("    %-34s %11s %11s   95%% CI %s -> %s\n", "patched vs control", ca,
			       cb, cia, cib);
		}
	}
	if (jroot) {
		printf("%s\n", json_object_to_json_string_ext(jroot, JSON_C_TO_STRING_PRETTY |
							       JSON_C_TO_STRING_SPACED));
		json_object_put(jroot);
	} else if (!matched) {
		printf("  (no board and scenario in common)\n");
	}
out:
	report_free(&rep[0]);
	report_free(&rep[1]);
	store_close(&st);
	return ret;
}

/* ------------------------------------------------------------------ trend */

/* One night of one board: the boot means of both kernels and their comparison. */
struct night {
	int64_t id;
	char date[40];
	char board[64];
	double *v[2];		/* boot means: control, patched */
	size_t n[2], cap[2];
	struct stats_row_result row;
	bool have;
	int cp;			/* 1: this night opens a new segment (a change point) */
	double cp_p, seg_mean;	/* the change point's p; the mean change of its segment */
};

/* the plotted value: the Hodges-Lehmann relative change, else the change of the means */
static double night_rel(const struct night *n)
{
	if (n->row.have_rel)
		return n->row.rel.shift;
	return n->row.mean_a != 0.0 ? n->row.mean_b / n->row.mean_a - 1.0 : NAN;
}

static void night_push(struct night *n, int var, double v)
{
	if (n->n[var] == n->cap[var]) {
		n->cap[var] = n->cap[var] ? 2 * n->cap[var] : 8;
		n->v[var] = xrealloc(n->v[var], n->cap[var] * sizeof(double));
	}
	n->v[var][n->n[var]++] = v;
}

/*
 * Change points of one board's series of nightly changes (changepoint.h): marks the nights
 * that open a new segment and gives every night its segment's mean change.
 */
static void trend_segments(struct night *n, size_t nn)
{
	double *x = xcalloc(nn + 1, sizeof(double));
	size_t *at = xcalloc(nn + 1, sizeof(size_t)), m = 0, seg = 0;
	struct cp_point *cp = xcalloc(nn + 1, sizeof(*cp));
	int k;

	for (size_t i = 0; i < nn; i++)
		if (n[i].have && isfinite(night_rel(&n[i]))) {
			x[m] = night_rel(&n[i]);
			at[m++] = i;
		}
	k = cp_detect(x, m, CP_DEFAULT_P_MAX, CP_DEFAULT_MIN_SIZE, cp, m);
	for (size_t j = 0, c = 0; j < m; j++) {
		if (c < (size_t)(k > 0 ? k : 0) && cp[c].index == j) {
			n[at[j]].cp = 1;
			n[at[j]].cp_p = cp[c].p;
			c++;
		}
	}
	/* segment means */
	for (size_t j = 0; j <= m; j++) {
		if (j == m || (j > seg && n[at[j]].cp)) {
			double s = 0.0;

			for (size_t q = seg; q < j; q++)
				s += x[q];
			for (size_t q = seg; q < j; q++)
				n[at[q]].seg_mean = s / (double)(j - seg);
			seg = j;
		}
	}
	free(x);
	free(at);
	free(cp);
}

static void trend_svg(const struct night *n, size_t nn, const char *job, const char *label,
		      FILE *out)
{
	const double W = 760, H = 380, x0 = 80, x1 = W - 30, y0 = 60, y1 = H - 70;
	double lo = 0, hi = 0, step;
	size_t k = 0, prev = 0;

	for (size_t i = 0; i < nn; i++) {
		if (!n[i].have)
			continue;
		lo = fmin(lo, isnan(n[i].row.rel.lo) ? night_rel(&n[i]) : n[i].row.rel.lo);
		hi = fmax(hi, isnan(n[i].row.rel.hi) ? night_rel(&n[i]) : n[i].row.rel.hi);
	}
	lo *= 100;
	hi *= 100;
	if (!(hi - lo > 1e-9)) {
		lo -= 1;
		hi += 1;
	}
	{
		double raw = (hi - lo) / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

		step = (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
	}
	lo = floor(lo / step) * step;
	hi = ceil(hi / step) * step;
#define TX(i) (nn > 1 ? x0 + 20 + (double)(i) * (x1 - x0 - 40) / (double)(nn - 1) : (x0 + x1) / 2)
#define TY(v) (y1 - ((v) - lo) / (hi - lo) * (y1 - y0))
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n", W, H, W, H);
	fprintf(out, "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">nightly job ");
	xml_escape(out, job);
	fprintf(out, ": patched vs control, ");
	xml_escape(out, label);
	fprintf(out, "</text>\n<text x=\"10\" y=\"42\" font-size=\"12\">dot = Hodges-Lehmann "
		"change, bar = its exact CI; filled = different; grey line = segment mean, "
		"dashed = change point</text>\n");
	for (double t = lo; t <= hi + step * 0.01; t += step)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%+g%%"
			"</text>\n", x0, x1, TY(t), TY(t), fabs(t) < step * 1e-6 ? "#555555" :
			"#e5e5e5", x0 - 5, TY(t) + 4, fabs(t) < step * 1e-6 ? 0.0 : t);
	/* segments: the mean change of each, from its first to its last night */
	for (size_t i = 0, first = nn; i <= nn; i++) {
		bool end = i == nn || (n[i].have && n[i].cp && first < nn);

		if (end && first < nn) {
			fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#777777\" stroke-width=\"3\" stroke-opacity=\"0.6\"/>\n",
				TX(first) - 6, TX(prev) + 6, TY(n[first].seg_mean * 100),
				TY(n[first].seg_mean * 100));
			first = nn;
		}
		if (i < nn && n[i].have) {
			if (first == nn)
				first = i;
			prev = i;
			if (n[i].cp && i)
				fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
					"y2=\"%.1f\" stroke=\"#777777\" stroke-dasharray=\"4 3\">"
					"<title>change point: %+.2f%% from here (p = %.2g)</title>"
					"</line>\n",
					TX(i) - 0.5 * (TX(1) - TX(0)),
					TX(i) - 0.5 * (TX(1) - TX(0)), y0, y1, n[i].seg_mean * 100,
					n[i].cp_p);
		}
	}
	prev = 0;
	for (size_t i = 0; i < nn; i++) {
		double x = TX(i), y;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"end\" "
			"transform=\"rotate(-40 %.1f %.1f)\">%s #%" PRId64 "</text>\n", x, y1 + 16,
			x, y1 + 16, n[i].date, n[i].id);
		if (!n[i].have)
			continue;
		y = TY(night_rel(&n[i]) * 100);
		if (!isnan(n[i].row.rel.lo))
			fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d55e00\" stroke-width=\"2\"/>\n", x, x,
				TY(n[i].row.rel.lo * 100), TY(n[i].row.rel.hi * 100));
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" stroke=\"#d55e00\" "
			"stroke-width=\"2\" fill=\"%s\"><title>campaign %" PRId64 ": %+.3f%%"
			"</title></circle>\n", x, y, n[i].row.verdict == VERDICT_DIFFERENT ?
			"#d55e00" : "#ffffff", n[i].id, night_rel(&n[i]) * 100);
		if (k++)
			fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
				"stroke=\"#d55e00\" stroke-opacity=\"0.4\"/>\n", TX(prev), x,
				TY(night_rel(&n[prev]) * 100), y);
		prev = i;
	}
#undef TX
#undef TY
	fprintf(out, "</svg>\n");
}

static void trend_text(const struct night *n, size_t nn, const char *job, const char *label,
		       double alpha, FILE *out)
{
	size_t ncp = 0;

	fprintf(out, "nightly job %s, %s: patched vs control per night\n\n", job, label);
	fprintf(out, "  %-10s %8s %11s %11s %9s %-26s %5s %-13s %s\n", "date", "campaign",
		"control", "patched", "change", "exact CI (achieved)", "n", "p", "verdict");
	for (size_t i = 0; i < nn; i++) {
		const struct stats_row_result *r = &n[i].row;
		char a[32], b[32], ch[32], ci[48], cia[64], p[32];

		if (!n[i].have) {
			fprintf(out, "  %-10s %8" PRId64 "   (no boots of both kernels)\n",
				n[i].date, n[i].id);
			continue;
		}
		fmt_time(a, sizeof(a), r->mean_a);
		fmt_time(b, sizeof(b), r->mean_b);
		fmt_change(ch, sizeof(ch), night_rel(&n[i]));
		fmt_ci(ci, sizeof(ci), r->rel.lo, r->rel.hi);
		if (isnan(r->rel.lo))
			snprintf(cia, sizeof(cia), "-");
		else
			snprintf(cia, sizeof(cia), "%s %.1f%%", ci, r->rel.conf * 100);
		if (r->p_min > alpha)
			snprintf(p, sizeof(p), "too few boots");
		else
			snprintf(p, sizeof(p), "%.3f", r->p);
		fprintf(out, "  %-10s %8" PRId64 " %11s %11s %9s %-26s %2zu+%-2zu %-13s %s%s\n",
			n[i].date, n[i].id, a, b, ch, cia, r->na, r->nb, p,
			stats_verdict_name(r->verdict), n[i].cp ? "  <- change point" : "");
		ncp += n[i].cp;
	}
	if (!ncp) {
		fprintf(out, "\nno change point in the series (t-test variant of E-divisive, "
			"p <= %g)\n", CP_DEFAULT_P_MAX);
		return;
	}
	fprintf(out, "\nchange points (t-test variant of E-divisive, p <= %g):\n",
		CP_DEFAULT_P_MAX);
	for (size_t i = 0, last = nn; i < nn; i++) {
		char x[32], y[32];

		if (!n[i].have)
			continue;
		if (n[i].cp && last < nn) {
			fmt_change(x, sizeof(x), n[last].seg_mean);
			fmt_change(y, sizeof(y), n[i].seg_mean);
			fprintf(out, "  %s (campaign %" PRId64 "): %s -> %s, p = %.2g\n", n[i].date,
				n[i].id, x, y, n[i].cp_p);
		}
		last = i;
	}
}

struct tcamp {
	int64_t id;
	size_t rank;		/* position by (created, id) */
	char date[16];
};

struct tboard {
	int64_t id;
	char name[64];
};

struct tboot {
	const struct tcamp *camp;
	const char *board;
	int64_t boot;
	int var;
	double v;
};

static int cmp_tcamp(const void *pa, const void *pb)
{
	const struct tcamp *a = pa, *b = pb;

	return (a->id > b->id) - (a->id < b->id);
}

static int cmp_tboot(const void *pa, const void *pb)
{
	const struct tboot *a = pa, *b = pb;
	int c;

	if (!a->board || !b->board || !a->camp || !b->camp)
		return (!a->board || !a->camp) - (!b->board || !b->camp);
	c = strcmp(a->board, b->board);
	if (c)
		return c;
	if (a->camp->rank != b->camp->rank)
		return (a->camp->rank > b->camp->rank) - (a->camp->rank < b->camp->rank);
	return (a->boot > b->boot) - (a->boot < b->boot);
}

static const char trend_usage[] =
	"usage: ablab trend JOB --scenario S [--board B] [--format text|svg] [--alpha A]\n"
	"The patched-vs-control change (Hodges-Lehmann, exact CI) of every nightly campaign of\n"
	"JOB, oldest first, per board, with the change points of the series.\n";

int cmd_trend_to(FILE *out, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "scenario", 1, NULL, 's' }, { "board", 1, NULL, 'b' },
		{ "format", 1, NULL, 'f' }, { "alpha", 1, NULL, 'a' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	/* per boot: its mean over the batches, as store_boot wrote it (boot_means: one row
	 * per boot, not every batch); campaigns and boards are read apart */
	static const char *const q =
		"SELECT b.campaign_id, b.board_id, b.id, b.variant, m.mean "
		"FROM boots b JOIN boot_means m ON m.boot_id = b.id AND m.scenario = $2 "
		"WHERE b.campaign_id IN (SELECT id FROM campaigns WHERE trigger = 'nightly' AND "
		" job->>'job' = $1) AND b.status = 'ok' "
		" AND b.variant IN ('control', 'patched') "
		" AND ($3 = '' OR b.board_id IN (SELECT id FROM boards WHERE name = $3))";
	const char *format = "text", *scen = NULL, *board = NULL, *job;
	struct night *n = NULL;
	char label[160] = "";
	double alpha = 0.05;
	struct store st;
	PGresult *r;
	size_t nn = 0, have = 0, first = 0, nc = 0, nbd = 0, nt = 0;
	struct tcamp *camp = NULL;
	struct tboard *bd = NULL;
	struct tboot *tb = NULL;
	int64_t last_id = 0;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's': scen = optarg; break;
		case 'b': board = optarg; break;
		case 'f': format = optarg; break;
		case 'a':
			if (parse_alpha_opt(optarg, &alpha))
				return 2;
			break;
		case 'h': fputs(trend_usage, stdout); return 0;
		default: return 2;
		}
	}
	if (argc - optind != 1 || !scen) {
		err_msg("usage: ablab trend JOB --scenario S [--board B] [--format text|svg]");
		return 2;
	}
	if (strcmp(format, "text") && strcmp(format, "svg")) {
		err_msg("trend: --format \"%s\" is not one of text, svg", format);
		return 2;
	}
	job = argv[optind];
	if (store_open(&st, opt_db))
		return 1;
	{
		const char *p[1] = { job };

		r = store_query(&st, "SELECT id, to_char(created, 'YYYY-MM-DD') FROM campaigns "
				"WHERE trigger = 'nightly' AND job->>'job' = $1 ORDER BY created, id",
				1, p);
		if (!r) {
			store_close(&st);
			return 1;
		}
		nc = (size_t)PQntuples(r);
		camp = xcalloc(nc + 1, sizeof(*camp));
		for (size_t i = 0; i < nc; i++) {
			camp[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
			camp[i].rank = i;
			snprintf(camp[i].date, sizeof(camp[i].date), "%s",
				 PQgetvalue(r, (int)i, 1));
		}
		PQclear(r);
	}
	if (!nc) {
		err_msg("trend: no nightly campaigns of job \"%s\" (ablab campaigns --trigger "
			"nightly lists them)", job);
		free(camp);
		store_close(&st);
		return 1;
	}
	qsort(camp, nc, sizeof(*camp), cmp_tcamp);
	r = store_query(&st, "SELECT id, name FROM boards ORDER BY id", 0, NULL);
	if (!r) {
		free(camp);
		store_close(&st);
		return 1;
	}
	nbd = (size_t)PQntuples(r);
	bd = xcalloc(nbd + 1, sizeof(*bd));
	for (size_t i = 0; i < nbd; i++) {
		bd[i].id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10);
		snprintf(bd[i].name, sizeof(bd[i].name), "%s", PQgetvalue(r, (int)i, 1));
	}
	PQclear(r);
	{
		const char *p[3] = { job, scen, board ? board : "" };

		r = store_query(&st, q, 3, p);
	}
	if (!r) {
		free(camp);
		free(bd);
		store_close(&st);
		return 1;
	}
	nt = (size_t)PQntuples(r);
	tb = xcalloc(nt + 1, sizeof(*tb));
	for (size_t i = 0; i < nt; i++) {
		struct tcamp key = { .id = strtoll(PQgetvalue(r, (int)i, 0), NULL, 10) };
		const struct tcamp *tc = bsearch(&key, camp, nc, sizeof(*camp), cmp_tcamp);
		int64_t bid = strtoll(PQgetvalue(r, (int)i, 1), NULL, 10);

		tb[i].camp = tc;
		for (size_t k = 0; k < nbd; k++)
			if (bd[k].id == bid)
				tb[i].board = bd[k].name;
		tb[i].boot = strtoll(PQgetvalue(r, (int)i, 2), NULL, 10);
		tb[i].var = !strcmp(PQgetvalue(r, (int)i, 3), "patched");
		tb[i].v = strtod(PQgetvalue(r, (int)i, 4), NULL);
	}
	PQclear(r);
	/* per board, nights oldest first */
	qsort(tb, nt, sizeof(*tb), cmp_tboot);
	for (size_t i = 0; i < nt; i++) {
		struct night *w = nn ? &n[nn - 1] : NULL;

		if (!tb[i].camp || !tb[i].board)
			continue;
		if (!w || w->id != tb[i].camp->id || strcmp(w->board, tb[i].board)) {
			n = xrealloc(n, (nn + 1) * sizeof(*n));
			w = &n[nn++];
			memset(w, 0, sizeof(*w));
			w->id = tb[i].camp->id;
			snprintf(w->date, sizeof(w->date), "%s", tb[i].camp->date);
			snprintf(w->board, sizeof(w->board), "%s", tb[i].board);
		}
		night_push(w, tb[i].var, tb[i].v);
	}
	free(tb);
	free(camp);
	free(bd);
	for (size_t i = 0; i < nn; i++) {
		n[i].have = n[i].n[0] && n[i].n[1] &&
			    !stats_row(n[i].v[0], n[i].n[0], n[i].v[1], n[i].n[1], alpha, 0.01,
				       &n[i].row);
		have += n[i].have;
		if (n[i].have)
			last_id = n[i].id;
	}
	if (!have) {
		err_msg("trend: no nightly campaign of job \"%s\" has scenario \"%s\"%s%s with both "
			"kernels", job, scen, board ? " on board " : "", board ? board : "");
		ret = 1;
		goto out;
	}
	/* the label of the first board's row, from the last campaign with both kernels */
	{
		struct report rep;

		if (!report_load(&st, last_id, &rep)) {
			int j = report_find(&rep, n[0].board, scen);

			if (j >= 0)
				report_row_label_full(&rep, &rep.rows[j], label, sizeof(label));
		}
		report_free(&rep);
		if (!label[0])
			snprintf(label, sizeof(label), "%s, %s", n[0].board, scen);
	}
	/* per board: its nights, segments, output (svg: the first board only) */
	while (first < nn) {
		size_t end = first;

		while (end < nn && !strcmp(n[end].board, n[first].board))
			end++;
		trend_segments(n + first, end - first);
		if (!strcmp(format, "svg")) {
			trend_svg(n + first, end - first, job, label, out);
			break;
		}
		if (first)
			snprintf(label, sizeof(label), "%s, %s", n[first].board, scen);
		trend_text(n + first, end - first, job, label, alpha, out);
		first = end;
		if (first < nn)
			fputc('\n', out);
	}
out:
	for (size_t i = 0; i < nn; i++) {
		free(n[i].v[0]);
		free(n[i].v[1]);
	}
	free(n);
	store_close(&st);
	return ret;
}

int cmd_query(int argc, char **argv)
{
	return cmd_query_to(stdout, argc, argv);
}

int cmd_campaigns(int argc, char **argv)
{
	return cmd_campaigns_to(stdout, argc, argv);
}

int cmd_trend(int argc, char **argv)
{
	return cmd_trend_to(stdout, argc, argv);
}
