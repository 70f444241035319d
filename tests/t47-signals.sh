# Signals and locks on the board simulator (command power).
# 1. SIGINT, SIGTERM and SIGHUP during U-Boot, the kernel boot, the benchmark
#    and the power-off itself: the off runs to completion (the simulator ends
#    off), the agent exits 130 and says "boards powered off"; a second signal
#    during the off aborts it, and the agent says the board may still be on.
# 2. Locks: another user cannot block a board, `ablab boards` never makes a
#    concurrent lock fail, two board files for one console exclude each other.
bs=$top/build/boardsim
sg=$tmp/signals
mkdir -p "$sg/k"
"$ablab" db start >/dev/null 2>&1
sim_kernels "$sg/k" sim-sig
# power.off: with W/slow-off present and the board on, it creates W/off-started
# and waits until the test writes to the fifo W/gate (no timer anywhere)
cat >"$sg/off.sh" <<EOF
#!/bin/sh
w=\$1
if [ -e "\$w/slow-off" ] && ! "$bs" ctl "\$w/ctl" status | grep -q 'state=off'; then
	: >"\$w/off-started"
	read -r _ <"\$w/gate"
fi
exec "$bs" ctl "\$w/ctl" off
EOF
chmod +x "$sg/off.sh"

# sig_board DIR NAME CONSOLE [FILEDIR]: FILEDIR/NAME.json (FILEDIR: DIR), the
# board file of the simulator in DIR (no fail_patterns: a panic-run fault
# keeps the benchmark waiting, silent)
sig_board() {
	sed -e "s|@BS@|$bs|g" -e "s|@W@|$1|g" -e "s|@N@|$2|g" -e "s|@C@|$3|g" \
		-e "s|@OFF@|$sg/off.sh|g" >"${4:-$1}/$2.json" <<'JSON'
{
  "name": "@N@",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "console": { "type": "tty", "device": "@C@" },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@OFF@", "@W@"] },
  "boot": {
    "method": "uboot",
    "tftp_root": "@W@/tftp",
    "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot",
    "interrupt": " ",
    "prompt": "=> ",
    "commands": ["tftpboot {kernel_addr} {kernel}", "tftpboot {ramdisk_addr} {ramdisk}",
                 "setenv initrd_size ${filesize}", "tftpboot {dtb_addr} {dtb}",
                 "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init"
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 10, "bootloader": 30, "kernel": 30, "command": 30 },
  "retries": 0
}
JSON
}


sim_start() {	# DIR [boardsim options]
	local w=$1; shift
	rm -rf "$w"
	mkdir -p "$w/tftp"
	"$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
		--record "$w/record" --tick-ms 10 --autoboot 10 --daemon --pid-file "$w/pid" "$@" 2>"$w/sim.err"
}
sim_state() { "$bs" ctl "$1/ctl" status 2>/dev/null | sed -n 's/.*state=\([a-z]*\).*/\1/p'; }

# sig_case PHASE SIGNAL: the agent gets SIGNAL during PHASE
sig_case() {
	local phase=$1 sig=$2 w=$sg/$1-$2 fault="" event rc state out
	case $phase in
	uboot) fault=1:uboot-hang event="fault uboot-hang" ;;
	kernel) fault=1:kernel-hang event="fault kernel-hang" ;;
	bench) fault=1:panic-run event="fault panic-run" ;;
	off) event="" ;;
	esac
	if ! sim_start "$w" ${fault:+--fault $fault}; then
		bad "signal $sig during $phase: cannot start the simulator: $(cat "$w/sim.err")"
		return
	fi
	sig_board "$w" sim-sig "$w/console"
	mkfifo "$w/gate"
	[ "$phase" = off ] && : >"$w/slow-off"
	"$ablab" ab --board "$w/sim-sig.json" --control "$sg/k/control" \
		--patched "$sg/k/patched" --boots 1 --undecidable-ok --batches 2 --results "$w/results" \
		>"$w/out" 2>&1 &
	local pid=$!
	if [ "$phase" = off ]; then
		wait_for 30 test -e "$w/off-started"
	else
		wait_for 30 grep -q "$event" "$w/record"
	fi || bad "signal $sig during $phase: the agent never got there"
	kill -s "$sig" $pid
	if [ "$phase" = off ]; then
		# the agent has the signal (it says so), then the off command may finish
		wait_for 10 grep -q "SIG$sig: stopping" "$w/out" ||
			echo "  (the agent did not acknowledge SIG$sig)"
		timeout 10 sh -c 'echo go >"$1"' sh "$w/gate"
	fi
	wait $pid; rc=$?
	state=$(sim_state "$w")
	out=$(cat "$w/out")
	if [ "$rc/$state" = 130/off ] && grep -q "boards powered off" "$w/out"; then
		ok "SIG$sig during $phase: board off (simulator state $state), exit $rc, \"boards powered off\""
		fault_rec 3 PASS "SIG$sig during $phase: board off, exit 130, \"boards powered off\""
	else
		bad "SIG$sig during $phase: simulator state $state, exit $rc, want off and 130"
		fault_rec 3 FAIL "SIG$sig during $phase: board off, exit 130, \"boards powered off\""
		echo "$out" | tail -n 6 | sed 's/^/  /'
	fi
	if [ "$phase" != off ]; then
		# the stored reason is the signal, not the wait it cut short ("autoboot
		# line never seen" after 50 ms, "target I/O: Interrupted system call")
		local why num
		num=$(kill -l "$sig")
		why=$(psql_q "SELECT string_agg(error, ' | ') FROM boots WHERE campaign_id = (SELECT max(id) FROM campaigns) AND status = 'failed'")
		fault 3 "SIG$sig during $phase: the attempt is stored as \"interrupted (signal $num)\" ($why)" \
			test "$why" = "interrupted (signal $num)"
	fi
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
}
for phase in uboot kernel bench off; do
	for sig in INT TERM HUP; do
		sig_case $phase $sig
	done
