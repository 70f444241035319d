// SPDX-License-Identifier: GPL-2.0-only
/* ablab db start|stop|status: the private PostgreSQL cluster. */
#include "cmd/cmds.h"
#include "store/store.h"

#include <stdio.h>
#include <string.h>

int cmd_db(int argc, char **argv)
{
	if (argc != 2 ||
	    (strcmp(argv[1], "start") && strcmp(argv[1], "stop") && strcmp(argv[1], "status"))) {
		fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
			"usage: ablab db start|stop|status\n"
			"Manages the private PostgreSQL cluster in $ABLAB_DATA/pg (root: /var/lib/ablab/pg).\n"
			"With --db CONNINFO or ABLAB_DB another server is used and this one is not needed.\n");
		return argc == 2 && !strcmp(argv[1], "--help") ? 0 : 2;
	}
	return store_private(argv[1], opt_db) ? 1 : 0;
}
