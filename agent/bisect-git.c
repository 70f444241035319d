// SPDX-License-Identifier: GPL-2.0-only
/* The commits of a bisect: git in the tree (resolve a ref, capture a command's output)
 * and the build of one commit through the board's recipe, with the compiler errors of
 * a commit that does not build. */
#include "bisect-int.h"
#include "recipe.h"
#include "shared/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* git -C tree ARGS...: its stdout (trailing newline removed) in out.  0 or -EIO (git
 * printed why on stderr). */
int git_capture(const char *tree, struct buf *out, char *const args[])
{
	char *argv[16] = { "git", "-C", (char *)tree };
	size_t i;
	int r;

	for (i = 0; args[i] && i < 12; i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	r = run_argv(argv, out);
	if (r)
		return -EIO;
	while (out->len && (out->data[out->len - 1] == '\n'))
		out->data[--out->len] = '\0';
	return 0;
}

char *git_commit(const char *tree, const char *ref)
{
	char *spec = xasprintf("%s^{commit}", ref), *s = NULL;
	char *args[] = { "rev-parse", "-q", "--verify", spec, NULL };
	struct buf out = { 0 };

	if (!git_capture(tree, &out, args) && out.len == 40)
		s = xstrdup(out.data);
	buf_free(&out);
	free(spec);
	return s;
}

/* The first compiler error lines of a failed build's log (at most three, " | " between). */
static char *log_errors(const char *log)
{
	FILE *f = log ? fopen(log, "r") : NULL;
	struct buf b = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int n = 0;

	if (!f)
		return xstrdup("(no build log)");
	while (getline(&line, &cap, f) > 0 && n < 3) {
		if (!strstr(line, "error:"))
			continue;
		line[strcspn(line, "\n")] = '\0';
		buf_printf(&b, "%s%s", n++ ? " | " : "", line);
	}
	free(line);
	fclose(f);
	if (!n)
		return xstrdup("(the log names no error line)");
	return b.data;
}

/* Builds commit through the board's recipe: 0 with *dir, -ENOEXEC when the commit does not
 * build (*why: its compiler errors, *log: the log), else -errno. */
int build_commit(const struct bisect *b, const char *commit, char **dir, char **state, char **log,
		 char **why)
{
	struct recipe rc;
	int ret = recipe_of_board(b->board_file, &rc);

	*dir = *state = *log = *why = NULL;
	if (ret)
		return ret;
	rc.git_tree = b->tree;
	rc.git_ref = commit;
	info_msg("bisect %" PRId64 ": kernel of %.12s for %s", b->id, commit, b->board);
	ret = recipe_build(&rc, NULL, "git", dir, state);
	if (ret == -EIO && !stop_requested) {
		*log = recipe_git_log(&rc, commit);
		*why = log_errors(*log);
		ret = -ENOEXEC;
	}
	recipe_free(&rc);
	return ret;
}
