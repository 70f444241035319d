// SPDX-License-Identifier: GPL-2.0-only
/* Boot method command: the board's boot.deploy argv puts the kernel in place (an SD mux,
 * a flasher) while the board is off, then power on. */
#include "backend/boot.h"
#include "backend/backends.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* boot.* of this method (board->boot_priv) */
struct command_conf {
	char **deploy; /* argv with {kernel} {dtb} {initrd} {module} {append} {board} */
};

static const struct command_conf *conf_of(const struct board *b)
{
	return b->boot_priv;
}

static int command_deploy(struct boot_session *s, const struct kernel_art *k, char *rel[3],
			  const char *rundir)
{
	const struct board *b = s->board;
	char *const *deploy = conf_of(b)->deploy;
	const char *keys[] = { "kernel", "dtb", "initrd", "ramdisk", "module", "append", "board" };
	const char *vals[] = { k->zimage, k->dtb,    k->initrd, k->initrd,
			       k->module, b->append, b->name };
	size_t n = strv_len(deploy), i;
	char **argv = xcalloc(n + 1, sizeof(*argv));
	struct buf out = { 0 };
	int ret = 0, e;

	(void)rel;
	(void)rundir;

	for (i = 0; i < n && !ret; i++) {
		char *bad = NULL;

		e = expand_template(deploy[i], keys, vals, ARRAY_SIZE(keys), &argv[i], &bad);
		if (e == -ENODATA) {
			ret = boot_fail(s, -EINVAL, true,
					"%s: boot.deploy: {%s}: the kernel directory has none",
					b->name, bad);
			free(bad);
		} else if (e) {
			ret = boot_fail(
				s, -EINVAL, true,
				"%s: boot.deploy: unknown placeholder {%s}; known: {kernel} {dtb} {initrd} {module} {append} {board}",
				b->name, bad);
			free(bad);
		}
	}
	if (!ret) {
		ret = run_argv_deadline(argv, now_ms() + b->t_deploy_s * 1000, &out, &e);
		if (ret == -ENOENT) {
			ret = boot_fail(s, ret, true, "%s: boot.deploy: cannot run %s: %s", b->name,
					argv[0], strerror(e));
		} else if (ret == -ETIMEDOUT) {
			ret = boot_fail(
				s, ret, false,
				"%s: boot.deploy: %s did not finish within %ld s (timeouts_s.deploy); killed",
				b->name, argv[0], b->t_deploy_s);
		} else if (ret > 0) {
			while (out.len &&
			       (out.data[out.len - 1] == '\n' || out.data[out.len - 1] == '\r'))
				out.data[--out.len] = '\0';
			ret = boot_fail(
				s, -EIO, false, "%s: boot.deploy: %s exited with status %d: %s",
				b->name, argv[0], ret,
				out.len ? (strrchr(out.data, '\n') ? strrchr(out.data, '\n') + 1 :
								     out.data) :
					  "(no output)");
		} else if (ret < 0) {
			ret = boot_fail(s, ret, false, "%s: boot.deploy: %s", b->name,
					strerror(-ret));
		}
	}
	buf_free(&out);
	strv_free(argv);
	return ret;
}

static int command_check(const struct board *b, struct buf *out)
{
	char *const *deploy = conf_of(b)->deploy;

	if (program_exists(deploy[0]))
		return check_line(out, true, "boot.deploy", "%s found", deploy[0]);
	return check_line(out, false, "boot.deploy", "%s: not found%s", deploy[0],
			  strchr(deploy[0], '/') ? "" : " in PATH");
}

static const struct jfield command_fields[] = { { "deploy", J_ARRAY_STRING }, { NULL } };

static int command_parse(struct board *b, json_object *o)
{
	struct command_conf *c = xcalloc(1, sizeof(*c));
	size_t n;

	b->boot_priv = c;
	c->deploy = jstrv(o, "deploy", &n);
	if (!n)
		return board_field_error(
			b, "boot", "method",
			"boot method command needs \"deploy\": [argv...] (e.g. an SD mux tool with {kernel} {dtb} {initrd})");
	return 0;
}

static void command_free(struct board *b)
{
	struct command_conf *c = b->boot_priv;

	if (!c)
		return;
	strv_free(c->deploy);
	free(c);
	b->boot_priv = NULL;
}

const struct boot_ops boot_command_ops = {
	.conf = { .fields = command_fields, .parse = command_parse, .free = command_free },
	.name = "command",
	.lava = BOOT_LAVA_FLASHER,
	.deploy = command_deploy,
	.check = command_check,
};
