// SPDX-License-Identifier: GPL-2.0-only
/* Timing modes pinned per campaign and board (timing.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "timing.h"
#include "shared/util.h"

/* The mode pin gives scenario name, or NULL. */
static const char *pin_mode(const char *pin, const char *name, char *mode, size_t len)
{
	size_t n = strlen(name);
	const char *p = pin;

	while (p && *p) {
		const char *colon = strchr(p, ':'), *comma = strchr(p, ',');
		size_t ml;

		if (!colon)
			return NULL;
		ml = comma ? (size_t)(comma - colon - 1) : strlen(colon + 1);
		if ((size_t)(colon - p) == n && !strncmp(p, name, n) && ml < len) {
			memcpy(mode, colon + 1, ml);
			mode[ml] = '\0';
			return mode;
		}
		p = comma ? comma + 1 : NULL;
	}
	return NULL;
}

/* The next result sample from r->v[*i] on that says how it was timed, or NULL. */
static const struct sample *next_timed(const struct run_result *r, size_t *i)
{
	for (; *i < r->n; (*i)++)
		if (r->v[*i].kind == SAMPLE_RESULT && r->v[*i].timing[0])
			return &r->v[(*i)++];
	return NULL;
}

int timing_pin_of(const struct run_result *r, char **pin, struct errtext *why)
{
	const struct sample *s;
	struct buf b = { 0 };
	size_t i = 0;

	*pin = NULL;
	while ((s = next_timed(r, &i))) {
		char mode[16];

		if (b.len && pin_mode(b.data, s->scenario, mode, sizeof(mode))) {
			if (strcmp(mode, s->timing)) {
				errtext_set(
					why, 0,
					"scenario %s was timed both ways in one boot (%s and %s)",
					s->scenario, mode, s->timing);
				buf_free(&b);
				return -EINVAL;
			}
			continue;
		}
		buf_printf(&b, "%s%s:%s", b.len ? "," : "", s->scenario, s->timing);
	}
	*pin = b.data;
	return 0;
}

int timing_pin_check(const char *pin, const struct run_result *r, struct errtext *why)
{
	const struct sample *s;
	size_t i = 0;

	while ((s = next_timed(r, &i))) {
		char mode[16];

		if (!pin_mode(pin, s->scenario, mode, sizeof(mode))) {
			return errtext_set(
				why, -EINVAL,
				"scenario %s is not in this board's first boot (its timing modes: %s)",
				s->scenario, pin);
		}
		if (strcmp(mode, s->timing)) {
			return errtext_set(
				why, -EINVAL,
				"scenario %s was timed by %s, the board's first boot in this campaign timed it by %s (pin_timing not obeyed: an old dmabench.ko?)",
				s->scenario, s->timing, mode);
		}
	}
	return 0;
}

/* "timing=iter" or "timing=batch" as a word of p: every scenario one mode */
static bool one_mode(const char *p)
{
	static const char *const keys[] = { "timing=iter", "timing=batch" };
	size_t k;

	for (k = 0; k < 2; k++) {
		const char *q = p;
		size_t n = strlen(keys[k]);

		while ((q = strstr(q, keys[k]))) {
			if ((q == p || q[-1] == ' ') && (q[n] == ' ' || !q[n]))
				return true;
			q++;
		}
	}
	return false;
}

char *timing_pin_params(const char *user, const char *pin)
{
	struct buf b = { 0 };
	const char *p = user;

	if (user && one_mode(user))
		return xstrdup(user);
	if (!pin || !*pin)
		return user ? xstrdup(user) : NULL;
	/* the user's own pin_timing= held at the first boot, so the full pin
	 * agrees with it: it replaces it */
	while (p && *p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (n && strncmp(p, "pin_timing=", 11)) {
			buf_printf(&b, "%s%.*s", b.len ? " " : "", (int)n, p);
		}
		p = e ? e + 1 : NULL;
	}
	buf_printf(&b, "%spin_timing=%s", b.len ? " " : "", pin);
	return b.data;
}
