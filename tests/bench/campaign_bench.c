// SPDX-License-Identifier: GPL-2.0-only
/* One campaign through campaign_run() (the code behind `ablab ab` and
 * `ablab run`), measured from inside: wall time, the agent's own CPU time
 * and peak RSS (getrusage RUSAGE_SELF: all agent threads, no child process,
 * so not QEMU and not the power commands), and the children's CPU.
 *
 *   campaign_bench --boots N --batches M --results DIR BOARD[:CONTROL:PATCHED]...
 *
 * Prints one JSON object on stdout.  Exit status: 0 when the campaign
 * completed. */
#include "campaign.h"
#include "shared/util.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double tv_ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1000.0 + (double)tv.tv_usec / 1000.0;
}

/* Peak RSS of this process (VmHWM, kB): what ru_maxrss says, from /proc. */
static long vm_hwm_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "boots", 1, NULL, 'n' }, { "batches", 1, NULL, 'm' },
		{ "results", 1, NULL, 'r' }, { NULL, 0, NULL, 0 }
	};
	struct campaign_spec cs = { .boots = 1, .batches = 2, .order = ORDER_ABAB, .seed = 1,
				    .results = "results", .trigger = "cli" };
	struct campaign_board *cb;
	struct rusage self, kids;
	struct timespec t0, t1;
	int64_t id = 0;
	int c, ret, i;
	double wall;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': cs.boots = atoi(optarg); break;
		case 'm': cs.batches = atoi(optarg); break;
		case 'r': cs.results = optarg; break;
		default:
			fprintf(stderr, "usage: campaign_bench --boots N --batches M --results DIR "
				"BOARD[:CONTROL:PATCHED]...\n");
			return 2;
		}
	}
	if (optind >= argc || cs.boots < 1 || cs.batches < 1) {
		fprintf(stderr, "campaign_bench: no board given, or --boots/--batches < 1\n");
		return 2;
	}
	cs.nboards = (size_t)(argc - optind);
	cb = xcalloc(cs.nboards, sizeof(*cb));
	for (i = 0; i < argc - optind; i++) {
		char *s = argv[optind + i], *p = strchr(s, ':');

		cb[i].board = s;
		if (p) {
			*p++ = '\0';
			cb[i].control_dir = p;
			p = strchr(p, ':');
			if (!p) {
				fprintf(stderr, "campaign_bench: %s: want BOARD:CONTROL:PATCHED\n", s);
				return 2;
			}
			*p++ = '\0';
			cb[i].patched_dir = p;
		}
	}
	cs.boards = cb;
	install_signal_handlers();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = campaign_run(&cs, &id);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	wall = (double)(t1.tv_sec - t0.tv_sec) * 1000.0 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("{\"campaign\": %" PRId64 ", \"status\": %d, \"boards\": %zu, \"boots\": %d, "
	       "\"wall_ms\": %.1f, \"agent_user_ms\": %.1f, \"agent_sys_ms\": %.1f, "
	       "\"agent_maxrss_kb\": %ld, \"agent_hwm_kb\": %ld, \"children_cpu_ms\": %.1f}\n",
	       id, ret, cs.nboards, 2 * cs.boots * (int)cs.nboards, wall, tv_ms(self.ru_utime),
	       tv_ms(self.ru_stime), self.ru_maxrss, vm_hwm_kb(),
	       tv_ms(kids.ru_utime) + tv_ms(kids.ru_stime));
	free(cb);
	return ret ? 1 : 0;
}
