// SPDX-License-Identifier: GPL-2.0-only
/* SIGINT/SIGTERM/SIGHUP: a stop request, and power-offs that run to completion. */
#include "shared/signals.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

volatile sig_atomic_t stop_requested;
volatile sig_atomic_t off_aborted;
static atomic_int offs_running; /* power-offs in progress, all threads */
static _Thread_local int this_thread_off;

static void say(const char *a, const char *b)
{
	/* write(2) only: this runs in a signal handler */
	if (write(2, a, strlen(a)) < 0 || write(2, b, strlen(b)) < 0) {
		/* nowhere to report it */
	}
}

static void on_signal(int sig)
{
	const char *name = sig == SIGINT ? "ablab: SIGINT: " :
			   sig == SIGHUP ? "ablab: SIGHUP: " :
					   "ablab: SIGTERM: ";
	int e = errno;

	if (!stop_requested) {
		stop_requested = sig;
		say(name,
		    "stopping; boards that are on are switched off first (another signal while that runs aborts it)\n");
	} else if (!off_aborted && atomic_load(&offs_running) > 0) {
		off_aborted = sig;
		say(name, "aborting the power-off: boards may be left ON\n");
	}
	errno = e;
}

void install_signal_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void power_off_begin(void)
{
	this_thread_off++;
	atomic_fetch_add(&offs_running, 1);
}

void power_off_end(void)
{
	atomic_fetch_sub(&offs_running, 1);
	this_thread_off--;
}

bool in_power_off(void)
{
	return this_thread_off > 0;
}

bool stop_now(void)
{
	return this_thread_off ? off_aborted != 0 : stop_requested != 0;
}
