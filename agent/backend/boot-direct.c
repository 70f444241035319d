// SPDX-License-Identifier: GPL-2.0-only
/* Boot method direct: the power backend loads the kernel itself (QEMU -kernel); nothing
 * to deploy, nothing to type. */
#include "backend/boot.h"
#include "backend/backends.h"

#include <errno.h>

static int direct_parse(struct board *b, json_object *o)
{
	(void)o;
	if (!backend_has(BACKEND_POWER, b->power_type, CAP_LOADS_KERNEL))
		return board_field_error(
			b, "boot", "method",
			"boot method direct loads the kernel through QEMU (-kernel) and needs power type qemu; real boards use uboot or command");
	return 0;
}

static int direct_check(const struct board *b, struct buf *out)
{
	(void)b;
	return check_line(out, true, "boot.method", "direct (QEMU -kernel)");
}

const struct boot_ops boot_direct_ops = {
	.conf = { .parse = direct_parse },
	.name = "direct",
	.lava = BOOT_LAVA_QEMU,
	.check = direct_check,
};
