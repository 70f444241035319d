/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RESUME_H
#define ABLAB_RESUME_H

/* `ablab resume`: an interrupted, failed or stale campaign continued after its last stored
 * boot, from its run record (run-record.h); a bisect's step continues its bisect. */
struct resume_opts {
	const char *db;
	long id; /* the campaign */
	const char *results; /* --results, or NULL: the campaign's own */
	const char *format; /* the report printed at the end */
};

/* 0 (done, or complete already), -EINTR (stopped by a signal), or another -errno
 * (printed). */
int campaign_resume(const struct resume_opts *o);

#endif
