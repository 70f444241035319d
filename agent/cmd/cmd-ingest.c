// SPDX-License-Identifier: GPL-2.0-only
/* `ablab ingest FILE... --board B --variant L ...`: its options, then ingest_run()
 * (ingest.c). */
#include "cmd/cmds.h"
#include "ingest.h"
#include "shared/util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>

static void ingest_usage(FILE *f)
{
	fprintf(f, "usage: ablab ingest FILE... --board B --variant L [--kernel RELEASE]\n"
		   "                    [--campaign N] [--cpu CPU --family FAMILY] [--partial]\n"
		   "                    [--split]\n"
		   "Stores hand-captured dmesg or console logs (the seed module's lines or\n"
		   "dmabench v1) as boots: one file = one boot. The same file for the same\n"
		   "board and variant is stored once (its UUID is a hash of the content).\n"
		   "A line printed twice with the same printk timestamp (the console's output\n"
		   "and a dmesg typed afterwards) counts once.  A file of several runs (two\n"
		   "\"Linux version\" lines of two boots, a second benchmark start line) is\n"
		   "refused naming the line where each begins, also with --partial; with\n"
		   "--split each run is a boot of its own.\n\n"
		   "  --board B          board file or name (boards/B.json), or a board already\n"
		   "                     in the database; with --cpu and --family a new one\n"
		   "  --variant L        kernel label: control or patched for A/B reports\n"
		   "  --kernel RELEASE   uname -r of the kernel (default: the log's \"Linux\n"
		   "                     version\" line, else \"unknown\")\n"
		   "  --campaign N       add the boots to campaign N (default: a new campaign\n"
		   "                     with trigger \"ingest\", made with its first boot; a\n"
		   "                     run of the same files killed before its end: its\n"
		   "                     campaign, continued)\n"
		   "  --partial          keep the valid scenarios of a log cut short (no DONE\n"
		   "                     line) or with rejected lines, and mark the boot partial\n"
		   "  --split            a file of several runs (boots, module loads): one boot\n"
		   "                     per run, each from its start line\n");
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "board", 1, NULL, 'b' },   { "variant", 1, NULL, 'v' },
		{ "kernel", 1, NULL, 'k' },  { "campaign", 1, NULL, 'c' },
		{ "cpu", 1, NULL, 'C' },     { "family", 1, NULL, 'F' },
		{ "partial", 0, NULL, 'P' }, { "help", 0, NULL, 'h' },
		{ "split", 0, NULL, 'S' },   { NULL, 0, NULL, 0 }
	};
	struct ingest_opts o = { .db = opt_db };
	int opt, ret;
	long v;

	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'b':
			o.board = optarg;
			break;
		case 'v':
			o.variant = optarg;
			break;
		case 'k':
			o.kernel = optarg;
			break;
		case 'c':
			if (parse_int_opt("--campaign", optarg, 1, 0x7fffffffL, &v))
				return 2;
			o.campaign = v;
			break;
		case 'C':
			o.cpu = optarg;
			break;
		case 'F':
			o.family = optarg;
			break;
		case 'P':
			o.partial = true;
			break;
		case 'S':
			o.split = true;
			break;
		case 'h':
			ingest_usage(stdout);
			return 0;
		default:
			ingest_usage(stderr);
			return 2;
		}
	}
	if (!o.board || !o.variant || optind >= argc) {
		ingest_usage(stderr);
		return 2;
	}
	o.files = argv + optind;
	o.nfiles = argc - optind;
	ret = ingest_run(&o);
	return ret == -EINVAL ? 2 : ret ? 1 : 0;
}
