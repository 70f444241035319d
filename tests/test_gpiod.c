// SPDX-License-Identifier: GPL-2.0-only
/* The gpiod power backend against a fake libgpiod (tests/fake_gpiod.c):
 * this machine has no GPIO chip and no gpio-sim, so line requests, levels,
 * active-low, holding the request for the whole session and the off time of
 * a cycle are checked on a model of the library calls.  The real library
 * paths are compiled against libgpiod v1 (here) and v2 (trixie's headers,
 * tests/gpiod-v2.sh) by `make check`. */
#include "fake_gpiod.c"

#include "board.h"
#include "check.h"
#include "backend/power.h"
#include "shared/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/test_gpiod.XXXXXX";

/* A board file with the given power section. */
static int load(struct board *b, const char *name, const char *power)
{
	char *path = xasprintf("%s/%s.json", dir, name);
	char *text = xasprintf("{ \"name\": \"%s\", \"cpu\": \"x\", \"family\": \"v7\",\n"
			       "  \"console\": { \"type\": \"tty\", \"device\": \"/dev/null\" },\n"
			       "  \"power\": %s,\n"
			       "  \"boot\": { \"method\": \"command\", \"deploy\": [\"true\"] },\n"
			       "  \"shell\": { \"prompt\": \"# \" } }\n",
			       name, power);
	int ret = write_file_atomic(path, text, strlen(text));

	if (!ret)
		ret = board_load(b, path);
	free(path);
	free(text);
	return ret;
}

static int level(unsigned int off)
{
	return fake_line[off].level;
}

