// SPDX-License-Identifier: GPL-2.0-only
/* Power backend command: argv arrays for on/off/cycle (pduclient,
 * usbrelay...), run without a shell, with a deadline, exit status checked. */
#include "backend/power.h"
#include "shared/util.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

static char *last_line(const struct buf *b)
{
	char *copy = xstrdup(b->data ? b->data : ""), *s, *save = NULL, *line = NULL, *r;

	for (s = strtok_r(copy, "\r\n", &save); s; s = strtok_r(NULL, "\r\n", &save))
		if (*s)
			line = s;
	r = xstrdup(line ? line : "(no output)");
	free(copy);
	return r;
}

/* Runs one of the board's argv arrays ("power.on"...): placeholders
 * {board}, clear errors naming the board and the field.  status NULL: an exit status
 * other than 0 fails; else exit 0 and 1 are put there (power.status: on, off). */
static int command_run(struct power *p, const char *field, char *const *tmpl, int *status)
{
	const struct board *b = p->board;
	const char *keys[] = { "board" }, *vals[] = { b->name };
	struct buf out = { 0 }, shown = { 0 };
	char **argv;
	size_t n, i;
	int ret, e;

	for (n = 0; tmpl[n]; n++)
		;
	argv = xcalloc(n + 1, sizeof(*argv));
	for (i = 0; i < n; i++) {
		char *bad = NULL;

		if (expand_template(tmpl[i], keys, vals, 1, &argv[i], &bad)) {
			power_set_error(p, "%s: %s: unknown placeholder {%s}; known: {board}",
					b->name, field, bad);
			free(bad);
			strv_free(argv);
			return -EINVAL;
		}
		buf_printf(&shown, "%s%s", i ? " " : "", argv[i]);
	}
	ret = run_argv_deadline(argv, now_ms() + b->t_power_s * 1000, &out, &e);
	if (ret == -ENOENT) {
		power_set_error(p, "%s: %s: cannot run %s: %s", b->name, field, argv[0],
				strerror(e));
	} else if (ret == -ETIMEDOUT) {
		power_set_error(
			p, "%s: %s: `%s` did not finish within %ld s (timeouts_s.power); killed",
			b->name, field, shown.data, b->t_power_s);
	} else if (ret == -EINTR && in_power_off()) {
		power_set_error(
			p,
			"%s: %s: aborted by a second signal (`%s` killed); the board may still be ON",
			b->name, field, shown.data);
	} else if (ret == -EINTR) {
		power_set_error(p, "%s: %s: interrupted", b->name, field);
	} else if (ret < 0) {
		power_set_error(p, "%s: %s: %s", b->name, field, strerror(-ret));
	} else if (status && ret <= 1) {
		*status = ret;
		ret = 0;
	} else if (ret > 0) {
		char *l = last_line(&out);

		power_set_error(p, "%s: %s: `%s` exited with status %d%s: %s", b->name, field,
				shown.data, ret,
				status ? " (power.status must exit 0 for on, 1 for off)" : "", l);
		free(l);
		ret = -EIO;
	}
	if (verbose && out.len)
		info_msg("%s: %s: %.*s", b->name, field, (int)out.len, out.data);
	buf_free(&out);
	buf_free(&shown);
	strv_free(argv);
	return ret;
}

/* power.* of this backend (board->power_priv) */
struct command_conf {
	char **on, **off, **cycle; /* argv arrays; cycle NULL: off, off_ms, on */
	char **status; /* NULL: none; else exit 0 on, 1 off, polled after off */
};

static const struct command_conf *conf_of(const struct board *b)
{
	return b->power_priv;
}

static int command_on(struct power *p, const struct kernel_art *k)
{
	int ret = power_wait_off_time(p);

	(void)k;
	return ret ? ret : command_run(p, "power.on", conf_of(p->board)->on, NULL);
}

/* After power.off: power.status polled until it says off (exit 1), within timeouts_s.power
 * (not cut short by a signal: the power-off of a stopping campaign is what it confirms). */
