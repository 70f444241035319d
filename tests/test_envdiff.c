// SPDX-License-Identifier: GPL-2.0-only
/* envdiff.c: what else changed between boots besides the kernel under test, from their
 * environment fingerprints (docs/DESIGN.md "Environment fingerprint"). */
#include "report/envdiff.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a fingerprint: bootloader version, governor, max kHz, dtb hash, start temperature */
static char *fp(const char *uboot, const char *gov, long max_khz, const char *dtb, long mc)
{
	char *s = malloc(1024);

	snprintf(
		s, 1024,
		"{\"bootloader\": \"U-Boot %s (Jan 10 2023 - 12:00:00 +0000)\", "
		"\"cmdline\": \"console=ttyS0,115200 rdinit=/init panic=-1\", "
		"\"dtb_sha256\": \"%s\", \"rootfs_sha256\": \"aaaa\", \"module_sha256\": \"bbbb\", "
		"\"cpufreq\": [{\"policy\": \"policy0\", \"governor\": \"%s\", \"cur_khz\": %ld, "
		"\"min_khz\": 600000, \"max_khz\": %ld}], "
		"\"thermal_mc_start\": [%ld], \"thermal_mc_end\": [%ld]}",
		uboot, dtb, gov, 600000 + mc, max_khz, mc, mc + 2000);
	return s;
}

static char *run(struct env_boot *b, size_t n, unsigned int flags, struct env_diff *d)
{
	CHECK(env_diff(b, n, flags, ABLAB_TEMP_SPREAD_MC, d) == 0);
	return env_diff_text(d);
}

