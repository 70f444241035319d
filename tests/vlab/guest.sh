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
# send LINE: a line to labhw on the relay's port (vanish on|off, board sim|arm,
# plug-ms N, rom-ms N); waits until labhw logged it
send() {
	local n
	n=$(grep -c -- " $1$" "$log")
	echo "$1" >/dev/ttyS1
	wait_log $((n + 1)) " $1$"
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

if command -v gpioinfo >/dev/null; then
	out=$(gpioinfo ablab-relay 2>&1)
	echo "$out" | head -n 3 | sed 's/^/  /'
	check "vlab: gpioinfo shows the relay chip's line \"relay0\" (the step boards/README.md names)" \
		sh -c 'echo "$1" | grep -q "line *0: *\"relay0\""' _ "$out"
fi

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
	--boots 2 --undecidable-ok --batches 2 --results "$w/results" 2>&1)
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
	--boots 2 --undecidable-ok --batches 2 --results "$w/results-vanish" 2>&1)
rc=$?
echo "$out" >"$w/campaign-vanish.out"
echo "$out" | grep -E '^ablab: vlab|complete|failed|error' | sed 's/^/  /' | head -n 20
check "vlab: a 2+2 campaign with the adapter unplugged at every power off stores 4 ok boots" \
	sh -c '[ $1 = 0 ] && echo "$2" | grep -qF "vlab: 4 ok boot(s), 0 failed"' _ $rc "$out"
check "vlab: labhw plugged the adapter back at every power on of that campaign (4)" \
	test $(($(grep -c " adapter plugged$" "$log") - n0)) = 4
echo "vanish off" >/dev/ttyS1
wait_log 1 "vanish off"

# --- the adapter that does not come back in time (the simulator) ---------------------
n=$(grep -c " adapter unplugged$" "$log")
send "vanish on"
check "vlab: labhw unplugged the adapter again" wait_log $((n + 1)) " adapter unplugged$"
send "plug-ms 15000"
sed -e 's/"name": "vlab"/"name": "vlab-slowusb"/' -e 's/"reopen_s": 5/"reopen_s": 2/' -e 's/"retries": 1/"retries": 0/' \
	"$ABLAB_BOARDS/vlab.json" >"$ABLAB_BOARDS/vlab-slowusb.json"
out=$("$ablab" check vlab-slowusb --kernel "$tmp/k/control" 2>&1)
rc=$?
echo "$out" | grep -i -E 'absent|fail|error' | sed 's/^/  /' | head -n 5
check "vlab: an adapter not back within console.reopen_s: ablab check fails naming the board, the USB serial number and reopen_s" \
	sh -c '[ $1 != 0 ] && echo "$2" | grep -q "vlab-slowusb: console.usb_serial \"$3\": no USB serial adapter with this serial number .*; still absent after [0-9.]* s of waiting (console.reopen_s 2) (waiting for U-Boot.s autoboot line)"' \
	_ $rc "$out" "$serial"
send "plug-ms 0"

