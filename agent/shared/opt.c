// SPDX-License-Identifier: GPL-2.0-only
/* The global --db option and the option parsers the library shares (opt.h). */
#include "shared/opt.h"
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>

const char *opt_db;

int parse_int_opt(const char *opt, const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		err_msg("%s: \"%s\" is not an integer in %ld..%ld", opt, s, lo, hi);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int parse_alpha_opt(const char *s, double *alpha)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || end == s || !(v > 0 && v < 1)) {
		err_msg("--alpha: \"%s\" must be a number between 0 and 1", s);
		return -EINVAL;
	}
	*alpha = v;
	return 0;
}
