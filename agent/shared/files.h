/* SPDX-License-Identifier: GPL-2.0-only */
/* Files and directories: read, atomic write, safe directory walks, the XDG directories (shared/files.c) */
#ifndef ABLAB_SHARED_FILES_H
#define ABLAB_SHARED_FILES_H

#include "shared/errtext.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

int read_file(const char *path, char **data, size_t *len);
/* An API token from a file (its first word), for --token-file: 0, or a negative errno
 * with the error printed (unreadable, empty); the caller checks the file's mode first */
int read_token_file(const char *file, char **token);
/* Atomic replace: a temporary file with a unique name created O_EXCL|O_NOFOLLOW
 * next to the target, fsync, rename, fsync of the directory.  A symlink at the
 * target name is replaced, never followed. */
int write_file_atomic(const char *path, const void *data, size_t len);
/* the same, the file created with mode (as the umask leaves it) instead of 0644 */
int write_file_atomic_mode(const char *path, const void *data, size_t len, mode_t mode);
int write_file_atomic_at(int dirfd, const char *name, const void *data, size_t len);
/* The same with the contents of the file src, streamed (memory flat in its size). */
int copy_file_atomic_at(const char *src, int dirfd, const char *name);
/* The same from the open file srcfd (read from its start), atomic for readers but not
 * durable: no fsync (a kernel deployed for the next boot, deployed again after a crash;
 * the six fsyncs of a TFTP deploy were 15-45 ms of every boot). */
int copy_fd_atomic_at(int srcfd, int dirfd, const char *name);
/* Opens directory PATH walking it one component at a time with O_NOFOLLOW:
 * returns an fd (O_CLOEXEC) or -errno; -ELOOP with *link = the prefix of PATH
 * that is a symlink (caller frees). */
int open_dir_nofollow(const char *path, char **link);
int mkdir_p(const char *path, mode_t mode);
/* rm -rf PATH in this process (symlinks removed, never followed): 0 or the
 * first -errno; a missing PATH is 0. */
int remove_tree(const char *path);
/* A new private directory PREFIX.XXXXXX (mkdtemp) in $TMPDIR when that is an
 * absolute path, else in /tmp: malloc'd, or NULL with errno set and the
 * error said. */
char *make_run_dir(const char *prefix);
/* 0 when dir's file system has floor_mb MiB free for this user, else -ENOSPC (or
 * statvfs's error) with why naming dir, what is free and the floor */
int dir_free_check(const char *dir, uint64_t floor_mb, struct errtext *why);
bool is_dir(const char *path);
/* hex = the sha256 of the regular file path (64 hex digits, read in chunks); -errno, or
 * -EINVAL for what is not a regular file */
int file_sha256(const char *path, char hex[65]);
bool is_file(const char *path);
/* The directory part of path (dirname(3) on a copy), malloc'd. */
char *xdirname(const char *path);

/* Directories: ABLAB_CACHE / XDG_CACHE_HOME/ablab, ABLAB_DATA / XDG_DATA_HOME/ablab
 * (root: /var/lib/ablab, so that the postgres user can reach it).  NULL, with
 * a message saying what to set, when HOME is not set either. */
char *cache_dir(void);
char *data_dir(void);

#endif
