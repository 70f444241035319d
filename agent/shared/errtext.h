/* SPDX-License-Identifier: GPL-2.0-only */
/* The error-text carrier: struct errtext (shared/errtext.c) */
#ifndef ABLAB_SHARED_ERRTEXT_H
#define ABLAB_SHARED_ERRTEXT_H

#include <stdarg.h>
#include <stdbool.h>

/* The one error-text carrier.  A layer that fails (console, power, boot, target, bench,
 * a backend's parser) says why in a struct errtext: one sentence naming the board, the
 * file or field and the fix; the command that called it prints it once.  The library
 * never prints its own errors and never exits.  errtext_set() returns ret, so that
 * `return errtext_set(e, -EINVAL, "...")` reports and returns in one statement. */
#define ERRTEXT_LEN 512
struct errtext {
	char msg[ERRTEXT_LEN];
};
int errtext_set(struct errtext *e, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int errtext_vset(struct errtext *e, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Puts "PREFIX: " before the message already there (context added by a caller). */
void errtext_prefix(struct errtext *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void errtext_clear(struct errtext *e)
{
	e->msg[0] = '\0';
}
static inline bool errtext_isset(const struct errtext *e)
{
	return e->msg[0] != '\0';
}

#endif
