// SPDX-License-Identifier: GPL-2.0-only
/* Board definitions: load and validate boards/NAME.json (boards/README.md),
 * and the per-board lock. */
#include "board.h"
#include "backends.h"
#include "console.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct jfield console_fields[] = {
	{ "type", J_STRING, true },
	{ "device", J_STRING },
	{ "usb_serial", J_STRING },
	{ "host", J_STRING },
	{ "port", J_INT, false, NULL, 1, 65535 },
	{ "protocol", J_STRING },
	{ "baud", J_INT, false, NULL, 50, 4000000 },
	{ "reopen_s", J_INT, false, NULL, 0, 600 },
	{ "transcript_mb", J_INT, false, NULL, 1, 4096 },
	{ NULL }
};

static const struct jfield power_fields[] = {
	{ "type", J_STRING, true },
	{ "binary", J_STRING },
	{ "args", J_ARRAY_STRING },
	{ "chip", J_STRING },
	{ "lines", J_ARRAY_INT },
	{ "line_names", J_ARRAY_STRING },
	{ "active_low", J_BOOL },
	{ "on", J_ARRAY_STRING },
	{ "off", J_ARRAY_STRING },
	{ "cycle", J_ARRAY_STRING },
	{ "text", J_STRING },
	{ "off_ms", J_INT, false, NULL, 0, 600000 },
	{ NULL }
};

static const struct jfield boot_fields[] = {
	{ "method", J_STRING, true },
	{ "append", J_STRING },
	{ "fail_patterns", J_ARRAY_STRING },
	{ "tftp_root", J_STRING },
	{ "server_ip", J_STRING },
	{ "autoboot", J_STRING },
	{ "interrupt", J_STRING },
	{ "prompt", J_STRING },
	{ "commands", J_ARRAY_STRING },
	{ "errors", J_ARRAY_STRING },
	{ "reset_patterns", J_ARRAY_STRING },
	{ "kernel_started", J_STRING },
	{ "addrs", J_OBJECT },
	{ "deploy", J_ARRAY_STRING },
	{ NULL }
};

static const struct jfield shell_fields[] = {
	{ "prompt", J_STRING, true },
	{ "module_path", J_STRING },
	{ NULL }
};

