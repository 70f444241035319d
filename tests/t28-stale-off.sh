# lane: side
# A stale campaign's boards are powered off when found (issue 27, Low): the agent is
# killed with SIGKILL while its command-powered simulator board is on (hung in U-Boot),
# so nothing switches it off; the campaign shows stale and `ablab power --stale-off`
# (the nightly unit's ExecStopPost=) switches the board off.
bs=$top/build/boardsim
w=$tmp/stale
"$ablab" db start >/dev/null 2>&1
mkdir -p "$w/k"
sim_kernels "$w/k" sim-stale
sim_uboot_board sim-stale "$w"

sim_state() { "$bs" ctl "$w/ctl" status 2>/dev/null | sed -n 's/.*state=\([a-z]*\).*/\1/p'; }

if ! "$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
	--record "$w/record" --tick-ms 10 --autoboot 10 --daemon --pid-file "$w/pid" \
	--fault 1:uboot-hang 2>"$w/sim.err"; then
	bad "stale: cannot start the simulator: $(cat "$w/sim.err")"
	return 0
fi
"$ablab" ab --board "$w/board.json" --control "$w/k/control" --patched "$w/k/patched" \
	--boots 1 --undecidable-ok --batches 2 --results "$w/results" >"$w/out" 2>&1 &
pid=$!
wait_for 30 grep -q "fault uboot-hang" "$w/record" || bad "stale: the agent never reached U-Boot"
kill -9 $pid
wait $pid 2>/dev/null
cid=$(psql_q "SELECT max(id) FROM campaigns")
# state dead: powered, hung in U-Boot (boardsim's states: off dead countdown uboot shell)
check "stale: after kill -9 the board is still powered (simulator state $(sim_state))" \
	bash -c "[ -n '$(sim_state)' ] && [ '$(sim_state)' != off ]"
check "stale: campaign $cid shows stale" wait_for 10 bash -c "'$ablab' campaigns | grep -qw stale"
"$ablab" power --stale-off >"$w/off.out" 2>&1
rc=$?
fault 27.23 "stale campaign: \`ablab power --stale-off\` switches its board off (exit $rc, simulator state $(sim_state))" \
	bash -c "[ $rc = 0 ] && [ \"\$('$bs' ctl '$w/ctl' status | sed -n 's/.*state=\([a-z]*\).*/\1/p')\" = off ] && grep -q 'campaign $cid (stale): sim-stale: power off' '$w/off.out'" ||
	sed 's/^/  /' "$w/off.out"
# found again (the campaign stays stale for `ablab resume`): off again, harmless
"$bs" ctl "$w/ctl" on >/dev/null
"$ablab" power --stale-off >"$w/off2.out" 2>&1
fault 27.23 "stale campaign: a second --stale-off switches it off again (exit $?, state $(sim_state))" \
	test "$(sim_state)" = off
# any campaign command (run, ab, resume, nightly: campaign_run) that starts while the
# campaign is stale switches its boards off first, and says so.  The board on again, then
# `ablab ab` with a free-space floor no disk meets (ABLAB_MIN_FREE_MB), which it checks
# after that and refuses: nothing else of it switches the board.
"$bs" ctl "$w/ctl" on >/dev/null
on_state=$(sim_state)
ABLAB_MIN_FREE_MB=999999999 "$ablab" ab --board "$w/board.json" --control "$w/k/control" \
	--patched "$w/k/patched" --boots 1 --undecidable-ok --batches 2 --results "$w/results" >"$w/start.out" 2>&1
rc=$?
grep -m1 'is stale' "$w/start.out"
fault 27.23 "stale campaign: \`ablab ab\` starting switches its board off before going on ($on_state -> $(sim_state), exit $rc: refused by the floor after it), naming board and campaign" \
	bash -c "[ \"\$('$bs' ctl '$w/ctl' status | sed -n 's/.*state=\([a-z]*\).*/\1/p')\" = off ] && grep -q 'campaign $cid is stale (its agent died, its boards maybe left on): board sim-stale switched off before going on' '$w/start.out' && grep -q 'MiB free, below' '$w/start.out'" ||
	sed 's/^/  /' "$w/start.out"
# once: a board switched on by hand afterwards (the campaign still stale, no boot since)
# is left on by the next campaign command
"$bs" ctl "$w/ctl" on >/dev/null
ABLAB_MIN_FREE_MB=999999999 "$ablab" ab --board "$w/board.json" --control "$w/k/control" \
	--patched "$w/k/patched" --boots 1 --undecidable-ok --batches 2 --results "$w/results" >"$w/start2.out" 2>&1
check "stale campaign: switched off once, not at every start: a board switched on by hand stays on ($(sim_state))" \
	bash -c "[ \"\$('$bs' ctl '$w/ctl' status | sed -n 's/.*state=\([a-z]*\).*/\1/p')\" != off ] && ! grep -q 'is stale' '$w/start2.out'"
"$bs" ctl "$w/ctl" off >/dev/null
check "stale: the nightly unit runs \`ablab power --stale-off\` as ExecStopPost" \
	grep -qx 'ExecStopPost=-/srv/ablab/ablab power --stale-off' "$top/jobs/systemd/ablab-nightly.service"
check "stale: --help documents --stale-off" bash -c "'$ablab' power --help | grep -q -- --stale-off"
"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
