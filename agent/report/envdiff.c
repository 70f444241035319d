// SPDX-License-Identifier: GPL-2.0-only
/* What else changed between boots besides the kernel under test: boots' environment
 * fingerprints (docs/DESIGN.md "Environment fingerprint") compared key by key.  Pure (no
 * database): report-env.c reads the fingerprints and hands them here. */
#include "report/envdiff.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>

/* one boot, its fingerprint parsed (o NULL: none, skipped) */
struct parsed {
	int seq;
	const char *variant;
	json_object *o;
};

/* how a key's values are shown */
enum env_kind {
	K_BOOTLOADER, /* "U-Boot 2023.01 -> 2024.04": the common first words once */
	K_CMDLINE, /* the words that differ */
	K_WORD, /* "cpufreq governor ondemand -> performance" */
	K_KHZ, /* "cpufreq max 1800000 -> 1500000 kHz" */
	K_HASH, /* "DTB sha256 (patched) 0123456789ab -> ..." */
};

/* a key compared boot to boot: its name in the fingerprint, its words in a phrase */
struct env_key {
	const char *key, *label, *none;
	enum env_kind kind;
	const char *policy, *field; /* a cpufreq policy's field, else NULL */
};

static char *value_text(json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return xstrdup(json_object_get_string(v));
	if (json_object_is_type(v, json_type_int))
		return xasprintf("%" PRId64, json_object_get_int64(v));
	return xstrdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

/* the key's value in fingerprint o (malloc'd), NULL when it has none */
static char *key_value(json_object *o, const struct env_key *k)
{
	json_object *a, *v;

	if (!k->policy)
		return json_object_object_get_ex(o, k->key, &v) ? value_text(v) : NULL;
	if (!json_object_object_get_ex(o, "cpufreq", &a) ||
	    !json_object_is_type(a, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *p;

		if (json_object_is_type(e, json_type_object) &&
		    json_object_object_get_ex(e, "policy", &p) &&
		    !strcmp(json_object_get_string(p), k->policy))
			return json_object_object_get_ex(e, k->field, &v) ? value_text(v) : NULL;
	}
	return NULL;
}

/* s split at spaces into *n words (the copy in *store; caller frees both) */
static char **words(const char *s, size_t *n, char **store)
{
	char **w = xcalloc(strlen(s) / 2 + 2, sizeof(*w)), *save = NULL, *t;

	*store = xstrdup(s);
	*n = 0;
	for (t = strtok_r(*store, " ", &save); t; t = strtok_r(NULL, " ", &save))
		w[(*n)++] = t;
	return w;
}

static void join(struct buf *o, char **w, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		buf_printf(o, "%s%s", i > from ? " " : "", w[i]);
}

/* "U-Boot 2023.01 (Jan 10 2023 - 12:00:00 +0000)": the version without its build date */
static char *no_date(const char *s)
{
	const char *p = strstr(s, " (");

	return p ? xasprintf("%.*s", (int)(p - s), s) : xstrdup(s);
}

/* a and b with the words they share at the start (bootloader: shown once, each side keeps
 * one word at least) and at the end (cmdline) left out */
static void word_diff(struct buf *o, const char *label, const char *a, const char *b,
		      bool bootloader, const char *none)
{
	char *sa, *sb, *da = NULL, *db = NULL;
	size_t na, nb, pre = 0, suf = 0;
	char **wa, **wb;

	if (bootloader) {
		da = no_date(a);
		db = no_date(b);
		if (strcmp(da, db)) { /* the versions differ: their build dates are noise */
			a = da;
			b = db;
		}
	}
	wa = words(a, &na, &sa);
	wb = words(b, &nb, &sb);
	while (pre < na && pre < nb && !strcmp(wa[pre], wb[pre]))
		pre++;
	if (bootloader) {
		if (pre >= na || pre >= nb)
			pre = 0;
	} else {
		while (suf < na - pre && suf < nb - pre &&
		       !strcmp(wa[na - 1 - suf], wb[nb - 1 - suf]))
			suf++;
	}
	if (bootloader && pre)
		join(o, wa, 0, pre);
	else
		buf_printf(o, "%s", label);
	buf_printf(o, " ");
	if (bootloader ? pre == na : pre == na - suf)
		buf_printf(o, "%s", none);
	join(o, wa, pre, na - suf);
	buf_printf(o, " -> ");
	if (pre == nb - suf)
		buf_printf(o, "%s", none);
	join(o, wb, pre, nb - suf);
	free(wa);
	free(wb);
	free(sa);
	free(sb);
	free(da);
	free(db);
}

static void add_change(struct env_diff *d, const char *key, const char *variant, const char *from,
		       const char *to, int seq, bool spread, char *text)
{
	struct env_change *c;

	d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
	c = &d->v[d->n++];
	c->key = xstrdup(key);
	c->variant = variant ? xstrdup(variant) : NULL;
	c->from = xstrdup(from);
	c->to = xstrdup(to);
	c->seq = seq;
	c->spread = spread;
	c->text = text;
}

/* the phrase of one change of key k */
static char *phrase(const struct env_key *k, const char *variant, const char *from, const char *to,
		    bool have_from, bool have_to, int seq, unsigned int flags)
{
	struct buf o = { 0 };

	if ((k->kind == K_BOOTLOADER || k->kind == K_CMDLINE) && have_from && have_to)
		word_diff(&o, k->label, from, to, k->kind == K_BOOTLOADER, "(nothing)");
	else if (k->kind == K_HASH)
		/* 12 hex digits tell sha256s apart; whole when they do not */
		buf_printf(&o, "%s (%s) %.*s -> %.*s", k->label, variant,
			   strncmp(from, to, 12) ? 12 : (int)strlen(from), from,
			   strncmp(from, to, 12) ? 12 : (int)strlen(to), to);
	else
		buf_printf(&o, "%s %s -> %s%s", k->label, from, to,
			   k->kind == K_KHZ && have_from && have_to ? " kHz" : "");
	if (!(flags & ENV_DIFF_NO_SEQ))
		buf_printf(&o, " from boot %d", seq);
	return o.data;
}

/* every change of key k from one boot to the next (of variant, when not NULL) */
static void cmp_key(struct env_diff *d, const struct parsed *p, size_t n, const struct env_key *k,
		    const char *variant, unsigned int flags)
{
	char *prev = NULL, *keyname;
	bool first = true, any = false;

	for (size_t i = 0; i < n && !any; i++) {
		char *v = p[i].o && (!variant || !strcmp(p[i].variant, variant)) ?
				  key_value(p[i].o, k) :
				  NULL;

		any = v != NULL;
		free(v);
	}
	if (!any) /* no boot recorded it: nothing to compare */
		return;
	keyname = k->policy ? xasprintf("cpufreq.%s.%s", k->policy, k->field) : xstrdup(k->key);
	for (size_t i = 0; i < n; i++) {
		char *v;

		if (!p[i].o || (variant && strcmp(p[i].variant, variant)))
			continue;
		v = key_value(p[i].o, k);
		if (!first && (!prev != !v || (v && strcmp(prev, v)))) {
			const char *f = prev ? prev : k->none, *t = v ? v : k->none;

			add_change(d, keyname, variant, f, t, p[i].seq, false,
				   phrase(k, variant, f, t, prev, v, p[i].seq, flags));
		}
		free(prev);
		prev = v;
		first = false;
	}
	free(prev);
	free(keyname);
}

/* the cpufreq policies any boot names, in order of appearance */
static char **policies(const struct parsed *p, size_t n, size_t *np)
{
	char **v = NULL;

	*np = 0;
	for (size_t i = 0; i < n; i++) {
		json_object *a;

		if (!p[i].o || !json_object_object_get_ex(p[i].o, "cpufreq", &a) ||
		    !json_object_is_type(a, json_type_array))
			continue;
		for (size_t j = 0; j < json_object_array_length(a); j++) {
			json_object *e = json_object_array_get_idx(a, j), *q;
			const char *name;
			size_t k;

			if (!json_object_is_type(e, json_type_object) ||
			    !json_object_object_get_ex(e, "policy", &q))
				continue;
			name = json_object_get_string(q);
			for (k = 0; k < *np && strcmp(v[k], name); k++)
				;
			if (k < *np)
				continue;
			v = xrealloc(v, (*np + 1) * sizeof(*v));
			v[(*np)++] = xstrdup(name);
		}
	}
	return v;
}

static void cmp_cpufreq(struct env_diff *d, const struct parsed *p, size_t n, unsigned int flags)
{
	static const char *const fields[] = { "governor", "min_khz", "max_khz" };
	static const char *const names[] = { "governor", "min", "max" };
	size_t np;
	char **pol = policies(p, n, &np);

	for (size_t i = 0; i < np; i++) {
		for (size_t f = 0; f < ARRAY_SIZE(fields); f++) {
			/* one policy (one clock for all CPUs): not named */
			char *label = np > 1 ? xasprintf("cpufreq %s %s", pol[i], names[f]) :
					       xasprintf("cpufreq %s", names[f]);
			struct env_key k = { .label = label,
					     .none = "(not recorded)",
					     .kind = f ? K_KHZ : K_WORD,
					     .policy = pol[i],
					     .field = fields[f] };

			cmp_key(d, p, n, &k, NULL, flags);
			free(label);
		}
		free(pol[i]);
	}
	free(pol);
}

/* a zone's temperature in fingerprint o at key, false when it has none */
static bool zone_mc(json_object *o, const char *key, size_t z, long *mc)
{
	json_object *a, *e;

	if (!o || !json_object_object_get_ex(o, key, &a) ||
	    !json_object_is_type(a, json_type_array) || z >= json_object_array_length(a))
		return false;
	e = json_object_array_get_idx(a, z);
	if (!json_object_is_type(e, json_type_int) && !json_object_is_type(e, json_type_double))
		return false;
	*mc = (long)json_object_get_double(e);
	return true;
}

/* each thermal zone's spread across the boots, at benchmark start and at its end */
static void cmp_thermal(struct env_diff *d, const struct parsed *p, size_t n, long spread_mc,
			unsigned int flags)
{
	static const char *const keys[] = { "thermal_mc_start", "thermal_mc_end" };
	static const char *const when[] = { "start", "end" };

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		for (size_t z = 0;; z++) {
			long lo = 0, hi = 0, first = 0, last = 0, mc;
			int lo_seq = 0, hi_seq = 0, last_seq = 0;
			size_t nv = 0;
			bool any_zone = false;
			char key[64], f[32], t[32];

			for (size_t i = 0; i < n; i++) {
				json_object *a;

				if (p[i].o && json_object_object_get_ex(p[i].o, keys[k], &a) &&
				    json_object_is_type(a, json_type_array) &&
				    z < json_object_array_length(a))
					any_zone = true;
				if (!zone_mc(p[i].o, keys[k], z, &mc))
					continue;
				if (!nv++) {
					lo = hi = first = mc;
					lo_seq = hi_seq = p[i].seq;
				}
				if (mc < lo) {
					lo = mc;
					lo_seq = p[i].seq;
				}
				if (mc > hi) {
					hi = mc;
					hi_seq = p[i].seq;
				}
				last = mc;
				last_seq = p[i].seq;
			}
			if (!any_zone)
				break;
			if (nv < 2 || hi - lo <= spread_mc)
				continue;
			snprintf(key, sizeof(key), "%s[%zu]", keys[k], z);
			if (flags & ENV_DIFF_NO_SEQ) { /* the first boot against the last */
				if (labs(last - first) <= spread_mc)
					continue;
				snprintf(f, sizeof(f), "%ld", first);
				snprintf(t, sizeof(t), "%ld", last);
				add_change(
					d, key, NULL, f, t, last_seq, true,
					xasprintf(
						"thermal zone %zu at benchmark %s %.1f -> %.1f \u00b0C (more than %.1f \u00b0C apart)",
						z, when[k], first / 1000.0, last / 1000.0,
						spread_mc / 1000.0));
				continue;
			}
			snprintf(f, sizeof(f), "%ld", lo);
			snprintf(t, sizeof(t), "%ld", hi);
			add_change(
				d, key, NULL, f, t, hi_seq, true,
				xasprintf(
					"thermal zone %zu at benchmark %s %.1f-%.1f \u00b0C across boots (coolest boot %d, hottest boot %d: a spread of %.1f \u00b0C, above %.1f \u00b0C)",
					z, when[k], lo / 1000.0, hi / 1000.0, lo_seq, hi_seq,
					(hi - lo) / 1000.0, spread_mc / 1000.0));
		}
	}
}

int env_diff(const struct env_boot *b, size_t n, unsigned int flags, long spread_mc,
	     struct env_diff *out)
{
	static const struct env_key across[] = {
		{ .key = "bootloader",
		  .label = "bootloader",
		  .none = "(not recorded)",
		  .kind = K_BOOTLOADER },
		{ .key = "cmdline",
		  .label = "cmdline",
		  .none = "(not recorded)",
		  .kind = K_CMDLINE },
		{ .key = "governor_pinned",
		  .label = "pinned governor",
		  .none = "(none)",
		  .kind = K_WORD },
	};
	static const struct env_key kernel[] = {
		{ .key = "dtb_sha256", .label = "DTB sha256", .none = "(none)", .kind = K_HASH },
		{ .key = "rootfs_sha256",
		  .label = "rootfs sha256",
		  .none = "(none)",
		  .kind = K_HASH },
		{ .key = "module_sha256",
		  .label = "benchmark module sha256",
		  .none = "(none)",
		  .kind = K_HASH },
	};
	struct parsed *p;

	memset(out, 0, sizeof(*out));
	if (spread_mc < 0)
		return -EINVAL;
	p = xcalloc(n + 1, sizeof(*p));
	for (size_t i = 0; i < n; i++) {
		p[i].seq = b[i].seq;
		p[i].variant = b[i].variant ? b[i].variant : "";
		if (!b[i].env) {
			out->nskipped++;
			continue;
		}
		p[i].o = json_tokener_parse(b[i].env);
		if (!p[i].o || !json_object_is_type(p[i].o, json_type_object)) {
			json_object_put(p[i].o);
			p[i].o = NULL;
			add_change(
				out, "env", NULL, "", "", b[i].seq, false,
				xasprintf("boot %d: environment not readable (not a JSON object)",
					  b[i].seq));
			continue;
		}
		out->nboots++;
	}
	for (size_t k = 0; k < ARRAY_SIZE(across); k++)
		cmp_key(out, p, n, &across[k], NULL, flags);
	cmp_cpufreq(out, p, n, flags);
	cmp_thermal(out, p, n, spread_mc, flags);
	for (size_t i = 0; i < n && (flags & ENV_DIFF_KERNEL); i++) {
		bool seen = false;

		/* each variant once, at its first boot */
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(p[j].variant, p[i].variant);
		for (size_t k = 0; k < ARRAY_SIZE(kernel) && !seen; k++)
			cmp_key(out, p, n, &kernel[k], p[i].variant, flags);
	}
	for (size_t i = 0; i < n; i++)
		json_object_put(p[i].o);
	free(p);
	return 0;
}

char *env_diff_text(const struct env_diff *d)
{
	struct buf o = { 0 };

	for (size_t i = 0; i < d->n; i++)
		buf_printf(&o, "%s%s", i ? "; " : "", d->v[i].text);
	return o.data;
}

void env_diff_free(struct env_diff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].key);
		free(d->v[i].variant);
		free(d->v[i].from);
		free(d->v[i].to);
		free(d->v[i].text);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
