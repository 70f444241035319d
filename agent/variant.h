/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_VARIANT_H
#define ABLAB_VARIANT_H

/* The kernels a campaign compares.  Their names are what the database, the
 * job files, the transcripts and every report call them; a campaign with more
 * variants adds a value here and a name in variant.c. */
enum variant { VARIANT_CONTROL, VARIANT_PATCHED, NVARIANTS };

extern const char *const variant_names[NVARIANTS];

/* "control" -> VARIANT_CONTROL ...; -EINVAL when s names no variant. */
int variant_parse(const char *s);

#endif
