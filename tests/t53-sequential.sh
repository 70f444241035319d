# Sequential campaigns (issue 12 item 1) on the board simulator, through the
# real data path: `ablab ab --budget 10 --first 4` boots in rounds of one
# control and one patched boot, looks after each round and stops when every
# timing row is decided.  The simulator's patched kernel is 6.3 % slower on
# 256 B dirty and changes the other scenarios by at most 0.21 % (1 % between
# boots, 0.5 % within), so the rows must end "different" for 256 B dirty and
# "same within ±1%" for the rest, before the budget.  Then the report of that
# campaign decides with the same design, and a job field error names itself.
bs=$top/build/boardsim
dd=$tmp/seq53
"$ablab" db start >/dev/null 2>&1
sim_kernels "$dd/k" sim-seq
sim_uboot_board sim-seq "$dd"
if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 5 --autoboot 10 --seed 53 --between 0.003 --daemon --pid-file "$dd/pid" 2>"$dd/sim.err"; then
	bad "t53: cannot start the simulator: $(cat "$dd/sim.err")"
else
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--budget 10 --first 4 --batches 3 --results "$dd/res" >"$dd/out" 2>"$dd/err"; rc=$?
	grep -E 'after [0-9]+\+[0-9]+ boots|every row decided' "$dd/err"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	nb=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	check "sequential: exit 0, campaign complete" test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
	check "sequential: stopped before the budget of 10+10 ($nb boots)" test "$nb" -lt 20
	check "sequential: an even number of boots, one control and one patched per round" test "$(psql_q "SELECT count(*) FILTER (WHERE variant = 'control') || '=' || count(*) FILTER (WHERE variant = 'patched') FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = "$((nb / 2))=$((nb / 2))"
	check "sequential: the agent said every row was decided" grep -q 'sim-seq: every row decided after' "$dd/err"
	check "sequential: no look before 4+4" bash -c "! grep -Eq 'after [123]\+[123] boots' '$dd/err'"
	grep -E 'dirty|clean|null' "$dd/out"
	check "sequential: 256 B dirty different" grep -Eq '256 B dirty .* different$' "$dd/out"
	check "sequential: 1 MiB dirty and clean same within ±1%" bash -c "grep -Eq '1 MiB dirty .* same within ±1%$' '$dd/out' && grep -Eq '1 MiB clean .* same within ±1%$' '$dd/out'"
	check "sequential: the method names the design (looks, rate by simulation)" bash -c "tr '\n' ' ' <'$dd/out' | grep -Eq 'group-sequential exact rank test \(Pocock-type boundaries over 7 looks'"
	check "sequential: its false-alarm rate is printed with its power (here: unknown, no calibration)" bash -c "tr '\n' ' ' <'$dd/out' | grep -q 'by simulation, power against ±1% unknown without an A/A calibration)'"
	check "sequential: the report prints the boundaries of every look" bash -c "tr '\n' ' ' <'$dd/out' | grep -Eq 'Boundaries at [0-9.e-]+ per row \(look n\+n:u_diff/u_eq: .*\): 4\+4:-?[0-9]+/-?[0-9]+ 5\+5:.* 10\+10:-?[0-9]+/-?[0-9]+\.'"
	"$ablab" report "$cid" --format json >"$dd/r.json"
	check "sequential: json rows carry the decision and its look" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x['scenario']: x for x in r['rows'] if x['kind'] == 'result' and x['scenario'] != 'null'}
