# A/A calibration (issue 12 item 7) on the board simulator: `ablab calibrate`
# boots the same kernel on both sides, stores each scenario's within- and
# between-boot variance (the simulator's are known: 1 % between boots, 0.5 %
# within), prints the minimum detectable effect, and a later campaign's report
# on that board shows the MDE next to each row.
bs=$top/build/boardsim
dd=$tmp/cal54
"$ablab" db start >/dev/null 2>&1
sim_kernels "$dd/k" sim-cal
sim_uboot_board sim-cal "$dd"
if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 5 --autoboot 10 --seed 54 --daemon --pid-file "$dd/pid" 2>"$dd/sim.err"; then
	bad "t54: cannot start the simulator: $(cat "$dd/sim.err")"
else
	out=$("$ablab" calibrate "$dd/board.json" --kernel "$dd/k/control" --boots 6 --batches 4 --results "$dd/res" 2>"$dd/err"); rc=$?
	echo "$out" | tail -n 8
	check "calibrate: exit 0" test "$rc" = 0
	cc=$(psql_q "SELECT max(campaign_id) FROM calibrations")
	check "calibrate: the A/A campaign booted one kernel on both sides" test "$(psql_q "SELECT count(DISTINCT kernel_id) || '/' || count(*) FROM boots WHERE campaign_id = $cc AND status = 'ok'")" = 1/12
	check "calibrate: one row per timing scenario stored, with its kernel" test "$(psql_q "SELECT count(*) || '/' || count(image_sha256) FROM calibrations WHERE campaign_id = $cc")" = 4/4
	cvb=$(psql_q "SELECT round((100 * sqrt(var_between) / mean)::numeric, 2) FROM calibrations WHERE campaign_id = $cc AND scenario = 'large-dirty-1MiB'")
	check "calibrate: 1 MiB dirty between-boot CV near the simulator's 1 % ($cvb %)" python3 -c "import sys; assert 0.3 < float(sys.argv[1]) < 2.5" "$cvb"
	check "calibrate: prints the MDE at 6+6" grep -Eq 'sim-cal +large-dirty-1MiB .* [0-9.]+% at 6\+6' <<<"$out"
	# a later campaign on the board: its report has an MDE per timing row
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" --boots 4 --undecidable-ok --batches 4 --results "$dd/res" >"$dd/ab.out" 2>"$dd/ab.err"; rc=$?
	grep -E 'mde|dirty' "$dd/ab.out" | head -n 4
	check "the next campaign's report has an mde column" grep -Eq ' p_holm +mde +verdict' "$dd/ab.out"
	check "  ... with a figure on 1 MiB dirty" grep -Eq '1 MiB dirty .* [0-9.]+% +(different|same|undecided)' "$dd/ab.out"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	"$ablab" report "$cid" --format json >"$dd/r.json"
	check "json: mde and its calibration campaign" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
x = [w for w in r['rows'] if w['scenario'] == 'large-dirty-1MiB'][0]
assert 0 < x['mde'] < 0.1 and x['mde_calibration_campaign'] == int(sys.argv[2]), x.get('mde')
" "$dd/r.json" "$cc"
	# a sequential campaign on the calibrated board: its false-alarm rate with its power
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--budget 5 --first 5 --batches 4 --results "$dd/res" >"$dd/seq.out" 2>"$dd/seq.err"; rc=$?
	check "sequential after a calibration: the false-alarm rate comes with the power at ±1% from it" bash -c "[ $rc = 0 ] && tr '\n' ' ' <'$dd/seq.out' | grep -Eq 'overall false-alarm rate [0-9.]+.{1,3}[0-9.]+ by simulation, power [01]\.[0-9]+ against a change of ±1% \(A/A calibration, lowest row\)'"
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi
out=$("$ablab" calibrate 2>&1); rc=$?
check "calibrate without a board: exit 2" test "$rc" = 2
check "calibrate without a board: its usage" grep -q 'usage: ablab calibrate BOARD' <<<"$out"
