// SPDX-License-Identifier: GPL-2.0-only
/* A link-time fake of the libgpiod v1 calls agent/backend/power_gpiod.c makes.  No GPIO
 * chip (nor gpio-sim) exists on the machines this project is tested on, so
 * the gpiod power backend's logic is checked against this model of one chip:
 * "gpiochip0" (also "/dev/gpiochip0", "0", label "fake-relay"), 8 lines;
 * line 6 is held by another consumer.  Defining the symbols in the test
 * executable interposes them over the shared libgpiod.
 * Physical level = logical value XOR active-low; a released line floats back
 * to level 1 (the pull-up of a typical active-low relay board: relay off). */
#include <errno.h>
#include <gpiod.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#define FAKE_LINES 8
#define FAKE_EVENTS 64

struct gpiod_chip {
	int open;
};

struct gpiod_line {
	unsigned int offset;
	bool requested, active_low, output;
	char consumer[32];
	int level; /* physical */
	int stuck; /* 0; else 1 + the physical level it reads whatever is set (a wiring fault) */
};

struct fake_event {
	unsigned int offset;
	int level;
	int64_t t_ms;
	bool release;
};

static struct gpiod_chip fake_chip;
static struct gpiod_line fake_line[FAKE_LINES];
static struct fake_event fake_ev[FAKE_EVENTS];
static int fake_nev, fake_opens, fake_closes, fake_requests, fake_releases;

static int64_t fake_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void fake_record(struct gpiod_line *l, bool release)
{
	if (fake_nev < FAKE_EVENTS)
		fake_ev[fake_nev++] =
			(struct fake_event){ l->offset, l->level, fake_now(), release };
}

static void fake_reset(void)
{
	unsigned int i;

	memset(fake_line, 0, sizeof(fake_line));
	for (i = 0; i < FAKE_LINES; i++) {
		fake_line[i].offset = i;
		fake_line[i].level = 1;
	}
	fake_line[6].requested = true;
	strcpy(fake_line[6].consumer, "other");
	fake_nev = fake_opens = fake_closes = fake_requests = fake_releases = 0;
}

struct gpiod_chip *gpiod_chip_open_lookup(const char *descr)
{
	if (strcmp(descr, "gpiochip0") && strcmp(descr, "/dev/gpiochip0") && strcmp(descr, "0") &&
	    strcmp(descr, "fake-relay")) {
		errno = ENOENT;
		return NULL;
	}
	fake_opens++;
	fake_chip.open++;
	return &fake_chip;
}

void gpiod_chip_close(struct gpiod_chip *chip)
{
	fake_closes++;
	chip->open--;
}

const char *gpiod_chip_name(struct gpiod_chip *chip)
{
	(void)chip;
	return "gpiochip0";
}

unsigned int gpiod_chip_num_lines(struct gpiod_chip *chip)
{
	(void)chip;
	return FAKE_LINES;
}

int gpiod_chip_get_lines(struct gpiod_chip *chip, unsigned int *offsets, unsigned int n,
			 struct gpiod_line_bulk *bulk)
{
	unsigned int i;

	(void)chip;
	bulk->num_lines = 0;
	for (i = 0; i < n; i++) {
		if (offsets[i] >= FAKE_LINES) {
			errno = EINVAL;
			return -1;
		}
		bulk->lines[bulk->num_lines++] = &fake_line[offsets[i]];
	}
	return 0;
}

int gpiod_line_request_bulk_output_flags(struct gpiod_line_bulk *bulk, const char *consumer,
					 int flags, const int *vals)
{
	unsigned int i;

	for (i = 0; i < bulk->num_lines; i++)
		if (bulk->lines[i]->requested) {
			errno = EBUSY;
			return -1;
		}
	fake_requests++;
	for (i = 0; i < bulk->num_lines; i++) {
		struct gpiod_line *l = bulk->lines[i];

		l->requested = true;
		l->output = true;
		l->active_low = flags & GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW;
		snprintf(l->consumer, sizeof(l->consumer), "%s", consumer);
		l->level = (vals ? !!vals[i] : 0) ^ l->active_low;
		fake_record(l, false);
	}
	return 0;
}

int gpiod_line_set_value_bulk(struct gpiod_line_bulk *bulk, const int *vals)
{
	unsigned int i;

	for (i = 0; i < bulk->num_lines; i++)
		if (!bulk->lines[i]->requested) {
			errno = EPERM;
			return -1;
		}
	for (i = 0; i < bulk->num_lines; i++) {
		struct gpiod_line *l = bulk->lines[i];

		l->level = (vals ? !!vals[i] : 0) ^ l->active_low;
		fake_record(l, false);
	}
	return 0;
}

int gpiod_line_get_value_bulk(struct gpiod_line_bulk *bulk, int *vals)
{
	unsigned int i;

	for (i = 0; i < bulk->num_lines; i++) {
		struct gpiod_line *l = bulk->lines[i];

		if (!l->requested) {
			errno = EPERM;
			return -1;
		}
		vals[i] = (l->stuck ? l->stuck - 1 : l->level) ^ l->active_low;
	}
	return 0;
}

void gpiod_line_release_bulk(struct gpiod_line_bulk *bulk)
{
	unsigned int i;

	fake_releases++;
	for (i = 0; i < bulk->num_lines; i++) {
		struct gpiod_line *l = bulk->lines[i];

		l->requested = false;
		l->consumer[0] = '\0';
		l->level = 1; /* floats back to the pull-up */
		fake_record(l, true);
	}
}

bool gpiod_line_is_used(struct gpiod_line *line)
{
	return line->requested;
}

const char *gpiod_line_consumer(struct gpiod_line *line)
{
	return line->requested ? line->consumer : NULL;
}

const char *gpiod_version_string(void)
{
	return "fake";
}
