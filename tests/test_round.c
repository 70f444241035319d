// SPDX-License-Identifier: GPL-2.0-only
/* store_round1(): the text of PostgreSQL's round(x::numeric, 1) for a float8 x, which
 * `ablab query` now makes in the client.  The cases below are PostgreSQL 15's own answers
 * (psql: SELECT x::text, round(x::numeric, 1)::text); with a file argument of such
 * "x<TAB>answer" lines (t30-db makes 250,000 from its server), every line is compared and
 * the file counts as one check. */
#include "check.h"
#include "store/store-query.h"

#include <stdlib.h>
#include <string.h>

static void test_cases(void)
{
	static const struct {
		const char *x, *pg;
	} c[] = {
		{ "0", "0.0" },
		{ "-0", "0.0" },
		{ "0.04", "0.0" },
		{ "0.05", "0.1" },
		{ "-0.05", "-0.1" },
		{ "-0.04", "0.0" },
		{ "0.15", "0.2" },
		{ "0.25", "0.3" },
		{ "0.35", "0.4" },
		{ "0.45", "0.5" },
		{ "1.25", "1.3" },
		{ "2.5", "2.5" },
		{ "123.45", "123.5" },
		{ "100000000000000", "100000000000000.0" },
		{ "99999999999999.95", "100000000000000.0" },
		{ "1e+15", "1000000000000000.0" },
		{ "1e+16", "10000000000000000.0" },
		{ "999999999999999", "999999999999999.0" },
		{ "123456789012345.6", "123456789012346.0" },
		{ "1e-20", "0.0" },
		{ "0.95", "1.0" },
		{ "9.95", "10.0" },
		{ "99.95", "100.0" },
		{ "999999.95", "1000000.0" },
		{ "5e-324", "0.0" },
		{ "2.2250738585072014e-308", "0.0" },
		{ "0.949999999999999", "0.9" },
		{ "0.0499999999999999", "0.0" },
		{ "NaN", "NaN" },
		{ "Infinity", "Infinity" },
		{ "-Infinity", "-Infinity" },
	};
	char out[400], want[400];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		store_round1(c[i].x, out, sizeof(out));
		CHECK_STR(out, c[i].pg);
	}
	/* DBL_MAX: its 15 digits, then zeros up to 309 digits */
	store_round1("1.7976931348623157e+308", out, sizeof(out));
	memset(want, '0', 309);
	memcpy(want, "179769313486232", 15);
	strcpy(want + 309, ".0");
	CHECK_STR(out, want);
	store_round1("-1e+300", out, sizeof(out));
	want[0] = '-';
	memset(want + 1, '0', 301);
	want[1] = '1';
	strcpy(want + 302, ".0");
	CHECK_STR(out, want);
}

/* each "x<TAB>answer" line of path: one check for the whole file */
static void test_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024], out[400];
	long n = 0, bad = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab++ = '\0';
		tab[strcspn(tab, "\n")] = '\0';
		store_round1(line, out, sizeof(out));
		n++;
		if (strcmp(out, tab) && bad++ < 5)
			fprintf(stderr, "%s: x=%s: got %s, PostgreSQL %s\n", path, line, out, tab);
	}
	fclose(f);
	printf("%s: %ld values, %ld different from PostgreSQL\n", path, n, bad);
	CHECK(n > 0 && bad == 0);
}

int main(int argc, char **argv)
{
	test_cases();
	if (argc > 1)
		test_file(argv[1]);
	CHECK_DONE("test_round");
}
