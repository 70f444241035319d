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
#include <sys/wait.h>
#include <unistd.h>

/* Test hook (t44 only; unset in use): ABLAB_TEST_HOOK_DEPLOY_OPEN, a shell command run
 * between a source's check and its open with the checked path as $1, so that a test can
 * swap the file in that window, which it cannot time from outside. */
static void test_hook(const char *path)
{
	const char *hook = getenv("ABLAB_TEST_HOOK_DEPLOY_OPEN");
	pid_t pid;
	int st;

	if (!hook || !*hook)
		return;
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", hook, "hook", path, (char *)NULL);
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
}

/*
 * The source a board gets is the file that was checked: src resolved (a symlink inside the
 * kernel directory kdir is followed: kernel_load() allowed it), checked (a regular file,
 * inside kdir when given), then the resolved path opened with O_NOFOLLOW and the device and
 * inode of the open file compared with the check's.  A file swapped in between (another
 * file, a symlink) is refused.  Returns the fd or -errno (err set).
 */
static int open_checked(const char *kdir, const char *src, struct errtext *err)
{
	char rp[PATH_MAX];
	struct stat ck, op;
	size_t n = kdir ? strlen(kdir) : 0;
	int fd;

	if (!realpath(src, rp) || stat(rp, &ck) < 0)
		return errtext_set(err, -errno, "cannot read %s: %s", src, strerror(errno));
	if (kdir && (strncmp(rp, kdir, n) || rp[n] != '/'))
		return errtext_set(
			err, -EPERM,
			"%s resolves to %s, outside the kernel directory %s; refusing to deploy it (copy the file in)",
			src, rp, kdir);
	if (!S_ISREG(ck.st_mode))
		return errtext_set(err, -EINVAL,
				   "%s (%s) is not a regular file; refusing to deploy it", src, rp);
	test_hook(rp);
	fd = open(rp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		return errtext_set(
			err, -ELOOP,
			"%s: %s became a symbolic link after it was checked; refusing to deploy it (is something changing the kernel directory?)",
			src, rp);
	if (fd < 0)
		return errtext_set(err, -errno, "cannot read %s: %s", rp, strerror(errno));
	if (fstat(fd, &op) < 0 || op.st_dev != ck.st_dev || op.st_ino != ck.st_ino ||
	    !S_ISREG(op.st_mode)) {
		close(fd);
		return errtext_set(
			err, -ESTALE,
			"%s: %s changed between its check and its open (another file is there now: device/inode %lu/%lu, checked %lu/%lu); refusing to deploy it (is something changing the kernel directory?)",
			src, rp, (unsigned long)op.st_dev, (unsigned long)op.st_ino,
			(unsigned long)ck.st_dev, (unsigned long)ck.st_ino);
	}
	return fd;
}

/* Copies src (opened by open_checked()) to name in the directory dirfd through a uniquely
 * named temporary file and rename(), so that a board fetching it sees the old or the new
 * file, never half of one.  dir is for messages. */
static int copy_atomic(const char *kdir, const char *src, int dirfd, const char *dir,
		       const char *name, struct errtext *err)
{
	int ret, fd;

	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || strchr(name, '/')) {
		return errtext_set(err, -EINVAL, "refusing artefact name \"%s\"", name);
	}
	fd = open_checked(kdir, src, err);
	if (fd < 0)
		return fd;
	ret = copy_fd_atomic_at(fd, dirfd, name);
	close(fd);
	if (ret == -EISDIR)
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
		ret = copy_atomic(k->dir, src[i], subfd, sub, name, err);
		if (!ret)
			rel[i] = xasprintf("%s/%s", b->name, name);
	}
	close(subfd);
out:
	close(rootfd);
	free(sub);
	return ret;
}
