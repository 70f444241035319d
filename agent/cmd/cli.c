// SPDX-License-Identifier: GPL-2.0-only
/* Option parsing shared by the commands (cmds.h, job.h): one parser, one message per
 * option, whichever command takes it; a job loaded with its overrides, the CAMPAIGN
 * argument. */
#include "campaign.h"
#include "cmd/cmds.h"
#include "job.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int parse_margin_opt(const char *s, double *pct)
{
	char *end;
	double d = strtod(s, &end);

	if (*s == '\0' || *end || !(d > 0 && d < 50)) {
		err_msg("--margin: \"%s\" is not a percentage between 0 and 50", s);
		return -EINVAL;
	}
	*pct = d;
	return 0;
}

int parse_order_opt(const char *s, enum order_kind *kind)
{
	if (order_parse(s, kind)) {
		err_msg("--order: \"%s\" is not one of abab, abba, random, williams", s);
		return -EINVAL;
	}
	return 0;
}

int parse_design_opt(int c, const char *arg, struct design_opts *d)
{
	long v;

	switch (c) {
	case OPT_BOARD:
		d->board = arg;
		return 0;
	case OPT_BUDGET:
		if (parse_int_opt("--budget", arg, 2, 24, &v))
			return 2;
		d->budget = (int)v;
		return 0;
	case OPT_FIRST:
		if (parse_int_opt("--first", arg, 2, 24, &v))
			return 2;
		d->first = (int)v;
		d->first_set = true;
		return 0;
	case OPT_MARGIN:
		return parse_margin_opt(arg, &d->margin_pct) ? 2 : 0;
	case OPT_BATCHES:
		if (parse_int_opt("--batches", arg, 1, 1000, &v))
			return 2;
		d->batches = (int)v;
		return 0;
	case OPT_ORDER:
		if (parse_order_opt(arg, &d->order))
			return 2;
		if (d->rounds_only && d->order == ORDER_RANDOM) {
			err_msg("--order: a sequential campaign boots in rounds of one control and one patched boot; use abab or abba, not random");
			return 2;
		}
		return 0;
	case OPT_PARAMS:
		d->params = arg;
		return 0;
	case OPT_RESULTS:
		d->results = arg;
		return 0;
	case OPT_UNDECIDABLE_OK:
		d->undecidable_ok = true;
		return 0;
	}
	return -ENOENT;
}

int parse_job_opt(int c, const char *arg, struct job_run_opts *o)
{
	long v;

	switch (c) {
	case 'n':
		if (parse_int_opt("--boots", arg, 1, 1000, &v))
			return -EINVAL;
		o->boots = (int)v;
		return 0;
	case 'm':
		if (parse_int_opt("--batches", arg, 1, 1000, &v))
			return -EINVAL;
		o->batches = (int)v;
		return 0;
	case 'o':
		return parse_order_opt(arg, &o->order);
	case 's':
		if (parse_int_opt("--seed", arg, 0, 0x7fffffffL, &v))
			return -EINVAL;
		o->seed = (uint64_t)v;
		return 0;
	case 'P':
		if (!modparams_ok(arg)) { /* typed into the target's shell */
			err_msg("--params \"%s\": %s", arg, MODPARAMS_RULE);
			return -EINVAL;
		}
		o->params = arg;
		return 0;
	case 'U':
		if (parse_int_opt("--budget", arg, 0, 24, &v))
			return -EINVAL;
		o->budget = (int)v;
		return 0;
	case 'F':
		if (parse_int_opt("--first", arg, 2, 24, &v))
			return -EINVAL;
		o->first = (int)v;
		return 0;
	case 'M':
		return parse_margin_opt(arg, &o->margin_pct);
	}
	return -ENOENT;
}

void job_override_add(struct job_overrides *ov, int c, const char *arg)
{
	if (ov->n < ARRAY_SIZE(ov->v)) {
		ov->v[ov->n].c = c;
		ov->v[ov->n++].arg = arg;
	}
}

int cli_job_load(const char *name, struct job *j, struct job_run_opts *o,
		 const struct job_overrides *ov, const char *boards, bool **mask)
{
	char *path = job_path(name);
	int ret = job_load(j, path);
	size_t i;

	free(path);
	if (ret) {
		job_free(j);
		return 1;
	}
	job_run_defaults(j, o);
	for (i = 0; i < ov->n; i++)
		if (parse_job_opt(ov->v[i].c, ov->v[i].arg, o)) {
			job_free(j);
			return 2;
		}
	if (boards && job_select_boards(j, boards, mask)) {
		job_free(j);
		return 2;
	}
	return 0;
}

int cli_plan(struct campaign_spec *s, unsigned int need, bool ok, struct errtext *why)
{
	s->undecidable = NULL;
	if (campaign_plan_check(s, need, why) != -EDOM)
		return 0;
	if (!ok) {
		err_msg("%s; pass --undecidable-ok to run it anyway", why->msg);
		return 2;
	}
	info_msg("warning: %s; running it anyway (--undecidable-ok): the report says so", why->msg);
	s->undecidable = why->msg;
	return 0;
}

int cli_campaign_arg(const char *arg, struct store *st, int64_t *id)
{
	long v;

	*id = 0;
	if (arg) {
		if (parse_int_opt("CAMPAIGN", arg, 1, 0x7fffffffL, &v))
			return 2;
		*id = v;
	}
	if (store_open(st, opt_db))
		return 1;
	if (!*id && store_latest_campaign(st, id)) {
		err_msg("the database holds no campaign yet (run `ablab ab`)");
		store_close(st);
		return 1;
	}
	return 0;
}
