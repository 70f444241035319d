// SPDX-License-Identifier: GPL-2.0-only
/* Power backend gpiod: relay lines on a GPIO chip (the libgpiod calls are in
 * power_gpiod.c); the line request is taken at the first switch and held
 * until power_free(). */
#include "backend/power.h"
#include "backend/power_gpiod.h"
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* power.* of this backend (board->power_priv) */
struct gpiod_conf {
	const char *chip; /* gpiochip0, /dev/gpiochip0 or a chip label */
	long *lines; /* power.lines: offsets (NULL with line_names) */
	size_t n_lines;
	char **line_names; /* power.line_names, resolved at use (NULL with lines) */
	bool active_low; /* the relay closes (board on) at level 0 */
};

static const struct gpiod_conf *conf_of(const struct board *b)
{
	return b->power_priv;
}

/* The board's line offsets: power.lines, or power.line_names looked up on
 * the chip now (*offs is then allocated). */
static int gpiod_offsets(const struct gpiod_conf *g, long **offs, struct errtext *err)
{
	int ret;

	*offs = g->lines;
	if (!g->line_names)
		return 0;
	*offs = xcalloc(g->n_lines, sizeof(**offs));
	ret = gpio_line_offsets(g->chip, g->line_names, g->n_lines, *offs, err);
	if (ret) {
		free(*offs);
		*offs = NULL;
	}
	return ret;
}

static void gpiod_offsets_free(const struct gpiod_conf *g, long *offs)
{
	if (offs != g->lines)
		free(offs);
}

static int gpiod_set(struct power *p, int on)
{
	const struct board *b = p->board;
	const struct gpiod_conf *g = conf_of(b);
	int ret;

	if (!p->priv) {
		char *consumer = xasprintf("ablab:%s", b->name);
		struct gpio_relay *relay = NULL;
		long *offs;

		ret = gpiod_offsets(g, &offs, &p->error);
		if (!ret)
			ret = gpio_relay_open(&relay, g->chip, offs, g->n_lines, g->active_low, on,
					      consumer, &p->error);
		gpiod_offsets_free(g, offs);
		free(consumer);
		p->priv = relay;
		if (ret) {
			errtext_prefix(&p->error, "%s: power.chip %s / power.lines", b->name,
				       g->chip);
			return ret;
		}
	} else {
		ret = gpio_relay_set(p->priv, on);
		if (ret) {
			power_set_error(p, "%s: power.chip %s: cannot set lines: %s", b->name,
					g->chip, strerror(-ret));
			return ret;
		}
	}
	if (!on) {
		size_t n_on = 0;

		/* checked, not assumed: the lines read back off */
		ret = gpio_relay_get(p->priv, &n_on);
		if (ret) {
			power_set_error(
				p,
				"%s: power.chip %s: cannot read the lines back after switching off: %s; the board may still be ON",
				b->name, g->chip, strerror(-ret));
			return ret;
		}
		if (n_on) {
			power_set_error(
				p,
				"%s: power.chip %s: %zu of %zu power.lines still read on after being set off (another driver or a wiring fault holds them): the board may still be ON",
				b->name, g->chip, n_on, g->n_lines);
			return -EIO;
		}
		p->t_off = now_ms();
	}
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
	gpio_relay_close(p->priv);
	p->priv = NULL;
}

static int gpiod_check(const struct board *b, struct buf *out)
{
	const struct gpiod_conf *g = conf_of(b);
	struct errtext err;
	struct buf lines = { 0 };
	long *offs;
	size_t i;
	int bad;

	for (i = 0; i < g->n_lines; i++) {
		if (g->line_names)
			buf_printf(&lines, "%s%s", i ? "," : "", g->line_names[i]);
		else
			buf_printf(&lines, "%s%ld", i ? "," : "", g->lines[i]);
	}
	if (gpiod_offsets(g, &offs, &err) || gpio_relay_check(g->chip, offs, g->n_lines, &err))
		bad = check_line(out, false, "power.chip", "%s (lines %s): %s", g->chip, lines.data,
				 err.msg);
	else
		bad = check_line(out, true, "power.chip", "%s lines %s exist and are free (%s, %s)",
				 g->chip, lines.data, g->active_low ? "active low" : "active high",
				 gpio_api_version());
	gpiod_offsets_free(g, offs);
	buf_free(&lines);
	return bad;
}

static const struct jfield gpiod_fields[] = { { "chip", J_STRING },
					      { "lines", J_ARRAY_INT },
					      { "line_names", J_ARRAY_STRING },
					      { "active_low", J_BOOL },
					      { NULL } };

/* power.line_names: not empty, no empty or repeated name */
static int gpiod_parse_names(struct board *b, struct gpiod_conf *g, json_object *o)
{
	size_t i, j;

	if (json_object_object_get_ex(o, "lines", NULL))
		return board_field_error(b, "power", "line_names",
					 "give \"lines\" (offsets) or \"line_names\", not both");
	g->line_names = jstrv(o, "line_names", &g->n_lines);
	if (!g->n_lines)
		return board_field_error(b, "power", "line_names", "must not be empty");
	for (i = 0; i < g->n_lines; i++) {
		if (!*g->line_names[i])
			return board_field_error(b, "power", "line_names", "an empty line name");
		for (j = 0; j < i; j++)
			if (!strcmp(g->line_names[i], g->line_names[j]))
				return board_field_error(b, "power", "line_names",
							 "line \"%s\" is listed twice",
							 g->line_names[i]);
	}
	return 0;
}

static int gpiod_parse(struct board *b, json_object *o)
{
	struct gpiod_conf *g = xcalloc(1, sizeof(*g));
	json_object *a;
	size_t i, j;

	b->power_priv = g;
	g->chip = jstr(o, "chip");
	g->active_low = jbool(o, "active_low", false);
	if (!g->chip || !*g->chip)
		return board_field_error(b, "power", "type",
					 "power type gpiod needs \"chip\" (e.g. \"gpiochip0\")");
	if (json_object_object_get_ex(o, "line_names", NULL))
		return gpiod_parse_names(b, g, o);
	if (!json_object_object_get_ex(o, "lines", &a) || !json_object_array_length(a))
		return board_field_error(
			b, "power", "type",
			"power type gpiod needs \"lines\": [OFFSET, ...] or \"line_names\": [NAME, ...]");
	g->n_lines = json_object_array_length(a);
	g->lines = xcalloc(g->n_lines, sizeof(*g->lines));
	for (i = 0; i < g->n_lines; i++) {
		int64_t v = json_object_get_int64(json_object_array_get_idx(a, i));

		if (v < 0 || v > 65535)
			return board_field_error(b, "power", "lines",
						 "line offset %lld out of range 0..65535",
						 (long long)v);
		g->lines[i] = (long)v;
		for (j = 0; j < i; j++)
			if (g->lines[j] == v)
				return board_field_error(b, "power", "lines",
							 "line %lld is listed twice", (long long)v);
	}
	return 0;
}

static void gpiod_free(struct board *b)
{
	struct gpiod_conf *g = b->power_priv;

	if (!g)
		return;
	free(g->lines);
	strv_free(g->line_names);
	free(g);
	b->power_priv = NULL;
}

const struct power_ops power_gpiod_ops = {
	.conf = { .fields = gpiod_fields, .parse = gpiod_parse, .free = gpiod_free },
	.name = "gpiod",
	.on = gpiod_on,
	.off = gpiod_off,
	.check = gpiod_check,
	.close = gpiod_close,
};
