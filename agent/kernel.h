/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_KERNEL_H
#define ABLAB_KERNEL_H

/* A built kernel variant: a directory made by `make kernels`
 * (boards/kernel/build.sh) holding manifest.json and the artefacts. */
struct kernel_art {
	char *dir, *label, *release;
	char *zimage, *dtb, *initrd, *module; /* absolute paths */
	char *zimage_sha256, *config_sha256;
	char *manifest_json; /* the manifest text, stored with the boot */
};

/* Loads DIR/manifest.json; clear one-line errors; -ENOENT / -EINVAL / -EPERM
 * (an artefact linking outside DIR). */
int kernel_load(struct kernel_art *k, const char *dir);
/* The same for board: DIR may also be a TuxMake output directory (metadata.json, no
 * manifest.json), whose kernel for board is derived first (kernel_from_tuxmake). */
int kernel_load_board(struct kernel_art *k, const char *dir, const char *board);
/* kernel-tuxmake.c: a kernel directory of ablab's (*derived, malloc'd, under the cache)
 * from the TuxMake output directory dir for board (NULL: refused): the board's
 * architecture, image and DTB checked, a missing one named.  0 or -errno (said). */
int kernel_from_tuxmake(const char *dir, const char *board, char **derived);
/* The default directory of a board's variant: CACHE/kernels/BOARD/LABEL
 * (NULL without a cache directory; kernel_load(NULL) is then -ENOENT). */
char *kernel_default_dir(const char *board, const char *label);
void kernel_free(struct kernel_art *k);

#endif
