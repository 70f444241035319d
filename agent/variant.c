// SPDX-License-Identifier: GPL-2.0-only
/* The variant names, once (variant.h). */
#include "variant.h"

#include <errno.h>
#include <string.h>

const char *const variant_names[NVARIANTS] = { "control", "patched" };

int variant_parse(const char *s)
{
	int v;

	for (v = 0; v < NVARIANTS; v++)
		if (s && !strcmp(s, variant_names[v]))
			return v;
	return -EINVAL;
}
