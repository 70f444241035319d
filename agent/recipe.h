/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_RECIPE_H
#define ABLAB_RECIPE_H

/* Kernel recipes (recipe.c): how a board's control and patched kernels are built. */

/* The recipe of a board: its build script, the recipe name and directory. */
struct recipe {
	char *script, *name, *kdir, *repo;
	const char *module_src;	/* a "module" job's module, built with the kernel */
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

/* Where build.sh logs the build of a git commit (40 hex digits); caller frees, NULL if
 * there is no cache directory. */
char *recipe_git_log(const struct recipe *rc, const char *commit);

#endif
