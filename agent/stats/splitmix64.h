/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ABLAB_SPLITMIX64_H
#define ABLAB_SPLITMIX64_H

#include <stdint.h>

/*
 * splitmix64 (Steele, Lea, Flood 2014): the one seedable 64-bit step of ablab, here alone so
 * that the campaign order, the stats PRNG's seeding and the board simulator (tests/boardsim.c,
 * which links no agent code) share it.  Advances *x; the same sequence on every platform.
 */
static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
