// SPDX-License-Identifier: GPL-2.0-only
/* Power backend manual: asks the operator on the controlling terminal. */
#include "backend/power.h"
#include "shared/util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* power.* of this backend (board->power_priv) */
struct manual_conf {
	char *text; /* what to tell the operator, or NULL */
};

static int ask_operator(struct power *p, const char *what)
{
	const struct board *b = p->board;
	const struct manual_conf *mc = b->power_priv;
	char *msg, c;
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY), ret = -EIO;

	if (fd < 0) {
		power_set_error(
			p,
			"%s: power.type manual: needs an operator at a terminal to switch the board %s, and there is no controlling terminal (%s)",
			b->name, what, strerror(errno));
		return -ENOTTY;
	}
	msg = xasprintf("\a%s: switch the board %s%s%s, then press Enter: ", b->name, what,
			mc->text ? " - " : "", mc->text ? mc->text : "");
	/* an Enter typed before the prompt does not count; one typed after it
	 * does, however soon (flushing after the write lost it: a flaky t25) */
	tcflush(fd, TCIFLUSH);
	if (write(fd, msg, strlen(msg)) < 0)
		goto out;
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (stop_now()) {
			ret = -EINTR;
			if (in_power_off())
				power_set_error(
					p,
					"%s: power off aborted by a second signal while waiting for the operator; the board may still be ON",
					b->name);
			else
				power_set_error(p, "%s: interrupted while waiting for the operator",
						b->name);
			break;
		}
		if (poll(&pf, 1, 200) <= 0)
			continue;
		n = read(fd, &c, 1);
		if (n <= 0) {
			power_set_error(p, "%s: power.type manual: the terminal closed", b->name);
			break;
		}
		if (c == '\n' || c == '\r') {
			ret = 0;
			break;
		}
	}
out:
	free(msg);
	close(fd);
	return ret;
}

static int manual_on(struct power *p, const struct kernel_art *k)
{
	(void)k;
	return ask_operator(p, "ON");
}

static int manual_off(struct power *p)
{
	int ret = ask_operator(p, "OFF");

	if (!ret)
		p->t_off = now_ms();
	return ret;
}

static int manual_check(const struct board *b, struct buf *out)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);

	(void)b;
	if (fd >= 0) {
		close(fd);
		return check_line(out, true, "power.type",
				  "manual: an operator answers on this terminal");
	}
	return check_line(out, false, "power.type",
			  "manual: needs an operator at a terminal; this process has none");
}

static const struct jfield manual_fields[] = { { "text", J_STRING }, { NULL } };

static int manual_parse(struct board *b, json_object *o)
{
	struct manual_conf *c = xcalloc(1, sizeof(*c));

	c->text = xstrdup(jstr(o, "text"));
	b->power_priv = c;
	return 0;
}

static void manual_free(struct board *b)
{
	struct manual_conf *c = b->power_priv;

	if (c)
		free(c->text);
	free(c);
	b->power_priv = NULL;
}

const struct power_ops power_manual_ops = {
	.conf = { .fields = manual_fields, .parse = manual_parse, .free = manual_free },
	.name = "manual",
	.on = manual_on,
	.off = manual_off,
	.check = manual_check,
};
