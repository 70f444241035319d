// SPDX-License-Identifier: GPL-2.0-only
/* Board definitions: load and validate boards/NAME.json (boards/README.md),
 * and the per-board lock. */
#include "board.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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
	{ "chip", "gpiod" }, { "lines", "gpiod" }, { "active_low", "gpiod" },
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
	const char *proto;

	b->console_type = jstr(o, "type");
	b->console_device = jstr(o, "device");
	b->console_usb_serial = jstr(o, "usb_serial");
	b->console_host = jstr(o, "host");
	b->console_port = jint(o, "port", 0);
	b->baud = jint(o, "baud", 115200);
	b->console_reopen_ms = jint(o, "reopen_s", 0) * 1000;
	b->console_transcript_mb = jint(o, "transcript_mb", 0);	/* 0: the default */
	if (strcmp(b->console_type, "tty") && strcmp(b->console_type, "serial") &&
	    strcmp(b->console_type, "tcp"))
		return board_field_error(b, "console", "type",
					 "unsupported console type \"%s\"; one of: tty, serial, "
					 "tcp", b->console_type);
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
	const char *t;

	t = b->power_type = jstr(o, "type");
	b->off_ms = jint(o, "off_ms", 1000);
	if (strcmp(t, "qemu") && strcmp(t, "gpiod") && strcmp(t, "command") && strcmp(t, "manual"))
		return board_field_error(b, "power", "type",
					 "unsupported power type \"%s\"; one of: qemu, gpiod, "
					 "command, "
					 "manual", t);
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
		if (!json_object_object_get_ex(o, "lines", &a) || !json_object_array_length(a))
			return board_field_error(b, "power", "type",
						 "power type gpiod needs \"lines\": [OFFSET, ...]");
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
	if (!b->tftp_root && strcmp(b->power_type, "qemu"))
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
	    strcmp(b->power_type, "qemu"))
		return board_field_error(b, "console", "device",
					 "\"qemu:LABEL\" needs power type qemu");

	o = jobj(r, "boot");
	b->boot_method = jstr(o, "method");
	if (strcmp(b->boot_method, "direct") && strcmp(b->boot_method, "uboot") &&
	    strcmp(b->boot_method, "command"))
		return board_field_error(b, "boot", "method",
					 "unsupported boot method \"%s\"; one of: direct, uboot, "
					 "command",
					 b->boot_method);
	if (check_owners(b, o, "boot", b->boot_method, boot_owners))
		return -EINVAL;
	if (!strcmp(b->boot_method, "direct") && strcmp(b->power_type, "qemu"))
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

static char *lock_path(const char *board)
{
	char *d = lock_dir(), *p;

	mkdir_p(d, 0755);
	p = xasprintf("%s/%s.lock", d, board);
	free(d);
	return p;
}

int board_lock(struct board_lock *l, const char *board, const char *purpose)
{
	char host[256] = "?", *text;
	int ret;

	l->path = lock_path(board);
	l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (l->fd < 0) {
		ret = -errno;
		err_msg("%s: cannot open lock %s: %s", board, l->path, strerror(-ret));
		goto fail;
	}
	if (flock(l->fd, LOCK_EX | LOCK_NB) < 0) {
		char who[300];

		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		board_lock_holder(board, who, sizeof(who));
		err_msg("%s: board is in use by %s (lock %s)", board,
			*who ? who : "another process",
			l->path);
		close(l->fd);
		goto fail;
	}
	gethostname(host, sizeof(host) - 1);
	text = xasprintf("%d %s %s\n", (int)getpid(), host, purpose);
	if (ftruncate(l->fd, 0) < 0 || pwrite(l->fd, text, strlen(text), 0) < 0) {
		ret = -errno;
		free(text);
		close(l->fd);
		goto fail;
	}
	free(text);
	return 0;
fail:
	free(l->path);
	l->path = NULL;
	l->fd = -1;
	return ret;
}

void board_unlock(struct board_lock *l)
{
	if (l->fd >= 0) {
		if (ftruncate(l->fd, 0) < 0) {
			/* the flock is what counts; stale text is ignored when unlocked */
		}
		close(l->fd);
	}
	free(l->path);
	l->path = NULL;
	l->fd = -1;
}

int board_lock_holder(const char *board, char *out, size_t len)
{
	char *path = lock_path(board), text[300] = "";
	int fd, pid = 0;
	char host[256] = "", purpose[256] = "";
	ssize_t n;

	*out = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	free(path);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {	/* nobody holds it */
		close(fd);
		return 0;
	}
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
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
