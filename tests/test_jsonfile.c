// SPDX-License-Identifier: GPL-2.0-only
/* jsonfile's error positions: a syntax error, trailing text, a NUL byte, the end of
 * the file, an unknown key, a wrong type and a missing key are each reported once as
 * "file:line:col: ..." at the character a reader must look at (a syntax error was
 * reported one character early: at the space before the offending one). */
#include "check.h"
#include "shared/jsonfile.h"
#include "shared/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char dir[] = "/tmp/test_jsonfile.XXXXXX";

static char *write_file(const char *name, const char *text, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && write(fd, text, len) == (ssize_t)len);
	close(fd);
	return p;
}

/* runs fn with stderr captured; returns what it printed (caller frees) */
static char *captured(int (*fn)(void *), void *arg, int *ret)
{
	char *p = xasprintf("%s/stderr", dir), *s = xcalloc(4096, 1);
	int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0644), saved = dup(2);
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, s, 4095, 0);
	s[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(p);
	free(p);
	return s;
}

struct load_arg {
	struct jfile jf;
	const char *path;
	const struct jfield *fields;
};

static int do_load(void *a)
{
	struct load_arg *l = a;
	int ret = jfile_load(&l->jf, l->path);

	if (!ret && l->fields)
		ret = jfile_validate(&l->jf, l->jf.root, "", l->fields);
	return ret;
}

/* loads (and validates) text (len 0: strlen); checks the one line printed is want after
 * "PATH:" */
static void check_error(const char *name, const char *text, size_t len, const struct jfield *fields,
			const char *want)
{
	struct load_arg l = { .fields = fields };
	char *path = write_file(name, text, len ? len : strlen(text)), *exp, *got;
	int ret;

	l.path = path;
	got = captured(do_load, &l, &ret);
	exp = xasprintf("ablab: %s:%s\n", path, want);
	for (char *q; (q = strstr(exp, "PATH"));) { /* a second line's path */
		char *e = xasprintf("%.*s%s%s", (int)(q - exp), exp, path, q + 4);

		free(exp);
		exp = e;
	}
	CHECK(ret == -EINVAL);
	CHECK_STR(got, exp);
	jfile_free(&l.jf);
	unlink(path);
	free(path);
	free(exp);
	free(got);
}

static const struct jfield sub[] = {
	{ "prompt", J_STRING, true },
	{ NULL },
};

static const struct jfield fields[] = {
	{ "name", J_STRING, true },
	{ "retries", J_INT, false, NULL, 0, 10 },
	{ "shell", J_OBJECT, false, sub },
	{ NULL },
};

int main(void)
{
	int line, col;
	char *p;

	CHECK(mkdtemp(dir) != NULL);
	jfile_offset_linecol("ab\ncd\n\nx", 0, &line, &col);
	CHECK(line == 1 && col == 1);
	jfile_offset_linecol("ab\ncd\n\nx", 4, &line, &col);
	CHECK(line == 2 && col == 2);
	jfile_offset_linecol("ab\ncd\n\nx", 7, &line, &col);
	CHECK(line == 4 && col == 1);

	check_error("syntax.json", "{\n  \"name\": \"a\",\n  \"retries\" 2\n}\n", 0, NULL,
		    "3:13: invalid JSON: object property name separator ':' expected");
	check_error("trailing.json", "{ \"name\": \"a\" }\n}\n", 0, NULL,
		    "2:1: invalid JSON: unexpected character");
	check_error("nul.json", "{ \"name\": \"a\0\" }\n", 17, NULL,
		    "1:13: NUL byte in file; save it as plain UTF-8 text");
	check_error("unknown.json", "{\n  \"name\": \"a\",\n    \"retires\": 2\n}\n", 0, fields,
		    "3:5: retires: unknown key; did you mean \"retries\"?");
	check_error("type.json", "{\n  \"name\": \"a\",\n  \"retries\": \"two\"\n}\n", 0, fields,
		    "3:3: retries: must be an integer");
	check_error("missing.json", "{\n  \"name\": \"a\",\n  \"shell\": {\n    \"x\": 1 }\n}\n", 0,
		    fields,
		    "4:5: shell.x: unknown key; expected one of: prompt\n"
		    "ablab: PATH:3:3: shell.prompt: required key missing (a string)");
	check_error("eof.json", "{\n  \"name\": ", 0, NULL,
		    "2:11: invalid JSON: unexpected end of data");
	check_error("literal.json", "{ \"name\": tru }", 0, NULL,
		    "1:14: invalid JSON: boolean expected");
	check_error("array.json", "[ 1 ]\n", 0, NULL, "1:1: top level must be a JSON object");
	p = xasprintf("%s/stderr", dir);
	unlink(p);
	free(p);
	rmdir(dir);
	CHECK_DONE("test_jsonfile");
}
