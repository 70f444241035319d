// SPDX-License-Identifier: GPL-2.0-only
/* The target's side of a boot's environment fingerprint (docs/DESIGN.md "Environment
 * fingerprint"): the shell text the prologue and the kernel-log read carry in their own
 * round trips, and the parse of what it printed.  Shell builtins only (each process costs
 * ~10 ms under QEMU's TCG), short labels, one function typed once:
 *
 *   _e LABEL FILE...   prints "LABEL v1 v2 ..." (a file it cannot read: "-")
 *
 * "@c" /proc/cmdline, "@f policyN" the policy's scaling_[cgm]* (glob order: cur_freq,
 * governor, max_freq, min_freq), "@t" / "@T" the thermal zones' temp at the start / the
 * end.  A glob that matches nothing stays as typed: its line is refused here, the key is
 * absent. */
#include "bench/bench.h"
#include "bench/bench-int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_FN \
	"_e(){ echo -n $1;shift;for f;do read -r v <$f||v=-;echo -n \" $v\";done 2>/dev/null;echo;}"
/* the shortest globs that match only what they mean (each byte is 87 us at 115,200 baud,
 * typed and echoed): /sys/d* is dev/ and devices/, of which only devices/ has sy*
 * (system/); cpu/cpuf* is cpufreq/ (cpuidle/ is not), which holds policyN, boost and the
 * governors' tunables (ondemand/, conservative/); /sys/c* is class/, th* its thermal/,
 * whose t* are thermal_zoneN (not cooling_deviceN) */
#define ENV_CPUFREQ "/sys/d*/sy*/cpu/cpuf*/p*"
#define ENV_THERMAL "/sys/c*/th*/t*/temp"

char *bench_env_start_cmd(const struct board *b, bool cmdline)
{
	/* the governor written to every policy first, then read back with the rest */
	char *pin = b->governor ? xasprintf("echo %s >$p/scaling_governor;", b->governor) :
				  xasprintf("%s", "");
	char *cmd = xasprintf(
		"%s;_z=%s;for p in %s;do %s_e \"@f ${p##*/}\" $p/scaling_[cgm]*;done%s;_e @t $_z%s",
		ENV_FN, ENV_THERMAL, ENV_CPUFREQ, pin, b->governor ? " 2>/dev/null" : "",
		cmdline ? ";_e @c /proc/cmdline" : "");

	free(pin);
	return cmd;
}

const char *bench_env_end_cmd(void)
{
	return "_e @T $_z";
}

/* "-" or digits: the number (-1: "-"); -2: neither */
static long long env_num(const char *w)
{
	char *end;
	long long v;

	if (!strcmp(w, "-"))
		return -1;
	if (!isdigit((unsigned char)*w))
		return -2;
	v = strtoll(w, &end, 10);
	return *end ? -2 : v;
}

static bool env_word(const char *w)
{
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && *w != '_' && *w != '-')
			return false;
	return true;
}

/* "@f policyN cur gov max min" -> env.cpufreq[] */
static void env_cpufreq(json_object *env, char *line)
{
	char *w[6], *save = NULL, *tok;
	long long v[3];
	json_object *a, *o;
	int n = 0, i;

	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (n < 6)
			w[n++] = tok;
		else
			return;
	if (n != 5 || strncmp(w[0], "policy", 6) || !*(w[0] + 6) ||
	    strspn(w[0] + 6, "0123456789") != strlen(w[0] + 6) || !env_word(w[2]))
		return;
	v[0] = env_num(w[1]);
	v[1] = env_num(w[3]);
	v[2] = env_num(w[4]);
	if (v[0] == -2 || v[1] == -2 || v[2] == -2)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "policy", json_object_new_string(w[0]));
	if (strcmp(w[2], "-"))
		json_object_object_add(o, "governor", json_object_new_string(w[2]));
	for (i = 0; i < 3; i++)
		if (v[i] >= 0)
			json_object_object_add(
				o, (const char *[]){ "cur_khz", "max_khz", "min_khz" }[i],
				json_object_new_int64(v[i]));
	if (!json_object_object_get_ex(env, "cpufreq", &a)) {
		a = json_object_new_array();
		json_object_object_add(env, "cpufreq", a);
	}
	json_object_array_add(a, o);
}

/* "@t v ..." -> key: an array of millidegrees, null for a zone not read; none read: absent */
static void env_thermal(json_object *env, const char *key, char *vals)
{
	json_object *a = json_object_new_array();
	char *save = NULL, *tok;
	bool any = false;

	for (tok = strtok_r(vals, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		bool none = !strcmp(tok, "-");
		char *end;
		long long v = strtoll(tok, &end, 10);

		if (!none && (end == tok || *end || !strchr("-0123456789", *tok))) {
			json_object_put(a); /* not a number: the line is not ours */
			return;
		}
		json_object_array_add(a, none ? NULL : json_object_new_int64(v));
		any |= !none;
	}
	if (any)
		json_object_object_add(env, key, a);
	else
		json_object_put(a);
}

void bench_env_parse(const struct board *b, const char *out, json_object **env)
{
	const char *l;

	if (!out)
		return;
	if (!*env)
		*env = json_object_new_object();
	for (l = out; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		char *line = strndup(l, strcspn(l, "\n"));

		if (!strncmp(line, "@c ", 3) && !json_object_object_get_ex(*env, "cmdline", NULL))
			json_object_object_add(*env, "cmdline", json_object_new_string(line + 3));
		else if (!strncmp(line, "@f ", 3))
			env_cpufreq(*env, line + 3);
		else if (!strncmp(line, "@t", 2) && (!line[2] || line[2] == ' '))
			env_thermal(*env, "thermal_mc_start", line + 2);
		else if (!strncmp(line, "@T", 2) && (!line[2] || line[2] == ' '))
			env_thermal(*env, "thermal_mc_end", line + 2);
		free(line);
	}
	if (b->governor && !json_object_object_get_ex(*env, "governor_pinned", NULL)) {
		json_object *a, *g;
		size_t i, n = 0;
		bool all = json_object_object_get_ex(*env, "cpufreq", &a);

		for (i = 0; all && i < json_object_array_length(a); i++, n++)
			all = json_object_object_get_ex(json_object_array_get_idx(a, i), "governor",
							&g) &&
			      !strcmp(json_object_get_string(g), b->governor);
		if (all && n)
			json_object_object_add(*env, "governor_pinned",
					       json_object_new_string(b->governor));
	}
}