int main(void)
{
	struct env_boot b[8];
	struct env_diff d;
	char *t, *s[8];
	size_t i;

	/* the acceptance case: U-Boot from boot 3, the governor from boot 5; the DTB differs
	 * between the variants only, cur_khz moves every boot: neither is a change */
	for (i = 0; i < 8; i++) {
		s[i] = fp(i + 1 >= 3 ? "2024.04" : "2023.01",
			  i + 1 >= 5 ? "performance" : "ondemand", 1800000,
			  i % 2 ? "patched-dtb" : "control-dtb", 45000 + 1000 * (long)i);
		b[i] = (struct env_boot){ .seq = (int)i + 1,
					  .variant = i % 2 ? "patched" : "control",
					  .env = s[i] };
	}
	t = run(b, 8, ENV_DIFF_KERNEL, &d);
	CHECK_STR(t, "U-Boot 2023.01 -> 2024.04 from boot 3; "
		     "cpufreq governor ondemand -> performance from boot 5");
	CHECK(d.n == 2 && d.nboots == 8 && d.nskipped == 0);
	CHECK(d.n == 2 && !strcmp(d.v[0].key, "bootloader") && d.v[0].seq == 3 &&
	      !strcmp(d.v[1].key, "cpufreq.policy0.governor") && !strcmp(d.v[1].from, "ondemand") &&
	      !strcmp(d.v[1].to, "performance") && d.v[1].seq == 5 && !d.v[1].variant);
	free(t);
	env_diff_free(&d);

	/* boots without a fingerprint are skipped (older, LAVA, ingested) */
	for (i = 0; i < 8; i++)
		b[i].env = i == 0 || i == 1 ? s[i] : NULL;
	t = run(b, 8, ENV_DIFF_KERNEL, &d);
	CHECK(t == NULL && d.n == 0 && d.nboots == 2 && d.nskipped == 6);
	env_diff_free(&d);
	for (i = 0; i < 8; i++)
		b[i].env = NULL;
	t = run(b, 8, ENV_DIFF_KERNEL, &d);
	CHECK(t == NULL && d.n == 0 && d.nboots == 0);
	env_diff_free(&d);
	for (i = 0; i < 8; i++)
		free(s[i]);

	/* a kernel-dependent key within a variant: the patched DTB from boot 6 */
	for (i = 0; i < 8; i++) {
		s[i] = fp("2023.01", "ondemand", 1800000,
			  i % 2 ? (i + 1 >= 6 ? "patched-dtb-2-0123456789" :
						"patched-dtb-1-0123456789") :
				  "control",
			  45000);
		b[i].env = s[i];
	}
	t = run(b, 8, ENV_DIFF_KERNEL, &d);
	CHECK_STR(
		t,
		"DTB sha256 (patched) patched-dtb-1-0123456789 -> patched-dtb-2-0123456789 from boot 6");
	CHECK(d.n == 1 && d.v[0].variant && !strcmp(d.v[0].variant, "patched"));
	free(t);
	env_diff_free(&d);
	/* ... and not compared at all without ENV_DIFF_KERNEL (the nightly's) */
	t = run(b, 8, 0, &d);
	CHECK(t == NULL);
	env_diff_free(&d);
	for (i = 0; i < 8; i++)
		free(s[i]);

	/* temperatures: a spread of 10 °C is allowed, 10.5 °C flagged with its hottest boot */
	for (i = 0; i < 4; i++) {
		s[i] = fp("2023.01", "ondemand", 1800000, "x", i == 2 ? 55000 : 45000);
		b[i].env = s[i];
	}
	t = run(b, 4, ENV_DIFF_KERNEL, &d);
	CHECK(t == NULL);
	env_diff_free(&d);
	free(s[2]);
	s[2] = fp("2023.01", "ondemand", 1800000, "x", 55500);
	b[2].env = s[2];
	t = run(b, 4, ENV_DIFF_KERNEL, &d);
	/* at benchmark start and at its end (2 °C warmer each) */
	CHECK(d.n == 2 && !strcmp(d.v[1].key, "thermal_mc_end[0]") && !strcmp(d.v[1].to, "57500"));
	CHECK(d.n == 2 && d.v[0].spread && d.v[0].seq == 3 && !strcmp(d.v[0].from, "45000") &&
	      !strcmp(d.v[0].to, "55500") && !strcmp(d.v[0].key, "thermal_mc_start[0]"));
	CHECK(t && strstr(t, "thermal zone 0 at benchmark start 45.0-55.5 \u00b0C across boots") &&
	      strstr(t, "hottest boot 3") && strstr(t, "above 10.0 \u00b0C"));
	free(t);
	env_diff_free(&d);
	CHECK(env_diff(b, 4, 0, -1, &d) == -EINVAL);
	for (i = 0; i < 4; i++)
		free(s[i]);

	/* max frequency and cmdline words; two policies are named; a missing policy */
	{
		const char *e[3] = {
			"{\"cmdline\": \"console=ttyS0 quiet\", \"cpufreq\": [{\"policy\": \"policy0\", \"governor\": \"ondemand\", \"min_khz\": 1, \"max_khz\": 1800000}, {\"policy\": \"policy4\", \"governor\": \"ondemand\", \"min_khz\": 1, \"max_khz\": 2000000}]}",
			"{\"cmdline\": \"console=ttyS0 isolcpus=1 quiet\", \"cpufreq\": [{\"policy\": \"policy0\", \"governor\": \"ondemand\", \"min_khz\": 1, \"max_khz\": 1500000}, {\"policy\": \"policy4\", \"governor\": \"ondemand\", \"min_khz\": 1, \"max_khz\": 2000000}]}",
			"[1, 2]",
		};

		for (i = 0; i < 3; i++)
			b[i] = (struct env_boot){ .seq = (int)i + 1,
						  .variant = "control",
						  .env = e[i] };
		t = run(b, 3, ENV_DIFF_KERNEL, &d);
		CHECK_STR(t, "boot 3: environment not readable (not a JSON object); "
			     "cmdline (nothing) -> isolcpus=1 from boot 2; "
			     "cpufreq policy0 max 1800000 -> 1500000 kHz from boot 2");
		free(t);
		env_diff_free(&d);
		/* the nightly's: no "from boot" */
		t = run(b, 2, ENV_DIFF_NO_SEQ, &d);
		CHECK_STR(
			t,
			"cmdline (nothing) -> isolcpus=1; cpufreq policy0 max 1800000 -> 1500000 kHz");
		free(t);
		env_diff_free(&d);
	}
	/* a pinned governor that stopped being recorded; a bootloader line without a date */
	{
		const char *e[2] = {
			"{\"bootloader\": \"Barebox 2024.01.0\", \"governor_pinned\": \"performance\"}",
			"{\"bootloader\": \"Barebox 2024.05.0\"}",
		};

		for (i = 0; i < 2; i++)
			b[i] = (struct env_boot){ .seq = (int)i + 7,
						  .variant = "patched",
						  .env = e[i] };
		t = run(b, 2, ENV_DIFF_KERNEL, &d);
		CHECK_STR(t, "Barebox 2024.01.0 -> 2024.05.0 from boot 8; "
			     "pinned governor performance -> (none) from boot 8");
		free(t);
		env_diff_free(&d);
	}
	CHECK_DONE("test_envdiff");
}
