/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_INGEST_H
#define ABLAB_INGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Hand-captured dmesg or console logs as boots: one file = one boot.  The
 * boot's UUID is derived from sha256("ablab-ingest", board, variant, file
 * content), so ingesting the same file again stores nothing.
 */
#define INGEST_UUID_NS "ablab-ingest"

/* out: a version-8 (RFC 9562, hash-derived) UUID of board, variant and content. */
void ingest_uuid(const char *board, const char *variant, const char *data, size_t len,
		 char out[37]);

/* `ablab ingest`'s options. */
struct ingest_opts {
	const char *db;
	const char *board; /* a board file or name, or a board in the database */
	const char *variant, *kernel; /* kernel label, release (NULL: the log's) */
	const char *cpu, *family; /* a board new to the database */
	int64_t campaign; /* add to it; 0: a new campaign */
	bool partial, split;
	char **files;
	int nfiles;
};
/* Stores the files as boots of one campaign (printing what it did): 0 when every file is
 * stored or was already, -EINVAL for a bad option (printed), else -errno (printed). */
int ingest_run(const struct ingest_opts *o);

#endif