int main(void)
{
	struct board b;
	struct power p;
	struct buf out = { 0 };
	int64_t t_off = 0, t_on = 0;
	int i;

	if (!mkdtemp(dir))
		return 1;

	/* active-low relay on lines 3 and 5: on = level 0, off = level 1 */
	fake_reset();
	CHECK(load(&b, "relay",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\", \"lines\": [3, "
		   "5], "
		   "\"active_low\": true, \"off_ms\": 150 }") == 0);
	CHECK(power_init(&p, &b, dir) == 0);
	CHECK_STR(p.ops->name, "gpiod");
	CHECK(p.ops->on(&p, NULL) == 0);
	CHECK(fake_requests == 1);
	CHECK(fake_line[3].requested && fake_line[5].requested);
	CHECK(fake_line[3].output && fake_line[3].active_low);
	CHECK_STR(fake_line[3].consumer, "ablab:relay");
	CHECK(level(3) == 0 && level(5) == 0);
	CHECK(!fake_line[4].requested);

	/* off: lines driven to 1, the request is kept (not released) */
	CHECK(p.ops->off(&p) == 0);
	CHECK(level(3) == 1 && level(5) == 1);
	CHECK(fake_requests == 1 && fake_releases == 0);
	CHECK(fake_line[3].requested);

	/* cycle: off, at least off_ms, on; still the same request */
	fake_nev = 0;
	CHECK(power_cycle(&p) == 0);
	for (i = 0; i < fake_nev; i++) {
		if (fake_ev[i].offset == 3 && fake_ev[i].level == 1 && !t_off)
			t_off = fake_ev[i].t_ms;
		if (fake_ev[i].offset == 3 && fake_ev[i].level == 0)
			t_on = fake_ev[i].t_ms;
	}
	CHECK(t_off > 0 && t_on > 0);
	CHECK(t_on - t_off >= 150);
	if (t_on - t_off < 150)
		fprintf(stderr, "cycle off time %lld ms < off_ms 150\n", (long long)(t_on - t_off));
	CHECK(level(3) == 0 && level(5) == 0);
	CHECK(fake_requests == 1 && fake_releases == 0);

	/* on after a recent off waits out off_ms too */
	CHECK(p.ops->off(&p) == 0);
	t_off = now_ms();
	CHECK(p.ops->on(&p, NULL) == 0);
	CHECK(now_ms() - t_off >= 150);

	/* end of the session: released once, chip closed */
	power_free(&p);
	CHECK(fake_releases == 1);
	CHECK(!fake_line[3].requested && fake_chip.open == 0);
	board_free(&b);

	/* active high, chip by label: on = level 1 */
	fake_reset();
	CHECK(load(&b, "high",
		   "{ \"type\": \"gpiod\", \"chip\": \"fake-relay\", \"lines\": [0], "
		   "\"off_ms\": 0 }") == 0);
	power_init(&p, &b, dir);
	CHECK(p.ops->on(&p, NULL) == 0);
	CHECK(level(0) == 1 && !fake_line[0].active_low);
	CHECK(p.ops->off(&p) == 0);
	CHECK(level(0) == 0);
	power_free(&p);
	board_free(&b);

	/* off is read back: a line that stays at level 1 (active high: on) fails the off, naming
	 * it, and leaves no off time to count from */
	fake_reset();
	CHECK(load(&b, "stuck",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\", \"lines\": [0, 1], "
		   "\"off_ms\": 0 }") == 0);
	power_init(&p, &b, dir);
	CHECK(p.ops->on(&p, NULL) == 0);
	fake_line[1].stuck = 1 + 1;
	CHECK(p.ops->off(&p) == -EIO);
	CHECK(strstr(p.error.msg, "stuck: power.chip gpiochip0: 1 of 2 power.lines still read on "
				  "after being set off"));
	CHECK(strstr(p.error.msg, "the board may still be ON"));
	CHECK(p.t_off == 0);
	fake_line[1].stuck = 0;
	CHECK(p.ops->off(&p) == 0 && p.t_off > 0);
	power_free(&p);
	board_free(&b);

	/* unknown chip: the error names the board, the field and the chip */
	fake_reset();
	CHECK(load(&b, "nochip",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip9\", \"lines\": [1] }") == 0);
	power_init(&p, &b, dir);
	CHECK(p.ops->on(&p, NULL) < 0);
	CHECK(strstr(p.error.msg, "nochip: power.chip gpiochip9"));
	CHECK(strstr(p.error.msg, "unknown GPIO chip \"gpiochip9\""));
	CHECK(fake_requests == 0);
	power_free(&p);
	CHECK(power_check(&b, &out) == 1);
	CHECK(out.data && strstr(out.data, "FAIL  power.chip: gpiochip9 (lines 1): unknown GPIO "
					   "chip"));
	buf_free(&out);
	board_free(&b);

	/* a line the chip does not have; a line someone else holds */
	fake_reset();
	CHECK(load(&b, "range",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\", \"lines\": [42] }") == 0);
	power_init(&p, &b, dir);
	CHECK(p.ops->off(&p) < 0);
	CHECK(strstr(p.error.msg, "line 42 does not exist on gpiochip0"));
	power_free(&p);
	board_free(&b);
	fake_reset();
	CHECK(load(&b, "busy", "{ \"type\": \"gpiod\", \"chip\": \"0\", \"lines\": [2, 6] }") == 0);
	CHECK(power_check(&b, &out) == 1);
	CHECK(out.data && strstr(out.data, "line 6 of 0 is in use by \"other\""));
	buf_free(&out);
	power_init(&p, &b, dir);
	CHECK(p.ops->on(&p, NULL) < 0);
	CHECK(strstr(p.error.msg, "another program holds them"));
	CHECK(!fake_line[2].requested); /* nothing half-requested */
	power_free(&p);
	board_free(&b);

	/* a good configuration passes the dry run and switches nothing */
	fake_reset();
	CHECK(load(&b, "good",
		   "{ \"type\": \"gpiod\", \"chip\": \"/dev/gpiochip0\", \"lines\": "
		   "[1], "
		   "\"active_low\": true }") == 0);
	CHECK(power_check(&b, &out) == 0);
	CHECK(out.data && strstr(out.data, "ok    power.chip: /dev/gpiochip0 lines 1 exist and are "
					   "free"));
	CHECK(fake_requests == 0 && fake_chip.open == 0);
	buf_free(&out);
	board_free(&b);

	/* board file errors for gpiod */
	CHECK(load(&b, "dup",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\", \"lines\": [1, 1] }") ==
	      -EINVAL);
	board_free(&b);
	CHECK(load(&b, "nolines", "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\" }") == -EINVAL);
	board_free(&b);
	CHECK(load(&b, "stray",
		   "{ \"type\": \"gpiod\", \"chip\": \"gpiochip0\", \"lines\": [1], "
		   "\"on\": [\"x\"] }") == -EINVAL);
	board_free(&b);

	{
		char *cmd = xasprintf("rm -rf %s", dir);

		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
		free(cmd);
	}
	CHECK_DONE("test_gpiod");
}