static const struct jfield timeout_fields[] = {
	{ "power", J_INT, false, NULL, 1, 3600 },
	{ "bootloader", J_INT, false, NULL, 1, 3600 },
	{ "kernel", J_INT, false, NULL, 1, 3600 },
	{ "command", J_INT, false, NULL, 1, 86400 },
	{ "deploy", J_INT, false, NULL, 1, 86400 },
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

/* Which keys of a section belong to which backend ("*": every backend). */
struct key_owner {
	const char *key, *types;	/* types: space-separated */
};

static const struct key_owner console_owners[] = {
	{ "type", "*" }, { "baud", "*" }, { "reopen_s", "*" }, { "transcript_mb", "*" },
	{ "device", "tty serial" }, { "usb_serial", "serial" },
	{ "host", "tcp" }, { "port", "tcp" }, { "protocol", "tcp" },
	{ NULL }
};

static const struct key_owner power_owners[] = {
	{ "type", "*" }, { "off_ms", "*" },
	{ "binary", "qemu" }, { "args", "qemu" },
	{ "chip", "gpiod" }, { "lines", "gpiod" }, { "line_names", "gpiod" },
	{ "active_low", "gpiod" },
	{ "on", "command" }, { "off", "command" }, { "cycle", "command" },
	{ "text", "manual" },
	{ NULL }
};

static const struct key_owner boot_owners[] = {
	{ "method", "*" }, { "append", "*" }, { "fail_patterns", "*" },
	{ "tftp_root", "uboot" }, { "server_ip", "uboot" }, { "autoboot", "uboot" },
	{ "interrupt", "uboot" }, { "prompt", "uboot" }, { "commands", "uboot" },
	{ "errors", "uboot" }, { "reset_patterns", "uboot" }, { "kernel_started", "uboot" },
	{ "addrs", "uboot" }, { "deploy", "command" },
	{ NULL }
};

/* Defaults of the U-Boot method: what U-Boot prints when a command fails,
 * and the banners that mean the board reset after the kernel was entered. */
static const char *const ub_default_errors[] = {
	"TIMEOUT", "Retry count exceeded", "Bad (Linux ARM (z)?Image )?magic",
	"Wrong (Ramdisk )?Image Format", "[Rr]amdisk image is corrupt", "TFTP error",
	"Unknown command", "## Error",
	"No ethernet found", "ERROR: ", "[Ii]nvalid (image|format)", "Could not find",
	NULL
};
static const char *const ub_default_reset[] = { "^U-Boot SPL ", "^U-Boot 20[0-9][0-9]", NULL };

static bool word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;

	if (!strcmp(list, "*"))
		return true;
	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* Position of "key": inside the object "section" (top level when NULL). */
static void locate(const struct board *b, const char *section, const char *key, int *line,
		   int *col)
{
	const char *t = b->jf.text, *from = t, *p;
	char *pat;
	size_t i;

	*line = 1;
	*col = 1;
	if (!t)
		return;
	if (section) {
		pat = xasprintf("\"%s\"", section);
		p = strstr(t, pat);
		free(pat);
		if (p)
			from = p;
	}
	pat = xasprintf("\"%s\"", key);
	p = strstr(from, pat);
	if (!p)
		p = from;
	free(pat);
	for (i = 0; t + i < p; i++) {
		if (t[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

int board_field_error(const struct board *b, const char *section, const char *key,
		      const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int line, col;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	locate(b, section, key, &line, &col);
	err_msg("%s:%d:%d: %s%s%s: %s", b->jf.path, line, col, section ? section : "",
		section ? "." : "", key, msg ? msg : "(out of memory)");
	free(msg);
	return -EINVAL;
}

/* Keys present in section `o` that the chosen backend does not use. */
static int check_owners(const struct board *b, json_object *o, const char *section,
			const char *type, const struct key_owner *owners)
{
	int ret = 0;

	json_object_object_foreach(o, key, val) {
		const struct key_owner *k;

		(void)val;
		for (k = owners; k->key; k++)
			if (!strcmp(k->key, key))
				break;
		if (k->key && !word_in(k->types, type))
			ret = board_field_error(b, section, key, "not used by %s \"%s\" (only by: "
								 "%s)",
						!strcmp(section, "boot") ? "method" : "type", type,
						k->types);
	}
	return ret;
}

static int check_regexes(const struct board *b, const char *section, const char *key,
			 char *const *v)
{
	size_t i;

	for (i = 0; v && v[i]; i++) {
		regex_t re;

		if (regcomp(&re, v[i], REG_EXTENDED | REG_NOSUB))
			return board_field_error(b, section, key, "invalid regular expression "
								  "\"%s\"",
						 v[i]);
		regfree(&re);
	}
	return 0;
}

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

static int load_console(struct board *b, json_object *o)
{
	char names[128];
	const char *proto;

	b->console_type = jstr(o, "type");
	b->console_device = jstr(o, "device");
	b->console_usb_serial = jstr(o, "usb_serial");
	b->console_host = jstr(o, "host");
	b->console_port = jint(o, "port", 0);
	b->baud = jint(o, "baud", 115200);
	b->console_reopen_ms = jint(o, "reopen_s", 0) * 1000;
	b->console_transcript_mb = jint(o, "transcript_mb", 0);	/* 0: the default */
	if (!backend_find(BACKEND_CONSOLE, b->console_type))
		return board_field_error(b, "console", "type",
					 "unsupported console type \"%s\"; one of: %s",
					 b->console_type, backend_names(BACKEND_CONSOLE, names,
									sizeof(names)));
	if (check_owners(b, o, "console", b->console_type, console_owners))
		return -EINVAL;
	if (!strcmp(b->console_type, "tty") && !b->console_device)
		return board_field_error(b, "console", "type",
					 "console type tty needs \"device\" (a tty path or "
					 "\"qemu:LABEL\")");
	if (!strcmp(b->console_type, "serial") && !b->console_device && !b->console_usb_serial)
		return board_field_error(b, "console", "type",
					 "console type serial needs \"device\" (path or "
					 "/dev/serial/by-id name) or \"usb_serial\" (see `ablab "
					 "ports`)");
	if (!strcmp(b->console_type, "serial") && b->console_device &&
	    !strncmp(b->console_device, "qemu:", 5))
		return board_field_error(b, "console", "device",
					 "\"qemu:LABEL\" is a pty: use console type tty");
	if (!strcmp(b->console_type, "tcp")) {
		if (!b->console_host || !b->console_port)
			return board_field_error(b, "console", "type",
						 "console type tcp needs \"host\" and \"port\"");
		proto = jstr(o, "protocol");
		if (proto && strcmp(proto, "raw") && strcmp(proto, "telnet"))
			return board_field_error(b, "console", "protocol",
						 "\"%s\" is not one of raw, telnet", proto);
		b->console_telnet = proto && !strcmp(proto, "telnet");
	}
	return 0;
}

static int load_power(struct board *b, json_object *o)
{
	char names[128];
	const char *t;

	t = b->power_type = jstr(o, "type");
	b->off_ms = jint(o, "off_ms", 1000);
	if (!backend_find(BACKEND_POWER, t))
		return board_field_error(b, "power", "type",
					 "unsupported power type \"%s\"; one of: %s", t,
					 backend_names(BACKEND_POWER, names, sizeof(names)));
	if (check_owners(b, o, "power", t, power_owners))
		return -EINVAL;
	if (!strcmp(t, "qemu")) {
		b->qemu_binary = jstr(o, "binary");
		if (!b->qemu_binary)
			return board_field_error(b, "power", "type",
						 "power type qemu needs \"binary\" (e.g. "
						 "\"qemu-system-arm\")");
		b->qemu_args = jstrv(o, "args", NULL);
	} else if (!strcmp(t, "gpiod")) {
		json_object *a;
		size_t i, j;

		b->gpio_chip = jstr(o, "chip");
		b->gpio_active_low = jbool(o, "active_low", false);
		if (!b->gpio_chip || !*b->gpio_chip)
			return board_field_error(b, "power", "type",
						 "power type gpiod needs \"chip\" (e.g. "
						 "\"gpiochip0\")");
		if (json_object_object_get_ex(o, "line_names", NULL)) {
			if (json_object_object_get_ex(o, "lines", NULL))
				return board_field_error(b, "power", "line_names",
							 "give \"lines\" (offsets) or \"line_names\", not both");
			b->gpio_line_names = jstrv(o, "line_names", &b->n_gpio_lines);
			if (!b->n_gpio_lines)
				return board_field_error(b, "power", "line_names",
							 "must not be empty");
			for (i = 0; i < b->n_gpio_lines; i++) {
				if (!*b->gpio_line_names[i])
					return board_field_error(b, "power", "line_names",
								 "an empty line name");
				for (j = 0; j < i; j++)
					if (!strcmp(b->gpio_line_names[i], b->gpio_line_names[j]))
						return board_field_error(b, "power", "line_names",
									 "line \"%s\" is listed twice",
									 b->gpio_line_names[i]);
			}
			return 0;
		}
		if (!json_object_object_get_ex(o, "lines", &a) || !json_object_array_length(a))
			return board_field_error(b, "power", "type",
						 "power type gpiod needs \"lines\": [OFFSET, ...] or "
						 "\"line_names\": [NAME, ...]");
		b->n_gpio_lines = json_object_array_length(a);
		b->gpio_lines = xcalloc(b->n_gpio_lines, sizeof(*b->gpio_lines));
		for (i = 0; i < b->n_gpio_lines; i++) {
			int64_t v = json_object_get_int64(json_object_array_get_idx(a, i));

			if (v < 0 || v > 65535)
				return board_field_error(b, "power", "lines",
							 "line offset %lld out of range 0..65535",
							 (long long)v);
			b->gpio_lines[i] = (long)v;
			for (j = 0; j < i; j++)
				if (b->gpio_lines[j] == v)
					return board_field_error(b, "power", "lines",
								 "line %lld is listed twice",
								 (long long)v);
		}
	} else if (!strcmp(t, "command")) {
		size_t n;

		b->power_on = jstrv(o, "on", &n);
		if (!n)
			return board_field_error(b, "power", "type",
						 "power type command needs \"on\": [argv...]");
		b->power_off = jstrv(o, "off", &n);
		if (!n)
			return board_field_error(b, "power", "type",
						 "power type command needs \"off\": [argv...]");
		if (json_object_object_get_ex(o, "cycle", NULL)) {
			b->power_cycle = jstrv(o, "cycle", &n);
			if (!n)
				return board_field_error(b, "power", "cycle",
							 "must not be empty (omit it to cycle as "
							 "off, off_ms, on)");
		}
	} else {
		b->manual_text = jstr(o, "text");
	}
	return 0;
}

static int load_addrs(struct board *b, json_object *o)
{
	json_object *a = jobj(o, "addrs");
	size_t n = 0;

	b->addr_keys = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	b->addr_vals = xcalloc((size_t)(a ? json_object_object_length(a) : 0) + 1, sizeof(char *));
	if (!a)
		return 0;
	json_object_object_foreach(a, key, val) {
		if (!json_object_is_type(val, json_type_string))
			return board_field_error(b, "addrs", key,
						 "must be a string (e.g. \"0x40400000\")");
		b->addr_keys[n] = xstrdup(key);
		b->addr_vals[n++] = xstrdup(json_object_get_string(val));
	}
	return 0;
}

static int load_uboot(struct board *b, json_object *o)
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
		return board_field_error(b, "boot", "method",
					 "boot method uboot needs \"autoboot\" (regex), "
					 "\"interrupt\" "
					 "and a non-empty \"prompt\"");
	if (!b->tftp_root && !backend_has(BACKEND_POWER, b->power_type, CAP_SERVES_TFTP))
		return board_field_error(b, "boot", "method",
					 "boot method uboot needs \"tftp_root\" (the TFTP server's "
					 "directory) unless power type is qemu");
	if (b->tftp_root && b->tftp_root[0] != '/')
		return board_field_error(b, "boot", "tftp_root", "must be an absolute path");
	b->ub_commands = jstrv(o, "commands", &n);
	if (!n)
		return board_field_error(b, "boot", "method",
					 "boot method uboot needs \"commands\" (the last one "
					 "boots, "
					 "e.g. \"bootz ...\")");
	if (json_object_object_get_ex(o, "errors", NULL))
		b->ub_errors = jstrv(o, "errors", NULL);
	else
		b->ub_errors = strv_from_const(ub_default_errors);
	if (json_object_object_get_ex(o, "reset_patterns", NULL))
		b->ub_reset = jstrv(o, "reset_patterns", NULL);
	else
		b->ub_reset = strv_from_const(ub_default_reset);
	if (check_regexes(b, "boot", "autoboot", (char *[]){ (char *)b->ub_autoboot, NULL }) ||
	    check_regexes(b, "boot", "kernel_started", (char *[]){ (char *)b->ub_started, NULL }) ||
	    check_regexes(b, "boot", "errors", b->ub_errors) ||
	    check_regexes(b, "boot", "reset_patterns", b->ub_reset))
		return -EINVAL;
	return load_addrs(b, o);
}

static int board_load_one(struct board *b, const char *path)
{
	json_object *r, *o;
	char names[128];
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
	if (!*b->name || strchr(b->name, '/') || b->name[0] == '.')
		return board_field_error(b, NULL, "name",
					 "\"%s\" must be non-empty, without '/' and not start with "
					 "'.'",
					 b->name);

	ret = load_console(b, jobj(r, "console"));
	if (ret)
		return ret;
	ret = load_power(b, jobj(r, "power"));
	if (ret)
		return ret;
	if (b->console_device && !strncmp(b->console_device, "qemu:", 5) &&
	    !backend_has(BACKEND_POWER, b->power_type, CAP_MAKES_CONSOLE))
		return board_field_error(b, "console", "device",
					 "\"qemu:LABEL\" needs power type qemu");

	o = jobj(r, "boot");
	b->boot_method = jstr(o, "method");
	if (!backend_find(BACKEND_BOOT, b->boot_method))
		return board_field_error(b, "boot", "method",
					 "unsupported boot method \"%s\"; one of: %s", b->boot_method,
					 backend_names(BACKEND_BOOT, names, sizeof(names)));
	if (check_owners(b, o, "boot", b->boot_method, boot_owners))
		return -EINVAL;
	if (!strcmp(b->boot_method, "direct") &&
	    !backend_has(BACKEND_POWER, b->power_type, CAP_LOADS_KERNEL))
		return board_field_error(b, "boot", "method",
					 "boot method direct loads the kernel through QEMU "
					 "(-kernel) "
					 "and needs power type qemu; real boards use uboot or "
					 "command");
	b->append = jstr(o, "append");
	if (!b->append)
		b->append = "";
	b->fail_patterns = jstrv(o, "fail_patterns", NULL);
	if (check_regexes(b, "boot", "fail_patterns", b->fail_patterns))
		return -EINVAL;
	if (!strcmp(b->boot_method, "uboot")) {
		ret = load_uboot(b, o);
		if (ret)
			return ret;
	} else if (!strcmp(b->boot_method, "command")) {
		size_t n;

		b->deploy = jstrv(o, "deploy", &n);
		if (!n)
			return board_field_error(b, "boot", "method",
						 "boot method command needs \"deploy\": [argv...] "
						 "(e.g. an SD mux tool with {kernel} {dtb} "
						 "{initrd})");
	}

	o = jobj(r, "shell");
	b->prompt = jstr(o, "prompt");
	if (!*b->prompt)
		return board_field_error(b, "shell", "prompt", "must not be empty");
	b->module_path = jstr(o, "module_path");
	if (!b->module_path)
		b->module_path = "/lib/modules/dmabench.ko";

	o = jobj(r, "timeouts_s");
	b->t_power_s = jint(o, "power", 10);
	b->t_bootloader_s = jint(o, "bootloader", 30);
	b->t_kernel_s = jint(o, "kernel", 120);
	b->t_command_s = jint(o, "command", 300);
	b->t_deploy_s = jint(o, "deploy", 120);
	b->retries = jint(r, "retries", 2);
	b->kernel_recipe = jstr(jobj(r, "kernel"), "recipe");
	return 0;
}

const char *board_dir(void)
{
	const char *dir = getenv("ABLAB_BOARDS");

	return dir && *dir ? dir : "boards";
}

int board_load(struct board *b, const char *path)
{
	int ret = board_load_one(b, path);

	if (ret)
		board_free(b);	/* nothing half-loaded is left to the caller */
	return ret;
}

int board_load_by_name(struct board *b, const char *name)
{
	char *path;
	int ret;

	if (strchr(name, '/') || strstr(name, ".json"))
		return board_load(b, name);
	path = xasprintf("%s/%s.json", board_dir(), name);
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
	strv_free(b->power_on);
	strv_free(b->power_off);
	strv_free(b->power_cycle);
	strv_free(b->ub_commands);
	strv_free(b->ub_errors);
	strv_free(b->ub_reset);
	strv_free(b->addr_keys);
	strv_free(b->addr_vals);
	strv_free(b->deploy);
	free(b->gpio_lines);
	strv_free(b->gpio_line_names);
	jfile_free(&b->jf);
	memset(b, 0, sizeof(*b));
}

int check_line(struct buf *out, bool ok, const char *field, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	buf_printf(out, "  %-5s %s: %s\n", ok ? "ok" : "FAIL", field, msg ? msg : "?");
	free(msg);
	return ok ? 0 : 1;
}

/* --- locks --- */

static char *lock_dir(void)
{
	const char *e = getenv("ABLAB_LOCK_DIR");
	char *d;

	if (e && *e)
		return xstrdup(e);
	if (!mkdir_p("/run/ablab", 0755) && access("/run/ablab", W_OK) == 0)
		return xstrdup("/run/ablab");
	d = data_dir();
	if (!d)		/* data_dir() said why; opening a lock there fails */
		return xstrdup("/run/ablab");
	{
		char *l = xasprintf("%s/locks", d);

		free(d);
		return l;
	}
}

/* The lock file for a key: the board name, or "console-" and the console's
 * identity with every byte outside [A-Za-z0-9._-] as %XX. */
static char *lock_path(const char *key, bool console)
{
	char *d = lock_dir(), *p;
	struct buf name = { 0 };
	const char *c;

	mkdir_p(d, 0755);
	if (console) {
		buf_printf(&name, "console-");
		for (c = key; *c; c++) {
			unsigned char u = (unsigned char)*c;

			if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') ||
			    (u >= '0' && u <= '9') || u == '.' || u == '_' || u == '-')
				buf_append(&name, c, 1);
			else
				buf_printf(&name, "%%%02X", u);
		}
	} else {
		buf_printf(&name, "%s", key);
	}
	p = xasprintf("%s/%s.lock", d, name.data);
	buf_free(&name);
	free(d);
	return p;
}

/* What identifies a board's console across board files: the resolved
 * device of a tty/serial console, host:port of a tcp one; NULL for a QEMU
 * pty (it exists only inside its own QEMU). */
static char *console_key(const struct board *b)
{
	char real[PATH_MAX], err[400], *path = NULL, *k;

	if (!b->console_type)
		return NULL;
	if (backend_has(BACKEND_CONSOLE, b->console_type, CAP_NETWORK))
		return b->console_host ? xasprintf("tcp:%s:%ld", b->console_host, b->console_port)
				       : NULL;
	if (!strcmp(b->console_type, "serial")) {
		if (serial_resolve(b, &path, err, sizeof(err)))
			return NULL;	/* not plugged in: the open fails later, clearly */
		k = xstrdup(realpath(path, real) ? real : path);
		free(path);
		return k;
	}
	if (!b->console_device || !strncmp(b->console_device, "qemu:", 5))
		return NULL;
	return xstrdup(realpath(b->console_device, real) ? real : b->console_device);
}

/* Only the owner (and, in a group-writable lock directory, its group: a lab
 * group) may open a lock file: anyone who can open it can lock it. */
static int lock_open(const char *path, bool create, char *why, size_t wlen)
{
	char *dir = xstrdup(path), *sl = strrchr(dir, '/');
	struct stat st, ds = { 0 };
	mode_t mode = 0600;
	int fd;

	if (sl)
		*sl = '\0';
	if (!stat(dir, &ds) && (ds.st_mode & S_IWGRP))
		mode = 0660;
	free(dir);
	fd = open(path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		int e = errno;

		snprintf(why, wlen, "cannot open lock %s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, wlen, "lock %s is not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (create && st.st_uid == geteuid() && (st.st_mode & 0777) != mode &&
	    fchmod(fd, mode) == 0)
		st.st_mode = (st.st_mode & ~0777u) | mode;
	if (create && st.st_uid != geteuid() && (mode != 0660 || st.st_gid != ds.st_gid)) {
		snprintf(why, wlen, "lock %s belongs to uid %u, who can block the board with it: "
			 "remove it", path, (unsigned int)st.st_uid);
		close(fd);
		return -EPERM;
	}
	if (create && (st.st_mode & 0007)) {
		snprintf(why, wlen, "lock %s is open to every user (mode %04o, owner uid %u), so "
			 "anyone can block the board: remove it", path,
			 (unsigned int)(st.st_mode & 07777), (unsigned int)st.st_uid);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Another open file's write lock on fd's file: 1 (text of the holder into
 * out), 0 when free.  F_OFD_GETLK takes nothing, so probing never makes a
 * concurrent board_lock() fail. */
static int lock_probe(int fd, char *out, size_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char text[300] = "", host[256] = "", purpose[256] = "";
	int pid = 0;
	ssize_t n;

	*out = '\0';
	if (fcntl(fd, F_OFD_GETLK, &fl) < 0 || fl.l_type == F_UNLCK)
		return 0;
	n = pread(fd, text, sizeof(text) - 1, 0);
	if (n > 0) {
		text[n] = '\0';
		if (sscanf(text, "%d %255s %255[^\n]", &pid, host, purpose) >= 2) {
			snprintf(out, len, "pid %d on %s (%s)", pid, host,
				 *purpose ? purpose : "?");
			return 1;
		}
	}
	snprintf(out, len, "an unknown process");
	return 1;
}

/* Opens and write-locks one lock file (an OFD lock: the kernel drops it
 * when the holder dies, threads do not share it by accident); what names
 * the holder in "in use" messages is `what`. */
static int lock_take(const char *board, const char *what, const char *path, const char *text)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char why[512], who[300];
	int fd = lock_open(path, true, why, sizeof(why));

	if (fd < 0) {
		err_msg("%s: %s", board, why);
		return fd;
	}
	if (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		int e = errno;

		if (e != EAGAIN && e != EACCES) {
			err_msg("%s: cannot lock %s: %s", board, path, strerror(e));
			close(fd);
			return -e;
		}
		lock_probe(fd, who, sizeof(who));
		err_msg("%s: %s is in use by %s (lock %s)", board, what,
			*who ? who : "another process", path);
		close(fd);
		return -EBUSY;
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, strlen(text), 0) < 0) {
		int e = errno;

		err_msg("%s: cannot write lock %s: %s", board, path, strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

int board_lock(struct board_lock *l, const struct board *b, const char *purpose)
{
	char host[256] = "?", *text, *key = console_key(b), *what;
	int ret = 0;

	l->fd = l->cfd = -1;
	l->path = lock_path(b->name, false);
	l->cpath = key ? lock_path(key, true) : NULL;
	gethostname(host, sizeof(host) - 1);
	text = xasprintf("%d %s %s\n", (int)getpid(), host, purpose);
	l->fd = lock_take(b->name, "board", l->path, text);
	free(text);
	if (l->fd < 0) {
		ret = l->fd;
		goto out;
	}
	if (l->cpath) {
		text = xasprintf("%d %s %s, board %s\n", (int)getpid(), host, purpose, b->name);
		what = xasprintf("console %s", key);
		l->cfd = lock_take(b->name, what, l->cpath, text);
		free(what);
		free(text);
		if (l->cfd < 0)
			ret = l->cfd;
	}
out:
	free(key);
	if (ret)
		board_unlock(l);
	return ret;
}

void board_unlock(struct board_lock *l)
{
	/* the lock is what counts; a stale text is ignored when unlocked */
	if (l->cfd >= 0) {
		if (ftruncate(l->cfd, 0) < 0) {
		}
		close(l->cfd);
	}
	if (l->fd >= 0) {
		if (ftruncate(l->fd, 0) < 0) {
		}
		close(l->fd);
	}
	free(l->path);
	free(l->cpath);
	l->path = l->cpath = NULL;
	l->fd = l->cfd = -1;
}

static int holder_of(const char *path, char *out, size_t len)
{
	char why[512];
	int fd = lock_open(path, false, why, sizeof(why)), r;

	*out = '\0';
	if (fd == -ENOENT)
		return 0;
	if (fd < 0) {
		snprintf(out, len, "unknown (%s)", why);
		return 1;
	}
	r = lock_probe(fd, out, len);
	close(fd);
	return r;
}

int board_lock_holder(const struct board *b, char *out, size_t len)
{
	char *path = lock_path(b->name, false), *key;
	int r = holder_of(path, out, len);

	free(path);
	if (r)
		return r;
	key = console_key(b);
	if (key) {
		char who[300];

		path = lock_path(key, true);
		r = holder_of(path, who, sizeof(who));
		if (r)
			snprintf(out, len, "%s, through console %s", who, key);
		free(path);
		free(key);
	}
	return r;
}
