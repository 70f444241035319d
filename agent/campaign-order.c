// SPDX-License-Identifier: GPL-2.0-only
/* The order of a campaign's boots (campaign.h): the order names, the two-variant
 * orders every A/B campaign has used, and the rounds of more than two variants
 * (Williams rows, ABBA mirrored, seeded random).  No I/O. */
#include "campaign.h"
#include "shared/util.h"
#include "stats/splitmix64.h"
#include "variant.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static const char *const order_names[] = { "abab", "abba", "random", "williams" };

int order_parse(const char *s, enum order_kind *kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(order_names); i++) {
		if (!strcmp(s, order_names[i])) {
			*kind = (enum order_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *order_name(enum order_kind kind)
{
	return order_names[kind];
}

/* Two variants, as every A/B campaign has been ordered. */
static void order_pair(enum order_kind kind, int n, uint64_t seed, int *v)
{
	int i;

	for (i = 0; i < NVARIANTS * n; i++) {
		switch (kind) {
		case ORDER_ABAB: /* AB AB ... */
			v[i] = i % NVARIANTS;
			break;
		case ORDER_ABBA: /* AB BA AB BA ...: counterbalanced */
			v[i] = (i / NVARIANTS) % 2 ? NVARIANTS - 1 - i % NVARIANTS : i % NVARIANTS;
			break;
		default:
			v[i] = i / n;
			break;
		}
	}
	if (kind == ORDER_RANDOM) { /* seeded Fisher-Yates over a balanced list */
		uint64_t st = seed;

		for (i = NVARIANTS * n - 1; i > 0; i--) {
			int j = (int)(splitmix64(&st) % (uint64_t)(i + 1)), t = v[i];

			v[i] = v[j];
			v[j] = t;
		}
	}
}

/* Row r of a Williams design for nv treatments: row 0 is 0, 1, nv-1, 2, nv-2, ...,
 * row r adds r (mod nv) to it; an odd nv needs the nv mirrored rows too (rows nv..2nv-1),
 * so that each treatment follows each other once (even nv) or twice (odd) per square. */
static void williams_row(int nv, int r, int *row)
{
	int j, k = r % (nv % 2 ? 2 * nv : nv), shift = k % nv;

	for (j = 0; j < nv; j++) {
		int base = j == 0 ? 0 : j % 2 ? (j + 1) / 2 : nv - j / 2;

		row[k >= nv ? nv - 1 - j : j] = (base + shift) % nv;
	}
}

int campaign_order_n(enum order_kind kind, int nv, int n, uint64_t seed, int *v)
{
	uint64_t st = seed;
	int r, j;

	if (n <= 0 || nv < 2 || nv > VARIANTS_MAX)
		return -EINVAL;
	if (nv == NVARIANTS && kind != ORDER_WILLIAMS) {
		order_pair(kind, n, seed, v);
		return 0;
	}
	for (r = 0; r < n; r++) {
		int *row = v + r * nv;

		switch (kind) {
		case ORDER_WILLIAMS:
			williams_row(nv, r, row);
			break;
		case ORDER_ABBA: /* ABC CBA ABC ... */
			for (j = 0; j < nv; j++)
				row[j] = r % 2 ? nv - 1 - j : j;
			break;
		case ORDER_RANDOM: /* a seeded Fisher-Yates per round */
			for (j = 0; j < nv; j++)
				row[j] = j;
			for (j = nv - 1; j > 0; j--) {
				int k = (int)(splitmix64(&st) % (uint64_t)(j + 1)), t = row[j];

				row[j] = row[k];
				row[k] = t;
			}
			break;
		default: /* ABC ABC ... */
			for (j = 0; j < nv; j++)
				row[j] = j;
			break;
		}
	}
	return 0;
}

int campaign_order(enum order_kind kind, int n, uint64_t seed, int *v)
{
	return campaign_order_n(kind, NVARIANTS, n, seed, v);
}
