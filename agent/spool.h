/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_SPOOL_H
#define ABLAB_SPOOL_H

#include "store.h"

/* When the results database is unreachable, a finished boot is written to
 * DIR/UUID.json (temp file, fsync, rename) instead of being lost; loading
 * goes through store_boot(), idempotent by UUID, and removes the file only
 * after its transaction committed. */
int spool_write(const char *dir, const struct boot_rec *b);
/* Loads every DIR/ *.json; *loaded / *failed count files.  0 or -errno. */
int spool_flush(struct store *st, const char *dir, int *loaded, int *failed);

#endif
