# SPDX-License-Identifier: GPL-2.0-only
# sim_board NAME DIR [BOOT]: a boardsim board (tests/boardsim.md) with its
# kernel dirs and board file under DIR, simulator started as a daemon.
# BOOT: uboot (default: U-Boot + TFTP, as tests/t35-boardsim.sh) or direct.
# Needs $bs (build/boardsim).  Autoboot: 3 ticks of SIM_TICK_MS (1000, as a
# real bootdelay; the agent interrupts at once, and 50 boards on 2 cores
# miss a 60 ms window).  SIM_ARGS: more simulator options.  The board file
# sets power.off_ms SIM_OFF_MS (0: a simulator needs no time to drain) and
# console.baud SIM_BAUD (115200; 9600 for the `slow` ones: what the agent
# paces its reads by).
sim_board() {
	local name=$1 w=$2 boot=${3:-uboot} v extra=
	mkdir -p "$w/tftp"
	for v in control patched; do
		mkdir -p "$w/k/$v"
		printf '{"board":"%s","variant":"%s","release":"6.1.0-sim-%s"}\n' "$name" $v $v \
			>"$w/k/$v/manifest.json"
		printf 'zImage\0Linux version 6.1.0-sim-%s (boardsim@lab) #1\n' $v >"$w/k/$v/zImage"
		echo initramfs >"$w/k/$v/initramfs.cpio.gz"
		echo dtb >"$w/k/$v/sim.dtb"
		echo ko >"$w/k/$v/dmabench.ko"
	done
	if [ "$boot" = direct ]; then
		bootjson='"method": "command", "deploy": ["true"],'
		extra=--direct
	else
		bootjson='"method": "uboot", "tftp_root": "@W@/tftp", "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot", "interrupt": " ", "prompt": "=> ",
    "commands": ["setenv autoload no", "dhcp", "setenv serverip {server_ip}",
                 "tftpboot {kernel_addr} {kernel}", "tftpboot {ramdisk_addr} {ramdisk}",
                 "setenv initrd_size ${filesize}", "tftpboot {dtb_addr} {dtb}",
                 "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },'
	fi
	sed -e "s|@BS@|$bs|g" -e "s|@W@|$w|g" -e "s|@NAME@|$name|g" >"$w/board.json" <<JSON
{
  "name": "@NAME@",
  "description": "tests/boardsim.c behind the command power backend (benchmark)",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "console": { "type": "tty", "device": "@W@/console", "baud": ${SIM_BAUD:-115200} },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"], "off_ms": ${SIM_OFF_MS:-0} },
  "boot": {
    $bootjson
    "append": "console=ttyS0,115200 rdinit=/init panic=-1",
    "fail_patterns": ["Kernel panic - not syncing", "Internal error: Oops", "Unable to handle kernel"]
  },
  "shell": { "prompt": "lab# ", "module_path": "/lib/modules/dmabench.ko" },
  "timeouts_s": { "power": 10, "bootloader": 10, "kernel": 20, "command": 60 },
  "retries": 0
}
JSON
	"$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
		--tick-ms "${SIM_TICK_MS:-1000}" --seed 7 --daemon --pid-file "$w/pid" $extra ${SIM_ARGS:-} 2>"$w/sim.err"
}

# sim_stop DIR: the simulator of sim_board DIR exits (by its own pid)
sim_stop() {
	[ -f "$1/pid" ] && kill "$(cat "$1/pid")" 2>/dev/null
	rm -f "$1/pid"
}
