/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_POWER_GPIOD_H
#define ABLAB_POWER_GPIOD_H

#include "shared/util.h"

#include <stdbool.h>
#include <stddef.h>

/* Relay lines on a GPIO chip through libgpiod, v1 (bookworm) or v2 (trixie,
 * Pi OS), chosen at build time (HAVE_GPIOD_V2).  Values are logical: 1 =
 * relay on (board powered), whatever active_low says about the level.  The
 * request is held until gpio_relay_close(): releasing it lets the line float
 * back to its default, which may switch the relay. */
struct gpio_relay;

/* chip: "gpiochip0", "/dev/gpiochip0", "0" or the chip's label.  Requests
 * every line as an output at logical `initial`.  On failure err says why
 * (unknown chip, line out of range, line busy and its consumer): one phrase the
 * caller puts its context before (errtext_prefix). */
int gpio_relay_open(struct gpio_relay **r, const char *chip, const long *lines, size_t n,
		    bool active_low, int initial, const char *consumer, struct errtext *err);
int gpio_relay_set(struct gpio_relay *r, int value);
/* Reads the lines back (logical values, as the chip's driver reports them): how many are
 * on.  An output line that does not read what was set is not driven as asked. */
int gpio_relay_get(struct gpio_relay *r, size_t *n_on);
void gpio_relay_close(struct gpio_relay *r);

/* Dry run: the chip exists, the lines exist and nobody else holds them. */
int gpio_relay_check(const char *chip, const long *lines, size_t n, struct errtext *err);

/* The offsets of the lines named names[0..n-1] on chip (names as gpioinfo
 * shows them, e.g. gpio-sim's or a device tree's gpio-line-names). */
int gpio_line_offsets(const char *chip, char *const *names, size_t n, long *offs,
		      struct errtext *err);

/* "libgpiod v1 (1.6.3)" */
const char *gpio_api_version(void);

#endif
