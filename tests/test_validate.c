// SPDX-License-Identifier: GPL-2.0
/*
 * test_validate.c - the short seeded version of `make validate` (tests/validate.c --quick):
 * 1,000 campaigns per line, 3-SE bounds against the stated levels, a few seconds; a missed
 * target fails `make check`.
 */
#define VALIDATE_QUICK 1
#include "validate.c"
