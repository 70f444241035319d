// SPDX-License-Identifier: GPL-2.0-only
/* Power backend gpiod: relay lines on a GPIO chip (the libgpiod calls are in
 * power_gpiod.c); the line request is taken at the first switch and held
 * until power_free(). */
#include "power.h"
#include "power_gpiod.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The board's line offsets: power.lines, or power.line_names looked up on
 * the chip now (*offs is then allocated). */
static int gpiod_offsets(const struct board *b, long **offs, char *err, size_t elen)
{
	int ret;

	*offs = b->gpio_lines;
	if (!b->gpio_line_names)
		return 0;
	*offs = xcalloc(b->n_gpio_lines, sizeof(**offs));
	ret = gpio_line_offsets(b->gpio_chip, b->gpio_line_names, b->n_gpio_lines, *offs, err,
				elen);
	if (ret) {
		free(*offs);
		*offs = NULL;
	}
	return ret;
}

static void gpiod_offsets_free(const struct board *b, long *offs)
{
	if (offs != b->gpio_lines)
		free(offs);
}

static int gpiod_set(struct power *p, int on)
{
	const struct board *b = p->board;
	char err[300];
	int ret;

	if (!p->relay) {
		char *consumer = xasprintf("ablab:%s", b->name);
		long *offs;

		ret = gpiod_offsets(b, &offs, err, sizeof(err));
		if (!ret)
			ret = gpio_relay_open(&p->relay, b->gpio_chip, offs, b->n_gpio_lines,
					      b->gpio_active_low, on, consumer, err, sizeof(err));
		gpiod_offsets_free(b, offs);
		free(consumer);
		if (ret) {
			power_set_error(p, "%s: power.chip %s / power.lines: %s", b->name, b->gpio_chip,
				  err);
			return ret;
		}
	} else {
		ret = gpio_relay_set(p->relay, on);
		if (ret) {
			power_set_error(p, "%s: power.chip %s: cannot set lines: %s", b->name,
				  b->gpio_chip, strerror(-ret));
			return ret;
		}
	}
	if (!on)
		p->t_off = now_ms();
	return 0;
}

static int gpiod_on(struct power *p, const struct kernel_art *k)
{
	int ret = power_wait_off_time(p);

	(void)k;
	return ret ? ret : gpiod_set(p, 1);
}

static int gpiod_off(struct power *p)
{
	return gpiod_set(p, 0);
}

static void gpiod_close(struct power *p)
{
	gpio_relay_close(p->relay);
	p->relay = NULL;
}

static int gpiod_check(const struct board *b, struct buf *out)
{
	char err[300];
	struct buf lines = { 0 };
	long *offs;
	size_t i;
	int bad;

	for (i = 0; i < b->n_gpio_lines; i++) {
		if (b->gpio_line_names)
			buf_printf(&lines, "%s%s", i ? "," : "", b->gpio_line_names[i]);
		else
			buf_printf(&lines, "%s%ld", i ? "," : "", b->gpio_lines[i]);
	}
	if (gpiod_offsets(b, &offs, err, sizeof(err)) ||
	    gpio_relay_check(b->gpio_chip, offs, b->n_gpio_lines, err, sizeof(err)))
		bad = check_line(out, false, "power.chip", "%s (lines %s): %s", b->gpio_chip,
				 lines.data, err);
	else
		bad = check_line(out, true, "power.chip", "%s lines %s exist and are free (%s, "
				 "%s)", b->gpio_chip, lines.data,
				 b->gpio_active_low ? "active low" : "active high",
				 gpio_api_version());
	gpiod_offsets_free(b, offs);
	buf_free(&lines);
	return bad;
}

const struct power_ops power_gpiod_ops = {
	.name = "gpiod",
	.on = gpiod_on,
	.off = gpiod_off,
	.check = gpiod_check,
	.close = gpiod_close,
};
