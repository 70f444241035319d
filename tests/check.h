/* SPDX-License-Identifier: GPL-2.0-only */
/* Minimal test helpers: count checks, print "NAME: N passed, N failed". */
#ifndef ABLAB_TEST_CHECK_H
#define ABLAB_TEST_CHECK_H

#include <stdio.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		if (cond) {                                                                      \
			t_passed++;                                                              \
		} else {                                                                         \
			t_failed++;                                                              \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECK_STR(got, want)                                                                    \
	do {                                                                                    \
		const char *g_ = (got), *w_ = (want);                                           \
		if (g_ && !strcmp(g_, w_)) {                                                    \
			t_passed++;                                                             \
		} else {                                                                        \
			t_failed++;                                                             \
			fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
				g_ ? g_ : "(null)", w_);                                        \
		}                                                                               \
	} while (0)

#define CHECK_DONE(name)                                                        \
	do {                                                                    \
		printf("%s: %d passed, %d failed\n", name, t_passed, t_failed); \
		return t_failed ? 1 : 0;                                        \
	} while (0)

#endif
