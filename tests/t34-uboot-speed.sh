# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# Faster real boots where it costs nothing (issue 29 item 2): U-Boot's TFTP block and
# window sizes from the board file, with the fallback to 512/1 when a transfer fails (the
# board simulator's --tftp-max-blocksize drops larger blocks, as a path dropping IP
# fragments does), shown by check-board and typed on a real qemu-pi400 boot (Debian's
# U-Boot, QEMU's TFTP server); boot.interrupt_early; and the power-off checked through a
# power.status command (the simulator's own `ctl status --exit-status`).
bs=$top/build/boardsim
w=$tmp/t34
"$ablab" db start >/dev/null 2>&1
mkdir -p "$w"
sim_kernels "$w/k" sim-tftp
sim_uboot_board sim-tftp "$w"

echo "== check-board: the sizes, and their range"
out=$("$ablab" check-board "$w/board.json" 2>&1)
check "check-board shows the default sizes ($out)" grep -q 'boot uboot, TFTP block size 1468 window 8 (boot.tftp_blocksize, boot.tftp_windowsize))$' <<<"$out"
sed 's/"server_ip"/"tftp_blocksize": 1024, "tftp_windowsize": 16, "server_ip"/' "$w/board.json" >"$w/sizes.json"
out=$("$ablab" check-board "$w/sizes.json" 2>&1)
check "check-board shows the board file's sizes ($out)" grep -q 'TFTP block size 1024 window 16 ' <<<"$out"
sed 's/"server_ip"/"tftp_blocksize": 65465, "tftp_windowsize": 0, "server_ip"/' "$w/board.json" >"$w/range.json"
out=$("$ablab" check-board "$w/range.json" 2>&1); rc=$?
check "sizes out of range: exit 1, file:line:col and field named ($out)" bash -c "[ $rc = 1 ] && grep -q 'range.json:[0-9]*:[0-9]*: boot.tftp_blocksize: out of range; must be 8..65464' <<<\"\$1\" && grep -q 'boot.tftp_windowsize: out of range; must be 1..64' <<<\"\$1\"" _ "$out"
sed 's/"interrupt": " ",/"interrupt": "\\n", "interrupt_early": true,/' "$w/board.json" >"$w/early-nl.json"
out=$("$ablab" check-board "$w/early-nl.json" 2>&1); rc=$?
check "interrupt_early with a newline interrupt refused ($out)" bash -c "[ $rc = 1 ] && grep -q 'boot.interrupt_early: needs a boot.interrupt without newline or Ctrl-C' <<<\"\$1\"" _ "$out"

echo "== the fallback: a path that drops blocks above 1024 bytes"
if ! "$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" --record "$w/record" \
	--tick-ms 5 --autoboot 10 --tftp-max-blocksize 1024 --daemon --pid-file "$w/pid" 2>"$w/sim.err"; then
	bad "t34: cannot start the simulator: $(cat "$w/sim.err")"
	return 0
fi
"$ablab" ab --board "$w/board.json" --control "$w/k/control" --patched "$w/k/patched" --boots 2 \
	--undecidable-ok --batches 1 --results "$w/res" >"$w/out" 2>"$w/err"; rc=$?
grep 'tftpboot' "$w/err"
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "fallback: campaign exit 0, 4 ok boots, no failed attempt" test "$rc/$(psql_q "SELECT count(*) FILTER (WHERE status = 'ok') || '/' || count(*) FROM boots WHERE campaign_id = $cid")" = "0/4/4"
check "fallback: one info line naming the board, the command, the sizes and the keys" bash -c "[ \$(grep -c 'tftpboot' '$w/err') = 1 ] && grep -q 'sim-tftp: \`tftpboot 0x22000000 sim-tftp/zImage\` (boot.commands\[2\]) failed with TFTP block size 1468 and window size 8 (Retry count exceeded; starting again): typing it again with 512 and 1, as every later boot of this campaign will; if this board needs them, set boot.tftp_blocksize 512 and boot.tftp_windowsize 1 in its board file' '$w/err'"
t1=$(ls "$w"/res/campaign-*/sim-tftp-001-*.log)
check "fallback: boot 1 typed 1468/8 with its first command, then the failed tftpboot again with 512/1" bash -c "grep -q '^=> setenv tftpblocksize 1468; setenv tftpwindowsize 8; setenv autoload no' '$t1' && grep -q '^=> setenv tftpblocksize 512; setenv tftpwindowsize 1; tftpboot 0x22000000 sim-tftp/zImage' '$t1'"
check "fallback: boots 2-4 start with 512/1 and transfer at once" bash -c "for f in '$w'/res/campaign-*/sim-tftp-00[234]-*.log; do grep -q '^=> setenv tftpblocksize 512; setenv tftpwindowsize 1; setenv autoload no' \"\$f\" && ! grep -q 'Retry count' \"\$f\" || exit 1; done"
check "fallback: the simulator timed out exactly one transfer (its record)" test "$(grep -c 'tftp blocksize 1468 above 1024: timed out' "$w/record")" = 1

