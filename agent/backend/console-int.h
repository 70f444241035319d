/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CONSOLE_INT_H
#define ABLAB_CONSOLE_INT_H

/* Between console.c (the expect engine's scan) and console-pat.c (the patterns). */
#include "backend/console.h"

#include <regex.h>
#include <stdbool.h>

/* What console_pat_compile() owns: the source, the literal of a regex, the regex
 * (compiled at the first line that holds the literal, when there is one) */
struct console_rx {
	char *src, *lit;
	regex_t re;
	bool regex; /* not a plain string */
	bool compiled; /* re holds the compiled regex */
};

#endif
