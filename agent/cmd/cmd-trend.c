// SPDX-License-Identifier: GPL-2.0-only
/* `ablab trend JOB`: the patched-vs-control change of every nightly campaign of a job,
 * per board, with the change points of the series, as text or SVG (report/trend.c). */
#include "cmd/cmds.h"

#include <stdio.h>

int cmd_trend(int argc, char **argv)
{
	return cmd_trend_to(stdout, argc, argv);
}
