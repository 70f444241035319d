/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_LAVA_API_H
#define ABLAB_LAVA_API_H

/* Running one LAVA job (lava-api.c): through a LAVA server's REST API, or
 * with lava-run on this host. */

#include "bench/parse.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct lava_conn {
	/* server */
	const char *server; /* https://lava.example.org (no trailing /) */
	char *token;
	/* local */
	bool local;
	const char *device_tmpl; /* device dictionary (.jinja2) or .yaml; {board} */
	const char *workdir; /* lava-run's job files and output */
};

/* What came back from one LAVA job. */
struct lava_result {
	int64_t id;
	char health[16]; /* Complete, Incomplete, Canceled */
	char *failure; /* why (LAVA's failure comment or ours) */
	char *log; /* console text */
	json_object *tests; /* array of test cases (server), or NULL */
};
void lava_result_free(struct lava_result *r);

/* libcurl's global state, before the first and after the last request
 * (not thread-safe: from the main thread, around a campaign). */
void lava_api_init(void);
void lava_api_cleanup(void);

/* http:// sends the token in clear text: only to a loopback server, or
 * with insecure_http.  0 or -EINVAL (printed). */
int lava_server_url_ok(const char *server, bool insecure_http);
/* POST the job; *id gets its LAVA job id.  -EACCES for a refused token. */
int lava_submit(const struct lava_conn *c, const char *yaml, int64_t *id);
/* Waits for state Finished (polling each second, until the deadline). */
int lava_wait(const struct lava_conn *c, int64_t id, int64_t deadline, struct lava_result *r);
/* The job's console text and test cases. */
int lava_fetch(const struct lava_conn *c, int64_t id, struct lava_result *r);
/* The device dictionary of a board for lava-run: the template with {board}
 * replaced (malloc'd); NULL after printing why when it does not exist. */
char *lava_local_device(const struct lava_conn *c, const char *board);
/* Job r->id (set by the caller) with lava-run on this host, device file dev. */
int lava_local_run(const struct lava_conn *c, const char *dev, const char *yaml,
		   struct lava_result *r);
/* LAVA's measurements must be the values ablab parsed from the log. */
int lava_cross_check(const struct lava_result *r, const struct run_result *res,
		     struct errtext *why);

#endif
