// SPDX-License-Identifier: GPL-2.0-only
/* The local runner (runner.h): one attempt powers the board on here, boots
 * the slot's kernel, runs the benchmark at the shell prompt and powers the
 * board off.  Today's `ablab ab` / `ablab run` path. */
#include "runner.h"
#include "runner-env.h"
#include "backend/boot.h"
#include "backend/console.h"
#include "backend/power.h"
#include "shared/util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* What the board's backends need on this host (QEMU: its emulator; a console device). */
static int local_check(void *priv, const struct board *b)
{
	struct errtext e;
	int ret;

	(void)priv;
	ret = boot_preflight(b, &e);
	if (ret)
		err_msg("%s", e.msg);
	return ret;
}

/* Power off, then the phases the attempt reached (a failed one's too) into r->phases. */
static void local_end(struct boot_session *s, const struct bench_out *bo, struct runner_result *r)
{
	s->phase[PHASE_BENCH_START] = bo->t_start;
	s->phase[PHASE_BENCH_END] = bo->t_end;
	boot_end(s);
	if (s->t_on)
		boot_mark(s, PHASE_OFF);
	r->log_err = console_log_error(&s->con);
	r->phases = boot_phases_json(s);
}

/* One attempt at one slot: boot, benchmark, power off. */
static int local_attempt(void *priv, const struct runner_slot *sl, struct runner_result *r)
{
	struct bench_out *bo = &r->bo;
	struct boot_session s;
	int ret;

	(void)priv;
	r->log_written = true;
	ret = boot_start(&s, sl->b, sl->k, sl->rundir, sl->transcript);
	runner_env_boot(sl, &s.con, r);
	if (ret) {
		errtext_set(&bo->error, 0, "%s", s.error.msg);
		bo->fatal = s.fatal;
		local_end(&s, bo, r);
		return ret;
	}
	r->boot_ms = s.t_prompt - s.t_on;
	bo->run_ms = 0;
	ret = bench_run(&s.tgt, sl->b, sl->bp, bo);
	runner_env_target(sl, r);
	if (!ret && bo->uname_r && sl->k->release && strcmp(bo->uname_r, sl->k->release)) {
		/* the board did not run the kernel we deployed */
		errtext_set(&bo->error, 0, "wrong kernel: target runs %s, expected %s (%s)",
			    bo->uname_r, sl->k->release, sl->k->dir);
		ret = -EIO;
	}
	local_end(&s, bo, r);
	return ret;
}

static const struct runner_ops local_ops = {
	.name = "local",
	.flags = RUNNER_HOLDS_BOARD,
	.check = local_check,
	.attempt = local_attempt,
};

const struct runner local_runner = { &local_ops, NULL };
