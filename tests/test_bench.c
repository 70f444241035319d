// SPDX-License-Identifier: GPL-2.0-only
/* The regex benchmark's output parser (bench_regex_parse). */
#include "../agent/bench.h"
#include "check.h"

#include <errno.h>
#include <stdlib.h>

static const struct bench_def lat = {
	.kind = BENCH_REGEX, .command = "true",
	.regex = "^lat ([a-z]+) ([0-9.e+-]+) (ns|us|ms|s)$",
	.g_scenario = 1, .g_value = 2, .g_unit = 3,
};

int main(void)
{
	struct bench_def d = lat;
	struct run_result r;
	char why[256];
	int ret;

	/* units converted to ns, batch = n-th occurrence of its scenario,
	 * other lines (and CRs) ignored */
	ret = bench_regex_parse(&lat, "boot noise\r\nlat small 353 ns\r\nlat big 1.5 us\n"
				"lat small 2 ms\nlat big 0.25 s\nlatency 9 ns\n", &r, why,
				sizeof(why));
	CHECK(ret == 0);
	CHECK(r.n == 4);
	if (r.n == 4) {
		CHECK_STR(r.v[0].scenario, "small");
		CHECK(r.v[0].batch == 1 && r.v[0].mean_ns == 353);
		CHECK_STR(r.v[1].scenario, "big");
		CHECK(r.v[1].batch == 1 && r.v[1].mean_ns == 1500);
		CHECK(r.v[2].batch == 2 && r.v[2].mean_ns == 2e6);
		CHECK(r.v[3].batch == 2 && r.v[3].mean_ns == 2.5e8);
		CHECK(r.v[0].kind == SAMPLE_RESULT && r.v[0].fmt == 2 && r.v[0].min_ns == -1);
	}
	CHECK(run_check(&r, why, sizeof(why)) == 0);
	run_result_free(&r);

	/* strict: a matching line whose value does not parse fails */
	ret = bench_regex_parse(&lat, "lat small 353 ns\nlat small 1.2.3 ns\n", &r, why,
				sizeof(why));
	CHECK(ret == -EINVAL);
	CHECK(strstr(why, "\"1.2.3\"") != NULL);
	CHECK(r.malformed == 1);
	CHECK(run_check(&r, why, sizeof(why)) == -EINVAL);
	run_result_free(&r);

	/* no match at all: no samples, rejected by run_check */
	ret = bench_regex_parse(&lat, "nothing here\n", &r, why, sizeof(why));
	CHECK(ret == 0 && r.n == 0);
	CHECK(run_check(&r, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "no benchmark samples") != NULL);
	run_result_free(&r);

	/* an unknown unit and an unsafe scenario name are errors, not guesses */
	d.regex = "^lat ([^ ]+) ([0-9.]+) ([a-z]+)$";
	ret = bench_regex_parse(&d, "lat small 3 ks\n", &r, why, sizeof(why));
	CHECK(ret == -EINVAL && strstr(why, "unit \"ks\""));
	run_result_free(&r);
	ret = bench_regex_parse(&d, "lat a\\tb 3 ns\n", &r, why, sizeof(why));
	CHECK(ret == -EINVAL && strstr(why, "scenario"));
	run_result_free(&r);

	/* no unit group: values are ns */
	d.regex = "^v=([0-9]+) s=([a-z]+)$";
	d.g_scenario = 2;
	d.g_value = 1;
	d.g_unit = 0;
	ret = bench_regex_parse(&d, "v=7 s=x\n", &r, why, sizeof(why));
	CHECK(ret == 0 && r.n == 1 && r.v[0].mean_ns == 7);
	run_result_free(&r);

	/* definition errors */
	d.regex = "([a-z]+";
	CHECK(bench_def_check(&d, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "invalid POSIX extended regular expression") != NULL);
	d.regex = "([a-z]+) ([0-9]+)";
	d.g_unit = 3;
	CHECK(bench_def_check(&d, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "has 2 group(s)") != NULL);

	/* dma_map_benchmark: parameters, and its two result lines */
	memset(&d, 0, sizeof(d));
	d.kind = BENCH_DMA_MAP;
	CHECK(bench_dma_map_params(NULL, &d, why, sizeof(why)) == 0);
	CHECK(d.threads == 1 && d.seconds == 1 && d.granule == 1 && d.dir == 0);
	CHECK(bench_dma_map_params("threads=2 seconds=3,granule=16 dir=from", &d, why,
				   sizeof(why)) == 0);
	CHECK(d.threads == 2 && d.seconds == 3 && d.granule == 16 && d.dir == 2);
	CHECK(bench_dma_map_params("threads=0", &d, why, sizeof(why)) == -EINVAL);
	CHECK_STR(why, "\"threads=0\": threads must be 1..1024");
	CHECK(bench_dma_map_params("dir=sideways", &d, why, sizeof(why)) == -EINVAL);
	CHECK(bench_dma_map_params("reps=100", &d, why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "expected threads=N") != NULL);
	CHECK(bench_dma_map_params("seconds=2x", &d, why, sizeof(why)) == -EINVAL);
	bench_dma_map_params("granule=16 dir=to", &d, why, sizeof(why));
	memset(&r, 0, sizeof(r));
	ret = bench_dma_map_parse(&d, "dma mapping benchmark: threads:1 seconds:1 node:-1 "
				  "dir:TO_DEVICE granule: 16\n"
				  "average map latency(us):3.4 standard deviation:1.0\n"
				  "average unmap latency(us):2.1 standard deviation:0.5\n", 1, &r,
				  why, sizeof(why));
	CHECK(ret == 0 && r.n == 2);
	if (r.n == 2) {
		CHECK_STR(r.v[0].scenario, "map-16");
		CHECK(r.v[0].mean_ns == 3400 && r.v[0].batch == 1);
		CHECK_STR(r.v[0].dir, "to");
		CHECK_STR(r.v[1].scenario, "unmap-16");
		CHECK(r.v[1].mean_ns == 2100);
	}
	ret = bench_dma_map_parse(&d, "average map latency(us):3.4 standard deviation:1.0\n"
				  "average unmap latency(us):nan standard deviation:0.5\n", 2, &r,
				  why, sizeof(why));
	CHECK(ret == -EINVAL && r.malformed == 1);
	CHECK(strstr(why, "average unmap latency(us):") != NULL);
	run_result_free(&r);
	CHECK_DONE("test_bench");
}