done

# a second signal while the board is being switched off aborts that, clearly
w=$sg/abort
if sim_start "$w" --fault 1:panic-run; then
	sig_board "$w" sim-sig "$w/console"
	mkfifo "$w/gate"
	: >"$w/slow-off"
	"$ablab" ab --board "$w/sim-sig.json" --control "$sg/k/control" \
		--patched "$sg/k/patched" --boots 1 --undecidable-ok --batches 2 --results "$w/results" \
		>"$w/out" 2>&1 &
	pid=$!
	wait_for 30 grep -q "fault panic-run" "$w/record" || bad "abort: no benchmark"
	kill -s TERM $pid
	wait_for 30 test -e "$w/off-started" || bad "abort: the power-off never started"
	kill -s INT $pid
	wait $pid; rc=$?
	state=$(sim_state "$w")
	fault 3 "second signal during the off: exit $rc (130), board left on ($state)" \
		test "$rc" = 130 -a "$state" != off
	fault 3 "second signal during the off: the abort is said" \
		grep -q "SIGINT: aborting the power-off: boards may be left ON" "$w/out"
	fault 3 "second signal during the off: the board is named, not \"boards powered off\"" \
		grep -q "interrupted (signal 15): NOT every board is off: sim-sig: power.off: aborted by a second signal" "$w/out"
	fault 3 "second signal during the off: no claim that the boards are off" \
		test "$(grep -c "boards powered off" "$w/out")" = 0
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
else
	bad "abort: cannot start the simulator: $(cat "$w/sim.err")"
fi

