// SPDX-License-Identifier: GPL-2.0-only
/* Relay lines through libgpiod: one request for all lines of a board, held
 * for the whole session.  Both library APIs are here; the Makefile picks one
 * with pkg-config (libgpiod >= 2.0 -> HAVE_GPIOD_V2) and `make check`
 * compiles the other against trixie's headers. */
#include "backend/power_gpiod.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <gpiod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "gpiochip0, gpiochip1" or "none on this machine", for error messages. */
static void list_chips(char *out, size_t len)
{
	DIR *d = opendir("/dev");
	struct dirent *e;
	size_t used = 0;

	*out = '\0';
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "gpiochip", 8))
			continue;
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s",
					 used ? ", " : "", e->d_name);
	}
	if (d)
		closedir(d);
	if (!*out)
		snprintf(out, len, "none: this machine has no /dev/gpiochip*");
}

static int unknown_chip(const char *chip, int e, struct errtext *err)
{
	char chips[200];

	list_chips(chips, sizeof(chips));
	return errtext_set(err, -ENODEV, "unknown GPIO chip \"%s\" (%s; chips: %s)", chip,
			   strerror(e), chips);
}

#ifndef HAVE_GPIOD_V2

struct gpio_relay {
	struct gpiod_chip *chip;
	struct gpiod_line_bulk bulk;
	size_t n;
};

const char *gpio_api_version(void)
{
	static char v[64];

	snprintf(v, sizeof(v), "libgpiod v1 (%s)", gpiod_version_string());
	return v;
}

static int get_lines(struct gpiod_chip *c, const char *chip, const long *lines, size_t n,
		     struct gpiod_line_bulk *bulk, struct errtext *err)
{
	unsigned int offs[GPIOD_LINE_BULK_MAX_LINES], num = gpiod_chip_num_lines(c);
	size_t i;

	if (n > GPIOD_LINE_BULK_MAX_LINES) {
		errtext_set(err, 0, "too many lines (%zu; at most %d)", n,
			    GPIOD_LINE_BULK_MAX_LINES);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (lines[i] < 0 || (unsigned long)lines[i] >= num) {
			errtext_set(err, 0, "line %ld does not exist on %s (%s has lines 0..%u)",
				    lines[i], chip, gpiod_chip_name(c), num ? num - 1 : 0);
			return -ERANGE;
		}
		offs[i] = (unsigned int)lines[i];
	}
	if (gpiod_chip_get_lines(c, offs, (unsigned int)n, bulk) < 0)
		return errtext_set(err, -errno, "cannot get lines of %s: %s", chip,
				   strerror(errno));
	return 0;
}

int gpio_relay_open(struct gpio_relay **rp, const char *chip, const long *lines, size_t n,
		    bool active_low, int initial, const char *consumer, struct errtext *err)
{
	struct gpio_relay *r = xcalloc(1, sizeof(*r));
	int vals[GPIOD_LINE_BULK_MAX_LINES];
	size_t i;
	int ret, flags;

	*rp = NULL;
	r->chip = gpiod_chip_open_lookup(chip);
	if (!r->chip) {
		ret = unknown_chip(chip, errno, err);
		free(r);
		return ret;
	}
	gpiod_line_bulk_init(&r->bulk);
	ret = get_lines(r->chip, chip, lines, n, &r->bulk, err);
	if (ret)
		goto fail;
	for (i = 0; i < n; i++)
		vals[i] = !!initial;
	flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
	if (gpiod_line_request_bulk_output_flags(&r->bulk, consumer, flags, vals) < 0) {
		ret = -errno;
		errtext_set(err, 0, "cannot request lines of %s as outputs: %s%s", chip,
			    strerror(errno),
			    errno == EBUSY ?
				    " (another program holds them: gpioinfo shows the consumer)" :
				    "");
		goto fail;
	}
	r->n = n;
	*rp = r;
	return 0;
fail:
	gpiod_chip_close(r->chip);
	free(r);
	return ret;
}

int gpio_relay_set(struct gpio_relay *r, int value)
{
	int vals[GPIOD_LINE_BULK_MAX_LINES];
	size_t i;

	for (i = 0; i < r->n; i++)
		vals[i] = !!value;
	return gpiod_line_set_value_bulk(&r->bulk, vals) < 0 ? -errno : 0;
}

int gpio_relay_get(struct gpio_relay *r, size_t *n_on)
{
	int vals[GPIOD_LINE_BULK_MAX_LINES];
	size_t i;

	if (gpiod_line_get_value_bulk(&r->bulk, vals) < 0)
		return -errno;
	for (*n_on = 0, i = 0; i < r->n; i++)
		*n_on += vals[i] != 0;
	return 0;
}

