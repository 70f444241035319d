# SPDX-License-Identifier: GPL-2.0-only
# The console on the board simulator (tests/boardsim.md): a command ends when
# its end marker arrives wherever the cursor was (output without a final
# newline, \r progress output, a # comment in benchmark.command, a printk
# glued before the marker), each campaign in about 2 s against a 5 s
# timeouts_s.command; a flooding board (200 MiB, with and without newlines)
# fails its boot as a "console flood" with the agent's peak RSS bounded and
# the board switched off; power commands inherit no tty, pty or socket.
# The window itself: tests/test_console.c (run by t10).
bs=$top/build/boardsim
cw=$tmp/console
"$ablab" db start >/dev/null 2>&1
mkdir -p "$cw/k"
sim_kernels "$cw/k" sim-console

# con_board DIR CONSOLE-JSON: a U-Boot board on the simulator in DIR, powered
# through DIR/power (a script: it records the descriptors it inherited and
# the agent's peak RSS, then runs `boardsim ctl`)
con_board() {
	local w=$1
	mkdir -p "$w/tftp"
	cat >"$w/power" <<EOF
#!/bin/sh
echo "== \$1" >>"$w/fds"
ls -l /proc/\$\$/fd/ >>"$w/fds"
echo "\$1 \$(grep VmHWM /proc/\$PPID/status)" >>"$w/hwm"
exec "$bs" ctl "$w/ctl" "\$1"
EOF
	chmod +x "$w/power"
	sed -e "s|@W@|$w|g" -e "s|@CONSOLE@|$2|" >"$w/board.json" <<'JSON'
{
  "name": "sim-console",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "console": @CONSOLE@,
  "power": { "type": "command", "on": ["@W@/power", "on"], "off": ["@W@/power", "off"] },
  "boot": {
    "method": "uboot",
    "tftp_root": "@W@/tftp",
    "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot",
    "interrupt": " ",
    "prompt": "=> ",
    "commands": ["tftpboot {kernel_addr} {kernel}", "tftpboot {ramdisk_addr} {ramdisk}",
                 "setenv initrd_size ${filesize}", "tftpboot {dtb_addr} {dtb}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "fail_patterns": ["Kernel panic - not syncing", "Internal error: Oops"]
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 5, "bootloader": 3, "kernel": 5, "command": 5 },
  "retries": 0
}
JSON
}

# con_sim DIR [boardsim options]: starts the simulator of DIR
con_sim() {
	local w=$1
	shift
	"$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" --record "$w/record" \
		--tick-ms 10 --autoboot 10 --seed 48 --daemon --pid-file "$w/pid" "$@" 2>"$w/sim.err" ||
		bad "console: cannot start the simulator: $(cat "$w/sim.err")"
}

# con_job DIR COMMAND-JSON-STRING: a regex benchmark job over DIR's board
con_job() {
	cat >"$1/job.json" <<JOB
{
  "boards": ["$1/board.json"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$cw/k/control" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$cw/k/patched" } }
  },
  "benchmark": { "name": "regex", "command": "$2",
                 "regex": "^lat ([a-z]+) ([0-9.]+) (ns|us)$",
                 "groups": { "scenario": 1, "value": 2, "unit": 3 } },
  "boots": 1,
  "batches": 1
}
JOB
}

# marker_case NAME COMMAND [boardsim options]: the campaign completes in
# seconds (no timeouts_s.command wait) and stores both scenarios per boot
marker_case() {
	local name=$1 w=$cw/$1 cmd=$2 rc t0 t1 cid got
	shift 2
	con_board "$w" "{ \"type\": \"tty\", \"device\": \"$w/console\" }"
	con_sim "$w" "$@"
	con_job "$w" "$cmd"
	t0=$(date +%s%N)
	"$ablab" run "$w/job.json" --undecidable-ok --results "$w/results" --format json >"$w/out.json" 2>"$w/run.err"
	rc=$?
	t1=$(date +%s%N)
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	got=$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT b.variant || ':' || s.scenario || ':' || s.mean_ns AS x FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok') y")
	echo "   $name: exit $rc in $(((t1 - t0) / 1000000)) ms; samples: $got"
	[ "$rc" = 0 ] || grep -m2 'failed' "$w/run.err" | cut -c1-200 | sed 's/^/   /'
	fault 6 "marker $name: campaign complete, both scenarios stored" test \
		"$rc/$got" = "0/control:big:1500 control:small:353 patched:big:1500 patched:small:353"
}

