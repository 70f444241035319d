/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RUNNER_H
#define ABLAB_RUNNER_H

/* What runs one attempt of one slot of a campaign.  The campaign engine
 * (campaign.c) orders the slots, numbers the attempts, retries, stores or
 * spools every attempt, resumes and stops; a runner only runs what it is
 * given and says how it went.  Two runners: the local one (boot the board
 * here and run the benchmark on it, runner-local.c) and LAVA (submit a job,
 * wait for it, fetch its log and test cases, lava-runner.c). */

#include "bench/bench.h"
#include "board.h"
#include "kernel.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The engine holds the board here: it takes the board's lock (file and
 * database) and checks at the end that the board is off.  A LAVA board is
 * held by LAVA's scheduler. */
#define RUNNER_HOLDS_BOARD (1u << 0)

/* One attempt of one slot, as the engine hands it to the runner. */
struct runner_slot {
	const struct board *b;
	const struct kernel_art *k;
	const struct bench_params *bp; /* batches, modparams (timing pin included) */
	int variant, seq, nslots, attempt;
	const char *rundir; /* private scratch directory of the campaign */
	const char *transcript; /* where the attempt's console text goes */
	const char *label; /* the variant's name ("control", "patched", "+1-2") */
};

/* Where else a boot is known: the server that ran it and its id there (a LAVA
 * server's URL and job number); id 0: nowhere else.  The engine stores it with
 * the boot (the boots' lava_server and lava_job_id columns). */
struct ext_ref {
	const char *server;
	int64_t id;
};

/* How it went.  The engine frees bo (bench_out_free). */
struct runner_result {
	struct bench_out bo; /* uname_r, proc_version, res, run_ms, fatal, error */
	int64_t boot_ms; /* power on to shell prompt; -1: not measured */
	bool log_written; /* the transcript file holds this attempt's text */
	int log_err; /* the transcript is incomplete: the errno of its failed write */
	bool no_data; /* a failed attempt whose lines are not data (LAVA
					 * infrastructure): stored without samples */
	struct ext_ref ext; /* the boot's job on the runner's server (a LAVA job) */
	char where[64]; /* "LAVA job 12": named in the ok line; "" none */
	/* the attempt's phases and environment fingerprint (docs/DESIGN.md "Boot phases",
	 * "Environment fingerprint"), stored as the boot's phases and env; NULL: none.  The
	 * engine puts them. */
	json_object *phases, *env;
};

struct runner_ops {
	const char *name; /* "local", "lava": the run JSON's "runner" */
	unsigned int flags; /* RUNNER_* */
	/* before the database is touched: what can be checked about board b
	 * (0 or -errno, printed naming the file and the fix); NULL: nothing */
	int (*check)(void *priv, const struct board *b);
	/* the runner's part of the campaign's run JSON, read back by
	 * `ablab resume` (runner_from_run); NULL: nothing to keep */
	void (*describe)(void *priv, json_object *run);
	/* once per campaign, with its id and transcript directory, before any
	 * attempt; NULL: nothing to do */
	int (*prepare)(void *priv, int64_t cid, const char *resdir);
	/* one attempt of one slot; 0 when it gave data, else -errno with why in
	 * r->bo.error and r->bo.fatal set when retrying cannot help.  Called from
	 * one thread per board at once. */
	int (*attempt)(void *priv, const struct runner_slot *s, struct runner_result *r);
	/* once at the end; NULL: nothing to do */
	void (*finish)(void *priv);
	/* frees priv (runner_release); NULL: priv is not the runner's own */
	void (*release)(void *priv);
};

struct runner {
	const struct runner_ops *ops;
	void *priv;
};

/* The board boots here (runner-local.c). */
extern const struct runner local_runner;

/* The runner a campaign's run JSON names (for `ablab resume`): the local one
 * when it names none; r->priv is then freed with runner_release.  0 or
 * -errno (printed). */
int runner_from_run(json_object *run, struct runner *r);
void runner_release(struct runner *r);

#endif