void gpio_relay_close(struct gpio_relay *r)
{
	if (!r)
		return;
	gpiod_line_release_bulk(&r->bulk);
	gpiod_chip_close(r->chip);
	free(r);
}

int gpio_relay_check(const char *chip, const long *lines, size_t n, struct errtext *err)
{
	struct gpiod_line_bulk bulk;
	struct gpiod_chip *c = gpiod_chip_open_lookup(chip);
	size_t i;
	int ret;

	if (!c)
		return unknown_chip(chip, errno, err);
	gpiod_line_bulk_init(&bulk);
	ret = get_lines(c, chip, lines, n, &bulk, err);
	for (i = 0; !ret && i < n; i++) {
		struct gpiod_line *l = bulk.lines[i];

		if (gpiod_line_is_used(l)) {
			errtext_set(err, 0, "line %ld of %s is in use by \"%s\"", lines[i], chip,
				    gpiod_line_consumer(l) ? gpiod_line_consumer(l) : "the kernel");
			ret = -EBUSY;
		}
	}
	gpiod_chip_close(c);
	return ret;
}

int gpio_line_offsets(const char *chip, char *const *names, size_t n, long *offs,
		      struct errtext *err)
{
	struct gpiod_chip *c = gpiod_chip_open_lookup(chip);
	size_t i;
	int ret = 0;

	if (!c)
		return unknown_chip(chip, errno, err);
	for (i = 0; i < n && !ret; i++) {
		struct gpiod_line *l = gpiod_chip_find_line(c, names[i]);

		if (l) {
			offs[i] = (long)gpiod_line_offset(l);
		} else {
			errtext_set(err, 0,
				    "no line named \"%s\" on %s (gpioinfo %s lists the line names)",
				    names[i], chip, gpiod_chip_name(c));
			ret = -ENOENT;
		}
	}
	gpiod_chip_close(c);
	return ret;
}

#else /* libgpiod v2 */

struct gpio_relay {
	struct gpiod_line_request *req;
	size_t n;
};

const char *gpio_api_version(void)
{
	static char v[64];

	snprintf(v, sizeof(v), "libgpiod v2 (%s)", gpiod_api_version());
	return v;
}

/* v2 opens chips by path only: accept a name, a number or a label too. */
static struct gpiod_chip *open_chip(const char *chip)
{
	struct gpiod_chip *c = NULL;
	char *path;
	DIR *d;
	struct dirent *e;
	int saved;

	if (chip[0] == '/')
		return gpiod_chip_open(chip);
	if (chip[strspn(chip, "0123456789")] == '\0')
		path = xasprintf("/dev/gpiochip%s", chip);
	else
		path = xasprintf("/dev/%s", chip);
	c = gpiod_is_gpiochip_device(path) ? gpiod_chip_open(path) : NULL;
	free(path);
	if (c)
		return c;
	saved = ENOENT;
	d = opendir("/dev");
	while (d && !c && (e = readdir(d))) {
		struct gpiod_chip_info *info;

		if (strncmp(e->d_name, "gpiochip", 8))
			continue;
		path = xasprintf("/dev/%s", e->d_name);
		c = gpiod_chip_open(path);
		free(path);
		if (!c)
			continue;
		info = gpiod_chip_get_info(c);
		if (!info || strcmp(gpiod_chip_info_get_label(info), chip)) {
			gpiod_chip_close(c);
			c = NULL;
		}
		gpiod_chip_info_free(info);
	}
	if (d)
		closedir(d);
	errno = saved;
	return c;
}

static int check_lines(struct gpiod_chip *c, const char *chip, const long *lines, size_t n,
		       bool busy, struct errtext *err)
{
	struct gpiod_chip_info *info = gpiod_chip_get_info(c);
	size_t num = info ? gpiod_chip_info_get_num_lines(info) : 0, i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		if (lines[i] < 0 || (size_t)lines[i] >= num) {
			errtext_set(err, 0, "line %ld does not exist on %s (%s has lines 0..%zu)",
				    lines[i], chip, info ? gpiod_chip_info_get_name(info) : "?",
				    num ? num - 1 : 0);
			ret = -ERANGE;
		} else if (busy) {
			unsigned int off = (unsigned int)lines[i];
			struct gpiod_line_info *li = gpiod_chip_get_line_info(c, off);

			if (li && gpiod_line_info_is_used(li)) {
				const char *who = gpiod_line_info_get_consumer(li);

				errtext_set(err, 0, "line %ld of %s is in use by \"%s\"", lines[i],
					    chip, who ? who : "the kernel");
				ret = -EBUSY;
			}
			gpiod_line_info_free(li);
		}
	}
	gpiod_chip_info_free(info);
	return ret;
}

