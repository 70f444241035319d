// SPDX-License-Identifier: GPL-2.0-only
/* TFTP deployment for boot method uboot: the artefacts copied into
 * TFTP_ROOT/BOARD/ atomically (boot.h: tftp_deploy). */
#include "backend/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Copies src to name in the directory dirfd through a uniquely named
 * temporary file and rename(), so that a board fetching it sees the old or
 * the new file, never half of one.  dir is for messages. */
static int copy_atomic(const char *src, int dirfd, const char *dir, const char *name,
		       struct errtext *err)
{
	int ret;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/')) {
		return errtext_set(err, -EINVAL, "refusing artefact name \"%s\"", name);
	}
	ret = copy_file_atomic_at(src, dirfd, name);
	if (ret == -ENOENT || ret == -EACCES || ret == -EISDIR)
		errtext_set(err, 0, "cannot read %s: %s", src, strerror(-ret));
	else if (ret)
		errtext_set(err, 0, "cannot write %s/%s: %s", dir, name, strerror(-ret));
	return ret;
}

/* Every write below goes through directory fds opened without following a
 * symlink, so nothing planted in the TFTP root (or on the way to it) can
 * redirect a write elsewhere. */
int tftp_deploy(const struct board *b, const char *root, const struct kernel_art *k, char *rel[3],
		struct errtext *err)
{
	const char *src[3] = { k->zimage, k->initrd, k->dtb };
	int rootfd, subfd, ret = 0;
	char *link, *sub;
	size_t i;

	rel[0] = rel[1] = rel[2] = NULL;
	rootfd = open_dir_nofollow(root, &link);
	if (rootfd == -ELOOP && link) {
		ret = errtext_set(
			err, -ELOOP,
			"%s: boot.tftp_root %s: %s is a symbolic link; set boot.tftp_root to the real directory (`realpath %s`)",
			b->name, root, link, root);
		free(link);
		return ret;
	}
	if (rootfd < 0) {
		return errtext_set(err, rootfd, "%s: boot.tftp_root %s: %s", b->name, root,
				   rootfd == -ENOTDIR ? "not a directory" : strerror(-rootfd));
	}
	if (faccessat(rootfd, ".", W_OK, 0) < 0) {
		ret = errtext_set(
			err, -EACCES,
			"%s: boot.tftp_root %s: not writable (%s); give this user write access or choose another directory",
			b->name, root, strerror(errno));
		close(rootfd);
		return ret;
	}
	sub = xasprintf("%s/%s", root, b->name); /* name has no '/' (board_load) */
	if (mkdirat(rootfd, b->name, 0755) == 0) {
		fsync(rootfd);
	} else if (errno != EEXIST) {
		ret = -errno;
		errtext_set(err, 0, "%s: boot.tftp_root: cannot create %s: %s", b->name, sub,
			    strerror(-ret));
		goto out;
	}
	/* the board's directory itself, not where a symlink there points */
	subfd = openat(rootfd, b->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (subfd < 0) {
		struct stat st;

		ret = -errno;
		if (fstatat(rootfd, b->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
			errtext_set(
				err, 0,
				"%s: boot.tftp_root: %s is a symbolic link; refusing to write through it (remove it: ablab creates the directory)",
				b->name, sub);
		else
			errtext_set(err, 0, "%s: boot.tftp_root: cannot open %s: %s", b->name, sub,
				    strerror(-ret));
		goto out;
	}
	{ /* another user's directory: they could swap what the board boots under us */
		struct stat st;

		if (fstat(subfd, &st) == 0 && st.st_uid != geteuid()) {
			ret = errtext_set(
				err, -EPERM,
				"%s: boot.tftp_root: %s belongs to uid %u, not to this user (uid %u): it could change the files the board boots; remove it or give it to this user",
				b->name, sub, (unsigned int)st.st_uid, (unsigned int)geteuid());
			close(subfd);
			goto out;
		}
	}
	for (i = 0; i < 3 && !ret; i++) {
		const char *name;

		if (!src[i])
			continue; /* no .dtb */
		name = strrchr(src[i], '/') ? strrchr(src[i], '/') + 1 : src[i];
		ret = copy_atomic(src[i], subfd, sub, name, err);
		if (!ret)
			rel[i] = xasprintf("%s/%s", b->name, name);
	}
	close(subfd);
out:
	close(rootfd);
	free(sub);
	return ret;
}