echo "== console: the end marker wherever the cursor was"
marker_case no-newline 'echo lat small 353 ns; echo -n lat big 1500 ns'
marker_case cr-progress "printf 'step 1 of 2\\\\rstep 2 of 2\\\\r'; echo lat small 353 ns; printf 'lat big 1.5 us\\\\r'"
marker_case comment 'echo lat small 353 ns; echo lat big 1500 ns # both scenarios'
marker_case printk-glued 'echo lat small 353 ns; echo lat big 1500 ns' --fault printk-glue
fault 6 "marker printk-glued: the simulator glued printk before the markers" \
	grep -q 'fault printk-glue' "$cw/printk-glued/record"

# flood_case NAME FAULT: the boot fails as a console flood at the default
# 64 MiB cap, the agent's peak RSS (VmHWM, read by the power-off command)
# stays under 48 MiB (ASan build: about 24 MiB; the old engine kept the
# whole boot, over 200 MiB), the transcript keeps exactly the first 64 MiB,
# and the board is off afterwards
flood_case() {
	local name=$1 w=$cw/$1 rc t0 t1 hwm err log size
	con_board "$w" "{ \"type\": \"tty\", \"device\": \"$w/console\" }"
	sed -i 's/"kernel": 5,/"kernel": 60,/' "$w/board.json"
	con_sim "$w" --fault "$2" --flood-mb 200
	con_job "$w" 'echo lat small 353 ns'
	t0=$(date +%s%N)
	"$ablab" run "$w/job.json" --undecidable-ok --results "$w/results" --format json >"$w/out.json" 2>"$w/run.err"
	rc=$?
	t1=$(date +%s%N)
	# the last power command the agent ran: the off after the failed boot
	hwm=$(awk '{ v = $3 } END { print v + 0 }' "$w/hwm")
	err=$(psql_q "SELECT error FROM boots WHERE campaign_id = (SELECT max(id) FROM campaigns) AND status = 'failed'")
	log=$(ls "$w"/results/campaign-*/sim-console-001-*.log 2>/dev/null | head -n 1)
	size=$(stat -c %s "$log" 2>/dev/null || echo 0)
	echo "   $name: exit $rc in $(((t1 - t0) / 1000000)) ms; VmHWM $((hwm / 1024)) MiB; transcript $size bytes; $(tail -n 1 "$w/record")"
	echo "   error: $err" | cut -c1-200
	fault 7 "flood $name: the boot failed as a console flood naming the board and the cap" \
		test "$rc" = 1 -a -n "$(echo "$err" | grep 'sim-console: console flood: more than 64 MiB .*console.transcript_mb')"
	fault 7 "flood $name: the agent's peak RSS stayed under 48 MiB" test "$hwm" -gt 0 -a "$hwm" -lt $((48 * 1024))
	fault 7 "flood $name: the transcript keeps the first 64 MiB and says why it stops" \
		bash -c "[ \$(head -c $((64 << 20)) '$log' | wc -c) = $((64 << 20)) ] && [ $size -lt $(((64 << 20) + 1024)) ] && tail -n 1 '$log' | grep -q 'console flood'"
	fault 7 "flood $name: the board is off" bash -c "'$bs' ctl '$w/ctl' status | grep -q 'state=off' && tail -n 1 '$w/record' | grep -q 'power off'"
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
}

echo "== console: a flooding board"
flood_case flood-lines flood
flood_case flood-one-line flood-nonl

