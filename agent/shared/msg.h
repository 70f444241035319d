/* SPDX-License-Identifier: GPL-2.0-only */
/* Messages on stderr (shared/msg.c) */
#ifndef ABLAB_SHARED_MSG_H
#define ABLAB_SHARED_MSG_H

/* Messages: "ablab: ..." on stderr.  Progress lines go to stderr too, so that
 * stdout carries only the requested output (reports, JSON). */
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int verbose;

#endif
