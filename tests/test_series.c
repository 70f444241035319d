// SPDX-License-Identifier: GPL-2.0-only
/* job_load of a job whose patched variant is a series in a mailbox (b4), and the series
 * record job_json() stores with the campaign.  Run by tests/t94-b4.sh with the mailbox
 * it built (argv[1]) and ABLAB_CACHE set; without an argument there is nothing to test. */
#include "job.h"
#include "shared/util.h"
#include "check.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char dir[] = "/tmp/test_series.XXXXXX", *path, *text, *js;
	json_object *o, *s, *p;
	struct job j;

	if (argc < 2)
		CHECK_DONE("test_series");
	if (!mkdtemp(dir))
		return 1;
	path = xasprintf("%s/series.json", dir);
	text = xasprintf(
		"{ \"boards\": [\"qemu-sam9x75\"],\n"
		"  \"variants\": { \"control\": { \"source\": { \"type\": \"recipe\" } },\n"
		"    \"patched\": { \"source\": { \"type\": \"recipe\" },\n"
		"      \"patches\": { \"mbox\": \"%s\" } } },\n"
		"  \"benchmark\": { \"name\": \"dmabench\" } }\n",
		argv[1]);
	CHECK(write_file_atomic(path, text, strlen(text)) == 0);
	CHECK(job_load(&j, path) == 0);
	CHECK(j.v[1].patches && j.v[1].series.dir && !strcmp(j.v[1].patches, j.v[1].series.dir));
	CHECK(j.v[1].series.n == 2);
	js = job_json(&j);
	o = json_tokener_parse(js);
	s = json_object_object_get(o, "series");
	CHECK(s != NULL);
	CHECK_STR(json_object_get_string(json_object_object_get(s, "msgid")),
		  "20260910083600.1-1-ablab@localhost");
	CHECK(json_object_get_int(json_object_object_get(s, "version")) == 1);
	CHECK_STR(json_object_get_string(json_object_object_get(s, "subject")),
		  "[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents");
	p = json_object_object_get(s, "patches");
	CHECK(p && json_object_array_length(p) == 2);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(p, 1)),
		  "[PATCH 2/2] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends");
	CHECK_STR(json_object_get_string(json_object_object_get(s, "mbox")), argv[1]);
	p = json_object_object_get(s, "msgids"); /* each patch's own, for patchwork */
	CHECK(p && json_object_array_length(p) == 2);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(p, 0)),
		  "20260910083600.1-1-ablab@localhost");
	CHECK_STR(json_object_get_string(json_object_array_get_idx(p, 1)),
		  "20260910083600.1-2-ablab@localhost");
	json_object_put(o);
	free(js);
	job_free(&j);
	unlink(path);
	rmdir(dir);
	free(path);
	free(text);
	CHECK_DONE("test_series");
}
