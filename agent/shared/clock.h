/* SPDX-License-Identifier: GPL-2.0-only */
/* Milliseconds of the monotonic and the wall clock (shared/clock.c) */
#ifndef ABLAB_SHARED_CLOCK_H
#define ABLAB_SHARED_CLOCK_H

#include <stdint.h>

int64_t now_ms(void); /* CLOCK_MONOTONIC */
int64_t wall_ms(void); /* CLOCK_REALTIME */

#endif
