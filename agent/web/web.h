/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_WEB_H
#define ABLAB_WEB_H

#include <stddef.h>
#include <stdio.h>

/*
 * `ablab serve`: a read-only HTTP server over the results database (libmicrohttpd, one
 * thread: requests are answered one after the other).  Pages are HTML rendered from the
 * same JSON the commands print; /api/v1/... answers with exactly what `ablab report`,
 * `query`, `campaigns` and `boards` print with --format json (the same functions,
 * writing to a memory stream).  docs/API.md lists the endpoints.
 */

struct web_opts {
	const char *listen; /* "ADDR:PORT" or "[ADDR6]:PORT"; default 127.0.0.1:8080 */
	const char *results; /* the results directory transcripts are served from */
	const char *db; /* conninfo (NULL: ABLAB_DB or the private cluster) */
	/* names a Host header may give besides address literals and localhost; NULL-ended */
	const char *const *host_names;
	unsigned int statement_timeout_s; /* of each query of serve's session (0: 10 s) */
};

/* Serves until SIGINT/SIGTERM: 0, or a negative errno (printed). */
int web_serve(const struct web_opts *o);

/* conninfo with the read-only session setting, the statement timeout (seconds) and the
 * application_name appended, for a key=value conninfo or a postgresql:// URI; malloc'd. */
char *web_conninfo_ro(const char *conninfo, unsigned int timeout_s);

/* Resolves rel (a decoded URL path below /results/) inside root (a realpath): 0 and the
 * resolved file in out, or -ENOENT when it does not exist, is not a regular file or
 * resolves (.., symlinks) outside root. */
int web_confine(const char *root, const char *rel, char *out, size_t len);

/* `ablab boards` writing to out (web-boards.c; the command is cmd-board.c's cmd_boards):
 * every board file and every board the database knows, as text or JSON (the
 * /api/v1/boards answer).  Not reentrant (getopt): reset optind to 0 before each call. */
int cmd_boards_to(FILE *out, int argc, char **argv);

#endif
