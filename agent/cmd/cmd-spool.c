// SPDX-License-Identifier: GPL-2.0-only
/* `ablab spool load|list [--results DIR]`: the boots spooled while the database was away
 * (spool.h), listed or loaded. */
#include "cmd/cmds.h"
#include "spool.h"
#include "store/store.h"
#include "shared/util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_spool(int argc, char **argv)
{
	const char *results = "results";
	char *dir;
	int ret = 0;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: ablab spool load|list [--results DIR]\n"
		       "Boots finished while the results database was unreachable are kept in\n"
		       "DIR/spool/UUID.json (default DIR: results).  `load` stores them (each\n"
		       "once: loading is idempotent by boot UUID) and removes the files; every\n"
		       "campaign run also loads them first.  Every field is checked first: a\n"
		       "file with a bad field, or for a slot that already has an ok boot, is\n"
		       "stored not at all and moved to DIR/spool/rejected/ (the error names\n"
		       "the file and the field).\n");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[2], "--results"))
		results = argv[3];
	else if (argc != 2) {
		fprintf(stderr, "usage: ablab spool load|list [--results DIR]\n");
		return 2;
	}
	dir = xasprintf("%s/spool", results);
	if (!strcmp(argv[1], "list")) {
		struct dirent *de;
		DIR *d = opendir(dir);
		int n = 0;

		while (d && (de = readdir(d)))
			if (strstr(de->d_name, ".json") && de->d_name[0] != '.') {
				printf("%s/%s\n", dir, de->d_name);
				n++;
			}
		if (d)
			closedir(d);
		fprintf(stderr, "ablab: %d spooled boot(s) in %s\n", n, dir);
	} else if (!strcmp(argv[1], "load")) {
		struct store st;
		int loaded, failed;

		if (store_open(&st, opt_db)) {
			free(dir);
			return 1;
		}
		ret = spool_flush(&st, dir, &loaded, &failed);
		store_close(&st);
		printf("%d spooled boot(s) loaded, %d not loaded (why: above) from %s\n", loaded,
		       failed, dir);
		if (ret || failed)
			ret = 1;
	} else {
		fprintf(stderr, "usage: ablab spool load|list [--results DIR]\n");
		ret = 2;
	}
	free(dir);
	return ret;
}
