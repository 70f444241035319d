/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_OPT_H
#define ABLAB_OPT_H

/* The global --db option and the option parsers the library shares: below every command
 * and the library files that read options (report/query.c, report/trend.c, ingest.c,
 * spool.c, web/), so none of them calls up into cmd/. */

extern const char *opt_db; /* --db CONNINFO (NULL: ABLAB_DB or the private cluster) */

/* parse a bounded integer option; prints "OPT: ..." and returns -EINVAL */
int parse_int_opt(const char *opt, const char *s, long lo, long hi, long *out);

/* --alpha A: a significance level in (0, 1); prints the error and returns -EINVAL */
int parse_alpha_opt(const char *s, double *alpha);

#endif
