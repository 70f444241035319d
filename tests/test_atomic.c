// SPDX-License-Identifier: GPL-2.0-only
/* copy_file_atomic_at (shared/files.c), what the TFTP deployment copies kernels with:
 * the copy is byte for byte, on one filesystem (copy_file_range) and across
 * two (tmpfs -> the temp dir: the buffered path when the kernel refuses), it
 * replaces a symlink at the target name without writing through it, a missing
 * source leaves nothing behind, and memory stays flat in the file's size (the
 * old copy read the whole kernel into memory: 64 MiB raised VmHWM by 64 MiB). */
#include "check.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BIG (64u << 20)

static long vm_hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* a file of n bytes whose every 4 KiB block carries its own number */
static void make_file(const char *path, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char blk[4096];
	size_t off;
	int ok = fd >= 0;

	for (off = 0; ok && off < n; off += sizeof(blk)) {
		size_t len = n - off < sizeof(blk) ? n - off : sizeof(blk);

		memset(blk, (int)(off >> 12) & 0xff, sizeof(blk));
		snprintf(blk, sizeof(blk), "block %zu", off >> 12);
		ok = write(fd, blk, len) == (ssize_t)len;
	}
	CHECK(ok);
	if (fd >= 0)
		close(fd);
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	char x[65536], y[65536];
	size_t na, nb;
	int same = fa && fb;

	while (same) {
		na = fread(x, 1, sizeof(x), fa);
		nb = fread(y, 1, sizeof(y), fb);
		if (na != nb || memcmp(x, y, na))
			same = 0;
		if (!na)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/* entries of dir other than . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	if (d)
		closedir(d);
	return n;
}

int main(void)
{
	char tmpl[] = "/tmp/ablab-test-atomic.XXXXXX", shm[] = "/dev/shm/ablab-test-atomic.XXXXXX";
	char *dir = mkdtemp(tmpl), *sdir = mkdtemp(shm);
	char src[128], ssrc[128], out[128], dst[128], victim[128], nope[128], big[128], rm[160];
	int dfd;
	long before, after;

	CHECK(dir && sdir);
	if (!dir || !sdir)
		CHECK_DONE("test_atomic");
	snprintf(src, sizeof(src), "%s/zImage", dir);
	snprintf(ssrc, sizeof(ssrc), "%s/zImage", sdir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(dst, sizeof(dst), "%s/out/zImage", dir);
	snprintf(big, sizeof(big), "%s/out/big", dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(nope, sizeof(nope), "%s/nope", dir);
	CHECK(mkdir(out, 0755) == 0);
	dfd = open(out, O_RDONLY | O_DIRECTORY);
	CHECK(dfd >= 0);

	/* the same filesystem, an odd size */
	make_file(src, 3 * 1048576 + 17);
	CHECK(copy_file_atomic_at(src, dfd, "zImage") == 0);
	CHECK(same_file(src, dst));
	CHECK(entries(out) == 1);

	/* a symlink at the name is replaced; what it pointed to is untouched */
	make_file(victim, 10);
	unlink(dst);
	CHECK(symlink(victim, dst) == 0);
	CHECK(copy_file_atomic_at(src, dfd, "zImage") == 0);
	CHECK(same_file(src, dst));
	{
		struct stat st;

		CHECK(lstat(dst, &st) == 0 && S_ISREG(st.st_mode));
		CHECK(stat(victim, &st) == 0 && st.st_size == 10);
	}

	/* a missing source: -ENOENT, no temporary file left, the old file kept */
	CHECK(copy_file_atomic_at(nope, dfd, "zImage") == -ENOENT);
	CHECK(same_file(src, dst));
	CHECK(entries(out) == 1);

	/* from tmpfs, 64 MiB: byte for byte, and VmHWM grows by far less than
	 * the file (the buffer is 64 KiB; 8 MiB leaves room for the sanitizers) */
	make_file(ssrc, BIG);
	before = vm_hwm_kb();
	CHECK(copy_file_atomic_at(ssrc, dfd, "big") == 0);
	after = vm_hwm_kb();
	CHECK(before > 0 && after - before < 8192);
	if (after - before >= 8192)
		fprintf(stderr, "VmHWM grew by %ld kB copying %u MiB\n", after - before, BIG >> 20);
	CHECK(same_file(ssrc, big));

	close(dfd);
	unlink(ssrc);
	rmdir(sdir);
	/* remove_tree: a tree with a symlink to a directory outside it goes, the
	 * directory the link names stays with its file; a missing path is 0 */
	{
		char t[600], p[700], ext[600];

		snprintf(t, sizeof(t), "%s/tree", dir);
		snprintf(ext, sizeof(ext), "%s/outside", dir);
		snprintf(p, sizeof(p), "%s/a/b", t);
		CHECK(mkdir_p(p, 0755) == 0 && mkdir_p(ext, 0755) == 0);
		snprintf(p, sizeof(p), "%s/a/b/f", t);
		make_file(p, 10);
		snprintf(p, sizeof(p), "%s/keep", ext);
		make_file(p, 10);
		snprintf(p, sizeof(p), "%s/a/link", t);
		CHECK(symlink(ext, p) == 0);
		CHECK(remove_tree(t) == 0);
		CHECK(access(t, F_OK) < 0 && errno == ENOENT);
		snprintf(p, sizeof(p), "%s/keep", ext);
		CHECK(access(p, F_OK) == 0);
		CHECK(remove_tree(t) == 0);
	}
	snprintf(rm, sizeof(rm), "rm -rf %s", dir);
	CHECK(system(rm) == 0);
	CHECK_DONE("test_atomic");
}