echo "== boot.interrupt_early on the simulator"
sed 's/"interrupt": " ",/"interrupt": " ", "interrupt_early": true,/' "$w/board.json" >"$w/early.json"
"$ablab" check "$w/early.json" --kernel "$w/k/control" >"$w/early.out" 2>&1; rc=$?
log=$(ls -t "$ABLAB_DATA"/health/sim-tftp-*.log | head -n 1)
check "interrupt_early: the boot works (exit $rc), keys then Ctrl-C, the first command on a clean line" bash -c "[ $rc = 0 ] && grep -q 'booted to the shell' '$w/early.out' && grep -q '^=>  *^C' '$log' && grep -q '^=> setenv tftpblocksize 1468; setenv tftpwindowsize 8; setenv autoload no' '$log'"

echo "== power.status: the off checked, not assumed"
sim_state() { "$bs" ctl "$w/ctl" status 2>/dev/null | sed -n 's/.*state=\([a-z]*\).*/\1/p'; }
"$bs" ctl "$w/ctl" off >/dev/null 2>&1
"$bs" ctl "$w/ctl" status --exit-status >/dev/null; st_off=$?
"$bs" ctl "$w/ctl" on >/dev/null; "$bs" ctl "$w/ctl" status --exit-status >/dev/null; st_on=$?
"$bs" ctl "$w/nosuch" status --exit-status >/dev/null 2>&1; st_none=$?
check "boardsim ctl status --exit-status: on 0, off 1, no simulator 2" test "$st_on/$st_off/$st_none" = "0/1/2"
# status_board OUT CTL OFF_MS POWER_S: the board file with power.status asking the simulator
# behind CTL, power.off_ms and timeouts_s.power set
status_board() {
	python3 - "$w/board.json" "$1" "$bs" "$2" "$3" "$4" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b['power']['status'] = [sys.argv[3], 'ctl', sys.argv[4], 'status', '--exit-status']
b['power']['off_ms'] = int(sys.argv[5])
b['timeouts_s']['power'] = int(sys.argv[6])
json.dump(b, open(sys.argv[2], 'w'), indent=1)
PY
}
# a second simulator, always on: a status that keeps saying on (a relay that did not open)
if ! "$bs" run --ctl "$w/ctl2" --pty-link "$w/console2" --on --daemon --pid-file "$w/pid2" 2>"$w/sim2.err"; then
	bad "t34: cannot start the second simulator: $(cat "$w/sim2.err")"
else
	status_board "$w/stuck.json" "$w/ctl2" 1000 2
	t0=$(date +%s%N)
	out=$("$ablab" power "$w/stuck.json" off 2>&1); rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	check "status says on: off fails after timeouts_s.power 2 s ($ms ms, exit $rc), saying so ($out)" bash -c "[ $rc != 0 ] && [ $ms -ge 2000 ] && grep -q 'sim-tftp: power.status still says on (exit 0) 2 s after power.off (timeouts_s.power, [0-9]* polls): the board may still be ON' <<<\"\$1\"" _ "$out"
	"$bs" ctl "$w/ctl2" quit >/dev/null 2>&1
fi
# the board's own status: off at once, so a cycle waits off_ms (1 s) and not the power timeout
status_board "$w/status.json" "$w/ctl" 1000 5
out=$("$ablab" check "$w/status.json" --dry-run 2>&1)
check "dry run checks power.status ($out)" grep -q "ok    power.status: $bs found" <<<"$out"
t0=$(date +%s%N)
out=$("$ablab" power "$w/status.json" cycle 2>&1); rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
check "status says off: cycle ok in $ms ms: at least off_ms 1000, well under timeouts_s.power 5 s; on again ($(sim_state))" bash -c "[ $rc = 0 ] && [ $ms -ge 1000 ] && [ $ms -lt 3000 ] && [ '$(sim_state)' != off ]"
"$ablab" power "$w/status.json" off >/dev/null 2>&1
check "status says off: off ok, the simulator is off" test "$(sim_state)" = off
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); b["power"]["status"][2] += ".nosuch"; json.dump(b, open(sys.argv[2], "w"))' "$w/status.json" "$w/badstatus.json"
"$bs" ctl "$w/ctl" on >/dev/null
out=$("$ablab" power "$w/badstatus.json" off 2>&1); rc=$?
check "a status command that cannot answer (exit 2) fails the off, naming it ($out)" bash -c "[ $rc != 0 ] && grep -q 'power.status: .* exited with status 2 (power.status must exit 0 for on, 1 for off): boardsim ctl: .*nosuch' <<<\"\$1\"" _ "$out"
"$bs" ctl "$w/ctl" quit >/dev/null 2>&1

echo "== qemu-pi400: the sizes typed on a real U-Boot, the boot works"
if need_kernels qemu-pi400 control; then
	"$ablab" check qemu-pi400 --kernel "$kcache/kernels/qemu-pi400/control" >"$w/pi.out" 2>&1; rc=$?
	log=$(ls -t "$ABLAB_DATA"/health/qemu-pi400-*.log | head -n 1)
	grep -a -E 'tftpblocksize|Bytes transferred' "$log"
	check "qemu-pi400: boots (exit $rc) with 1468/8 typed before its first command, both files transferred" bash -c "[ $rc = 0 ] && grep -q 'booted to the shell' '$w/pi.out' && grep -aq '^=> setenv tftpblocksize 1468; setenv tftpwindowsize 8; setenv autoload no' '$log' && [ \$(grep -ac 'Bytes transferred = ' '$log') = 2 ]"
fi
