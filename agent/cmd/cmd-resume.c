// SPDX-License-Identifier: GPL-2.0-only
/* `ablab resume CAMPAIGN`: its options, then campaign_resume() (resume.c). */
#include "cmd/cmds.h"
#include "resume.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

static void resume_usage(FILE *f)
{
	fprintf(f, "usage: ablab resume CAMPAIGN [--results DIR] [--format text|json]\n"
		   "Continues an interrupted, failed or stale (its agent died) campaign after\n"
		   "its last stored boot, with the same boards, kernels, order and parameters;\n"
		   "a slot whose attempt died with its agent gets the next attempt and its own\n"
		   "transcript.  Refused while a live agent still runs the campaign.  Boots\n"
		   "the campaign spooled are loaded first, from the results directory it\n"
		   "recorded (the default for --results), so no slot is run twice.  A campaign\n"
		   "of an `ablab bisect` continues its bisect (`ablab bisect --resume ID`).\n");
}

int cmd_resume(int argc, char **argv)
{
	static const struct option lo[] = { { "results", 1, NULL, 'r' },
					    { "format", 1, NULL, 'f' },
					    { "help", 0, NULL, 'h' },
					    { NULL, 0, NULL, 0 } };
	struct resume_opts o = { .db = opt_db, .format = "text" };
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.results = optarg;
			break;
		case 'f':
			o.format = optarg;
			break;
		case 'h':
			resume_usage(stdout);
			return 0;
		default:
			resume_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1 || parse_int_opt("CAMPAIGN", argv[optind], 1, 0x7fffffff, &o.id)) {
		resume_usage(stderr);
		return 2;
	}
	c = campaign_resume(&o);
	return c == -EINTR ? 130 : c ? 1 : 0;
}
