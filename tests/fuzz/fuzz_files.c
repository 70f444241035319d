// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: board and job definition files.  Any bytes give either
 * a loaded definition or a clear error, never a crash or a leak.  The input
 * goes through a memfd so the real loaders (path -> jfile_load) run. */
#include "board.h"
#include "job.h"
#include "shared/util.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct board b;
	struct job j;
	int fd;

	fd = memfd_create("fuzz.json", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (board_load(&b, path) == 0)
		board_free(&b);
	if (job_load(&j, path) == 0)
		job_free(&j);
	close(fd);
	return 0;
}
