/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_INGEST_INT_H
#define ABLAB_INGEST_INT_H

/* What ingest.c (the command, the boots stored two at once) and ingest-file.c (one file read,
 * hashed, parsed and checked) share and nothing else includes. */
#include "ingest.h"
#include "bench/parse.h"
#include "shared/util.h"

#include <stddef.h>

/*
 * What ingest_file() needs from a file before it talks to the database: read,
 * hashed, parsed and checked.  No output, no database: the next files are
 * prepared on threads while boots are stored (the server's COPY and the
 * client's parse overlap), and every message is printed in file order by
 * ingest_file() and ingest_done().
 */
/* One boot's source: a file, or with --split one run of it (bytes [off, off + len)) */
struct ingest_src {
	const char *path;
	char *name; /* as messages name it: the path, or "PATH (run K of N, from line L)" */
	size_t off, len;
	bool part; /* a run of the file, not all of it */
};

struct ingest_prepared {
	const char *file; /* the source's name */
	const char *path;
	int read_err; /* read_file()'s error, else 0 */
	char *data, *vline, *vrel;
	char *vrel_bad; /* the Linux version line's release when it is not one (vrel NULL) */
	size_t len;
	char uuid[37];
	struct run_result res;
	int check; /* run_check() */
	struct errtext why; /* run_check()'s reason, then what a partial boot lost */
};

/* file read, its Linux version line found, its uuid made (of board and variant), parsed and
 * checked: all of it in p (p->read_err: it could not be read) */
void ingest_prepare(const char *board, const char *variant, const struct ingest_src *src,
		    struct ingest_prepared *p);
void ingest_prepared_free(struct ingest_prepared *p);
/* A kernel release as uname -r prints it (--kernel's rule): 1-128 of [A-Za-z0-9._+-],
 * starting with a letter or digit */
bool ingest_release_ok(const char *s);
/*
 * The scenarios of a run that stand on their own: batches 1..N each once (the seed format
 * numbers them in order of appearance) and no rejected line about them.  out gets their
 * samples; every dropped scenario is named on stderr (as from file).
 */
void ingest_keep_valid(const char *file, const struct run_result *in, struct run_result *out,
		       size_t *kept, size_t *dropped);

#endif
