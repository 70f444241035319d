// SPDX-License-Identifier: GPL-2.0-only
/* The regex benchmark kind: a shell command whose output lines a job-defined POSIX ERE
 * turns into samples. */
#include "bench/bench.h"
#include "bench/bench-int.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- regex: a shell command whose output lines are matched by a POSIX ERE */

int bench_regex_check(const struct bench_regex_def *d, struct errtext *why)
{
	regex_t re;
	int ret;

	ret = regcomp(&re, d->regex, REG_EXTENDED);
	if (ret) {
		char msg[128];

		regerror(ret, &re, msg, sizeof(msg));
		return errtext_set(why, -EINVAL, "invalid POSIX extended regular expression: %s",
				   msg);
	}
	if ((size_t)d->g_scenario > re.re_nsub || (size_t)d->g_value > re.re_nsub ||
	    (size_t)d->g_unit > re.re_nsub) {
		errtext_set(why, 0, "the regex has %zu group(s); groups must name one of them",
			    re.re_nsub);
		regfree(&re);
		return -EINVAL;
	}
	regfree(&re);
	return 0;
}

static int unit_scale(const char *u, size_t n, double *scale)
{
	static const struct {
		const char *name;
		double scale;
	} units[] = {
		{ "ns", 1 },
		{ "us", 1e3 },
		{ "ms", 1e6 },
		{ "s", 1e9 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == n && !strncmp(u, units[i].name, n)) {
			*scale = units[i].scale;
			return 0;
		}
	return -EINVAL;
}

/* Whether group g, where it starts or ends the match m0, runs on into more
 * characters of its token (letters, digits and extra) outside the match. */
static bool runs_on(const char *line, const regmatch_t *m0, const regmatch_t *g, const char *extra,
		    size_t *tail)
{
	const char *e = line + g->rm_eo;
	size_t n = 0;

#define TOKCH(c)                                                                                   \
	(((c) >= 'a' && (c) <= 'z') || ((c) >= 'A' && (c) <= 'Z') || ((c) >= '0' && (c) <= '9') || \
	 ((c) && strchr(extra, (c))))
	if (g->rm_eo == m0->rm_eo)
		while (TOKCH(e[n]))
			n++;
	*tail = n;
	if (n)
		return true;
	return g->rm_so == m0->rm_so && g->rm_so > 0 && TOKCH(line[g->rm_so - 1]);
#undef TOKCH
}

static int run_on_error(const char *what, const char *line, const regmatch_t *m0,
			const regmatch_t *g, const char *extra, struct errtext *why)
{
	size_t tail;

	if (!runs_on(line, m0, g, extra, &tail))
		return 0;
	return errtext_set(
		why, -EINVAL,
		"%s \"%.*s\" in \"%.60s\" is %s more of its token%s%.*s%s: the group must capture a whole token (end the regex with $ or a separator)",
		what, (int)(g->rm_eo - g->rm_so > 40 ? 40 : g->rm_eo - g->rm_so), line + g->rm_so,
		line, tail ? "followed by" : "preceded by", tail ? " \"" : "",
		(int)(tail > 20 ? 20 : tail), line + g->rm_eo, tail ? "\"" : "");
}

/* One matching line into a sample; -EINVAL with why when it does not parse. */
static int regex_sample(const struct bench_regex_def *d, const char *line, const regmatch_t *m,
			struct run_result *r, struct errtext *why)
{
	const regmatch_t *gs = &m[d->g_scenario], *gv = &m[d->g_value];
	double v, scale = 1;
	char num[64], *end;
	struct sample s;
	size_t n, i;
	int batch = 1;

	if (gs->rm_so < 0 || gv->rm_so < 0)
		return errtext_set(
			why, -EINVAL,
			"a scenario or value group did not take part in the match of \"%.60s\"",
			line);
	if (run_on_error("scenario", line, m, gs, "._:+/-", why) ||
	    run_on_error("value", line, m, gv, "._+-", why) ||
	    (d->g_unit && m[d->g_unit].rm_so >= 0 &&
	     run_on_error("unit", line, m, &m[d->g_unit], "._+-", why)))
		return -EINVAL;
	n = (size_t)(gs->rm_eo - gs->rm_so);
	if (!scenario_name_ok(line + gs->rm_so, n))
		return errtext_set(
			why, -EINVAL,
			"scenario \"%.*s\" in \"%.60s\": must be 1..63 letters, digits or ._:+/-",
			(int)(n > 63 ? 63 : n), line + gs->rm_so, line);
	if (d->g_unit) {
		const regmatch_t *gu = &m[d->g_unit];

		if (gu->rm_so < 0 ||
		    unit_scale(line + gu->rm_so, (size_t)(gu->rm_eo - gu->rm_so), &scale))
			return errtext_set(why, -EINVAL,
					   "unit \"%.*s\" in \"%.60s\": expected ns, us, ms or s",
					   gu->rm_so < 0 ? 0 : (int)(gu->rm_eo - gu->rm_so),
					   gu->rm_so < 0 ? "" : line + gu->rm_so, line);
	}
	n = (size_t)(gv->rm_eo - gv->rm_so);
	snprintf(num, sizeof(num), "%.*s", (int)(n < sizeof(num) ? n : sizeof(num) - 1),
		 line + gv->rm_so);
	errno = 0;
	v = strtod(num, &end);
	if (n >= sizeof(num) || !n || *end || errno || !isfinite(v) || v < 0)
		return errtext_set(why, -EINVAL,
				   "value \"%s\" in \"%.60s\" is not a non-negative number", num,
				   line);
	memset(&s, 0, sizeof(s));
	s.kind = SAMPLE_RESULT;
	s.fmt = 2;
	memcpy(s.scenario, line + gs->rm_so, (size_t)(gs->rm_eo - gs->rm_so));
	/* the latest sample of this scenario has the batch before this one
	 * (scenarios usually take turns, so this stops after a few steps) */
	for (i = r->n; i-- > 0;)
		if (!strcmp(r->v[i].scenario, s.scenario)) {
			batch = r->v[i].batch + 1;
			break;
		}
	s.batch = batch;
	s.size = s.reps = -1;
	s.mean_ns = v * scale;
	s.min_ns = s.max_ns = s.raw_ns = s.base_ns = s.lost = -1;
	s.ns_per_kib = 0;
	run_result_add(r, &s);
	return 0;
}

int bench_regex_parse(const struct bench_regex_def *d, const char *text, struct run_result *r,
		      struct errtext *why)
{
	regmatch_t m[10];
	const char *p = text;
	regex_t re;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (bench_regex_check(d, why))
		return -EINVAL;
	regcomp(&re, d->regex, REG_EXTENDED);
	while (*p && !ret) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);

		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		if (!regexec(&re, line, 10, m, 0))
			ret = regex_sample(d, line, m, r, why);
		free(line);
		p += n;
		if (*p)
			p++;
	}
	regfree(&re);
	if (ret) {
		r->malformed = 1;
		snprintf(r->first_error, sizeof(r->first_error), "%.*s",
			 (int)sizeof(r->first_error) - 1, why->msg);
		return ret;
	}
	r->have_start = r->have_done = true;
	r->fmt = 2;
	return 0;
}