assert rows and all(x['sequential_decision'] in ('different', 'same') for x in rows.values()), rows
assert all(x['sequential_look'] == int(sys.argv[2]) // 2 - 3 for x in rows.values())
" "$dd/r.json" "$nb"
	# a design that cannot decide, run anyway: stored and said by the report
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots 2 --undecidable-ok --batches 1 --results "$dd/res" >"$dd/u.out" 2>"$dd/u.err"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "--undecidable-ok: runs (exit $rc), warning first" bash -c "[ $rc = 0 ] && head -n 1 '$dd/u.err' | grep -q 'warning: design 2+2 boots, 1 board x 3 timing rows .* running it anyway (--undecidable-ok)'"
	check "--undecidable-ok: the run record says why" bash -c "psql_q() { psql -X -A -t -q 'host=$ABLAB_DATA/pg dbname=ablab user=ablab' -c \"\$1\"; }; psql_q \"SELECT run->>'undecidable' FROM campaigns WHERE id = $cid\" | grep -q 'can never say \"different\": the smallest p of 2+2 boots is 0.333'"
	check "--undecidable-ok: the text report states that the design could not decide" grep -q 'this design could not decide (run with --undecidable-ok): design 2+2 boots' "$dd/u.out"
	"$ablab" report "$cid" --format email >"$dd/u.email"
	check "--undecidable-ok: so does the email, and its footnote gives the real reason" bash -c "tr '\n' ' ' <'$dd/u.email' | grep -q 'This design could not decide' && tr '\n' ' ' <'$dd/u.email' | grep -q 'smallest possible p is 0.33, above the 0.017 one row is held to (alpha 0.05 over 3 rows, Holm)'"
	check "--undecidable-ok: so does the html report" bash -c "'$ablab' report $cid --format html | grep -q '<p class=\"undecidable\">This design could not decide'"
	check "--undecidable-ok: json \"undecidable\"" python3 -c "import json, sys; assert 'can never say' in json.load(sys.stdin)['undecidable']" < <("$ablab" report "$cid" --format json)
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi
# designs that can never decide: refused before the first boot (no board, no kernel needed)
n0=$(psql_q "SELECT count(*) FROM campaigns")
out=$("$ablab" ab --board qemu-sam9x75 --boots 3 2>&1); rc=$?
check "ab --boots 3: refused with exit 2 before any boot, naming 5+5 ($out)" bash -c "[ $rc = 2 ] && grep -q 'design 3+3 boots, 1 board x 3 timing rows at alpha 0.05 (0.0167 per row) can never say \"different\": the smallest p of 3+3 boots is 0.1; the smallest that can: --boots 5 for \"different\", --boots 3 for \"same within ±1%\"; pass --undecidable-ok' <<<\"\$1\"" _ "$out"
out=$("$ablab" ab --board qemu-sam9x75 --budget 4 --first 3 2>&1); rc=$?
check "ab --budget 4 --first 3: refused, naming --budget 5 ($out)" bash -c "[ $rc = 2 ] && grep -q 'design sequential 3+3..4+4 boots, .* the smallest p of 4+4 boots is 0.0286; the smallest that can: --budget 5 with --first 3 for \"different\"' <<<\"\$1\"" _ "$out"
out=$("$ablab" run jobs/dma-from-device.json --budget 5 --first 3 2>&1); rc=$?
check "run of 3 boards, --budget 5: refused (9 rows at 0.0056: 5+5 gives 0.0079), naming --budget 6" bash -c "[ $rc = 2 ] && grep -q '3 boards x 3 timing rows at alpha 0.05 (0.00556 per row) can never say .* --budget 6 with --first 3 for' <<<\"\$1\"" _ "$out"
out=$("$ablab" calibrate qemu-sam9x75 --boots 2 2>&1); rc=$?
check "calibrate --boots 2: refused, an A/A campaign must be able to say same" bash -c "[ $rc = 2 ] && grep -q 'can never say \"same within ±1%\": the widest interval of 2+2 boots reaches 66.7%, not the 90% \"same\" needs' <<<\"\$1\"" _ "$out"
check "the refusals created no campaign" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$n0"
out=$("$ablab" run jobs/dma-from-device.json --dry-run 2>&1)
check "the shipped job's design can decide: 6+6 boots" bash -c "grep -q '6+6 boots' <<<\"\$1\" && grep -q 'design: every timing row can end \"different\"' <<<\"\$1\"" _ "$out"
out=$("$ablab" run jobs/dma-from-device-series.json --dry-run 2>&1)
check "the shipped series job's design can decide: 7 rounds (27 comparisons)" bash -c "grep -q '7 rounds of one boot of each of 3 variants' <<<\"\$1\" && grep -q 'design: every timing row can end' <<<\"\$1\"" _ "$out"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["first"] = 4; json.dump(j, open(sys.argv[2], "w"), indent=1)' jobs/dma-from-device.json "$tmp/seqjob.json"
out=$("$ablab" run "$tmp/seqjob.json" --dry-run 2>&1)
check "job: first without budget is an error naming the field" grep -q 'seqjob.json:.*first: is the first look of a sequential design: set "budget" too' <<<"$out"
out=$("$ablab" ab --board "$dd/board.json" --budget 6 --order random 2>&1); rc=$?
check "ab --budget with --order random: exit 2, saying why" bash -c "[ $rc = 2 ] && grep -q 'use --order abab or abba' <<<'$out'"
