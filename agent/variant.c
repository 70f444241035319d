// SPDX-License-Identifier: GPL-2.0-only
/* The variant names, once, and a campaign's variant set (variant.h). */
#include "variant.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const variant_names[NVARIANTS] = { "control", "patched" };

const struct variant_set variant_pair = { 2, { "control", "patched" } };

int variant_parse(const char *s)
{
	int v;

	for (v = 0; v < NVARIANTS; v++)
		if (s && !strcmp(s, variant_names[v]))
			return v;
	return -EINVAL;
}

bool variant_set_is_pair(const struct variant_set *vs)
{
	return !vs ||
	       (vs->n == 2 && !strcmp(vs->label[0], "control") && !strcmp(vs->label[1], "patched"));
}

int variant_set_find(const struct variant_set *vs, const char *label)
{
	int i;

	for (i = 0; label && i < vs->n; i++)
		if (!strcmp(vs->label[i], label))
			return i;
	return -1;
}

bool variant_label_ok(const char *s)
{
	size_t l = strlen(s);

	return l > 0 && l < VARIANT_LABEL_MAX && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+._-") == l;
}

int variant_set_add(struct variant_set *vs, const char *label)
{
	if (vs->n >= VARIANTS_MAX)
		return -E2BIG;
	if (!variant_label_ok(label) || variant_set_find(vs, label) >= 0)
		return -EINVAL;
	snprintf(vs->label[vs->n++], VARIANT_LABEL_MAX, "%s", label);
	return 0;
}

void variant_prefix_label(int k, char *out, unsigned long len)
{
	if (k <= 1)
		snprintf(out, len, "+1");
	else
		snprintf(out, len, "+1-%d", k);
}