char *bench_regex_command(const char *command)
{
	/* a subshell: `set -e` must not end the target's login shell */
	return xasprintf("( set -e\n%s\n)", command);
}

static int bench_regex(struct target *t, const struct board *b, const struct bench_params *p,
		       struct bench_out *o)
{
	int64_t deadline = now_ms() + b->t_command_s * 1000;
	struct buf out = { 0 };
	struct errtext why = { "" };
	int status, ret;
	char *cmd;

	memset(o, 0, sizeof(*o));
	ret = bench_prologue(t, b, deadline, &out, o, NULL);
	if (ret)
		goto io;
	cmd = bench_regex_command(p->def->regex.command);
	ret = bench_run_timed(t, cmd, deadline, &out, &status, o);
	free(cmd);
	if (ret)
		goto io;
	if (status) {
		char *msg = first_line(out.data ? out.data : "");

		errtext_set(
			&o->error, 0,
			"benchmark command exited with status %d (it runs under set -e: the first failing command ends it; %s%s)",
			status, msg[0] ? "first line: " : "no output", msg);
		free(msg);
		buf_free(&out);
		return -EIO;
	}
	ret = bench_regex_parse(&p->def->regex, out.data ? out.data : "", &o->res, &why);
	buf_free(&out);
	return bench_accept(b, p, o, ret, why.msg);
io:
	buf_free(&out);
	io_error(t, b, ret, o);
	return ret;
}

/* ---- the definition: job file, command line, run record */

static const char *const regex_keys[] = { "command", "regex", "groups", NULL };

/* three different groups (unit 0: none) that the regex has */
static int regex_groups_check(const struct bench_regex_def *r)
{
	return r->g_scenario == r->g_value || r->g_unit == r->g_scenario || r->g_unit == r->g_value;
}

/* "command", "regex" and "groups" ({"scenario": N, "value": N, "unit": N}) of t */
static void regex_read(struct bench_regex_def *r, json_object *t)
{
	json_object *g = jobj(t, "groups");
	const char *c = jstr(t, "command"), *re = jstr(t, "regex");

	r->command = c ? xstrdup(c) : NULL;
	r->regex = re ? xstrdup(re) : NULL;
	r->g_scenario = (int)jint(g, "scenario", 0);
	r->g_value = (int)jint(g, "value", 0);
	r->g_unit = (int)jint(g, "unit", 0);
}

