// SPDX-License-Identifier: GPL-2.0-only
/* `ablab attempts CAMPAIGN`: every attempt of a campaign, ok or failed, with
 * its reason and whether it was retried; the place to look when a campaign
 * failed (`ablab query` shows only ok boots). */
#include "cmd/cmds.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

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

static const char *reason(const struct store_attempt *a, char *out, size_t len)
{
	if (!strcmp(a->status, "ok"))
		return "";
	snprintf(out, len, "%s (%s)", *a->error ? a->error : "no reason recorded",
		 a->retried ? "retried" : "not retried");
	return out;
}

static void print_table(const struct store_attempt *v, size_t n, bool failed_only)
{
	int wb = (int)strlen("board");
	size_t i;

	for (i = 0; i < n; i++)
		if ((int)strlen(v[i].board) > wb)
			wb = (int)strlen(v[i].board);
	printf("%-*s %4s %-8s %7s %-6s  %s\n", wb, "board", "slot", "variant", "attempt", "status",
	       "reason");
	for (i = 0; i < n; i++) {
		char why[1200];

		if (failed_only && !strcmp(v[i].status, "ok"))
			continue;
		printf("%-*s %4d %-8s %7d %-6s  %s\n", wb, v[i].board, v[i].seq, v[i].variant,
		       v[i].attempt, v[i].status, reason(&v[i], why, sizeof(why)));
	}
}

static void print_json(const struct store_attempt *v, size_t n, int64_t id, const char *status,
		       bool failed_only)
{
	json_object *root = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(root, "campaign", json_object_new_int64(id));
	json_object_object_add(root, "status", json_object_new_string(status));
	for (size_t i = 0; i < n; i++) {
		json_object *o;
		bool failed = strcmp(v[i].status, "ok");

		if (failed_only && !failed)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "board", json_object_new_string(v[i].board));
		json_object_object_add(o, "slot", json_object_new_int(v[i].seq));
		json_object_object_add(o, "variant", json_object_new_string(v[i].variant));
		json_object_object_add(o, "attempt", json_object_new_int(v[i].attempt));
		json_object_object_add(o, "status", json_object_new_string(v[i].status));
		if (failed) {
			json_object_object_add(o, "reason", json_object_new_string(v[i].error));
			json_object_object_add(o, "retried", json_object_new_boolean(v[i].retried));
		}
		json_object_object_add(o, "transcript", json_object_new_string(v[i].log_path));
		json_object_object_add(o, "started", json_object_new_string(v[i].started));
		if (v[i].boot_ms >= 0)
			json_object_object_add(o, "boot_ms", json_object_new_int(v[i].boot_ms));
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "attempts", a);
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_SPACED));
	json_object_put(root);
}

/* `ablab attempts`'s command line. */
struct attempts_opts {
	const char *format, *campaign; /* campaign: NULL: the latest */
	bool failed_only;
};

/* argv into o: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_attempts_opts(int argc, char **argv, struct attempts_opts *o)
{
	static const struct option lo[] = { { "failed", 0, NULL, 'F' },
					    { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	int opt;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'F':
			o->failed_only = true;
			break;
		case 'f':
			o->format = optarg;
			break;
		case 'h':
			attempts_usage(stdout);
			return 3;
		default:
			attempts_usage(stderr);
			return 2;
		}
	}
	if (strcmp(o->format, "table") && strcmp(o->format, "json")) {
		err_msg("--format: \"%s\" is not one of table, json", o->format);
		return 2;
	}
	if (optind < argc - 1) {
		err_msg("attempts: unexpected argument \"%s\"", argv[optind + 1]);
		return 2;
	}
	o->campaign = optind == argc - 1 ? argv[optind] : NULL;
	return 0;
}

/* The campaign's attempts, as o asks: the exit status. */
static int attempts_run(const struct attempts_opts *o)
{
	char status[32];
	struct store st;
	struct store_attempt *v = NULL;
	int64_t id = 0;
	size_t i, n = 0;
	int nfail = 0, nlast = 0, ret, c;

	ret = cli_campaign_arg(o->campaign, &st, &id);
	if (ret)
		return ret;
	ret = 1;
	c = store_campaign_status(&st, id, status, sizeof(status));
	if (c == -ENOENT)
		err_msg("no campaign %" PRId64 " in the database (`ablab campaigns` lists them)",
			id);
	if (c)
		goto out;
	if (store_campaign_attempts(&st, id, &v, &n))
		goto out;
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].status, "ok")) {
			nfail++;
			nlast += !v[i].retried;
		}
	}
	if (!strcmp(o->format, "json")) {
		print_json(v, n, id, status, o->failed_only);
	} else {
		printf("campaign %" PRId64
		       " (%s): %zu attempt%s, %zu ok, %d failed (%d not retried)\n",
		       id, status, n, n == 1 ? "" : "s", n - (size_t)nfail, nfail, nlast);
		if (n)
			print_table(v, n, o->failed_only);
	}
	ret = 0;
out:
	store_attempts_free(v, n);
	store_close(&st);
	return ret;
}

int cmd_attempts(int argc, char **argv)
{
	struct attempts_opts o = { .format = "table" };
	int ret = parse_attempts_opts(argc, argv, &o);

	if (ret)
		return ret == 3 ? 0 : ret;
	return attempts_run(&o);
}