# fd_case NAME CONSOLE-JSON [boardsim options]: a campaign whose power
# commands list the descriptors they inherited: stdin (/dev/null), stdout
# and stderr (a pipe), and beyond those only what the same script has when
# this shell runs it (its own script file, what the test runner inherited);
# no tty, pty or socket (the console, the database connection), no /dev/null
# or pipe of the agent
fd_case() {
	local name=$1 w=$cw/$1 leaked
	con_board "$w" "$2"
	shift 2
	[ -S "$w/ctl" ] || con_sim "$w" "$@"
	con_job "$w" 'echo lat small 353 ns'
	"$w/power" baseline </dev/null 2>&1 | cat >/dev/null	# stdout a pipe, as the agent gives
	"$ablab" run "$w/job.json" --undecidable-ok --results "$w/results" --format json >"$w/out.json" 2>"$w/run.err"
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
	leaked=$(awk '/^== / { who = $2; next }
		/ -> / { fd = $(NF - 2); t = $NF; sub(/\[[0-9]+\]/, "", t)
			 if (who == "baseline") base[fd " " t] = 1
			 else if (fd > 2 ? !((fd " " t) in base) : t ~ /^(\/dev\/(pts|tty|ptmx|serial)|socket:)/)
				 print who ":" fd "=" t }' "$w/fds" | sort -u | tr '\n' ' ')
	echo "   $name: $(grep -c ' -> ' "$w/fds") descriptors seen by $(grep -c '^== [a-z]*$' "$w/fds") commands; leaked: ${leaked:-none}"
	fault 8 "descriptors $name: power commands inherit nothing of the agent but stdin, stdout, stderr (no tty, pty, socket)" \
		test -s "$w/fds" -a -z "$leaked"
}

echo "== console: no descriptor of the agent in power commands"
fd_case tty-console "{ \"type\": \"tty\", \"device\": \"$cw/tty-console/console\" }"
w=$cw/tcp-console
mkdir -p "$w"
con_sim "$w" --tcp 0
port=$("$bs" ctl "$w/ctl" status | sed -n 's/.* tcp=\([0-9]*\).*/\1/p')
fd_case tcp-console "{ \"type\": \"tcp\", \"host\": \"127.0.0.1\", \"port\": $port }"
# libserialport cannot open a pty: the serial backend needs a real UART
# (never the machine's own console), e.g. ABLAB_TEST_SERIAL=/dev/ttyUSB0
if [ -n "${ABLAB_TEST_SERIAL:-}" ]; then
	w=$cw/serial-console
	mkdir -p "$w"
	con_sim "$w"
	fd_case serial-console "{ \"type\": \"serial\", \"device\": \"$ABLAB_TEST_SERIAL\" }"
	fault 8 "descriptors serial-console: the power commands ran with the UART open" \
		grep -q 'U-Boot autoboot line' "$w/run.err"
else
	skip "descriptors serial-console: no UART here (set ABLAB_TEST_SERIAL=/dev/ttyUSBn for a real one)"
fi

# the same quirks against a real busybox ash (QEMU), when its kernels are built
cache=$kcache
kq=$cache/kernels/qemu-arm11
if [ -f "$kq/control/manifest.json" ] && [ -f "$kq/patched/manifest.json" ]; then
	echo "== console: the end marker on QEMU (busybox ash)"
	w=$cw/qemu
	mkdir -p "$w"
	cat >"$w/job.json" <<JOB
{
  "boards": ["qemu-arm11"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kq/control")" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kq/patched")" } }
  },
  "benchmark": { "name": "regex",
                 "command": "printf 'step 1 of 2\\\\rstep 2 of 2\\\\r'; echo lat small 353 ns; printf 'lat big 1.5 us' # no final newline",
                 "regex": "^lat ([a-z]+) ([0-9.]+) (ns|us)$",
                 "groups": { "scenario": 1, "value": 2, "unit": 3 } },
  "boots": 1,
  "batches": 1
}
JOB
	t0=$(date +%s%N)
	"$ablab" run "$w/job.json" --undecidable-ok --results "$w/results" --format json >"$w/out.json" 2>"$w/run.err"
	rc=$?
	t1=$(date +%s%N)
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	got=$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT b.variant || ':' || s.scenario || ':' || s.mean_ns AS x FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok') y")
	echo "   qemu-arm11: exit $rc in $(((t1 - t0) / 1000000)) ms; samples: $got"
	[ "$rc" = 0 ] || grep -m2 'failed' "$w/run.err" | cut -c1-200 | sed 's/^/   /'
	fault 6 "marker on QEMU: \\r progress, # comment, no final newline: both scenarios stored" test \
		"$rc/$got" = "0/control:big:1500 control:small:353 patched:big:1500 patched:small:353"
else
	skip "marker on QEMU: no qemu-arm11 kernels in $kq (make kernels)"
fi