# --- the real QEMU ARM board behind the wire: qemu-pi400, U-Boot, TFTP, its own kernels ---
if [ -n "${VLAB_ARM_KERNELS:-}" ]; then
	k=$VLAB_ARM_KERNELS
	jq --arg s "$serial" --arg t "$w/tftp" '.name = "vlab-pi400"
	  | .description = "qemu-pi400 (U-Boot, TFTP, its real kernels) behind the virtual lab'"'"'s FTDI adapter and gpio-sim relay"
	  | del(.emulated, .kernel, .icount_shift)
	  | .console = {type: "serial", usb_serial: $s, baud: 115200, reopen_s: 10}
	  | .power = {type: "gpiod", chip: "ablab-relay", line_names: ["relay0"], active_low: true, off_ms: 100}
	  | .boot.tftp_root = $t | .timeouts_s.bootloader = 15 | .retries = 0' \
		"$top/boards/qemu-pi400.json" >"$ABLAB_BOARDS/vlab-pi400.json"
	check "vlab: labhw put the QEMU ARM board (qemu-pi400) behind the wire" send "board arm"
	# the adapter is still vanishing at power off: a replug that misses U-Boot's autoboot
	send "plug-ms 7000"
	out=$("$ablab" check vlab-pi400 --kernel "$k/control" 2>&1)
	rc=$?
	echo "$out" | grep -i -E 'autoboot|fail' | sed 's/^/  /' | head -n 5
	check "vlab: an adapter plugged 7 s after power on misses U-Boot's autoboot: ablab check fails naming the board, boot.autoboot and the output it got" \
		sh -c '[ $1 != 0 ] && echo "$2" | grep -q "vlab-pi400: U-Boot autoboot line /Hit any key to stop autoboot/ (boot.autoboot) never seen within 15 s (timeouts_s.bootloader); last output: .*; the console appeared only after power on (a board-powered adapter): U-Boot.s countdown may have run out before it, raise U-Boot.s bootdelay"' _ $rc "$out"
	send "plug-ms 0"
	send "vanish off"
	# the benchmark: the board's uptime at the shell prompt (ms), one line a batch
	bench=(--benchmark regex --command 'read up idle </proc/uptime; echo uptime ${up%.*}${up#*.}0 ms'
	       --regex '^(uptime) ([0-9]+) (ms)$' --groups 1,2,3)
	rc_=$(jq -r .release "$k/control/manifest.json")
	rp_=$(jq -r .release "$k/patched/manifest.json")
	for mode in wired vanish; do
		[ $mode = wired ] || send "vanish on"
		n0=$(wc -l <"$log")
		t0=$(date +%s.%N)
		out=$("$ablab" ab --board vlab-pi400 --control "$k/control" --patched "$k/patched" \
			--boots 2 --undecidable-ok --batches 1 "${bench[@]}" --results "$w/results-arm-$mode" 2>&1)
		rc=$?
		t1=$(date +%s.%N)
		echo "$out" >"$w/campaign-arm-$mode.out"
		echo "$out" | grep -E '^ablab: vlab|complete|failed|error|uptime' | sed 's/^/  /' | head -n 20
		what="a 2+2 A/B campaign on qemu-pi400 (U-Boot, TFTP, real kernels) through the FTDI adapter and the gpio-sim relay"
		[ $mode = wired ] || what="the same with the adapter unplugged at every power off"
		check "vlab: $what stores 4 ok boots" \
			sh -c '[ $1 = 0 ] && echo "$2" | grep -qF "vlab-pi400: 4 ok boot(s), 0 failed"' _ $rc "$out"
		check "vlab: ... each boot ran its own kernel: control/patched twice" test \
			"$(psql_q "SELECT string_agg(variant || '=' || uname_r, ' ' ORDER BY seq) FROM boots
				   WHERE campaign_id = (SELECT max(id) FROM campaigns) AND status = 'ok'")" = \
			"control=$rc_ patched=$rp_ control=$rc_ patched=$rp_"
		tail -n +"$((n0 + 1))" "$log" >"$w/labhw-arm-$mode.log"
		check "vlab: ... labhw started the ARM board's QEMU once per boot (4)" \
			test "$(grep -c " arm board: qemu pid " "$w/labhw-arm-$mode.log")" = 4
		echo "arm_${mode}_campaign_seconds $(echo "$t1 - $t0" | bc)" >>"$w/guest.figures"
		# the serial figure: what ablab read per boot and in how long (the wire's side)
		awk -v m=$mode '$2 == "console" && $3 == "arm:" { n++; b += $4; t += $(NF - 1) }
			END { if (n) printf "arm_%s_bytes_per_boot %d\narm_%s_first_to_last_ms_per_boot %d\n", m, b / n, m, t / n }' \
			"$w/labhw-arm-$mode.log" >>"$w/guest.figures"
		ls -l "$w/results-arm-$mode"/*/*.log 2>/dev/null | awk -v m=$mode '{ n++; b += $5 }
			END { if (n) printf "arm_%s_transcript_bytes_per_boot %d\n", m, b / n }' >>"$w/guest.figures"
	done
	send "vanish off"
	send "board sim"
else
	skip "vlab: no qemu-pi400 kernels (make kernels): the real ARM board behind the wire not run"
fi

# --- the libgpiod v2 build of the gpiod backend drives the gpio-sim line -------------
if [ -x "${VLAB_GPIOD_V2:-}" ]; then
	n0=$(grep -c " power on$" "$log")
	rm -f "$tmp/v2.fifo" && mkfifo "$tmp/v2.fifo"
	"$VLAB_GPIOD_V2" ablab-relay relay0 <"$tmp/v2.fifo" >"$tmp/v2.out" 2>&1 &
	v2=$!
	exec 7>"$tmp/v2.fifo"
	echo 1 >&7
	check "vlab: the libgpiod v2 build (power_gpiod.c, trixie's libgpiod.so.3) switches the board on through gpio-sim" \
		wait_log $((n0 + 1)) " power on$"
	n1=$(grep -c " power off$" "$log")
	echo 0 >&7
	check "vlab: ... and off" wait_log $((n1 + 1)) " power off$"
	exec 7>&-
	wait $v2
	rc=$?
	sed 's/^/  v2: /' "$tmp/v2.out"
	check "vlab: ... it said libgpiod v2 and exited 0 ($rc)" \
		sh -c '[ $1 = 0 ] && grep -q "libgpiod v2" "$2" && grep -q "set 0" "$2"' _ $rc "$tmp/v2.out"
else
	skip "vlab: no libgpiod v2 driver (make gpiod-v2 fetches trixie's libgpiod): v2 on gpio-sim not run"
fi

# for the host's report: the guest kernel's log and ablab's transcripts
dmesg >"$w/guest-dmesg.txt" 2>&1
mkdir -p "$w/health" && cp "$ABLAB_DATA"/health/*.log "$w/health/" 2>/dev/null
# the part's exit status is its checks' (labhw's exit, t86 checks it), not the
# status of the copy above
[ "$fail" = 0 ]