int gpio_relay_open(struct gpio_relay **rp, const char *chip, const long *lines, size_t n,
		    bool active_low, int initial, const char *consumer, struct errtext *err)
{
	struct gpiod_chip *c = open_chip(chip);
	struct gpiod_line_settings *ls = NULL;
	struct gpiod_line_config *lc = NULL;
	struct gpiod_request_config *rc = NULL;
	unsigned int *offs = NULL;
	size_t i;
	int ret;

	*rp = NULL;
	if (!c)
		return unknown_chip(chip, errno, err);
	ret = check_lines(c, chip, lines, n, false, err);
	if (ret)
		goto out;
	offs = xcalloc(n, sizeof(*offs));
	for (i = 0; i < n; i++)
		offs[i] = (unsigned int)lines[i];
	ls = gpiod_line_settings_new();
	lc = gpiod_line_config_new();
	rc = gpiod_request_config_new();
	if (!ls || !lc || !rc ||
	    gpiod_line_settings_set_direction(ls, GPIOD_LINE_DIRECTION_OUTPUT) < 0 ||
	    gpiod_line_settings_set_output_value(ls, initial ? GPIOD_LINE_VALUE_ACTIVE :
							       GPIOD_LINE_VALUE_INACTIVE) < 0) {
		ret = -ENOMEM;
		errtext_set(err, 0, "libgpiod: %s", strerror(errno));
		goto out;
	}
	gpiod_line_settings_set_active_low(ls, active_low);
	gpiod_request_config_set_consumer(rc, consumer);
	if (gpiod_line_config_add_line_settings(lc, offs, n, ls) < 0) {
		ret = -errno;
		errtext_set(err, 0, "libgpiod line config: %s", strerror(errno));
		goto out;
	}
	*rp = xcalloc(1, sizeof(**rp));
	(*rp)->req = gpiod_chip_request_lines(c, rc, lc);
	(*rp)->n = n;
	if (!(*rp)->req) {
		ret = -errno;
		errtext_set(err, 0, "cannot request lines of %s as outputs: %s%s", chip,
			    strerror(errno),
			    errno == EBUSY ?
				    " (another program holds them: gpioinfo shows the consumer)" :
				    "");
		free(*rp);
		*rp = NULL;
	}
out:
	gpiod_request_config_free(rc);
	gpiod_line_config_free(lc);
	gpiod_line_settings_free(ls);
	free(offs);
	gpiod_chip_close(c); /* the request outlives the chip handle in v2 */
	return ret;
}

int gpio_relay_set(struct gpio_relay *r, int value)
{
	enum gpiod_line_value *v = xcalloc(r->n, sizeof(*v));
	size_t i;
	int ret;

	for (i = 0; i < r->n; i++)
		v[i] = value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
	ret = gpiod_line_request_set_values(r->req, v) < 0 ? -errno : 0;
	free(v);
	return ret;
}

int gpio_relay_get(struct gpio_relay *r, size_t *n_on)
{
	enum gpiod_line_value *v = xcalloc(r->n, sizeof(*v));
	size_t i;
	int ret = gpiod_line_request_get_values(r->req, v) < 0 ? -errno : 0;

	for (*n_on = 0, i = 0; !ret && i < r->n; i++)
		*n_on += v[i] == GPIOD_LINE_VALUE_ACTIVE;
	free(v);
	return ret;
}

void gpio_relay_close(struct gpio_relay *r)
{
	if (!r)
		return;
	gpiod_line_request_release(r->req);
	free(r);
}

int gpio_relay_check(const char *chip, const long *lines, size_t n, struct errtext *err)
{
	struct gpiod_chip *c = open_chip(chip);
	int ret;

	if (!c)
		return unknown_chip(chip, errno, err);
	ret = check_lines(c, chip, lines, n, true, err);
	gpiod_chip_close(c);
	return ret;
}

int gpio_line_offsets(const char *chip, char *const *names, size_t n, long *offs,
		      struct errtext *err)
{
	struct gpiod_chip *c = open_chip(chip);
	size_t i;
	int ret = 0;

	if (!c)
		return unknown_chip(chip, errno, err);
	for (i = 0; i < n && !ret; i++) {
		int off = gpiod_chip_get_line_offset_from_name(c, names[i]);

		if (off >= 0) {
			offs[i] = off;
		} else {
			errtext_set(err, 0,
				    "no line named \"%s\" on %s (gpioinfo lists the line names)",
				    names[i], chip);
			ret = -ENOENT;
		}
	}
	gpiod_chip_close(c);
	return ret;
}

#endif
