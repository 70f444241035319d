// SPDX-License-Identifier: GPL-2.0-only
/* `ablab resume` (resume.h): the campaign's stored run record back into a campaign_spec
 * (and its runner), then the engine again with resume_id. */
#include "resume.h"
#include "bisect.h"
#include "campaign.h"
#include "run-record.h"
#include "spool.h"
#include "store/store-bisect.h"
#include "store/store-campaign.h"
#include "store/store.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A step of a bisect: the bisect continues (its report printed). */
static int resume_bisect(const char *db, long id, int64_t bid)
{
	struct store st;
	int ret;

	info_msg("campaign %ld is a step of bisect %" PRId64 ": continuing the bisect", id, bid);
	install_signal_handlers();
	ret = bisect_resume(db, bid);
	if (ret != -EINTR && !store_open(&st, db)) {
		bisect_report(&st, bid, stdout);
		store_close(&st);
	}
	return ret ? (ret < 0 ? ret : -EIO) : 0;
}

/* The spool of the campaign's own results directory, whatever --results says. */
static void flush_own_spool(struct store *st, const char *rec_results, const char *results_opt)
{
	char real[PATH_MAX];

	if (rec_results && results_opt &&
	    (!realpath(results_opt, real) || strcmp(real, rec_results))) {
		char *sd = xasprintf("%s/spool", rec_results);
		int nl, nf;

		if (!spool_flush(st, sd, &nl, &nf) && (nl || nf))
			info_msg("spool %s: %d boot(s) loaded into the database, %d left", sd, nl,
				 nf);
		free(sd);
	}
}

/* The stored record of campaign o->id read; -errno (printed), 1: complete already. */
static int resume_read(struct store *st, const struct resume_opts *o, struct run_record *r)
{
	char *text = NULL, status[32];
	int ret;

	if (store_campaign_run(st, o->id, &text, status, sizeof(status))) {
		err_msg("no campaign %ld in the database (`ablab campaigns` lists them)", o->id);
		return -ENOENT;
	}
	if (!strcmp(status, "complete")) {
		info_msg("campaign %ld is already complete; nothing to resume", o->id);
		free(text);
		return 1;
	}
	ret = run_record_read(r, o->id, text);
	free(text);
	if (ret)
		return ret;
	flush_own_spool(st, r->results, o->results);
	r->cs.results = o->results ? o->results : r->results ? r->results : "results";
	r->cs.format = o->format;
	r->cs.db = o->db;
	return 0;
}

int campaign_resume(const struct resume_opts *o)
{
	struct run_record r = { 0 };
	struct store st;
	int64_t bid;
	int ret;

	if (store_open(&st, o->db))
		return -EIO;
	bid = store_bisect_of_campaign(&st, o->id);
	if (bid) {
		store_close(&st);
		return resume_bisect(o->db, o->id, bid);
	}
	ret = resume_read(&st, o, &r);
	store_close(&st);
	if (!ret) {
		install_signal_handlers();
		ret = campaign_run(&r.cs, NULL);
	}
	run_record_free(&r);
	return ret > 0 ? 0 : ret;
}