static int command_wait_off(struct power *p)
{
	const struct board *b = p->board;
	int64_t t0 = now_ms(), deadline = t0 + b->t_power_s * 1000;
	int st = 0, ret, polls = 0;

	for (;;) {
		ret = command_run(p, "power.status", conf_of(b)->status, &st);
		polls++;
		if (ret || st == 1)
			return ret;
		if (now_ms() >= deadline) {
			power_set_error(
				p,
				"%s: power.status still says on (exit 0) %ld s after power.off (timeouts_s.power, %d polls): the board may still be ON; check its switch, or that power.status exits 1 when off",
				b->name, b->t_power_s, polls);
			return -ETIMEDOUT;
		}
		poll(NULL, 0, 50);
	}
}

/* off_ms counts from the moment the board is known off: power.status said so, or (without
 * one) power.off returned. */
static int command_off(struct power *p)
{
	int ret = command_run(p, "power.off", conf_of(p->board)->off, NULL);

	if (!ret && conf_of(p->board)->status)
		ret = command_wait_off(p);
	if (!ret)
		p->t_off = now_ms();
	return ret;
}

static int command_cycle(struct power *p)
{
	int ret;

	if (conf_of(p->board)->cycle)
		return command_run(p, "power.cycle", conf_of(p->board)->cycle, NULL);
	ret = command_off(p);
	return ret ? ret : command_on(p, NULL);
}

static int argv_check(struct buf *out, const char *field, char *const *argv)
{
	if (!argv)
		return 0;
	if (program_exists(argv[0]))
		return check_line(out, true, field, "%s found", argv[0]);
	return check_line(out, false, field, "%s: not found%s", argv[0],
			  strchr(argv[0], '/') ? "" : " in PATH");
}

static int command_check(const struct board *b, struct buf *out)
{
	const struct command_conf *c = conf_of(b);

	return argv_check(out, "power.on", c->on) + argv_check(out, "power.off", c->off) +
	       argv_check(out, "power.cycle", c->cycle) +
	       argv_check(out, "power.status", c->status);
}

static const struct jfield command_fields[] = { { "on", J_ARRAY_STRING },
						{ "off", J_ARRAY_STRING },
						{ "cycle", J_ARRAY_STRING },
						{ "status", J_ARRAY_STRING },
						{ NULL } };

static int command_parse(struct board *b, json_object *o)
{
	struct command_conf *c = xcalloc(1, sizeof(*c));
	size_t n;

	b->power_priv = c;
	c->on = jstrv(o, "on", &n);
	if (!n)
		return board_field_error(b, "power", "type",
					 "power type command needs \"on\": [argv...]");
	c->off = jstrv(o, "off", &n);
	if (!n)
		return board_field_error(b, "power", "type",
					 "power type command needs \"off\": [argv...]");
	if (json_object_object_get_ex(o, "cycle", NULL)) {
		c->cycle = jstrv(o, "cycle", &n);
		if (!n)
			return board_field_error(
				b, "power", "cycle",
				"must not be empty (omit it to cycle as off, off_ms, on)");
	}
	if (json_object_object_get_ex(o, "status", NULL)) {
		c->status = jstrv(o, "status", &n);
		if (!n)
			return board_field_error(
				b, "power", "status",
				"must not be empty (an argv exiting 0 when the board is on, 1 when off; omit it to wait power.off_ms after power.off)");
	}
	return 0;
}

static void command_free(struct board *b)
{
	struct command_conf *c = b->power_priv;

	if (!c)
		return;
	strv_free(c->on);
	strv_free(c->off);
	strv_free(c->cycle);
	strv_free(c->status);
	free(c);
	b->power_priv = NULL;
}

const struct power_ops power_command_ops = {
	.conf = { .fields = command_fields, .parse = command_parse, .free = command_free },
	.name = "command",
	.on = command_on,
	.off = command_off,
	.cycle = command_cycle,
	.check = command_check,
};
