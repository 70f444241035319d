// SPDX-License-Identifier: GPL-2.0-only
/* LAVA logs (lava-yaml.c) as LAVA records them: the console text ablab takes
 * from a real job log, and the benchmark output parsed from it. */
#include "check.h"
#include "lava/lava-api.h"
#include "lava/lava.h"
#include "bench/parse.h"
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A real log (lava-dispatcher 2023.01, lava-server on 127.0.0.1, t70 on a
 * loaded host, job 2 of the --server campaign): the monitor's end pattern
 * "dmabench: v1 done" matched the done line before its newline had been
 * read, the monitor stopped, and finalize's read-feedback logged the line
 * as "feedback".  Taken as "target" lines only, the output had no done
 * line: "benchmark output rejected: no dmabench done line". */
#define FEEDBACK_LOG "tests/fixtures/lava-done-line-feedback.yaml"

static void test_done_line_in_feedback(void)
{
	struct errtext why = { 0 };
	struct lava_output o;
	char *raw = NULL, *text;
	size_t len = 0;

	CHECK(read_file(FEEDBACK_LOG, &raw, &len) == 0);
	if (!raw)
		return;
	/* the fixture is what it says: the done line is a feedback record */
	CHECK(strstr(raw,
		     "\"lvl\": \"feedback\", \"msg\": \"dmabench: v1 done status=0 results=10\""));
	CHECK(!strstr(raw, "\"lvl\": \"target\", \"msg\": \"dmabench: v1 done"));
	text = lava_log_target_text(raw, len);
	CHECK(strstr(text, "\ndmabench: v1 done status=0 results=10\n"));
	/* the console lines in the log's order: the done line after the last result */
	CHECK(strstr(text, "dmabench: v1 preserve scenario=preserve-409600B batch=2 size=409600 "
			   "lost=0\ndmabench: v1 done status=0 results=10\n"));
	lava_output_parse(text, &o);
	CHECK(o.res.have_start && o.res.have_done && o.res.done_status == 0);
	CHECK(o.res.n == 10 && o.res.malformed == 0);
	CHECK(run_check(&o.res, &why) == 0);
	CHECK_STR(why.msg, "");
	CHECK_STR(o.uname_r, "6.1.192-ablab-patched");
	CHECK(o.proc_version &&
	      !strncmp(o.proc_version, "Linux version 6.1.192-ablab-patched", 35));
	lava_output_free(&o);
	free(text);
	free(raw);
}

/* Only console records are console text: not the dispatcher's own lines
 * (info, debug, input, results), though they quote the console. */
static void test_console_records_only(void)
{
	static const char log[] =
		"- {\"dt\": \"1\", \"lvl\": \"info\", \"msg\": \"Sending 'dmabench: v1 done status=0'\"}\n"
		"- {\"dt\": \"2\", \"lvl\": \"input\", \"msg\": \"dmabench: v1 done status=0\\n\"}\n"
		"- {\"dt\": \"3\", \"lvl\": \"target\", \"msg\": \"lab# one\"}\n"
		"- {\"dt\": \"4\", \"lvl\": \"debug\", \"msg\": \"dmabench: v1 done status=0\"}\n"
		"- {\"dt\": \"5\", \"lvl\": \"feedback\", \"msg\": \"two \\\"q\\\"\", \"ns\": \"common\"}\n"
		"- {\"dt\": \"6\", \"lvl\": \"feedback\"}\n"
		"- {\"dt\": \"7\", \"lvl\": \"feedback\", \"msg\": \"three\"}";
	char *text = lava_log_target_text(log, strlen(log));

	CHECK_STR(text, "lab# one\ntwo \"q\"\nthree\n");
	free(text);
}

/* The http:// exemption is for a loopback address parsed, not a prefix of the text
 * (issue 27, Low: http://127.attacker.example passed and got the token in clear). */
static void test_loopback_http(void)
{
	CHECK(lava_server_url_ok("http://127.0.0.1:8000", false) == 0);
	CHECK(lava_server_url_ok("http://127.1.2.3/", false) == 0);
	CHECK(lava_server_url_ok("http://[::1]:8000", false) == 0);
	CHECK(lava_server_url_ok("http://localhost:8000", false) == 0);
	CHECK(lava_server_url_ok("https://lava.example.org", false) == 0);
	CHECK(lava_server_url_ok("http://127.attacker.example", false) == -EINVAL);
	CHECK(lava_server_url_ok("http://127.0.0.1.attacker.example:8000", false) == -EINVAL);
	CHECK(lava_server_url_ok("http://128.0.0.1", false) == -EINVAL);
	CHECK(lava_server_url_ok("http://[::2]", false) == -EINVAL);
	CHECK(lava_server_url_ok("http://127.attacker.example", true) == 0);
}

int main(void)
{
	test_loopback_http();
	test_done_line_in_feedback();
	test_console_records_only();
	CHECK_DONE("test_lava");
}
