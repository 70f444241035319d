// SPDX-License-Identifier: GPL-2.0-only
/* `ablab attempts CAMPAIGN`: every attempt of a campaign, ok or failed, with
 * its reason and whether it was retried; the place to look when a campaign
 * failed (`ablab query` shows only ok boots). */
#include "cmds.h"
#include "store-campaign.h"
#include "store.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void attempts_usage(FILE *f)
{
	fprintf(f, "usage: ablab attempts [CAMPAIGN] [--failed] [--format table|json]\n"
		   "Every attempt of a campaign (default: the latest): board, slot, variant,\n"
		   "attempt, status and, for a failed one, its reason and whether the slot was\n"
		   "tried again (a failed attempt that was not retried stopped its board).\n"
		   "  --failed   failed attempts only\n"
		   "  --format   table (default) or json (also the start time, boot time and\n"
		   "             the transcript of every attempt)\n");
}

static const char *reason(PGresult *r, int i, char *out, size_t len)
{
	const char *e = PQgetvalue(r, i, 6);

	if (!strcmp(PQgetvalue(r, i, 4), "ok"))
		return "";
	snprintf(out, len, "%s (%s)", *e ? e : "no reason recorded",
		 PQgetvalue(r, i, 5)[0] == 't' ? "retried" : "not retried");
	return out;
}

static void print_table(PGresult *r, bool failed_only)
{
	int i, n = PQntuples(r), wb = (int)strlen("board");

	for (i = 0; i < n; i++)
		if ((int)strlen(PQgetvalue(r, i, 0)) > wb)
			wb = (int)strlen(PQgetvalue(r, i, 0));
	printf("%-*s %4s %-8s %7s %-6s  %s\n", wb, "board", "slot", "variant", "attempt", "status",
	       "reason");
	for (i = 0; i < n; i++) {
		char why[1200];

		if (failed_only && !strcmp(PQgetvalue(r, i, 4), "ok"))
			continue;
		printf("%-*s %4s %-8s %7s %-6s  %s\n", wb, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1),
		       PQgetvalue(r, i, 2), PQgetvalue(r, i, 3), PQgetvalue(r, i, 4),
		       reason(r, i, why, sizeof(why)));
	}
}

static void print_json(PGresult *r, int64_t id, const char *status, bool failed_only)
{
	json_object *root = json_object_new_object(), *a = json_object_new_array();
	int i, n = PQntuples(r);

	json_object_object_add(root, "campaign", json_object_new_int64(id));
	json_object_object_add(root, "status", json_object_new_string(status));
	for (i = 0; i < n; i++) {
		json_object *o;
		bool failed = strcmp(PQgetvalue(r, i, 4), "ok");

		if (failed_only && !failed)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "board", json_object_new_string(PQgetvalue(r, i, 0)));
		json_object_object_add(o, "slot", json_object_new_int(atoi(PQgetvalue(r, i, 1))));
		json_object_object_add(o, "variant", json_object_new_string(PQgetvalue(r, i, 2)));
		json_object_object_add(o, "attempt",
				       json_object_new_int(atoi(PQgetvalue(r, i, 3))));
		json_object_object_add(o, "status", json_object_new_string(PQgetvalue(r, i, 4)));
		if (failed) {
			json_object_object_add(o, "reason",
					       json_object_new_string(PQgetvalue(r, i, 6)));
			json_object_object_add(o, "retried",
					       json_object_new_boolean(PQgetvalue(r, i, 5)[0] ==
								       't'));
		}
		json_object_object_add(o, "transcript",
				       json_object_new_string(PQgetvalue(r, i, 7)));
		json_object_object_add(o, "started", json_object_new_string(PQgetvalue(r, i, 8)));
		if (*PQgetvalue(r, i, 9))
			json_object_object_add(o, "boot_ms",
					       json_object_new_int(atoi(PQgetvalue(r, i, 9))));
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "attempts", a);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));
	json_object_put(root);
}

int cmd_attempts(int argc, char **argv)
{
	static const struct option lo[] = { { "failed", 0, NULL, 'F' },
					    { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	const char *format = "table";
	bool failed_only = false;
	char status[32];
	struct store st;
	PGresult *r = NULL;
	int64_t id = 0;
	int i, n, nfail = 0, nlast = 0, ret = 1, opt, c;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'F':
			failed_only = true;
			break;
		case 'f':
			format = optarg;
			break;
		case 'h':
			attempts_usage(stdout);
			return 0;
		default:
			attempts_usage(stderr);
			return 2;
		}
	}
	if (strcmp(format, "table") && strcmp(format, "json")) {
		err_msg("--format: \"%s\" is not one of table, json", format);
		return 2;
	}
	if (optind < argc - 1) {
		err_msg("attempts: unexpected argument \"%s\"", argv[optind + 1]);
		return 2;
	}
	ret = cli_campaign_arg(optind == argc - 1 ? argv[optind] : NULL, &st, &id);
	if (ret)
		return ret;
	ret = 1;
	c = store_campaign_status(&st, id, status, sizeof(status));
	if (c == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database (`ablab campaigns` lists them)",
			id);
	if (c)
		goto out;
	r = store_campaign_attempts(&st, id);
	if (!r)
		goto out;
	n = PQntuples(r);
	for (i = 0; i < n; i++) {
		if (strcmp(PQgetvalue(r, i, 4), "ok")) {
			nfail++;
			nlast += PQgetvalue(r, i, 5)[0] != 't';
		}
	}
	if (!strcmp(format, "json")) {
		print_json(r, id, status, failed_only);
	} else {
		printf("campaign %" PRId64
		       " (%s): %d attempt%s, %d ok, %d failed (%d not retried)\n",
		       id, status, n, n == 1 ? "" : "s", n - nfail, nfail, nlast);
		if (n)
			print_table(r, failed_only);
	}
	ret = 0;
out:
	if (r)
		PQclear(r);
	store_close(&st);
	return ret;
}
