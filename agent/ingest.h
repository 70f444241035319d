/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_INGEST_H
#define ABLAB_INGEST_H

#include <stddef.h>

/*
 * Hand-captured dmesg or console logs as boots: one file = one boot.  The
 * boot's UUID is derived from sha256("ablab-ingest", board, variant, file
 * content), so ingesting the same file again stores nothing.
 */
#define INGEST_UUID_NS "ablab-ingest"

/* out: a version-8 (RFC 9562, hash-derived) UUID of board, variant and content. */
void ingest_uuid(const char *board, const char *variant, const char *data, size_t len,
		 char out[37]);

#endif
