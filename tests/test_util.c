// SPDX-License-Identifier: GPL-2.0-only
/* Small helpers of shared/text.c: csv_cell (a spreadsheet formula stays text; numbers and
 * series labels as they are) and lab_name_ok (the one rule for board and job names). */
#include "check.h"
#include "shared/util.h"

#include <stdlib.h>

static char *cell(const char *s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	csv_cell(f, s);
	fclose(f);
	return out;
}

#define CELL(in, want)               \
	do {                         \
		char *c_ = cell(in); \
		CHECK_STR(c_, want); \
		free(c_);            \
	} while (0)

static void test_csv_cell(void)
{
	CELL("plain", "plain");
	CELL("a,b", "\"a,b\"");
	CELL("say \"x\"", "\"say \"\"x\"\"\"");
	CELL("-35", "-35");
	CELL("+1-2", "+1-2");
	CELL("6.1.0-rc1", "6.1.0-rc1");
	CELL("", "");
	/* issue 27, Low: a release "=HYPERLINK(...)" became a formula in CSV output */
	CELL("=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	CELL("@SUM(A1)", "\"'@SUM(A1)\"");
	CELL("+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\"");
	CELL("-2+3+cmd|x", "\"'-2+3+cmd|x\"");
	CELL("\t=1", "\"'\t=1\"");
}

static void test_lab_name(void)
{
	static const char nul[] = "sam\0x";
	char longname[65];

	CHECK(lab_name_ok("qemu-sam9x75", 12));
	CHECK(lab_name_ok("a+b.c_d-e", 9));
	CHECK(!lab_name_ok("", 0));
	CHECK(!lab_name_ok("-rf", 3));
	CHECK(!lab_name_ok(".hidden", 7));
	CHECK(!lab_name_ok("a/b", 3));
	CHECK(!lab_name_ok("a b", 3));
	CHECK(!lab_name_ok(nul, sizeof(nul) - 1));
	memset(longname, 'a', 64);
	longname[64] = '\0';
	CHECK(!lab_name_ok(longname, 64));
	CHECK(lab_name_ok(longname + 1, 63));
}

int main(void)
{
	test_csv_cell();
	test_lab_name();
	CHECK_DONE("test_util");
}
