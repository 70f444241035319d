/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_QUERY_H
#define ABLAB_QUERY_H

/*
 * The results database from the command line: `ablab query` (boots x
 * scenarios with filters), `ablab campaigns`, `ablab compare A B|--previous`
 * and `ablab trend JOB` (nightly history).  Every filter value reaches
 * PostgreSQL as a query parameter, never as SQL text.  The commands are
 * declared in cmds.h.
 */

/* "30d", "12h", "2w" -> "30 days" etc. (an age), or a date/time accepted as
 * YYYY-MM-DD[( |T)HH:MM[:SS]].  Returns 1 for an age, 0 for a date (date_only
 * set when no time was given), -EINVAL otherwise. */
int query_parse_when(const char *s, char *out, unsigned long len, int *date_only);

#include <stdio.h>

/* The commands writing to out instead of stdout (cmds.h has their cmd_X() entries):
 * `ablab serve` answers its API with what they print.  Not reentrant (getopt): reset
 * optind to 0 before each call. */
int cmd_query_to(FILE *out, int argc, char **argv); /* query.c */
int cmd_campaigns_to(FILE *out, int argc, char **argv); /* query.c */
int cmd_trend_to(FILE *out, int argc, char **argv); /* trend.c */

#endif
