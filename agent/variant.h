/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_VARIANT_H
#define ABLAB_VARIANT_H

#include <stdbool.h>

/* The kernels a campaign compares.  Their names are what the database, the
 * job files, the transcripts and every report call them.  An A/B campaign has
 * the pair below; a series campaign (jobs/README.md) has a variant set. */
enum variant { VARIANT_CONTROL, VARIANT_PATCHED, NVARIANTS };

extern const char *const variant_names[NVARIANTS];

/* "control" -> VARIANT_CONTROL ...; -EINVAL when s names no variant. */
int variant_parse(const char *s);

/* The variants of one campaign in series order: label[0] is the control, the
 * others follow it (a series of prefixes: "+1", "+1-2", ...).  The position of
 * a variant is its index. */
#define VARIANTS_MAX 8
#define VARIANT_LABEL_MAX 32

struct variant_set {
	int n;
	char label[VARIANTS_MAX][VARIANT_LABEL_MAX];
};

/* control, patched: every A/B campaign */
extern const struct variant_set variant_pair;

/* Is vs the pair control, patched (an A/B campaign, stored as today)? */
bool variant_set_is_pair(const struct variant_set *vs);
/* The index of label in vs, or -1. */
int variant_set_find(const struct variant_set *vs, const char *label);
/* A label may be 1-31 of A-Z a-z 0-9 + . _ - and not start with '-'. */
bool variant_label_ok(const char *s);
/* Appends label (0, or -E2BIG when full / -EINVAL for a bad or repeated label). */
int variant_set_add(struct variant_set *vs, const char *label);
/* "+1", "+1-2", "+1-3": the label of the prefix of k >= 1 patches. */
void variant_prefix_label(int k, char *out, unsigned long len);

#endif
