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
	check "sequential: the report prints the boundaries of every look" bash -c "tr '\n' ' ' <'$dd/out' | grep -Eq 'Boundaries at [0-9.e-]+ per row \(look n\+n:u_diff/u_eq: .*\): 4\+4:-?[0-9]+/-?[0-9]+ 5\+5:.* 10\+10:-?[0-9]+/-?[0-9]+\.'"
	"$ablab" report "$cid" --format json >"$dd/r.json"
	check "sequential: json rows carry the decision and its look" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
rows = {x['scenario']: x for x in r['rows'] if x['kind'] == 'result' and x['scenario'] != 'null'}
assert rows and all(x['sequential_decision'] in ('different', 'same') for x in rows.values()), rows
assert all(x['sequential_look'] == int(sys.argv[2]) // 2 - 3 for x in rows.values())
" "$dd/r.json" "$nb"
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j["first"] = 4; json.dump(j, open(sys.argv[2], "w"), indent=1)' jobs/dma-from-device.json "$tmp/seqjob.json"
out=$("$ablab" run "$tmp/seqjob.json" --dry-run 2>&1)
check "job: first without budget is an error naming the field" grep -q 'seqjob.json:.*first: is the first look of a sequential design: set "budget" too' <<<"$out"
out=$("$ablab" ab --board "$dd/board.json" --budget 6 --order random 2>&1); rc=$?
check "ab --budget with --order random: exit 2, saying why" bash -c "[ $rc = 2 ] && grep -q 'use --order abab or abba' <<<'$out'"
