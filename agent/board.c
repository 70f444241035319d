// SPDX-License-Identifier: GPL-2.0-only
/* Board definitions: load and validate boards/NAME.json. */
#include "board.h"
#include "util.h"

#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const struct jfield console_fields[] = {
	{ "type", J_STRING, true },
	{ "device", J_STRING, true },
	{ "baud", J_INT, false, NULL, 50, 4000000 },
	{ NULL }
};

static const struct jfield power_fields[] = {
	{ "type", J_STRING, true },
	{ "binary", J_STRING },
	{ "args", J_ARRAY_STRING },
	{ NULL }
};

static const struct jfield boot_fields[] = {
	{ "method", J_STRING, true },
	{ "append", J_STRING },
	{ "fail_patterns", J_ARRAY_STRING },
	{ NULL }
};

static const struct jfield shell_fields[] = {
	{ "prompt", J_STRING, true },
	{ "module_path", J_STRING },
	{ NULL }
};

static const struct jfield timeout_fields[] = {
	{ "power", J_INT, false, NULL, 1, 3600 },
	{ "kernel", J_INT, false, NULL, 1, 3600 },
	{ "command", J_INT, false, NULL, 1, 86400 },
	{ NULL }
};

static const struct jfield kernel_fields[] = {
	{ "recipe", J_STRING, true },
	{ NULL }
};

static const struct jfield board_fields[] = {
	{ "name", J_STRING, true },
	{ "description", J_STRING },
	{ "cpu", J_STRING, true },
	{ "family", J_STRING, true },
	{ "emulated", J_BOOL },
	{ "console", J_OBJECT, true, console_fields },
	{ "power", J_OBJECT, true, power_fields },
	{ "boot", J_OBJECT, true, boot_fields },
	{ "shell", J_OBJECT, true, shell_fields },
	{ "timeouts_s", J_OBJECT, false, timeout_fields },
	{ "retries", J_INT, false, NULL, 0, 100 },
	{ "kernel", J_OBJECT, false, kernel_fields },
	{ NULL }
};

static int bad_value(struct board *b, const char *key, const char *jpath, const char *msg)
{
	int line, col;

	jfile_locate_key(&b->jf, key, &line, &col);
	err_msg("%s:%d:%d: %s: %s", b->jf.path, line, col, jpath, msg);
	return -EINVAL;
}

int board_load(struct board *b, const char *path)
{
	json_object *r, *o;
	size_t i;
	int ret;

	memset(b, 0, sizeof(*b));
	ret = jfile_load(&b->jf, path);
	if (ret)
		return ret;
	r = b->jf.root;
	ret = jfile_validate(&b->jf, r, "", board_fields);
	if (ret)
		return ret;

	b->name = jstr(r, "name");
	b->cpu = jstr(r, "cpu");
	b->family = jstr(r, "family");
	b->description = jstr(r, "description");
	b->emulated = jbool(r, "emulated", false);

	o = jobj(r, "console");
	b->console_type = jstr(o, "type");
	b->console_device = jstr(o, "device");
	b->baud = jint(o, "baud", 115200);
	if (strcmp(b->console_type, "tty"))
		return bad_value(b, "type", "console.type",
				 "unsupported console type; this build supports: tty");

	o = jobj(r, "power");
	b->power_type = jstr(o, "type");
	if (!strcmp(b->power_type, "qemu")) {
		b->qemu_binary = jstr(o, "binary");
		if (!b->qemu_binary)
			return bad_value(b, "power", "power.binary",
					 "required for power type qemu (e.g. \"qemu-system-arm\")");
		b->qemu_args = jstrv(o, "args", NULL);
	} else {
		return bad_value(b, "type", "power.type",
				 "unsupported power type; this build supports: qemu");
	}
	if (!strncmp(b->console_device, "qemu:", 5) && strcmp(b->power_type, "qemu"))
		return bad_value(b, "device", "console.device",
				 "\"qemu:LABEL\" needs power type qemu");

	o = jobj(r, "boot");
	b->boot_method = jstr(o, "method");
	if (strcmp(b->boot_method, "direct"))
		return bad_value(b, "method", "boot.method",
				 "unsupported boot method; this build supports: direct");
	b->append = jstr(o, "append");
	if (!b->append)
		b->append = "";
	b->fail_patterns = jstrv(o, "fail_patterns", NULL);
	for (i = 0; b->fail_patterns[i]; i++) {
		regex_t re;

		if (regcomp(&re, b->fail_patterns[i], REG_EXTENDED | REG_NOSUB)) {
			char *m = xasprintf("invalid regular expression \"%s\"",
					    b->fail_patterns[i]);

			ret = bad_value(b, "fail_patterns", "boot.fail_patterns", m);
			free(m);
			return ret;
		}
		regfree(&re);
	}

	o = jobj(r, "shell");
	b->prompt = jstr(o, "prompt");
	if (!*b->prompt)
		return bad_value(b, "prompt", "shell.prompt", "must not be empty");
	b->module_path = jstr(o, "module_path");
	if (!b->module_path)
		b->module_path = "/lib/modules/dmabench.ko";

	o = jobj(r, "timeouts_s");
	b->t_power_s = jint(o, "power", 10);
	b->t_kernel_s = jint(o, "kernel", 120);
	b->t_command_s = jint(o, "command", 300);
	b->retries = jint(r, "retries", 2);
	b->kernel_recipe = jstr(jobj(r, "kernel"), "recipe");
	return 0;
}

int board_load_by_name(struct board *b, const char *name)
{
	const char *dir = getenv("ABLAB_BOARDS");
	char *path;
	int ret;

	if (strchr(name, '/') || strstr(name, ".json"))
		return board_load(b, name);
	path = xasprintf("%s/%s.json", dir && *dir ? dir : "boards", name);
	if (!is_file(path)) {
		err_msg("no board \"%s\": %s does not exist (set ABLAB_BOARDS or pass a path)",
			name, path);
		free(path);
		memset(b, 0, sizeof(*b));
		return -ENOENT;
	}
	ret = board_load(b, path);
	free(path);
	return ret;
}

void board_free(struct board *b)
{
	strv_free(b->qemu_args);
	strv_free(b->fail_patterns);
	jfile_free(&b->jf);
	memset(b, 0, sizeof(*b));
}
