// SPDX-License-Identifier: GPL-2.0-only
/* The runners by name (runner.h): what a campaign's run JSON says ran it. */
#include "runner.h"
#include "lava/lava.h"
#include "shared/util.h"

#include <errno.h>
#include <string.h>

/* a runner that is not the local one: its name, and how to make it again
 * from its part of the run JSON (the object under its name) */
static const struct {
	const char *name;
	int (*from_run)(json_object *part, struct runner *r);
} runners[] = {
	{ "lava", lava_runner_from_run },
};

int runner_from_run(json_object *run, struct runner *r)
{
	const char *name = jstr(run, "runner");
	size_t i;

	if (!name || !strcmp(name, local_runner.ops->name)) {
		*r = local_runner;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(runners); i++)
		if (!strcmp(name, runners[i].name))
			return runners[i].from_run(jobj(run, runners[i].name), r);
	err_msg("the campaign was run by \"%s\", which this ablab does not know (local, lava)",
		name);
	return -EINVAL;
}

void runner_release(struct runner *r)
{
	if (r->ops && r->ops->release)
		r->ops->release(r->priv);
	r->ops = NULL;
	r->priv = NULL;
}
