/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_CAMPAIGN_H
#define ABLAB_CAMPAIGN_H

#include <stdbool.h>
#include <stdint.h>

enum order_kind { ORDER_ABAB, ORDER_ABBA, ORDER_RANDOM };

/* Fills v[0..2n-1] with 0 (control) / 1 (patched): n of each. */
int campaign_order(enum order_kind kind, int n, uint64_t seed, int *v);
int order_parse(const char *s, enum order_kind *kind);
const char *order_name(enum order_kind kind);

struct ab_opts {
	const char *board;
	const char *control_dir, *patched_dir;
	int boots, batches;
	enum order_kind order;
	uint64_t seed;
	const char *db;
	const char *results;
	const char *modparams;
	const char *format;	/* report format printed at the end */
};

/* Runs one A/B campaign; returns 0, or -errno after printing why. */
int campaign_ab(const struct ab_opts *o);

#endif
