// SPDX-License-Identifier: GPL-2.0-only
/* The backends' capabilities and help (backends.h), from the one list (backends-list.h):
 * data only, below the backends, which ask it (boot method direct: does the power type
 * load the kernel?); the ops are in the registry above them, backends.c. */
#include "backend/backends.h"
#include "backend/backends-list.h"
#include "shared/util.h"

#include <string.h>

struct backend_caps {
	enum backend_kind kind;
	const char *name;
	unsigned int caps;
	const char *help;
};

#define KIND_console BACKEND_CONSOLE
#define KIND_power BACKEND_POWER
#define KIND_boot BACKEND_BOOT

#define CAPS(kind, name, caps, help) { KIND_##kind, #name, caps, help },
static const struct backend_caps backends[] = { BACKENDS(CAPS) };

static const char *const kind_names[] = { "console.type", "power.type", "boot.method" };

static const struct backend_caps *caps_find(enum backend_kind kind, const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind && !strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

bool backend_has(enum backend_kind kind, const char *name, unsigned int caps)
{
	const struct backend_caps *b = caps_find(kind, name);

	return b && (b->caps & caps) == caps;
}

char *backend_names(enum backend_kind kind, char *buf, size_t len)
{
	return backend_names_with(kind, 0, buf, len);
}

char *backend_names_with(enum backend_kind kind, unsigned int caps, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(backends) && n < len; i++)
		if (backends[i].kind == kind && (backends[i].caps & caps) == caps)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      backends[i].name);
	return buf;
}

void backend_help(FILE *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(backends); i++)
		fprintf(f, "  %-12s %-8s %s\n",
			i && backends[i - 1].kind == backends[i].kind ?
				"" :
				kind_names[backends[i].kind],
			backends[i].name, backends[i].help);
}
