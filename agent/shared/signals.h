/* SPDX-License-Identifier: GPL-2.0-only */
/* SIGINT/SIGTERM/SIGHUP: a stop request, and power-offs that run to completion (shared/signals.c) */
#ifndef ABLAB_SHARED_SIGNALS_H
#define ABLAB_SHARED_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* The first SIGINT/SIGTERM/SIGHUP sets stop_requested (its number): every
 * wait loop checks it and the command winds down, switching its boards off.
 * A power-off runs to completion after it (within its own deadline); a
 * further signal while one runs sets off_aborted, which aborts the power-offs
 * running then and later (the board may stay on: callers say so). */
extern volatile sig_atomic_t stop_requested;
extern volatile sig_atomic_t off_aborted;
void install_signal_handlers(void);
/* Brackets a power-off in the calling thread (the signal handler sees it). */
void power_off_begin(void);
void power_off_end(void);
bool in_power_off(void);
/* Should a wait give up now?  stop_requested, or inside a power-off only
 * off_aborted. */
bool stop_now(void);

#endif
