# SPDX-License-Identifier: GPL-2.0-only
# The guest half of tests/t86-vlab.sh: sourced after tests/lib.sh inside the
# virtual lab's guest (tests/vlab/init runs it), so it has its own $tmp, its
# own ABLAB_DATA and a private PostgreSQL cluster in the guest, and the host's
# build/asan/ablab. The ARM board is the board simulator on the host behind
# the FTDI adapter (QEMU usb-serial, guest driver ftdi_sio) and the relay
# (gpio-sim line "relay0" of chip "ablab-relay", watched by tests/vlab/watch.py
# and switched by tests/vlab/labhw.py). VLAB_WORK: the host's work directory
# (labhw.log, the TFTP root), VLAB_SERIAL: the adapter's USB serial number.
w=$VLAB_WORK
log=$w/labhw.log
serial=${VLAB_SERIAL:-ABLAB0001}
# wait_log N PATTERN [SECONDS]: labhw.log has at least N lines matching PATTERN
wait_log() {
	local end=$(($(date +%s) + ${3:-20}))
	while [ "$(grep -c -- "$2" "$log" 2>/dev/null)" -lt "$1" ]; do
		[ "$(date +%s)" -lt $end ] || return 1
		sleep 0.05
	done
}
# the power switches labhw made, as "on off on ..."
switches() { awk '$2 == "power" { printf "%s%s", s, $3; s = " " }' "$log"; }

# --- the adapter: ftdi_sio, udev's by-id link, libserialport's USB properties ------
byid=$(ls /dev/serial/by-id/ 2>/dev/null | grep -F "$serial")
check "vlab: udev made a /dev/serial/by-id link for the FTDI adapter ($byid)" test -n "$byid"
out=$("$ablab" ports 2>&1)
echo "$out" | sed 's/^/  /'
check "vlab: ablab ports lists the FTDI adapter with VID:PID 0403:6001 and serial $serial" \
	sh -c 'echo "$1" | grep -E "^/dev/ttyUSB[0-9]+ +0403:6001 +$2 "' _ "$out" "$serial"

