// SPDX-License-Identifier: GPL-2.0-only
/* ablab report: one campaign's report in one of the formats of report_formats[]. */
#include "bisect.h"
#include "cmd/cmds.h"
#include "report/report.h"
#include "store/store.h"
#include "shared/util.h"
#include "stats/stats.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

/* The formats come from report_formats[] (report.c). */
static void report_usage(void)
{
	size_t i;

	printf("usage: ablab report [CAMPAIGN] [--format ");
	for (i = 0; i < report_nformats; i++)
		printf("%s%s", i ? "|" : "", report_formats[i].name);
	printf("]\n"
	       "                    [--alpha A] [--target PCT] [--detail] [--reply]\n"
	       "       ablab report --bisect ID\n"
	       "Prints the A/B table of a campaign (default: the latest).  --target: design\n"
	       "advice for a 95%% CI half-width of PCT%% of the mean (default 1).  --detail:\n"
	       "per-boot statistics (text, csv).  --reply (email): headers of a reply to the\n"
	       "series' first message (a job with \"patches\": {\"mbox\"}), for git send-email.\n"
	       "--bisect ID: the step table of an `ablab bisect` and its first changed commit.\n\nformats:\n");
	for (i = 0; i < report_nformats; i++)
		printf("  %-6s %s\n", report_formats[i].name, report_formats[i].help);
}

/* `ablab report`'s command line. */
struct report_cli {
	struct report_opts o;
	const char *format, *campaign; /* campaign: NULL: the latest */
	int64_t bisect;
};

/* argv into r: 0; 2: a usage error (said); 3: --help (printed). */
static int parse_report_opts(int argc, char **argv, struct report_cli *r)
{
	static const struct option lo[] = { { "format", 1, NULL, 'f' }, { "alpha", 1, NULL, 'a' },
					    { "target", 1, NULL, 't' }, { "detail", 0, NULL, 'd' },
					    { "reply", 0, NULL, 'r' },	{ "bisect", 1, NULL, 'b' },
					    { "help", 0, NULL, 'h' },	{ NULL, 0, NULL, 0 } };
	char names[128];
	long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			r->format = optarg;
			break;
		case 'a':
			if (parse_alpha_opt(optarg, &r->o.alpha))
				return 2;
			break;
		case 't':
			r->o.target = strtod(optarg, NULL) / 100.0;
			if (!(r->o.target > 0 && r->o.target < 1)) {
				err_msg("--target: \"%s\" must be a percentage between 0 and 100 (the CI half-width the design advice aims for)",
					optarg);
				return 2;
			}
			break;
		case 'd':
			r->o.detail = true;
			break;
		case 'r':
			r->o.reply = true;
			break;
		case 'b':
			if (parse_int_opt("--bisect", optarg, 1, 0x7fffffffL, &v))
				return 2;
			r->bisect = v;
			break;
		case 'h':
			report_usage();
			return 3;
		default:
			return 2;
		}
	}
	if (!report_format_ok(r->format)) {
		err_msg("--format: \"%s\" is not one of %s", r->format,
			report_format_names(names, sizeof(names)));
		return 2;
	}
	r->campaign = optind < argc ? argv[optind] : NULL;
	return 0;
}

/* The report r asks for, on stdout: the exit status. */
static int report_run(const struct report_cli *r)
{
	struct store st;
	int64_t id = 0;
	int ret;

	if (r->bisect) {
		if (store_open(&st, opt_db))
			return 1;
		ret = bisect_report(&st, r->bisect, stdout);
		store_close(&st);
		return ret ? 1 : 0;
	}
	ret = cli_campaign_arg(r->campaign, &st, &id);
	if (ret)
		return ret;
	ret = report_campaign_opts(&st, id, r->format, &r->o);
	store_close(&st);
	return ret ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_cli r = { .o = { .alpha = ABLAB_ALPHA, .target = ABLAB_TARGET },
				.format = "text" };
	int ret = parse_report_opts(argc, argv, &r);

	if (ret)
		return ret == 3 ? 0 : ret;
	return report_run(&r);
}
