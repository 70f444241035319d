/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RECIPE_H
#define ABLAB_RECIPE_H

/* Kernel recipes (recipe.c): how a board's control and patched kernels are built. */

#include <stdbool.h>

/* The recipe of a board: its build script, the recipe name and directory. */
struct recipe {
	char *script, *name, *kdir, *repo;
	const char *module_src; /* a "module" job's module, built with the kernel */
	/* variant "git": build this commit of this git tree (build.sh's ABLAB_GIT_TREE and
	 * ABLAB_GIT_REF) instead of the recipe's tarball */
	const char *git_tree, *git_ref;
};

/* The recipe named by the board file's kernel.recipe.  0 or -errno (printed). */
int recipe_of_board(const char *board, struct recipe *r);
void recipe_free(struct recipe *r);
/* variant: "control", "patched" or "git" (build.sh's argument; patches only for "patched").
 * Without building: *odir the cached build of the current inputs (NULL if none), *ostate
 * "cached" or "would build (why)".  0 or -errno (printed). */
int recipe_probe(const struct recipe *rc, const char *patches, const char *variant, char **odir,
		 char **ostate);
/* Runs build.sh (progress on stderr): *odir the artefact directory, *ostate "cached" or
 * "built".  0 or -errno (printed). */
int recipe_build(const struct recipe *rc, const char *patches, const char *variant, char **odir,
		 char **ostate);

/* A variant other than control and patched (a series campaign): control + the first
 * npatches of the directory patches (0: all of them), built by build.sh as its patched
 * variant from a directory of links to just those patches under the cache, so it is
 * keyed (and cached) by exactly those patches; build.sh's kernels/BOARD/patched link is
 * left as it was.  build: as recipe_build, else as recipe_probe. */
int recipe_variant(const struct recipe *rc, const char *patches, int npatches, bool build,
		   char **odir, char **ostate);
/* Where build.sh logs the build of a git commit (40 hex digits); caller frees, NULL if
 * there is no cache directory. */
char *recipe_git_log(const struct recipe *rc, const char *commit);

#endif
