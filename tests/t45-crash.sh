# Crash safety on the real emulated board: SIGINT, kill -9 and resume, board
# locks, and a database outage mid-campaign (boots spooled, then loaded).
# Waits are on conditions with deadlines (wait_for), never fixed sleeps.
kdir=$kcache/kernels/qemu-sam9x75
ok_boots() { psql_q "SELECT count(*) FROM boots WHERE campaign_id = $1 AND status = 'ok'"; }
# conditions for wait_for: evaluated on every poll (not frozen by $(...) at the call)
new_campaign() { [ "$(last)" != "$1" ]; }
has_ok_boots() { [ "$(ok_boots "$1")" -ge "$2" ]; }
running_campaigns() { [ "$(psql_q "SELECT count(*) FROM campaigns WHERE status = 'running'")" -ge 1 ]; }
# a QEMU left behind by a dead agent is re-parented to init (other test runs'
# QEMUs still have their own agent as parent, so they do not count)
no_qemu() { ! pgrep -P 1 -f "qemu-system-arm.*$kdir" >/dev/null; }
if ! need_kernels qemu-sam9x75 control; then
	:
else
	"$ablab" db start >/dev/null
	res=$tmp/crash
	last() { psql_q "SELECT coalesce(max(id), 0) FROM campaigns"; }

	# SIGINT: boards powered off, campaign interrupted, exit 130; resume completes it
	c0=$(last)
	"$ablab" ab --board qemu-sam9x75 --boots 3 --undecidable-ok --batches 1 --results "$res" >/dev/null 2>"$tmp/int.err" &
	pid=$!
	wait_for 120 new_campaign "$c0"
	cid=$(last)
	check "SIGINT: first boot stored" wait_for 120 has_ok_boots "$cid" 1
	kill -INT $pid; wait $pid; rc=$?
	check "SIGINT: exit 130 (got $rc)" test "$rc" = 130
	check "SIGINT: campaign marked interrupted" test "$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = interrupted
	check "SIGINT: no QEMU left behind" no_qemu
	"$ablab" resume "$cid" --results "$res" >/dev/null 2>"$tmp/resume.err"; rc=$?
	tail -n 3 "$tmp/resume.err"
	check "resume after SIGINT completes the campaign" test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
	check "resume: 6 ok boots, slots 1..6 once each, ABAB kept" test "$(psql_q "SELECT string_agg(seq || left(variant, 1), ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = "1c,2p,3c,4p,5c,6p"

	# kill -9 at a random moment: no half boot, no duplicate after resume
	c0=$(last)
	"$ablab" ab --board qemu-sam9x75 --boots 2 --undecidable-ok --batches 1 --results "$res" >/dev/null 2>"$tmp/kill.err" &
	pid=$!
	wait_for 120 new_campaign "$c0"
	cid=$(last)
	wait_for 120 has_ok_boots "$cid" 1
	kill -9 $pid; wait $pid 2>/dev/null
	check "kill -9: QEMU died with the agent" wait_for 10 no_qemu
	# what a killed agent cannot remove is in TMPDIR (the part's own), not /tmp
	check "kill -9: the agent's run directory is in \$TMPDIR ($(ls -d "$TMPDIR"/ablab.* 2>/dev/null | tr '\n' ' '))" \
		sh -c 'ls -d "$TMPDIR"/ablab.* >/dev/null 2>&1'
	check "kill -9: every stored ok boot has all its samples" test "$(psql_q "SELECT count(*) FROM boots b WHERE campaign_id = $cid AND status = 'ok' AND (SELECT count(*) FROM samples s WHERE s.boot_id = b.id) <> 5")" = 0
	"$ablab" resume "$cid" --results "$res" >/dev/null 2>&1
	check "kill -9 then resume: 4 ok boots, no duplicate slot" test "$(psql_q "SELECT count(*) || '/' || count(DISTINCT seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = "4/4"

	# a second agent on the same board is refused, naming the holder
	"$ablab" ab --board qemu-sam9x75 --boots 2 --undecidable-ok --batches 1 --results "$res" >/dev/null 2>&1 &
	pid=$!
	c0=$(last)
	wait_for 120 running_campaigns
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 1 --results "$res" 2>&1); rc=$?
	echo "$out"
	check "lock: second agent refused (exit $rc)" test "$rc" = 1
	check "lock: the refusal names the holder's pid $pid" grep -q "in use by pid $pid " <<<"$out"
	check "lock: refused agent created no campaign" test "$(psql_q "SELECT count(*) FROM campaigns WHERE status = 'running'")" = 1
	kill -9 $pid; wait $pid 2>/dev/null
	cid=$(last)
	psql_q "UPDATE campaigns SET status = 'failed' WHERE id = $cid" >/dev/null
	check "lock: a dead holder's lock is taken over" bash -c "'$ablab' ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 1 --results '$res' >/dev/null 2>&1"

	# database outage mid-campaign: boots spooled, nothing lost, loaded later
	c0=$(last)
	"$ablab" ab --board qemu-sam9x75 --boots 3 --undecidable-ok --batches 1 --results "$res" >/dev/null 2>"$tmp/outage.err" &
	pid=$!
	wait_for 120 new_campaign "$c0"
	cid=$(last)
	wait_for 120 has_ok_boots "$cid" 1
	"$ablab" db stop >/dev/null
	wait $pid
	check "outage: boots spooled" bash -c "ls '$res'/spool/*.json >/dev/null 2>&1"
	"$ablab" db start >/dev/null
	"$ablab" spool load --results "$res" >"$tmp/spool-load.out" 2>&1
	got=$(psql_q "SELECT count(*) || '/' || count(DISTINCT seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	check "outage: after spool load all 6 boots are stored exactly once ($got)" test "$got" = "6/6" || {
		sed 's/^/   load: /' "$tmp/spool-load.out"; tail -n 8 "$tmp/outage.err" | sed 's/^/   run: /'
		psql_q "SELECT '   ' || seq || ' ' || variant || ' ' || status || ' ' || coalesce(error, '') FROM boots WHERE campaign_id = $cid ORDER BY seq, id"
		ls -R "$res/spool" 2>/dev/null | sed 's/^/   spool: /'
	}
	check "outage: spool emptied" bash -c "! ls '$res'/spool/*.json >/dev/null 2>&1"
	"$ablab" spool load --results "$res" >/dev/null 2>&1
	check "outage: loading again adds nothing" test "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid")" = 6
fi
