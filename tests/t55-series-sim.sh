# Series campaigns (issue 15 items 1, 2) on the board simulator, through the real data
# path: a job of three variants (control, +1, +1-2: prebuilt kernels whose release says
# how many patches they carry, "-sN"), booted in rounds of one boot of each, in the rows
# of a Williams design.  The simulator plants an effect on patch 2 only (+5 % on 256 B
# dirty, --patch-effect 2:...), so the attribution must name patch 2 (+1-2 vs +1) for 256
# B dirty and not patch 1; the database, `query` and the reports carry every variant's
# label and position.  Then a sequential series campaign stops a board only after a
# complete round, when every comparison of every row is decided.
bs=$top/build/boardsim
sd=$tmp/ser55
"$ablab" db start >/dev/null 2>&1
mkdir -p "$sd/k"
for n in 0 1 2; do	# s0 is the control: no patch, no "patched" in its release
	mkdir -p "$sd/k/s$n"
	printf '{"board":"sim-ser","variant":"s%s","release":"6.1.0-sim-s%s"}\n' $n $n >"$sd/k/s$n/manifest.json"
	printf 'zImage\0Linux version 6.1.0-sim-s%s (boardsim@lab) #1\n' $n >"$sd/k/s$n/zImage"
	echo initramfs >"$sd/k/s$n/initramfs.cpio.gz"
	echo dtb >"$sd/k/s$n/sim.dtb"
done
sim_uboot_board sim-ser "$sd"
cat >"$sd/job.json" <<JOB
{
  "name": "series-sim",
  "boards": ["$sd/board.json"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$sd/k/s0" } },
    "+1": { "source": { "type": "prebuilt", "dir": "$sd/k/s1" } },
    "+1-2": { "source": { "type": "prebuilt", "dir": "$sd/k/s2" } }
  },
  "benchmark": { "name": "dmabench" },
  "boots": 6,
  "batches": 3
}
JOB
ser_sim() {
	"$bs" run --ctl "$sd/ctl" --pty-link "$sd/console" --tftp-root "$sd/tftp" \
		--record "$sd/record" --tick-ms 5 --autoboot 10 --seed "$1" --between 0.003 \
		--patch-effect 2:small-dirty-256B=0.05 --daemon --pid-file "$sd/pid" 2>"$sd/sim.err"
}
if ! ser_sim 55; then
	bad "t55: cannot start the simulator: $(cat "$sd/sim.err")"
else
	out=$("$ablab" run "$sd/job.json" --dry-run 2>&1)
	check "dry run lists the three variants in series order" grep -q '3 variants, in series order: control +1 +1-2' <<<"$out"
	"$ablab" run "$sd/job.json" --results "$sd/res" --format text >"$sd/out" 2>"$sd/err"; rc=$?
	"$bs" ctl "$sd/ctl" quit >/dev/null 2>&1
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "series: exit 0, campaign complete" test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
	check "series: the engine says rounds of 3 variants, order williams" grep -q "6 rounds of 3 variants (control, +1, +1-2) each, order williams" "$sd/err"
	check "series: 6 ok boots of each variant" test "$(psql_q "SELECT string_agg(variant || '=' || n, ' ' ORDER BY variant) FROM (SELECT variant, count(*) n FROM boots WHERE campaign_id = $cid AND status = 'ok' GROUP BY variant) x")" = "+1=6 +1-2=6 control=6"
	check "series: campaign_variants holds label, position and nothing for control" test "$(psql_q "SELECT string_agg(position || ':' || label, ' ' ORDER BY position) FROM campaign_variants WHERE campaign_id = $cid")" = "0:control 1:+1 2:+1-2"
	# the Williams rows of three variants: 012 120 201 210 021 102 (A = control)
	check "series: boots in the rows of a Williams design" grep -q 'sim-ser: boots in order ABCBCACABCBAACBBAC (A = control, B = +1, C = +1-2)' "$sd/out"
	sed -n '/^256 B dirty/,/^On /p' "$sd/out"
	check "series: patch 2's increment is different on 256 B dirty" bash -c "grep -A3 '^256 B dirty' '$sd/out' | grep -Eq '^  \+1-2 vs \+1 +\+[45]\.[0-9]+%.* different$'"
	check "series: patch 1 is the same on 256 B dirty" bash -c "grep -A3 '^256 B dirty' '$sd/out' | grep -Eq '^  \+1 vs control .* same ±1%$'"
	check "series: the attribution names patch 2, not patch 1, for 256 B dirty" bash -c "tr '\n' ' ' <'$sd/out' | grep -Eq 'On sim-ser, patch 1 \(\+1 vs control\) changes no timing row \(each the same within ±1%\); patch 2 \(\+1-2 vs \+1\) changes 256 B dirty \(\+[45]\.[0-9]+%\)\.'"
	check "series: the Holm family is named: 9 comparisons" bash -c "tr '\n' ' ' <'$sd/out' | grep -q 'adjusted by Holm over the family of all 9 comparisons'"
	"$ablab" report "$cid" --format email >"$sd/mail"
	check "series email: nothing beyond 72 columns" test "$(awk 'length > 72' "$sd/mail" | wc -l)" = 0
	check "series email: the per-board table with each increment" bash -c "grep -q '^  +1-2 vs +1 ' '$sd/mail' && grep -q '^  +1-2 vs control ' '$sd/mail' && grep -q '^  +1 vs control ' '$sd/mail'"
	"$ablab" report "$cid" --format svg >"$sd/plot.svg"
	check "series svg: every boot per variant (6 dots of each of 3 variants in each of 5 rows)" test "$(grep -c 'class="boot +1-2"' "$sd/plot.svg")/$(grep -c 'class="boot +1"' "$sd/plot.svg")/$(grep -c 'class="boot control"' "$sd/plot.svg")" = 30/30/30
	"$ablab" report "$cid" --format json >"$sd/r.json"
	check "series json: variants and comparisons with positions" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert [(v['label'], v['position']) for v in r['variants']] == [('control', 0), ('+1', 1), ('+1-2', 2)], r['variants']
