// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the decoders of what a LAVA server or lava-run sends
 * back (agent/lava/lava-yaml.c): the job log's target lines with their YAML
 * double-quoted escapes, the failure reason, and the console text's
 * ABLAB-UNAME / dmabench lines.  Any bytes: a result or nothing, never a
 * crash, an over-read past the buffer or a leak. */
#include "lava/lava.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy (no NUL after it): as the server's body is read */
	char *raw = malloc(size ? size : 1), *z = malloc(size + 1), *text, *why;
	struct lava_output o;

	if (!raw || !z) {
		free(raw);
		free(z);
		return 0;
	}
	memcpy(raw, data, size);
	memcpy(z, data, size);
	z[size] = '\0';
	text = lava_log_target_text(raw, size);
	lava_output_parse(text, &o);
	lava_output_free(&o);
	free(text);
	why = lava_log_failure(z);	/* callers pass NUL-terminated text */
	free(why);
	free(raw);
	free(z);
	return 0;
}
