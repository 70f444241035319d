// SPDX-License-Identifier: GPL-2.0-only
/* ablab patchwork post: a campaign's verdicts as patchwork checks, one per patch of its
 * series and board (patchwork.h says which state when). */
#include "cmd/cmds.h"
#include "report/patchwork.h"
#include "shared/util.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void patchwork_usage(void)
{
	printf("usage: ablab patchwork post [CAMPAIGN] --url URL --token-file FILE\n"
	       "                            [--web-url URL] [--insecure-http] [--dry-run]\n"
	       "Posts one patchwork check per patch of the series the campaign (default: the\n"
	       "latest) ran and per board, context \"ablab-BOARD\": pending while the campaign\n"
	       "runs, fail when it failed or stopped, warning when a timing row is different\n"
	       "(its change and CI in the description) or undecided, success when every\n"
	       "timing row is the same within the margin.  A series campaign (variants +1,\n"
	       "+1-2, ...) posts each patch's own increment; an A/B campaign whose patched\n"
	       "kernel is the series posts the whole series on every patch.  The patch is\n"
	       "found by its Message-ID (b4 intake records them).  A job with \"patchwork\"\n"
	       "(or `ablab run --patchwork-url`) posts them itself, pending when its campaign\n"
	       "starts and the verdict when it ends; this command posts them again.\n\n"
	       "  --url URL          the patchwork server (https://patchwork.kernel.org)\n"
	       "  --token-file FILE  its API token, in a file readable by its owner only;\n"
	       "                     sent to --url's server only, never across a redirect\n"
	       "  --web-url URL      where `ablab serve` is reachable: each check's target_url\n"
	       "                     is URL/campaign/N\n"
	       "  --insecure-http    allow http:// to a server that is not loopback (the\n"
	       "                     token then crosses the network in clear text)\n"
	       "  --dry-run          print the checks, post nothing (no --url or token needed)\n");
}

int cmd_patchwork(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "url", 1, NULL, 'u' },     { "token-file", 1, NULL, 'T' },
		{ "web-url", 1, NULL, 'w' }, { "insecure-http", 0, NULL, 'i' },
		{ "dry-run", 0, NULL, 'n' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *token_file = NULL, *web = NULL;
	struct pw_conn conn = { 0 };
	bool insecure = false, dry = false;
	struct pw_plan plan;
	char *url = NULL, *target = NULL;
	struct store st;
	int64_t cid = 0;
	int c, ret;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		patchwork_usage();
		return argc < 2 ? 2 : 0;
	}
	if (strcmp(argv[1], "post")) {
		err_msg("patchwork: unknown subcommand \"%s\" (post)", argv[1]);
		return 2;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'u':
			free(url);
			url = xstrdup(optarg);
			url[strcspn(url, "?#")] = '\0';
			while (*url && url[strlen(url) - 1] == '/')
				url[strlen(url) - 1] = '\0';
			break;
		case 'T':
			token_file = optarg;
			break;
		case 'w':
			web = optarg;
			break;
		case 'i':
			insecure = true;
			break;
		case 'n':
			dry = true;
			break;
		case 'h':
			patchwork_usage();
			free(url);
			return 0;
		default:
			free(url);
			return 2;
		}
	}
	if (!dry && (!url || !token_file)) {
		err_msg("patchwork post: needs --url URL and --token-file FILE (or --dry-run)");
		free(url);
		return 2;
	}
	if (!dry && (pw_url_ok(url, insecure) || pw_token_read(token_file, &conn.token))) {
		free(url);
		return 2;
	}
	conn.url = url;
	ret = cli_campaign_arg(optind < argc ? argv[optind] : NULL, &st, &cid);
	if (ret) {
		free(conn.token);
		free(url);
		return ret;
	}
	ret = pw_plan(&st, cid, &plan);
	store_close(&st);
	if (ret) {
		if (ret == -ENOENT)
			err_msg("no campaign %" PRId64 " in the database", cid);
		free(conn.token);
		free(url);
		return 1;
	}
	target = pw_target_url(web, cid);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	ret = pw_post_plan(&conn, &plan, target, dry, stdout);
	if (!ret)
		info_msg("%s %zu check%s for %zu patch%s of campaign %" PRId64 " (%s)",
			 dry ? "would post" : "posted", plan.n, plan.n == 1 ? "" : "s", plan.npatch,
			 plan.npatch == 1 ? "" : "es", cid, plan.status);
	curl_global_cleanup();
	pw_plan_free(&plan);
	free(target);
	free(conn.token);
	free(url);
	return ret ? 1 : 0;
}
