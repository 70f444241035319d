/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_SERIES_H
#define ABLAB_SERIES_H

#include <stddef.h>

/* A patch series taken from a mailbox by `b4 am` (series.c): its patches are
 * written as a patch directory, one NNNN-subject.patch per patch, as
 * `git format-patch --zero-commit` writes them, so the directory of the series
 * a developer mailed and the series taken back from the mail are the same
 * files (and give the same kernel). */
struct series {
	char *msgid; /* the thread's first message (cover letter or patch 1) */
	char *subject; /* its subject ("[PATCH v2 0/2] ...") */
	int version; /* 1, 2, ... from "[PATCH vN ...]" */
	char **subjects; /* every patch's subject, NULL-terminated */
	char **msgids; /* every patch's Message-Id without <> ("": none), NULL-terminated */
	size_t n;
	char *dir; /* the patch directory (under the cache directory) */
};

/* Runs `b4 am` on MBOX (no network: the local mailbox only) for the thread of
 * MSGID (NULL: the mailbox's first message) and writes its patch directory
 * under $ABLAB_CACHE/series/.  0, or -errno with why[] (no "file: " prefix). */
int series_from_mbox(const char *mbox, const char *msgid, struct series *s, char *why, size_t len);
void series_free(struct series *s);

#endif
