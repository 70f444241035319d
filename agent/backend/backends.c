// SPDX-License-Identifier: GPL-2.0-only
/* The registry of backends: type name -> ops (backends.h), above the backends (it lists
 * their ops); their capabilities and help, which the backends themselves ask, are in
 * backend-caps.c below them.  Both tables are made from the one list, backends-list.h. */
#include "backend/backends.h"
#include "backend/backends-list.h"
#include "backend/boot.h"
#include "backend/console.h"
#include "backend/power.h"
#include "shared/util.h"

#include <string.h>

#define KIND_console BACKEND_CONSOLE
#define KIND_power BACKEND_POWER
#define KIND_boot BACKEND_BOOT

#define DECLARE(kind, name, caps, help) extern const struct kind##_ops kind##_##name##_ops;
BACKENDS(DECLARE)

#define ENTRY(kind, name, caps, help) { KIND_##kind, #name, caps, &kind##_##name##_ops, help },
static const struct backend backends[] = { BACKENDS(ENTRY) };

const struct backend *backend_find(enum backend_kind kind, const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind && !strcmp(backends[i].name, name))
			return &backends[i];
	return NULL;
}

const struct backend *backend_next(enum backend_kind kind, const struct backend *prev)
{
	size_t i = prev ? (size_t)(prev - backends) + 1 : 0;

	for (; i < ARRAY_SIZE(backends); i++)
		if (backends[i].kind == kind)
			return &backends[i];
	return NULL;
}

const struct backend_conf *backend_conf(const struct backend *bk)
{
	switch (bk->kind) {
	case BACKEND_CONSOLE:
		return &((const struct console_ops *)bk->ops)->conf;
	case BACKEND_POWER:
		return &((const struct power_ops *)bk->ops)->conf;
	case BACKEND_BOOT:
		return &((const struct boot_ops *)bk->ops)->conf;
	}
	return NULL;
}