c = {(x['scenario'], x['variant'], x['vs']): x for x in r['comparisons']}
assert len(r['comparisons']) == 9 and r['holm_family'] == 9
assert c[('small-dirty-256B', '+1-2', '+1')]['verdict'] == 'different' and c[('small-dirty-256B', '+1-2', '+1')]['increment']
assert c[('small-dirty-256B', '+1', 'control')]['verdict'] != 'different'
assert {b['variant_position'] for x in r['rows'] for b in x['boots']} == {0, 1, 2}
" "$sd/r.json"
	"$ablab" report "$cid" --format csv >"$sd/r.csv"
	check "series csv: one line per comparison with both labels and positions" bash -c "head -1 '$sd/r.csv' | grep -q '^campaign,board,scenario,label,variant,variant_position,vs,vs_position,' && grep -c ',+1-2,2,+1,1,' '$sd/r.csv' | grep -qx 3"
	"$ablab" query --campaign "$cid" --scenario small-dirty-256B --format json >"$sd/q.json"
	check "query json: every variant with its position" python3 -c "
import json, sys
q = json.load(open(sys.argv[1]))
assert sorted({(x['variant'], x['position']) for x in q}) == [('+1', 1), ('+1-2', 2), ('control', 0)], q[:3]
assert len(q) == 18
" "$sd/q.json"
fi
# sequential: budget 8 rounds, first look after 4; a board stops only after a full round
if ! ser_sim 56; then
	bad "t55: cannot start the simulator: $(cat "$sd/sim.err")"
else
	"$ablab" run "$sd/job.json" --budget 8 --first 4 --results "$sd/res" >"$sd/out2" 2>"$sd/err2"; rc=$?
	"$bs" ctl "$sd/ctl" quit >/dev/null 2>&1
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	nb=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	grep -E 'rounds of 3 boots|every row decided' "$sd/err2"
	check "series sequential: exit 0, complete rounds only ($nb boots)" test "$rc/$((nb % 3))" = 0/0
	check "series sequential: looks count comparisons, from 4 rounds on" bash -c "grep -Eq 'after [4-8] rounds of 3 boots: 9 comparisons: ' '$sd/err2' && ! grep -Eq 'after [123] rounds of 3' '$sd/err2'"
	check "series sequential: stopped before the budget when all 9 were decided, else ran it out" bash -c "if [ $nb -lt 24 ]; then grep -q 'every row decided after .* (9 comparisons: .* 0 open)' '$sd/err2'; else ! grep -q 'every row decided' '$sd/err2'; fi"
	check "series sequential: the report decides patch 2 different on 256 B dirty" bash -c "grep -A3 '^256 B dirty' '$sd/out2' | grep -Eq '^  \+1-2 vs \+1 .* different$'"
fi
