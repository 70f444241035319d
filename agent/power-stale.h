// SPDX-License-Identifier: GPL-2.0-only
#ifndef ABLAB_POWER_STALE_H
#define ABLAB_POWER_STALE_H
#include <stdbool.h>
#include <stddef.h>

struct store;
/* the boards of every stale campaign (running, its agent dead: nothing
 * switched them off) switched off, each said on stderr naming board and campaign; a
 * QEMU board and a board an agent holds now are left alone.  at_start: a campaign command
 * starting (run, ab, resume, nightly): boards an operator switches are left too, a held
 * board quietly, and each stale campaign is acted on once (store_stale_mark()).
 * *found: the stale campaigns' boards.  0: each off, 1: one could not be (said), -EIO:
 * the database. */
int power_stale_off(struct store *st, bool at_start, size_t *found);

#endif