static int regex_job(struct bench_def *d, json_object *t, const struct bench_job *j)
{
	struct bench_regex_def *r = &d->regex;
	struct errtext why;
	int bad = 0;

	regex_read(r, t);
	if (!r->command || !r->command[0]) {
		bench_job_error(
			j, "benchmark.command",
			"required for a \"regex\" benchmark: the shell command run on the target");
		bad = 1;
	}
	if (!r->regex || !jobj(t, "groups")) {
		bench_job_error(
			j, r->regex ? "benchmark.name" : "benchmark.regex",
			"a \"regex\" benchmark needs \"regex\" (a POSIX ERE) and \"groups\" ({\"scenario\": N, \"value\": N, \"unit\": N})");
		return -EINVAL;
	}
	if (regex_groups_check(r)) {
		bench_job_error(j, "benchmark.groups",
				"scenario, value and unit must be different groups");
		bad = 1;
	} else if (bench_regex_check(r, &why)) {
		bench_job_error(j, "benchmark.regex", "%s", why.msg);
		bad = 1;
	}
	if (j->params) {
		bench_job_error(
			j, "benchmark.params",
			"a \"regex\" benchmark has no module parameters: put its arguments in \"command\"");
		bad = 1;
	}
	return bad;
}

static bool regex_cli_given(const struct bench_cli *a)
{
	return a->command || a->regex || a->groups;
}

static int regex_cli(struct bench_def *d, const struct bench_cli *a)
{
	struct bench_regex_def *r = &d->regex;
	struct errtext why;
	char *end;

	if (!a->command || !a->regex || !a->groups) {
		err_msg("--benchmark regex needs --command CMD, --regex ERE and --groups S,V[,U]");
		return 2;
	}
	r->command = xstrdup(a->command);
	r->regex = xstrdup(a->regex);
	r->g_scenario = (int)strtol(a->groups, &end, 10);
	r->g_value = *end == ',' ? (int)strtol(end + 1, &end, 10) : 0;
	r->g_unit = *end == ',' ? (int)strtol(end + 1, &end, 10) : 0;
	if (*end || r->g_scenario < 1 || r->g_scenario > 9 || r->g_value < 1 || r->g_value > 9 ||
	    r->g_unit < 0 || r->g_unit > 9 || r->g_scenario == r->g_value ||
	    (r->g_unit && (r->g_unit == r->g_scenario || r->g_unit == r->g_value))) {
		err_msg("--groups: \"%s\": expected S,V or S,V,U: three different group numbers 1..9 (scenario, value, unit)",
			a->groups);
		return 2;
	}
	if (bench_regex_check(r, &why)) {
		err_msg("--regex: %s", why.msg);
		return 2;
	}
	if (a->params) {
		err_msg("--params: a regex benchmark has no module parameters: put its arguments in --command");
		return 2;
	}
	return 0;
}

static void regex_write(const struct bench_def *d, json_object *run)
{
	const struct bench_regex_def *r = &d->regex;
	json_object *g = json_object_new_object();

	json_object_object_add(run, "command", json_object_new_string(r->command));
	json_object_object_add(run, "regex", json_object_new_string(r->regex));
	json_object_object_add(g, "scenario", json_object_new_int(r->g_scenario));
	json_object_object_add(g, "value", json_object_new_int(r->g_value));
	if (r->g_unit)
		json_object_object_add(g, "unit", json_object_new_int(r->g_unit));
	json_object_object_add(run, "groups", g);
}

/* what regex_write() wrote, with the job loader's defaults and checks */
static int regex_record(struct bench_def *d, json_object *run, const char *modparams,
			struct errtext *why)
{
	struct bench_regex_def *r = &d->regex;

	(void)modparams;
	regex_read(r, run);
	if (!r->command || !r->regex || regex_groups_check(r) || bench_regex_check(r, why))
		return errtext_set(why, -EINVAL,
				   "its stored regex benchmark is incomplete or invalid");
	return 0;
}

static void regex_free(struct bench_def *d)
{
	free((char *)d->regex.command);
	free((char *)d->regex.regex);
	d->regex.command = d->regex.regex = NULL;
}

const struct bench_ops bench_regex_ops = {
	.name = "regex",
	.job_keys = regex_keys,
	.job_parse = regex_job,
	.cli_opts = "--command, --regex and --groups",
	.cli_given = regex_cli_given,
	.cli_parse = regex_cli,
	.record_write = regex_write,
	.record_read = regex_record,
	.run = bench_regex,
	.free = regex_free,
};
