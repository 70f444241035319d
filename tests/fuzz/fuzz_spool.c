// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the spool loader's decoder and checks (spool_read in
 * agent/spool.c), which run on every file of RESULTS/spool before anything
 * is stored.  Any bytes: a boot ready to store or a clear refusal naming
 * the field, never a crash or a leak.  The input goes through a memfd so
 * the real path-based loader runs. */
#include "spool.h"
#include "shared/util.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct errtext why;
	struct spool_boot sb;
	int fd;

	fd = memfd_create("fuzz-spool.json", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (spool_read(&sb, path, &why) == 0 && sb.rec.res->n)
		(void)sb.rec.res->v[sb.rec.res->n - 1].scenario[0];
	spool_boot_free(&sb);
	close(fd);
	return 0;
}
