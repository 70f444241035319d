/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_TIMING_H
#define ABLAB_TIMING_H

#include <stddef.h>

#include "bench/parse.h"

/* The timing mode of every scenario of a campaign's board is the one its
 * first ok boot had: later loads of dmabench get it as pin_timing=, and a boot
 * whose modes differ is refused, so no row averages iteration timings with
 * baseline-subtracted batch timings.  A pin is "NAME:iter,NAME:batch,...". */

/* The pin of one boot's samples (malloc'd; NULL when it has no timing
 * sample); -EINVAL with why when a scenario has two modes in one boot. */
int timing_pin_of(const struct run_result *r, char **pin, struct errtext *why);
/* 0 when every timing sample of r has the mode pin gives its scenario (and
 * every scenario is in the pin); -EINVAL with why. */
int timing_pin_check(const char *pin, const struct run_result *r, struct errtext *why);
/* The module parameters for a pinned load: user (may be NULL) plus
 * "pin_timing=PIN" (replacing the user's own pin_timing=, which the first boot
 * obeyed), unless user times every scenario one way (timing=iter|batch).
 * malloc'd. */
char *timing_pin_params(const char *user, const char *pin);

#endif
