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
/* The default directory of a board's variant: CACHE/kernels/BOARD/LABEL
 * (NULL without a cache directory; kernel_load(NULL) is then -ENOENT). */
char *kernel_default_dir(const char *board, const char *label);
void kernel_free(struct kernel_art *k);

#endif
