// SPDX-License-Identifier: GPL-2.0-only
/* Kernel variants built by `make kernels`: manifest and artefact paths. */
#include "kernel.h"
#include "shared/jsonfile.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *find_dtb(const char *dir)
{
	struct dirent *de;
	char *found = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l > 4 && !strcmp(de->d_name + l - 4, ".dtb")) {
			free(found);
			found = xasprintf("%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	return found;
}

/* files.NAME may be "sha" or {"sha256": "sha"} */
static char *file_sha(json_object *files, const char *name)
{
	json_object *v = jobj(files, name);

	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return xstrdup(json_object_get_string(v));
	return xstrdup(jstr(v, "sha256"));
}

/* An artefact that is a symlink must resolve inside its kernel directory
 * (real: already resolved), so that what is deployed is what was built. */
static int check_inside(const char *real, const char *path)
{
	char target[PATH_MAX];
	size_t n = strlen(real);
	struct stat st;

	if (!path || lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0; /* missing: reported by the caller */
	if (!realpath(path, target))
		return 0; /* dangling: not a file, reported by the caller */
	if (!strncmp(target, real, n) && target[n] == '/')
		return 0;
	err_msg("kernel directory %s: %s is a symbolic link to %s, outside the kernel directory; refusing it (copy the file in: cp --remove-destination %s %s)",
		real, path, target, target, path);
	return -EPERM;
}

int kernel_load(struct kernel_art *k, const char *dir)
{
	char real[PATH_MAX];
	struct jfile jf;
	char *mpath;
	int ret;

	memset(k, 0, sizeof(*k));
	if (!dir)
		return -ENOENT; /* no default directory: cache_dir() said why */
	if (!realpath(dir, real)) {
		err_msg("kernel directory %s: %s (the directory that holds manifest.json: --control/--patched DIR for ab, --kernel DIR for check and calibrate, or a job's variant source; a board's default build comes from `make kernels`)",
			dir, strerror(errno));
		return -ENOENT;
	}
	mpath = xasprintf("%s/manifest.json", real);
	if (!is_file(mpath)) {
		err_msg("kernel directory %s has no manifest.json: not a complete build (run `make kernels`; a TuxMake output directory has metadata.json)",
			real);
		free(mpath);
		return -ENOENT;
	}
	ret = jfile_load(&jf, mpath);
	free(mpath);
	if (ret) {
		jfile_free(&jf);
		return ret;
	}
	k->dir = xstrdup(real);
	k->label = xstrdup(jstr(jf.root, "variant") ? jstr(jf.root, "variant") :
						      jstr(jf.root, "label"));
	k->release = xstrdup(jstr(jf.root, "release"));
	k->config_sha256 = xstrdup(jstr(jf.root, "config_sha256"));
	k->zimage_sha256 = file_sha(jobj(jf.root, "files"), "zImage");
	k->manifest_json = xstrdup(json_object_to_json_string_ext(jf.root, JSON_C_TO_STRING_PLAIN));
	jfile_free(&jf);

	k->zimage = xasprintf("%s/zImage", real);
	k->initrd = xasprintf("%s/initramfs.cpio.gz", real);
	k->module = xasprintf("%s/dmabench.ko", real);
	k->dtb = find_dtb(real);
	if (!k->label || !k->release) {
		err_msg("%s/manifest.json: missing \"variant\" or \"release\"", real);
		return -EINVAL;
	}
	if (check_inside(real, k->zimage) || check_inside(real, k->initrd) ||
	    check_inside(real, k->dtb) || check_inside(real, k->module))
		return -EPERM;
	if (k->dtb && !shell_word_ok(strrchr(k->dtb, '/') + 1)) {
		/* {dtb} goes into U-Boot commands (tftpboot ... {dtb}) as it is */
		err_msg("%s: device tree file name: only letters, digits, . _ + - (not starting with - or .): it goes into U-Boot commands; rename it",
			k->dtb);
		return -EINVAL;
	}
	/* no .dtb: the machine or its boot loader provides the DT (QEMU virt) */
	if (!is_file(k->zimage) || !is_file(k->initrd)) {
		err_msg("kernel directory %s is incomplete: needs zImage and initramfs.cpio.gz (rebuild with `make kernels`)",
			real);
		return -ENOENT;
	}
	return 0;
}

int kernel_load_board(struct kernel_art *k, const char *dir, const char *board)
{
	char *m = dir ? xasprintf("%s/manifest.json", dir) : NULL, *t = NULL, *derived = NULL;
	int ret;

	if (m && !is_file(m)) {
		t = xasprintf("%s/metadata.json", dir);
		if (is_file(t)) { /* a TuxMake output directory */
			memset(k, 0, sizeof(*k));
			ret = kernel_from_tuxmake(dir, board, &derived);
			if (!ret)
				ret = kernel_load(k, derived);
			free(derived);
			free(t);
			free(m);
			return ret;
		}
	}
	free(t);
	free(m);
	return kernel_load(k, dir);
}

void kernel_free(struct kernel_art *k)
{
	free(k->dir);
	free(k->label);
	free(k->release);
	free(k->zimage);
	free(k->dtb);
	free(k->initrd);
	free(k->module);
	free(k->zimage_sha256);
	free(k->config_sha256);
	free(k->manifest_json);
	memset(k, 0, sizeof(*k));
}
