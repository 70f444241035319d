/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef ABLAB_ENVDIFF_H
#define ABLAB_ENVDIFF_H

/* What else changed between boots besides the kernel under test (issue 29 item 3): the
 * boots' environment fingerprints (boots.env, docs/DESIGN.md "Environment fingerprint")
 * compared.  Pure: JSON text in, changes out (report-env.c feeds it from the store). */
#include <stdbool.h>
#include <stddef.h>

/* A thermal zone's temperatures across a board's boots (at benchmark start, or at its
 * end) may spread this much (millidegrees C) before the row is flagged. */
#define ABLAB_TEMP_SPREAD_MC 10000

/* One boot: its slot (seq), variant, and boots.env as JSON text (NULL: not recorded:
 * older boots, LAVA, ingested logs; skipped). */
struct env_boot {
	int seq;
	const char *variant;
	const char *env;
};

/* One thing that changed. */
struct env_change {
	char *key; /* "bootloader", "cmdline", "cpufreq policy0 governor", "dtb_sha256", ... */
	char *variant; /* kernel-dependent keys: the variant whose boots differ; else NULL */
	char *from, *to; /* the values (a spread: the lowest and highest, in m°C) */
	int seq; /* the first boot with `to` (a spread: the hottest boot) */
	bool spread; /* a temperature spread beyond the limit */
	char *text; /* one phrase: "U-Boot 2023.01 -> 2024.04 from boot 3" */
};

struct env_diff {
	struct env_change *v;
	size_t n;
	size_t nboots, nskipped; /* boots compared; boots without a fingerprint (skipped) */
};

/* compare the kernel-dependent keys (dtb, rootfs, module sha256) within each variant */
#define ENV_DIFF_KERNEL 0x1
/* phrases without "from boot N" (two boots of two campaigns: the nightly's comparison) */
#define ENV_DIFF_NO_SEQ 0x2

/* Compares n boots in the order given (by seq): every change of a key from one boot to
 * the next that has a fingerprint, and thermal spreads above spread_mc.  A fingerprint
 * that is not a JSON object is itself a change ("boot 4: environment not readable").
 * 0, or -EINVAL when spread_mc < 0; out is zeroed first. */
int env_diff(const struct env_boot *b, size_t n, unsigned int flags, long spread_mc,
	     struct env_diff *out);
/* The phrases, "; " between them (malloc'd), or NULL when nothing changed. */
char *env_diff_text(const struct env_diff *d);
void env_diff_free(struct env_diff *d);

#endif
