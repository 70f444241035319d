// SPDX-License-Identifier: GPL-2.0-only
/* The template expander (expand_template, shared/text.c): boot.deploy, power commands and
 * regex benchmark commands use it.  {key} replaced by its value, an unknown key
 * -ENOENT naming it, a known key without a value -ENODATA naming it, text without
 * a closing brace kept as it is. */
#include "check.h"
#include "shared/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const keys[] = { "kernel", "dtb", "board", "empty", "none" };
static const char *const vals[] = { "/k/zImage", "/k/x.dtb", "pi", "", NULL };

/* the expansion, or "ERR <errno> <bad>" */
static char *expand(const char *tmpl)
{
	char *out = NULL, *bad = NULL, *r;
	int ret = expand_template(tmpl, keys, vals, 5, &out, &bad);

	if (ret) {
		r = xasprintf("ERR %d %s", -ret, bad ? bad : "(null)");
		CHECK(!out || !*out || true);
		free(bad);
		return r;
	}
	CHECK(bad == NULL);
	return out;
}

static void check_expand(const char *tmpl, const char *want)
{
	char *got = expand(tmpl);

	CHECK_STR(got, want);
	free(got);
}

int main(void)
{
	char buf[64];

	check_expand("", "");
	check_expand("no placeholders", "no placeholders");
	check_expand("{kernel}", "/k/zImage");
	check_expand("cp {kernel} {dtb} /boot/{board}/", "cp /k/zImage /k/x.dtb /boot/pi/");
	check_expand("{board}{board}", "pipi");
	check_expand("a{empty}b", "ab");
	check_expand("unclosed {kernel", "unclosed {kernel");
	check_expand("x } y {board}", "x } y pi");
	snprintf(buf, sizeof(buf), "ERR %d initrd", ENOENT);
	check_expand("load {initrd}", buf);
	snprintf(buf, sizeof(buf), "ERR %d none", ENODATA);
	check_expand("{kernel} {none}", buf);
	snprintf(buf, sizeof(buf), "ERR %d ", ENOENT);
	check_expand("{}", buf);
	/* a key that is a prefix of another is not matched by it */
	snprintf(buf, sizeof(buf), "ERR %d kern", ENOENT);
	check_expand("{kern}", buf);
	/* boot.commands: U-Boot's own ${var} is not ours (boot.c had its own expander) */
	{
		char *out = NULL, *bad = NULL;

		CHECK(expand_template_flags("setenv bootargs ${args} {board}; ${x", keys, vals, 5,
					    TMPL_KEEP_DOLLAR, &out, &bad) == 0);
		CHECK_STR(out, "setenv bootargs ${args} pi; ${x");
		free(out);
		CHECK(expand_template_flags("${kernel}{kernel}", keys, vals, 5, TMPL_KEEP_DOLLAR,
					    &out, &bad) == 0);
		CHECK_STR(out, "${kernel}/k/zImage");
		free(out);
		snprintf(buf, sizeof(buf), "ERR %d args", ENOENT);
		check_expand("${args}", buf);
	}
	/* util's error carrier: set returns ret; a prefix keeps the message, cut at the size */
	{
		struct errtext e = { "" };
		char big[2 * ERRTEXT_LEN];

		CHECK(!errtext_isset(&e));
		CHECK(errtext_set(&e, -EINVAL, "%s: console.baud %ld: not a rate", "pi", 12L) ==
		      -EINVAL);
		CHECK_STR(e.msg, "pi: console.baud 12: not a rate");
		errtext_prefix(&e, "boot %d", 3);
		CHECK_STR(e.msg, "boot 3: pi: console.baud 12: not a rate");
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		errtext_set(&e, 0, "%s", big);
		CHECK(strlen(e.msg) == ERRTEXT_LEN - 1);
		errtext_prefix(&e, "p");
		CHECK(strlen(e.msg) == ERRTEXT_LEN - 1 && !strncmp(e.msg, "p: xx", 5));
		errtext_clear(&e);
		CHECK(!errtext_isset(&e));
	}
	CHECK_DONE("test_template");
}
