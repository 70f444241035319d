/* SPDX-License-Identifier: GPL-2.0-only */
/* Every piece of shared/ (kept for the files that include it; a new file includes
 * the pieces it uses: shared/mem.h, shared/errtext.h, ...) */
#ifndef ABLAB_UTIL_H
#define ABLAB_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* room for any integer of type t in decimal, its sign and the NUL (a byte: < 3 digits) */
#define DEC_LEN(t) (3 * sizeof(t) + 2)

#include "shared/clock.h"
#include "shared/errtext.h"
#include "shared/files.h"
#include "shared/mem.h"
#include "shared/msg.h"
#include "shared/proc.h"
#include "shared/signals.h"
#include "shared/text.h"

#endif
