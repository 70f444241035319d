// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the results web UI, JSON API and metrics (web.h). */
#include "cmds.h"
#include "util.h"
#include "web.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

static void serve_usage(FILE *f)
{
	fprintf(f, "usage: ablab serve [--listen ADDR:PORT] [--results DIR]\n"
		   "A read-only web UI over the results database: campaigns (with filters), each\n"
		   "campaign's report, plot, transcripts and email text, boards, nightly trends;\n"
		   "/api/v1/report/ID, /api/v1/query, /api/v1/campaigns and /api/v1/boards answer\n"
		   "with what the commands print with --format json; /metrics for Prometheus.\n"
		   "  --listen   address and port (default 127.0.0.1:8080; port 0: any free one,\n"
		   "             printed at start)\n"
		   "  --results  the results directory transcripts are served from (default\n"
		   "             ./results); nothing outside it is served\n");
}

int cmd_serve(int argc, char **argv)
{
	static const struct option lo[] = { { "listen", 1, NULL, 'l' },
					    { "results", 1, NULL, 'r' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	struct web_opts o = { .results = "results", .db = opt_db };
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.listen = optarg;
			break;
		case 'r':
			o.results = optarg;
			break;
		case 'h':
			serve_usage(stdout);
			return 0;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		err_msg("serve: unexpected argument \"%s\"", argv[optind]);
		return 2;
	}
	c = web_serve(&o);
	return c == -EINVAL ? 2 : c ? 1 : 0;
}
