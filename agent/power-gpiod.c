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
			power_set_error(p, "%s: power.chip %s / power.lines: %s", b->name,
					b->gpio_chip, err);
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
		bad = check_line(out, true, "power.chip", "%s lines %s exist and are free (%s, %s)",
				 b->gpio_chip, lines.data,
				 b->gpio_active_low ? "active low" : "active high",
				 gpio_api_version());
	gpiod_offsets_free(b, offs);
	buf_free(&lines);
	return bad;
}

static const struct jfield gpiod_fields[] = { { "chip", J_STRING },
					      { "lines", J_ARRAY_INT },
					      { "line_names", J_ARRAY_STRING },
					      { "active_low", J_BOOL },
					      { NULL } };

/* power.line_names: not empty, no empty or repeated name */
static int gpiod_parse_names(struct board *b, json_object *o)
{
	size_t i, j;

	if (json_object_object_get_ex(o, "lines", NULL))
		return board_field_error(b, "power", "line_names",
					 "give \"lines\" (offsets) or \"line_names\", not both");
	b->gpio_line_names = jstrv(o, "line_names", &b->n_gpio_lines);
	if (!b->n_gpio_lines)
		return board_field_error(b, "power", "line_names", "must not be empty");
	for (i = 0; i < b->n_gpio_lines; i++) {
		if (!*b->gpio_line_names[i])
			return board_field_error(b, "power", "line_names", "an empty line name");
		for (j = 0; j < i; j++)
			if (!strcmp(b->gpio_line_names[i], b->gpio_line_names[j]))
				return board_field_error(b, "power", "line_names",
							 "line \"%s\" is listed twice",
							 b->gpio_line_names[i]);
	}
	return 0;
}

static int gpiod_parse(struct board *b, json_object *o)
{
	json_object *a;
	size_t i, j;

	b->gpio_chip = jstr(o, "chip");
	b->gpio_active_low = jbool(o, "active_low", false);
	if (!b->gpio_chip || !*b->gpio_chip)
		return board_field_error(b, "power", "type",
					 "power type gpiod needs \"chip\" (e.g. \"gpiochip0\")");
	if (json_object_object_get_ex(o, "line_names", NULL))
		return gpiod_parse_names(b, o);
	if (!json_object_object_get_ex(o, "lines", &a) || !json_object_array_length(a))
		return board_field_error(
			b, "power", "type",
			"power type gpiod needs \"lines\": [OFFSET, ...] or \"line_names\": [NAME, ...]");
	b->n_gpio_lines = json_object_array_length(a);
	b->gpio_lines = xcalloc(b->n_gpio_lines, sizeof(*b->gpio_lines));
	for (i = 0; i < b->n_gpio_lines; i++) {
		int64_t v = json_object_get_int64(json_object_array_get_idx(a, i));

		if (v < 0 || v > 65535)
			return board_field_error(b, "power", "lines",
						 "line offset %lld out of range 0..65535",
						 (long long)v);
		b->gpio_lines[i] = (long)v;
		for (j = 0; j < i; j++)
			if (b->gpio_lines[j] == v)
				return board_field_error(b, "power", "lines",
							 "line %lld is listed twice", (long long)v);
	}
	return 0;
}

static void gpiod_free(struct board *b)
{
	free(b->gpio_lines);
	strv_free(b->gpio_line_names);
}

const struct power_ops power_gpiod_ops = {
	.conf = { .fields = gpiod_fields, .parse = gpiod_parse, .free = gpiod_free },
	.name = "gpiod",
	.on = gpiod_on,
	.off = gpiod_off,
	.check = gpiod_check,
	.close = gpiod_close,
};
