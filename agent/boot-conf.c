// SPDX-License-Identifier: GPL-2.0-only
/* The boot methods' boot.* keys and their parsers (the methods' ops:
 * boot.c, struct backend_conf: backends.h). */
#include "boot.h"
#include "backends.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct jfield boot_uboot_fields[] = { { "tftp_root", J_STRING },
					    { "server_ip", J_STRING },
					    { "autoboot", J_STRING },
					    { "interrupt", J_STRING },
					    { "prompt", J_STRING },
					    { "commands", J_ARRAY_STRING },
					    { "errors", J_ARRAY_STRING },
					    { "reset_patterns", J_ARRAY_STRING },
					    { "kernel_started", J_STRING },
					    { "addrs", J_OBJECT },
					    { NULL } };

const struct jfield boot_command_fields[] = { { "deploy", J_ARRAY_STRING }, { NULL } };

/* Defaults of the U-Boot method: what U-Boot prints when a command fails,
 * and the banners that mean the board reset after the kernel was entered. */
static const char *const ub_default_errors[] = { "TIMEOUT",
						 "Retry count exceeded",
						 "Bad (Linux ARM (z)?Image )?magic",
						 "Wrong (Ramdisk )?Image Format",
						 "[Rr]amdisk image is corrupt",
						 "TFTP error",
						 "Unknown command",
						 "## Error",
						 "No ethernet found",
						 "ERROR: ",
						 "[Ii]nvalid (image|format)",
						 "Could not find",
						 NULL };
static const char *const ub_default_reset[] = { "^U-Boot SPL ", "^U-Boot 20[0-9][0-9]", NULL };

static char **strv_from_const(const char *const *v)
{
	size_t n = 0, i;
	char **r;

	while (v[n])
		n++;
	r = xcalloc(n + 1, sizeof(*r));
	for (i = 0; i < n; i++)
		r[i] = xstrdup(v[i]);
	return r;
}

static int load_addrs(struct board *b, json_object *o)
{
	json_object *a = jobj(o, "addrs");
	size_t n = 0;

	b->addr_keys = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	b->addr_vals = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	if (!a)
		return 0;
	json_object_object_foreach(a, key, val)
	{
		if (!json_object_is_type(val, json_type_string))
			return board_field_error(b, "addrs", key,
						 "must be a string (e.g. \"0x40400000\")");
		b->addr_keys[n] = xstrdup(key);
		b->addr_vals[n++] = xstrdup(json_object_get_string(val));
	}
	return 0;
}

int boot_uboot_parse(struct board *b, json_object *o)
{
	size_t n;

	b->tftp_root = jstr(o, "tftp_root");
	b->server_ip = jstr(o, "server_ip");
	b->ub_autoboot = jstr(o, "autoboot");
	b->ub_interrupt = jstr(o, "interrupt");
	b->ub_prompt = jstr(o, "prompt");
	b->ub_started = jstr(o, "kernel_started");
	if (!b->ub_started)
		b->ub_started = "Starting kernel";
	if (!b->ub_autoboot || !b->ub_interrupt || !b->ub_prompt || !*b->ub_prompt)
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"autoboot\" (regex), \"interrupt\" and a non-empty \"prompt\"");
	if (!b->tftp_root && !backend_has(BACKEND_POWER, b->power_type, CAP_SERVES_TFTP))
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"tftp_root\" (the TFTP server's directory) unless power type is qemu");
	if (b->tftp_root && b->tftp_root[0] != '/')
		return board_field_error(b, "boot", "tftp_root", "must be an absolute path");
	b->ub_commands = jstrv(o, "commands", &n);
	if (!n)
		return board_field_error(
			b, "boot", "method",
			"boot method uboot needs \"commands\" (the last one boots, e.g. \"bootz ...\")");
	if (json_object_object_get_ex(o, "errors", NULL))
		b->ub_errors = jstrv(o, "errors", NULL);
	else
		b->ub_errors = strv_from_const(ub_default_errors);
	if (json_object_object_get_ex(o, "reset_patterns", NULL))
		b->ub_reset = jstrv(o, "reset_patterns", NULL);
	else
		b->ub_reset = strv_from_const(ub_default_reset);
	if (board_check_regexes(b, "boot", "autoboot",
				(char *[]){ (char *)b->ub_autoboot, NULL }) ||
	    board_check_regexes(b, "boot", "kernel_started",
				(char *[]){ (char *)b->ub_started, NULL }) ||
	    board_check_regexes(b, "boot", "errors", b->ub_errors) ||
	    board_check_regexes(b, "boot", "reset_patterns", b->ub_reset))
		return -EINVAL;
	return load_addrs(b, o);
}

void boot_uboot_free(struct board *b)
{
	strv_free(b->ub_commands);
	strv_free(b->ub_errors);
	strv_free(b->ub_reset);
	strv_free(b->addr_keys);
	strv_free(b->addr_vals);
}

int boot_direct_parse(struct board *b, json_object *o)
{
	(void)o;
	if (!backend_has(BACKEND_POWER, b->power_type, CAP_LOADS_KERNEL))
		return board_field_error(
			b, "boot", "method",
			"boot method direct loads the kernel through QEMU (-kernel) and needs power type qemu; real boards use uboot or command");
	return 0;
}

int boot_command_parse(struct board *b, json_object *o)
{
	size_t n;

	b->deploy = jstrv(o, "deploy", &n);
	if (!n)
		return board_field_error(
			b, "boot", "method",
			"boot method command needs \"deploy\": [argv...] (e.g. an SD mux tool with {kernel} {dtb} {initrd})");
	return 0;
}

void boot_command_free(struct board *b)
{
	strv_free(b->deploy);
}
