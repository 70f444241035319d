/* SPDX-License-Identifier: GPL-2.0-only */
/* Text: CSV cells, the name and parameter rules, templates, random hex and UUIDs (shared/text.c) */
#ifndef ABLAB_SHARED_TEXT_H
#define ABLAB_SHARED_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One CSV cell (RFC 4180): quoted when it holds a comma, quote or line end; a cell a
 * spreadsheet would take for a formula (starting with = @ tab CR, or + - before more than
 * [A-Za-z0-9._+-]: not a number nor a series label) is prefixed with ' */
void csv_cell(FILE *f, const char *s);
/* A file or module name that can go unquoted into a target shell or U-Boot command:
 * [A-Za-z0-9._+-]+, not starting with '-' or '.' */
bool shell_word_ok(const char *s);
/* module parameters as they are typed into the target's shell (insmod M PARAMS): letters,
 * digits, spaces and =,:._-+ only */
bool modparams_ok(const char *s);
#define MODPARAMS_RULE "module parameters may only contain letters, digits, spaces and =,:._-+"
/* A board or job name: 1-LAB_NAME_MAX of [A-Za-z0-9._+-], not starting with '-' (an
 * option) or '.' (a hidden or relative path); len is its JSON length, so a NUL inside
 * (a JSON \u0000) is refused, not cut. */
#define LAB_NAME_MAX 63
#define LAB_NAME_RULE "1-63 of letters, digits, . _ + -, not starting with - or ."
bool lab_name_ok(const char *s, size_t len);

/* Replace {key} placeholders with values; unknown keys are an error (-ENOENT),
 * with the key name stored in *bad (caller frees). */
int expand_template(const char *tmpl, const char *const *keys, const char *const *vals, size_t n,
		    char **out, char **bad);
/* The same; flags TMPL_KEEP_DOLLAR: a ${var} (U-Boot's, the shell's) is left as it is. */
#define TMPL_KEEP_DOLLAR (1u << 0)
int expand_template_flags(const char *tmpl, const char *const *keys, const char *const *vals,
			  size_t n, unsigned int flags, char **out, char **bad);

/* Random hex string (for markers and UUIDs). */
void random_hex(char *out, size_t nhex);
void uuid_v4(char out[37]);

#endif