# --- the board file: console by USB serial number, relay by chip label ----------------
export ABLAB_BOARDS=$tmp/boards
mkdir -p "$ABLAB_BOARDS" "$w/tftp"
cat >"$ABLAB_BOARDS/vlab.json" <<JSON
{
  "name": "vlab", "cpu": "Cortex-A72", "family": "v7",
  "description": "the board simulator behind the virtual lab's FTDI adapter and gpio-sim relay",
  "console": { "type": "serial", "usb_serial": "$serial", "baud": 115200, "reopen_s": 5 },
  "power": { "type": "gpiod", "chip": "ablab-relay", "line_names": ["relay0"], "active_low": true, "off_ms": 100 },
  "boot": {
    "method": "uboot", "tftp_root": "$w/tftp", "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot", "interrupt": " ", "prompt": "=> ",
    "commands": ["setenv autoload no", "dhcp", "tftpboot {kernel_addr} {kernel}",
                 "tftpboot {ramdisk_addr} {ramdisk}", "setenv initrd_size \${filesize}",
                 "tftpboot {dtb_addr} {dtb}", "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:\${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init panic=-1",
    "fail_patterns": ["Kernel panic - not syncing", "Internal error: Oops"]
  },
  "shell": { "prompt": "lab# ", "module_path": "/lib/modules/dmabench.ko" },
  "timeouts_s": { "power": 5, "bootloader": 10, "kernel": 20, "command": 60 },
  "retries": 1
}
JSON
for v in control patched; do
	mkdir -p "$tmp/k/$v"
	printf '{"board":"vlab","variant":"%s","release":"6.1.0-sim-%s"}\n' $v $v >"$tmp/k/$v/manifest.json"
	printf 'zImage\0Linux version 6.1.0-sim-%s (boardsim@lab) #1\n' $v >"$tmp/k/$v/zImage"
	echo initramfs >"$tmp/k/$v/initramfs.cpio.gz"
	echo dtb >"$tmp/k/$v/sim.dtb"
	echo ko >"$tmp/k/$v/dmabench.ko"
done
"$ablab" db start >/dev/null 2>&1
check "vlab: the board is off while nobody drives the relay line" test -z "$(switches)"
out=$("$ablab" check vlab --kernel "$tmp/k/control" 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
check "vlab: ablab check vlab passes (console by USB serial number, relay by chip label and line name)" \
	test $rc = 0
out=$("$ablab" check vlab --dry-run 2>&1)
echo "$out" | sed 's/^/  /'
check "vlab: ablab check --dry-run names the adapter's tty and the free relay line" \
	sh -c 'echo "$1" | grep -q "$2 -> /dev/ttyUSB" && echo "$1" | grep -q "ablab-relay lines relay0 exist and are free"' _ "$out" "$serial"

wait_log 1 " power off$" 5
check "vlab: ablab check vlab booted the board through the relay and left it off" \
	test "$(switches)" = "on off"

# --- the relay: ablab drives the line, labhw switches the board ----------------------
"$ablab" power vlab on >"$tmp/power.out" 2>&1 &
pid=$!
check "vlab: ablab power vlab on: labhw switches the board on" wait_log 2 " power on$"
kill -INT $pid
wait $pid
check "vlab: ablab power vlab on: the line released at Ctrl-C switches the board off (pull-up)" \
	wait_log 2 " power off$"
"$ablab" power vlab off >"$tmp/power.out" 2>&1
check "vlab: ablab power vlab off exits 0 and leaves the board off" \
	test $? = 0 -a "$(switches)" = "on off on off"
"$ablab" power vlab cycle >"$tmp/power.out" 2>&1 &
pid=$!
check "vlab: ablab power vlab cycle: labhw switches the board on" wait_log 3 " power on$"
kill -INT $pid
wait $pid
wait_log 3 " power off$"
check "vlab: switches so far: on off (check), on off (on, Ctrl-C), on off (cycle, Ctrl-C)" \
	test "$(switches)" = "on off on off on off"

sed 's/"relay0"/"relay9"/' "$ABLAB_BOARDS/vlab.json" >"$ABLAB_BOARDS/vlab-badline.json"
out=$("$ablab" check vlab-badline --dry-run 2>&1)
rc=$?
echo "$out" | grep power.chip | sed 's/^/  /'
check "vlab: a line name the chip does not have: ablab check names it and gpioinfo" \
	sh -c '[ $1 != 0 ] && echo "$2" | grep -q "no line named \"relay9\" on ablab-relay (gpioinfo"' _ $rc "$out"

# --- a relay line held by another program --------------------------------------------
if command -v gpioset >/dev/null; then
	# the inactive level (1: active low), so the holder itself keeps the board off
	gpioset --mode=signal ablab-relay 0=1 &
	hold=$!
	end=$(($(date +%s) + 10))
	until gpioinfo ablab-relay | grep -q '"gpioset"'; do
		[ "$(date +%s)" -lt $end ] || break
		sleep 0.05
	done
	out=$("$ablab" check vlab --dry-run 2>&1)
	rc=$?
	echo "$out" | grep -i gpio | sed 's/^/  /'
	check "vlab: ablab check with the relay line held by gpioset fails naming the board and the holder" \
		sh -c '[ $1 != 0 ] && echo "$2" | grep -q "in use by \"gpioset\""' _ $rc "$out"
	out=$("$ablab" power vlab on 2>&1)
	rc=$?
	echo "$out" | sed 's/^/  /'
	check "vlab: ablab power vlab on with the line held: a board-named error, no switch" \
		sh -c '[ $1 != 0 ] && echo "$2" | grep -q "vlab: power.chip ablab-relay" && [ "$3" = "on off on off on off" ]' \
		_ $rc "$out" "$(switches)"
	kill $hold
	wait $hold 2>/dev/null
else
	skip "vlab: no gpioset in the guest (Debian package gpiod): held-line check not run"
fi

# --- a 2+2 A/B campaign through the FTDI adapter and the relay -------------------------
n0=$(grep -c " power on$" "$log")
t0=$(date +%s.%N)
out=$("$ablab" ab --board vlab --control "$tmp/k/control" --patched "$tmp/k/patched" \
	--boots 2 --batches 2 --results "$w/results" 2>&1)
rc=$?
t1=$(date +%s.%N)
echo "$out" >"$w/campaign.out"
echo "$out" | grep -E '^ablab: vlab|complete|failed|error' | sed 's/^/  /' | head -n 20
check "vlab: a 2+2 A/B campaign through the FTDI adapter and the gpio-sim relay stores 4 ok boots" \
	sh -c '[ $1 = 0 ] && echo "$2" | grep -qF "vlab: 4 ok boot(s), 0 failed"' _ $rc "$out"
check "vlab: the campaign's stored boots are control/patched twice" test \
	"$(psql_q "SELECT string_agg(variant || '=' || uname_r, ' ' ORDER BY seq) FROM boots
		   WHERE campaign_id = (SELECT max(id) FROM campaigns) AND status = 'ok'")" = \
	"control=6.1.0-sim-control patched=6.1.0-sim-patched control=6.1.0-sim-control patched=6.1.0-sim-patched"
r=$(cat "$w"/results/*/*.log 2>/dev/null | grep -c "console reopened after it vanished")
check "vlab: the FTDI console never looked vanished during the campaign ($r reopens; VMIN=0 read() == 0 was taken for an unplug)" \
	test "$r" = 0
check "vlab: labhw switched the board on once per boot (4) during the campaign" \
	test $(($(grep -c " power on$" "$log") - n0)) = 4
echo "campaign_seconds $(echo "$t1 - $t0" | bc)" >>"$w/guest.figures"
# --- the same with the adapter vanishing at every power off (a board-powered FTDI) ---
echo "vanish on" >/dev/ttyS1
check "vlab: labhw unplugged the adapter (QMP device_del) while the board is off" \
	wait_log 1 " adapter unplugged$"
end=$(($(date +%s) + 20))
while ls /dev/serial/by-id/ 2>/dev/null | grep -qF "$serial"; do
	[ "$(date +%s)" -lt $end ] || break
	sleep 0.05
done
check "vlab: the by-id link went away with the adapter" \
	sh -c '! ls /dev/serial/by-id/ 2>/dev/null | grep -qF "$1"' _ "$serial"
n0=$(grep -c " adapter plugged$" "$log")
out=$("$ablab" ab --board vlab --control "$tmp/k/control" --patched "$tmp/k/patched" \
	--boots 2 --batches 2 --results "$w/results-vanish" 2>&1)
rc=$?
echo "$out" >"$w/campaign-vanish.out"
echo "$out" | grep -E '^ablab: vlab|complete|failed|error' | sed 's/^/  /' | head -n 20
check "vlab: a 2+2 campaign with the adapter unplugged at every power off stores 4 ok boots" \
	sh -c '[ $1 = 0 ] && echo "$2" | grep -qF "vlab: 4 ok boot(s), 0 failed"' _ $rc "$out"
check "vlab: labhw plugged the adapter back at every power on of that campaign (4)" \
	test $(($(grep -c " adapter plugged$" "$log") - n0)) = 4
echo "vanish off" >/dev/ttyS1
wait_log 1 "vanish off"

# for the host's report: the guest kernel's log and ablab's transcripts
dmesg >"$w/guest-dmesg.txt" 2>&1
mkdir -p "$w/health" && cp "$ABLAB_DATA"/health/*.log "$w/health/" 2>/dev/null
