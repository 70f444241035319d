// SPDX-License-Identifier: GPL-2.0-only
/* The regex benchmark's output parser (bench_regex_parse), the module
 * benchmark's pure parts (format check, batches, modinfo, file names). */
#include "bench/bench.h"
#include "bench/bench-int.h"
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct bench_regex_def lat = {
	.command = "true",
	.regex = "^lat ([a-z]+) ([0-9.e+-]+) (ns|us|ms|s)$",
	.g_scenario = 1,
	.g_value = 2,
	.g_unit = 3,
};

int main(void)
{
	struct bench_regex_def d = lat;
	struct bench_dma_map_def dm = { 0 };
	struct run_result r;
	struct errtext why;
	int ret;

	/* units converted to ns, batch = n-th occurrence of its scenario,
	 * other lines (and CRs) ignored */
	ret = bench_regex_parse(&lat,
				"boot noise\r\nlat small 353 ns\r\nlat big 1.5 us\n"
				"lat small 2 ms\nlat big 0.25 s\nlatency 9 ns\n",
				&r, &why);
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
	CHECK(run_check(&r, &why) == 0);
	run_result_free(&r);

	/* strict: a matching line whose value does not parse fails */
	ret = bench_regex_parse(&lat, "lat small 353 ns\nlat small 1.2.3 ns\n", &r, &why);
	CHECK(ret == -EINVAL);
	CHECK(strstr(why.msg, "\"1.2.3\"") != NULL);
	CHECK(r.malformed == 1);
	CHECK(run_check(&r, &why) == -EINVAL);
	run_result_free(&r);

	/* no match at all: no samples, rejected by run_check */
	ret = bench_regex_parse(&lat, "nothing here\n", &r, &why);
	CHECK(ret == 0 && r.n == 0);
	CHECK(run_check(&r, &why) == -EINVAL);
	CHECK(strstr(why.msg, "no benchmark samples") != NULL);
	run_result_free(&r);

	/* an unknown unit and an unsafe scenario name are errors, not guesses */
	d.regex = "^lat ([^ ]+) ([0-9.]+) ([a-z]+)$";
	ret = bench_regex_parse(&d, "lat small 3 ks\n", &r, &why);
	CHECK(ret == -EINVAL && strstr(why.msg, "unit \"ks\""));
	run_result_free(&r);
	ret = bench_regex_parse(&d, "lat a\\tb 3 ns\n", &r, &why);
	CHECK(ret == -EINVAL && strstr(why.msg, "scenario"));
	run_result_free(&r);

	/* no unit group: values are ns */
	d.regex = "^v=([0-9]+) s=([a-z]+)$";
	d.g_scenario = 2;
	d.g_value = 1;
	d.g_unit = 0;
	ret = bench_regex_parse(&d, "v=7 s=x\n", &r, &why);
	CHECK(ret == 0 && r.n == 1 && r.v[0].mean_ns == 7);
	run_result_free(&r);

	/* definition errors */
	d.regex = "([a-z]+";
	CHECK(bench_regex_check(&d, &why) == -EINVAL);
	CHECK(strstr(why.msg, "invalid POSIX extended regular expression") != NULL);
	d.regex = "([a-z]+) ([0-9]+)";
	d.g_unit = 3;
	CHECK(bench_regex_check(&d, &why) == -EINVAL);
	CHECK(strstr(why.msg, "has 2 group(s)") != NULL);

	/* a value (scenario, unit) that is only the front of its token is
	 * rejected, not stored: mean_ns=123abc is not 123 */
	d.regex = "^([a-z]+) mean_ns=([0-9]+)";
	d.g_scenario = 1;
	d.g_value = 2;
	d.g_unit = 0;
	ret = bench_regex_parse(&d, "small mean_ns=123abc\n", &r, &why);
	CHECK(ret == -EINVAL && r.n == 0);
	CHECK(strstr(why.msg,
		     "value \"123\" in \"small mean_ns=123abc\" is followed by more of its token \"abc\"") !=
	      NULL);
	run_result_free(&r);
	ret = bench_regex_parse(&d, "small mean_ns=1.5\n", &r, &why);
	CHECK(ret == -EINVAL && strstr(why.msg, "followed by more of its token \".5\"") != NULL);
	run_result_free(&r);
	ret = bench_regex_parse(&d, "small mean_ns=123 min_ns=1\nsmall mean_ns=124\n", &r, &why);
	CHECK(ret == 0 && r.n == 2 && r.v[0].mean_ns == 123 && r.v[1].mean_ns == 124);
	run_result_free(&r);
	d.regex = "([a-z]+) ([0-9]+) ns";
	ret = bench_regex_parse(&d, "lat big 5 ns\nlat x-big 5 ns\n", &r, &why);
	CHECK(ret == -EINVAL && strstr(why.msg, "scenario \"big\"") &&
	      strstr(why.msg, "preceded by"));
	run_result_free(&r);
	d.regex = "^lat ([a-z]+) ([0-9]+)(ns|us)";
	d.g_unit = 3;
	ret = bench_regex_parse(&d, "lat small 353ns\n", &r, &why);
	CHECK(ret == 0 && r.n == 1 && r.v[0].mean_ns == 353);
	run_result_free(&r);
	ret = bench_regex_parse(&d, "lat small 353nsx\n", &r, &why);
	CHECK(ret == -EINVAL && strstr(why.msg, "unit \"ns\"") && strstr(why.msg, "\"x\""));
	run_result_free(&r);

	/* the batches that ran: every scenario's count, or -1 when they differ */
	ret = bench_regex_parse(&lat,
				"lat small 1 ns\nlat big 2 ns\nlat small 1 ns\n"
				"lat big 2 ns\nlat small 1 ns\nlat big 2 ns\n",
				&r, &why);
	CHECK(ret == 0 && bench_batches(&r, &why) == 3);
	run_result_free(&r);
	ret = bench_regex_parse(&lat, "lat small 1 ns\nlat big 2 ns\nlat small 1 ns\n", &r, &why);
	CHECK(ret == 0 && bench_batches(&r, &why) == -1);
	CHECK_STR(
		why.msg,
		"scenario small ran 2 batch(es), scenario big 1: every scenario must run the same number");
	run_result_free(&r);

	/* a list runs under set -e, in a subshell (the login shell stays) */
	{
		char *c = bench_regex_command("false; dmesg");

		CHECK_STR(c, "( set -e\nfalse; dmesg\n)");
		free(c);
	}

	/* the format check: seed lines where dmabench v1 lines are expected */
	{
		static const char seed[] =
			"[    1.0] dmabench: START\n"
			"[    1.1] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns=353 min_ns=300 max_ns=900 ns_per_KiB=1412\n"
			"[    1.2] dmabench: DONE\n";
		static const char v1[] =
			"dmabench: v1 start clock_res_ns=1\n"
			"dmabench: v1 result scenario=s batch=1 size=256 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns=5 min_ns=4 max_ns=6 ns_per_KiB=20\n"
			"dmabench: v1 done status=0\n";

		parse_log(seed, sizeof(seed) - 1, &r);
		CHECK(bench_format_check(&r, 0, NULL, &why) == 0);
		CHECK(bench_format_check(&r, 1, "use --parser seed", &why) == -EINVAL);
		CHECK_STR(
			why.msg,
			"expected dmabench v1 lines, saw seed-format lines (1 of 1 samples): use --parser seed");
		CHECK(bench_batches(&r, &why) == 1);
		run_result_free(&r);
		parse_log(v1, sizeof(v1) - 1, &r);
		CHECK(bench_format_check(&r, 1, NULL, &why) == 0);
		CHECK(bench_format_check(&r, 0, NULL, &why) == -EINVAL);
		CHECK_STR(why.msg,
			  "expected seed-format lines, saw dmabench v1 lines (1 of 1 samples)");
		run_result_free(&r);
	}

	/* modinfo: vermagic's release and the name; not a module: -EINVAL */
	{
		char img[128] = "\177ELF", *rel, *name;
		static const char mi[] =
			"license=GPL\0vermagic=6.1.192-ablab-control mod_unload ARMv5 p2v8 \0name=mybench";

		memcpy(img + 40, "\0", 1);
		memcpy(img + 41, mi, sizeof(mi));
		CHECK(bench_modinfo(img, sizeof(img), &rel, &name) == 0);
		CHECK_STR(rel, "6.1.192-ablab-control");
		CHECK_STR(name, "mybench");
		free(rel);
		free(name);
		CHECK(bench_modinfo("#!/bin/sh\n", 10, &rel, &name) == -EINVAL);
		img[1] = 'X';
		CHECK(bench_modinfo(img, sizeof(img), &rel, &name) == -EINVAL);
	}

	/* the module file of a variant: the job's (with {board}), or NAME.ko in
	 * the kernel directory */
	{
		struct bench_def m = { .ops = &bench_module_ops,
				       .module = { .module = "mybench",
						   .ko = { "/srv/{board}/c.ko", NULL } } };
		char *f = bench_module_file(&m, "pi400", "/k/control", 0);

		CHECK_STR(f, "/srv/pi400/c.ko");
		free(f);
		f = bench_module_file(&m, "pi400", "/k/patched", 1);
		CHECK_STR(f, "/k/patched/mybench.ko");
		free(f);
	}

	/* dma_map_benchmark: parameters, and its two result lines */
	CHECK(bench_dma_map_params(NULL, &dm, &why) == 0);
	CHECK(dm.threads == 1 && dm.seconds == 1 && dm.granule == 1 && dm.dir == 0);
	CHECK(bench_dma_map_params("threads=2 seconds=3,granule=16 dir=from", &dm, &why) == 0);
	CHECK(dm.threads == 2 && dm.seconds == 3 && dm.granule == 16 && dm.dir == 2);
	CHECK(bench_dma_map_params("threads=0", &dm, &why) == -EINVAL);
	CHECK_STR(why.msg, "\"threads=0\": threads must be 1..1024");
	CHECK(bench_dma_map_params("dir=sideways", &dm, &why) == -EINVAL);
	CHECK(bench_dma_map_params("reps=100", &dm, &why) == -EINVAL);
	CHECK(strstr(why.msg, "expected threads=N") != NULL);
	CHECK(bench_dma_map_params("seconds=2x", &dm, &why) == -EINVAL);
	bench_dma_map_params("granule=16 dir=to", &dm, &why);
	memset(&r, 0, sizeof(r));
	ret = bench_dma_map_parse(&dm,
				  "dma mapping benchmark: threads:1 seconds:1 node:-1 "
				  "dir:TO_DEVICE granule: 16\n"
				  "average map latency(us):3.4 standard deviation:1.0\n"
				  "average unmap latency(us):2.1 standard deviation:0.5\n",
				  1, &r, &why);
	CHECK(ret == 0 && r.n == 2);
	if (r.n == 2) {
		CHECK_STR(r.v[0].scenario, "map-16");
		CHECK(r.v[0].mean_ns == 3400 && r.v[0].batch == 1);
		CHECK_STR(r.v[0].dir, "to");
		CHECK_STR(r.v[1].scenario, "unmap-16");
		CHECK(r.v[1].mean_ns == 2100);
	}
	ret = bench_dma_map_parse(&dm,
				  "average map latency(us):3.4 standard deviation:1.0\n"
				  "average unmap latency(us):nan standard deviation:0.5\n",
				  2, &r, &why);
	CHECK(ret == -EINVAL && r.malformed == 1);
	CHECK(strstr(why.msg, "average unmap latency(us):") != NULL);
	run_result_free(&r);
	/* the run record: each kind writes its keys and reads them back; an unknown kind or an
	 * incomplete one is an error, not dmabench */
	{
		struct bench_def w = { .ops = &bench_regex_ops,
				       .regex = { .command = "true",
						  .regex = "^([a-z]+) ([0-9]+)$",
						  .g_scenario = 1,
						  .g_value = 2 } };
		struct bench_def rd;
		json_object *run = json_object_new_object();

		bench_record_write(&w, run);
		CHECK_STR(jstr(run, "benchmark"), "regex");
		CHECK(bench_record_read(&rd, run, NULL, &why) == 0);
		CHECK(!strcmp(bench_name(&rd), "regex") && rd.regex.g_scenario == 1 &&
		      rd.regex.g_value == 2 && rd.regex.g_unit == 0);
		CHECK_STR(rd.regex.command, "true");
		bench_def_free(&rd);
		json_object_object_del(run, "groups"); /* the job loader's defaults: 0, 0 */
		CHECK(bench_record_read(&rd, run, NULL, &why) == -EINVAL);
		CHECK_STR(why.msg, "its stored regex benchmark is incomplete or invalid");
		bench_def_free(&rd);
		json_object_object_add(run, "benchmark", json_object_new_string("bogus"));
		CHECK(bench_record_read(&rd, run, NULL, &why) == -EINVAL);
		CHECK(strstr(why.msg, "\"bogus\" is not one this ablab knows") != NULL);
		json_object_object_add(run, "benchmark", json_object_new_string("module"));
		CHECK(bench_record_read(&rd, run, NULL, &why) == -EINVAL);
		CHECK_STR(why.msg, "its stored module benchmark has no module name");
		bench_def_free(&rd);
		json_object_object_del(run, "benchmark"); /* an older record: dmabench */
		CHECK(bench_record_read(&rd, run, NULL, &why) == 0);
		CHECK_STR(bench_name(&rd), "dmabench");
		CHECK(bench_pins_timing(&rd) && bench_lava_ok(&rd) && bench_rows_known(&rd));
		CHECK(!bench_pins_timing(&w) && !bench_lava_ok(&w) && !bench_rows_known(&w));
		json_object_put(run);
	}
	{
		/* the environment fingerprint's output (bench-env.c): lines as printed, a
		 * glob that matched nothing (absent keys), garbage and cut lines skipped */
		struct board bd = { .name = "b", .governor = "performance" };
		json_object *env = NULL, *x;
		char *cmd = bench_env_start_cmd(&bd, true);

		CHECK(strstr(cmd, "echo performance >$p/scaling_governor;") != NULL);
		CHECK(strstr(cmd, "done 2>/dev/null;_e @t $_z;_e @c /proc/cmdline") != NULL);
		free(cmd);
		/* the console showed "Kernel command line: ": not read again */
		cmd = bench_env_start_cmd(&bd, false);
		CHECK(strstr(cmd, "done 2>/dev/null;_e @t $_z") != NULL && !strstr(cmd, "cmdline"));
		free(cmd);
		bench_env_parse(&bd,
				"Linux version 6.1\n@f policy0 1500000 performance 1800000 600000\n"
				"@f policy4 - performance 2000000 500000\n@f p* -\n"
				"@f policy9 1 2 3\n@f policyX 1 g 2 3\n@f policy2 1x g 2 3\n"
				"@t 45000 - -5000\n@c console=ttyS0 root=/dev/mmcblk0p2\n"
				"\x80\x81@c garbage\n",
				&env);
		CHECK(json_object_object_get_ex(env, "cpufreq", &x) &&
		      json_object_array_length(x) == 2);
		CHECK(!strcmp(
			json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN),
			"[{\"policy\":\"policy0\",\"governor\":\"performance\",\"cur_khz\":1500000,\"max_khz\":1800000,\"min_khz\":600000},"
			"{\"policy\":\"policy4\",\"governor\":\"performance\",\"max_khz\":2000000,\"min_khz\":500000}]"));
		CHECK(json_object_object_get_ex(env, "thermal_mc_start", &x) &&
		      !strcmp(json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN),
			      "[45000,null,-5000]"));
		CHECK(json_object_object_get_ex(env, "cmdline", &x) &&
		      !strcmp(json_object_get_string(x), "console=ttyS0 root=/dev/mmcblk0p2"));
		CHECK(json_object_object_get_ex(env, "governor_pinned", &x) &&
		      !strcmp(json_object_get_string(x), "performance"));
		CHECK(!json_object_object_get_ex(env, "thermal_mc_end", NULL));
		/* the end: no zone read, or a line not ours: absent; a later read replaces */
		bench_env_parse(&bd, "@T -\n@T 4x\n", &env);
		CHECK(!json_object_object_get_ex(env, "thermal_mc_end", NULL));
		bench_env_parse(&bd, "[ 1.0] dmabench: v1 done\n@T 46000 - 1\n", &env);
		CHECK(json_object_object_get_ex(env, "thermal_mc_end", &x) &&
		      json_object_array_length(x) == 3);
		json_object_put(env);
		/* a policy that did not take the governor: not pinned */
		env = NULL;
		bench_env_parse(
			&bd, "@f policy0 1 performance 2 1\n@f policy1 1 ondemand 2 1\n@t\n", &env);
		CHECK(!json_object_object_get_ex(env, "governor_pinned", NULL) &&
		      !json_object_object_get_ex(env, "thermal_mc_start", NULL));
		json_object_put(env);
		env = NULL;
		bench_env_parse(&bd, "@f p* -\n@t -\n", &env); /* no cpufreq, no zones */
		CHECK(json_object_object_length(env) == 0);
		json_object_put(env);
	}
	CHECK_DONE("test_bench");
}
