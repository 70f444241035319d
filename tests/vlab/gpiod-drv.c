// SPDX-License-Identifier: GPL-2.0-only
/* tests/vlab/gpiod-drv.c: agent/backend/power_gpiod.c on its own, for the virtual
 * lab's guest (tests/vlab/guest.sh): t86 links it against trixie's libgpiod
 * v2 (the .debs tests/gpiod-v2.sh fetched), so the v2 code drives the
 * guest's gpio-sim relay line, as the v1 build inside ablab does.
 *   gpiod-drv CHIP LINE_NAME
 * finds the line by name, checks it is free, requests it (active low,
 * logical 0 = relay off), then reads lines from stdin: "1" or "0" sets the
 * relay and prints "set N"; at EOF it releases the line.  Errors on stderr,
 * exit status 1. */
#include "backend/power_gpiod.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct gpio_relay *r = NULL;
	struct errtext err = { "" };
	char cmd[16];
	long off;
	int ret;

	if (argc != 3) {
		fprintf(stderr, "usage: gpiod-drv CHIP LINE_NAME\n");
		return 2;
	}
	printf("%s\n", gpio_api_version());
	ret = gpio_line_offsets(argv[1], &argv[2], 1, &off, &err);
	if (!ret)
		ret = gpio_relay_check(argv[1], &off, 1, &err);
	if (!ret)
		ret = gpio_relay_open(&r, argv[1], &off, 1, true, 0, "ablab-v2", &err);
	if (ret) {
		fprintf(stderr, "gpiod-drv: %s line %s: %s\n", argv[1], argv[2], err.msg);
		return 1;
	}
	printf("%s line %s is offset %ld, requested\n", argv[1], argv[2], off);
	fflush(stdout);
	while (fgets(cmd, sizeof(cmd), stdin)) {
		int v = cmd[0] == '1';

		if (gpio_relay_set(r, v)) {
			fprintf(stderr, "gpiod-drv: cannot set %s line %s to %d\n", argv[1], argv[2], v);
			gpio_relay_close(r);
			return 1;
		}
		printf("set %d\n", v);
		fflush(stdout);
	}
	gpio_relay_close(r);
	return 0;
}