# --- locks ---
lw=$sg/locks
if sim_start "$lw"; then
	mkdir -p "$lw/boards"
	sig_board "$lw" sim-a "$lw/console" "$lw/boards"
	ln -s "$lw/console" "$lw/console-alias"
	sig_board "$lw" sim-b "$lw/console-alias" "$lw/boards"
	export ABLAB_BOARDS=$lw/boards

	# another user cannot block a board: a lock file left 0644 by an older
	# ablab is made 0600, and nobody can then open it to flock or lockf it
	lockf_=$ABLAB_LOCK_DIR/sim-a.lock
	: >"$lockf_"; chmod 644 "$lockf_"
	"$ablab" power sim-a off >/dev/null 2>&1
	fault 9 "lock file is 0600 after a lock (was 0644)" test "$(stat -c %a "$lockf_")" = 600
	# nobody tries to open it and hold flock and lockf (a POSIX read lock
	# conflicts with the agent's OFD write lock) while the board is locked
	mkfifo -m 666 "$lw/release"
	runuser -u nobody -- /usr/bin/python3 -c '
import fcntl, sys
try:
    f = open(sys.argv[1], "rb")
except OSError as e:
    print("cannot open:", e.strerror, flush=True); sys.exit(1)
fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
fcntl.lockf(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
print("held", flush=True)
open(sys.argv[2]).read()' "$lockf_" "$lw/release" >"$lw/nobody.out" 2>&1 &
	nb=$!
	wait_for 10 grep -q "held\|cannot open" "$lw/nobody.out"
	out=$("$ablab" power sim-a off 2>&1); rc=$?
	fault 9 "another user cannot block the board (exit $rc: $out)" test "$rc" = 0
	fault 9 "  ... they cannot even open its lock file ($(cat "$lw/nobody.out"))" \
		grep -q "cannot open: Permission denied" "$lw/nobody.out"
	grep -q held "$lw/nobody.out" && timeout 5 sh -c 'echo go >"$1"' sh "$lw/release"
	wait $nb 2>/dev/null

	# `ablab boards` in a loop never makes a concurrent lock fail.  The loop
	# reads 200 more board files for sim-a (and no database): sim-a's lock
	# is probed 200 times per run, so a probe that took the lock, even for
	# an instant, would be caught
	mkdir -p "$lw/many"
	for i in $(seq 1 200); do cp "$lw/boards/sim-a.json" "$lw/many/alias$i.json"; done
	: >"$lw/boards.stop"
	( while [ -e "$lw/boards.stop" ]; do
		ABLAB_BOARDS=$lw/many ABLAB_DB="host=$lw/nodb" "$ablab" boards >/dev/null 2>&1
	done ) &
	bl=$!
	nfail=0
	for i in $(seq 1 150); do
		"$ablab" power sim-a off >/dev/null 2>"$lw/power.err" ||
			{ nfail=$((nfail + 1)); head -n 1 "$lw/power.err"; }
	done
	"$ablab" ab --board sim-a --control "$sg/k/control" --patched "$sg/k/patched" \
		--boots 1 --undecidable-ok --batches 2 --results "$lw/results" >"$lw/ab.out" 2>&1; rc=$?
	rm -f "$lw/boards.stop"
	wait $bl
	fault 9 "150 \`ablab power\` locks beside an \`ablab boards\` loop: $nfail failed" test $nfail = 0
	fault 9 "a campaign beside an \`ablab boards\` loop completes (exit $rc)" test $rc = 0 ||
		tail -n 3 "$lw/ab.out"

	# two board files for one console exclude each other; the console is TIOCEXCL
	"$bs" ctl "$lw/ctl" arm panic-run >/dev/null
	"$ablab" ab --board sim-a --control "$sg/k/control" --patched "$sg/k/patched" \
		--boots 1 --undecidable-ok --batches 2 --results "$lw/results" >"$lw/out" 2>&1 &
	pid=$!
	if wait_for 30 grep -q "fault panic-run" "$lw/record"; then
		out=$("$ablab" power sim-b off 2>&1); rc=$?
		fault 9 "a second board file for the same console is refused (exit $rc): $out" \
			test "$rc" = 1
		fault 9 "  ... with \"console ... is in use by ... board sim-a\"" \
			grep -q "sim-b: console $(realpath "$lw/console") is in use by pid $pid (uid [0-9]*, ablab [a-z]*) on .*board sim-a" <<<"$out"
		out=$("$ablab" boards 2>/dev/null | grep -A3 "^sim-b " | grep "^  lock ")
		fault 9 "\`ablab boards\` shows sim-b held through its console:$out" \
			grep -q "pid $pid .*through console" <<<"$out"
		pts=$(realpath "$lw/console")
		chmod o+rw "$pts"
		out=$(runuser -u nobody -- sh -c 'exec 3<>"$1" && echo opened' sh "$pts" 2>&1)
		fault 9 "the open console is exclusive (TIOCEXCL): another open gets \"busy\" ($out)" \
			grep -q "busy" <<<"$out"
	else
		bad "locks: the campaign on sim-a never reached its benchmark"
	fi
	kill -s TERM $pid
	wait $pid
	out=$("$ablab" power sim-b off 2>&1); rc=$?
	fault 9 "once sim-a is released, sim-b locks (exit $rc) $out" test "$rc" = 0
	export ABLAB_BOARDS=$top/boards
	"$bs" ctl "$lw/ctl" quit >/dev/null 2>&1
else
	bad "locks: cannot start the simulator: $(cat "$lw/sim.err")"
fi

echo "== SIGTERM to ablab alone while it builds a kernel: the build stops with it"
# (issue 27, Low: the agent waited for a running build, minutes for a real one;
# a fake build.sh that waits on a long sleep stands in)
kb=$tmp/kb47
mkdir -p "$kb/boards/kernel" "$kb/p"
cp jobs/dma-from-device/patches/*.patch "$kb/p/"
: >"$kb/boards/kernel/fake.conf"
cat >"$kb/boards/kernel/build.sh" <<'EOF2'
echo "fake build $1 $2" >&2
sleep 300 &
echo $! >"$FAKE_DIR/sleep.pid"
wait
EOF2
sim_uboot_board fakebuild "$kb/sim"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); b["kernel"] = {"recipe": "kernel/fake.conf"}; json.dump(b, open(sys.argv[2], "w"))' \
	"$kb/sim/board.json" "$kb/boards/fakebuild.json"
cat >"$kb/job.json" <<EOF2
{ "name": "fakebuild", "boards": ["$kb/boards/fakebuild.json"],
  "variants": { "control": { "source": { "type": "recipe" } },
                "patched": { "source": { "type": "recipe" }, "patches": "p" } },
  "benchmark": { "name": "dmabench" }, "boots": 1 }
EOF2
FAKE_DIR=$kb "$ablab" run "$kb/job.json" --undecidable-ok --results "$kb/res" >"$kb/out" 2>&1 &
apid=$!
if wait_for 60 test -s "$kb/sleep.pid"; then
	spid=$(cat "$kb/sleep.pid")
	t0=$SECONDS
	kill -TERM "$apid"
	wait_for 20 bash -c "! kill -0 $apid 2>/dev/null"
	took=$((SECONDS - t0))
	# gone: no such process, or a zombie waiting for a reaper (the build's shell died first)
	gone() { ! kill -0 "$1" 2>/dev/null || [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
	wait_for 10 gone "$spid"
	build_stopped() { [ "$took" -lt 10 ] && ! kill -0 "$apid" 2>/dev/null && gone "$spid"; }
	fault 27.19 "SIGTERM to ablab alone during a build: it ends within 10 s ($took s) and the build's sleep is gone" \
		build_stopped
	kill "$spid" 2>/dev/null
	wait "$apid" 2>/dev/null
else
	bad "fake build did not start: $(tail -n 3 "$kb/out")"
	kill "$apid" 2>/dev/null
fi
