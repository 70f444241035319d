// SPDX-License-Identifier: GPL-2.0-only
/* `ablab serve`: the results web UI, JSON API and metrics (web.h). */
#include "cmd/cmds.h"
#include "shared/util.h"
#include "web/web.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void serve_usage(FILE *f)
{
	fprintf(f, "usage: ablab serve [--listen ADDR:PORT] [--results DIR] [--host-name NAME]...\n"
		   "                   [--statement-timeout S]\n"
		   "A read-only web UI over the results database: campaigns (with filters), each\n"
		   "campaign's report, plot, transcripts and email text, boards, nightly trends;\n"
		   "/api/v1/report/ID, /api/v1/query, /api/v1/campaigns and /api/v1/boards answer\n"
		   "with what the commands print with --format json; /metrics for Prometheus.\n"
		   "  --listen   address and port (default 127.0.0.1:8080; port 0: any free one,\n"
		   "             printed at start)\n"
		   "  --results  the results directory transcripts are served from (default\n"
		   "             ./results); only the transcripts the database names are served\n"
		   "  --host-name a name this server is reached by (repeatable, at most 8): a\n"
		   "             request whose Host is no address literal, localhost or such a\n"
		   "             name gets 421 (DNS rebinding)\n"
		   "  --statement-timeout  seconds a query of the server may take (default 10)\n");
}

/* argv into o (names: its host names, at most 8): 0; 2: a usage error (said); 3: --help. */
static int parse_serve_opts(int argc, char **argv, struct web_opts *o, const char **names)
{
	static const struct option lo[] = {
		{ "listen", 1, NULL, 'l' },    { "results", 1, NULL, 'r' },
		{ "host-name", 1, NULL, 'n' }, { "statement-timeout", 1, NULL, 't' },
		{ "help", 0, NULL, 'h' },      { NULL, 0, NULL, 0 }
	};
	int c, nn = 0;
	long v;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->listen = optarg;
			break;
		case 'r':
			o->results = optarg;
			break;
		case 'n':
			if (nn == 8 || !*optarg || strpbrk(optarg, ":/[] ")) {
				err_msg("serve: --host-name \"%s\": a host name without port (at most 8 of them)",
					optarg);
				return 2;
			}
			names[nn++] = optarg;
			break;
		case 't':
			if (parse_int_opt("--statement-timeout", optarg, 1, 3600, &v))
				return 2;
			o->statement_timeout_s = (unsigned int)v;
			break;
		case 'h':
			serve_usage(stdout);
			return 3;
		default:
			serve_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		err_msg("serve: unexpected argument \"%s\"", argv[optind]);
		return 2;
	}
	o->host_names = names;
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	struct web_opts o = { .results = "results", .db = opt_db };
	const char *names[9] = { NULL };
	int c = parse_serve_opts(argc, argv, &o, names);

	if (c)
		return c == 3 ? 0 : c;
	c = web_serve(&o);
	return c == -EINVAL ? 2 : c ? 1 : 0;
}
