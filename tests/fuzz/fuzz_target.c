// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the target marker reader.  Any bytes as the board's
 * answer (over a socketpair, ended by EOF) to target_sync() and a few
 * target_run() calls: no crash, no hang, and a command that completes has
 * a status of 0-999 and an output that was really received. */
#include "backend/target.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int plain_open(struct console *c)
{
	(void)c;
	return 0;
}

static void plain_close(struct console *c)
{
	(void)c;
}

static const struct console_ops plain = { .name = "fuzz", .open = plain_open,
					  .close = plain_close };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct board b = { .name = "fuzz" };
	static char *const fail[] = { "Kernel panic - not syncing", "^U-Boot SPL ", NULL };
	struct console c;
	struct target t;
	int sv[2], status, i, ret;

	if (size > 60000 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	shutdown(sv[1], SHUT_WR);	/* EOF after the board's answer */
	console_init(&c, &b);
	c.ops = &plain;
	c.fd = sv[0];
	if (target_init(&t, &c, "lab# "))
		abort();
	memcpy(t.id, "0123abcd", 9);	/* the seeds' markers */
	if (target_set_fail_patterns(&t, fail))
		abort();
	ret = target_sync(&t, now_ms() + 2000);
	for (i = 0; i < 4 && !ret; i++) {
		struct buf out = { 0 };

		status = -1;
		ret = target_run(&t, i & 1 ? "dmesg # the ring" : "uname -r", now_ms() + 2000, &out,
				 &status);
		if (!ret && (status < 0 || status > 999 || !out.data || out.len > size))
			abort();
		buf_free(&out);
	}
	if (ret == -ETIMEDOUT)
		abort();	/* EOF must end every wait at once */
	target_free(&t);
	console_close(&c);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
