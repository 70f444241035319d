// SPDX-License-Identifier: GPL-2.0-only
/* Timing modes pinned per campaign and board (agent/timing.c). */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "timing.h"
#include "shared/util.h"

static void add(struct run_result *r, const char *scen, const char *timing, int kind)
{
	struct sample *s;

	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	s = &r->v[r->n++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	snprintf(s->scenario, sizeof(s->scenario), "%s", scen);
	snprintf(s->timing, sizeof(s->timing), "%s", timing);
}

int main(void)
{
	struct run_result r = { 0 }, o = { 0 };
	struct errtext why;
	char *pin, *p;

	add(&r, "null", "iter", SAMPLE_RESULT);
	add(&r, "small-dirty-256B", "batch", SAMPLE_RESULT);
	add(&r, "dma-preserve", "", SAMPLE_PRESERVE);
	add(&r, "null", "iter", SAMPLE_RESULT);
	add(&r, "small-dirty-256B", "batch", SAMPLE_RESULT);
	CHECK(timing_pin_of(&r, &pin, &why) == 0);
	CHECK_STR(pin, "null:iter,small-dirty-256B:batch");
	CHECK(timing_pin_check(pin, &r, &why) == 0);

	/* the same scenarios, one timed the other way: refused, naming it */
	add(&o, "null", "iter", SAMPLE_RESULT);
	add(&o, "small-dirty-256B", "iter", SAMPLE_RESULT);
	CHECK(timing_pin_check(pin, &o, &why) == -EINVAL);
	CHECK(strstr(why.msg, "scenario small-dirty-256B was timed by iter") != NULL);
	/* a scenario the first boot did not have */
	o.n = 0;
	add(&o, "small-dirty-2", "batch", SAMPLE_RESULT);
	CHECK(timing_pin_check(pin, &o, &why) == -EINVAL);
	CHECK(strstr(why.msg, "small-dirty-2 is not in") != NULL);
	/* a name that is a prefix of a pinned one is not that one */
	o.n = 0;
	add(&o, "small", "batch", SAMPLE_RESULT);
	CHECK(timing_pin_check(pin, &o, &why) == -EINVAL);
	/* both modes in one boot */
	o.n = 0;
	add(&o, "null", "iter", SAMPLE_RESULT);
	add(&o, "null", "batch", SAMPLE_RESULT);
	CHECK(timing_pin_of(&o, &p, &why) == -EINVAL);
	CHECK(p == NULL);
	CHECK(strstr(why.msg, "null was timed both ways") != NULL);
	/* no timing samples: no pin */
	o.n = 0;
	add(&o, "dma-preserve", "", SAMPLE_PRESERVE);
	CHECK(timing_pin_of(&o, &p, &why) == 0 && p == NULL);

	/* module parameters: the user's own choice of mode wins */
	p = timing_pin_params(NULL, pin);
	CHECK_STR(p, "pin_timing=null:iter,small-dirty-256B:batch");
	free(p);
	p = timing_pin_params("reps=100", pin);
	CHECK_STR(p, "reps=100 pin_timing=null:iter,small-dirty-256B:batch");
	free(p);
	p = timing_pin_params("reps=100 timing=batch", pin);
	CHECK_STR(p, "reps=100 timing=batch");
	free(p);
	p = timing_pin_params("timing=auto", pin);
	CHECK_STR(p, "timing=auto pin_timing=null:iter,small-dirty-256B:batch");
	free(p);
	p = timing_pin_params("reps=9 pin_timing=null:iter  batches=2", pin);
	CHECK_STR(p, "reps=9 batches=2 pin_timing=null:iter,small-dirty-256B:batch");
	free(p);
	p = timing_pin_params("xtiming=batch", pin);
	CHECK_STR(p, "xtiming=batch pin_timing=null:iter,small-dirty-256B:batch");
	free(p);
	CHECK(timing_pin_params(NULL, NULL) == NULL);
	free(pin);
	free(r.v);
	free(o.v);
	CHECK_DONE("test_timing");
}
