/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_SPOOL_H
#define ABLAB_SPOOL_H

#include "board.h"
#include "shared/jsonfile.h"
#include "store/store.h"

/* When the results database is unreachable, a finished boot is written to
 * DIR/UUID.json (temp file, fsync, rename) instead of being lost; loading
 * goes through store_boot(), idempotent by UUID, and removes the file only
 * after its transaction committed. */
int spool_write(const char *dir, const struct boot_rec *b);
/* One spool file, decoded and checked field by field (types, ranges,
 * lengths that fit, the parser's invariants, no sample key twice). */
struct spool_boot {
	struct jfile jf;
	struct board b;
	struct kernel_art k;
	struct run_result res;
	struct boot_rec rec; /* ready for store_boot() */
};
/* 0, -EINVAL with why = "field \"samples[2].batch\" is not an integer"
 * (or "not valid JSON"), or -errno when the file cannot be read. */
int spool_read(struct spool_boot *sb, const char *path, struct errtext *why);
void spool_boot_free(struct spool_boot *sb);
/* Loads every DIR/ *.json (files refused go to DIR/rejected/); *loaded / *failed count files.  0 or -errno. */
int spool_flush(struct store *st, const char *dir, int *loaded, int *failed);

#endif
