# lane: side
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
ser_sim() {	# SEED [more simulator options]
	local seed=$1
	shift
	"$bs" run --ctl "$sd/ctl" --pty-link "$sd/console" --tftp-root "$sd/tftp" \
		--record "$sd/record" --tick-ms 5 --autoboot 10 --seed "$seed" --between 0.003 \
		--patch-effect 2:small-dirty-256B=0.05 "$@" --daemon --pid-file "$sd/pid" 2>"$sd/sim.err"
}
# sim_quit: stop the simulator and wait (10 s at most) until it has gone, socket and all
sim_quit() {
	local pid end=$((SECONDS + 10))
	pid=$(cat "$sd/pid" 2>/dev/null)
	"$bs" ctl "$sd/ctl" quit >/dev/null 2>&1
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
}
if ! ser_sim 55; then
	bad "t55: cannot start the simulator: $(cat "$sd/sim.err")"
else
	out=$("$ablab" run "$sd/job.json" --dry-run 2>&1)
	check "dry run lists the three variants in series order" grep -q '3 variants, in series order: control +1 +1-2' <<<"$out"
	"$ablab" run "$sd/job.json" --results "$sd/res" --format text >"$sd/out" 2>"$sd/err"; rc=$?
	sim_quit
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
	sim_quit
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	nb=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	grep -E 'rounds of 3 boots|every row decided' "$sd/err2"
	check "series sequential: exit 0, complete rounds only ($nb boots)" test "$rc/$((nb % 3))" = 0/0
	check "series sequential: looks count comparisons, from 4 rounds on" bash -c "grep -Eq 'after [4-8] rounds of 3 boots: 9 comparisons: ' '$sd/err2' && ! grep -Eq 'after [123] rounds of 3' '$sd/err2'"
	check "series sequential: stopped before the budget when all 9 were decided, else ran it out" bash -c "if [ $nb -lt 24 ]; then grep -q 'every row decided after .* (9 comparisons: .* 0 open)' '$sd/err2'; else ! grep -q 'every row decided' '$sd/err2'; fi"
	check "series sequential: the report decides patch 2 different on 256 B dirty" bash -c "grep -A3 '^256 B dirty' '$sd/out2' | grep -Eq '^  \+1-2 vs \+1 .* different$'"
fi

# Two series campaigns compared, and a series job's nights: every variant is compared with
# the same label (control, +1, +1-2), not only control and the last one.
c1=$(psql_q "SELECT min(id) FROM campaigns WHERE job->>'job' = 'series-sim'")
c2=$(psql_q "SELECT max(id) FROM campaigns WHERE job->>'job' = 'series-sim'")
"$ablab" compare "$c1" "$c2" >"$sd/cmp.txt" 2>&1
"$ablab" compare "$c1" "$c2" --format json >"$sd/cmp.json" 2>&1
check "compare of two series campaigns: a line per variant (control, +1, +1-2) per row" bash -c "for v in control '\\+1' '\\+1-2'; do [ \$(grep -cE \"^    \$v +[0-9]\" '$sd/cmp.txt') = 5 ] || exit 1; done; grep -q '^    +1-2 vs control ' '$sd/cmp.txt'"
check "campaigns: a series campaign's boots counted (control 6, the other variants 12)" test "$("$ablab" campaigns --format csv | awk -F, -v c="$c1" '$1 == c { print $9 "," $10 }')" = 6,12
check "compare json: the series' variants under \"variants\"" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r['rows']) == 5 and all(sorted(x['variants']) == ['+1', '+1-2', 'control'] for x in r['rows']), r['rows'][0]
assert all(x['variants']['+1']['n_a'] > 0 and x['variants']['+1']['n_b'] > 0 for x in r['rows'])
" "$sd/cmp.json"
# nightly: night 2's simulator makes patch 1 cost +30 % on 1 MiB dirty, so +1 and +1-2 (which
# carry patch 1) change against night 1 there, control does not
nj=$sd/nightly
mkdir -p "$nj"
sed -e 's/"name": "series-sim"/"name": "series-night"/' -e 's/"boots": 6/"boots": 6, "nightly": true/' "$sd/job.json" >"$nj/series-night.json"
night=0
for d in 2026-02-01 2026-02-02; do
	night=$((night + 1))
	if [ $night = 1 ]; then ser_sim 57; else ser_sim 58 --patch-effect 1:large-dirty-1MiB=0.30; fi || bad "t55: cannot start the simulator: $(cat "$sd/sim.err")"
	"$ablab" nightly --jobs "$nj" --reports "$sd/nrep" --results "$sd/nres" --date $d >"$sd/n$night.out" 2>"$sd/n$night.err"
	echo "   night $night: exit $?"
	sim_quit
done
cj=$(ls "$sd"/nrep/2026-02-02/*/compare.json 2>/dev/null | head -n 1)
grep -E '^  sim-ser .*large-dirty' "$(dirname "${cj:-/nonexistent}")/compare.txt" 2>/dev/null | sed 's/^/   /'
check "night 2: +1 and +1-2 changed on 1 MiB dirty against night 1, control did not" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
night = [x for x in r['rows'] if x['against'] == 'previous night']
got = {(x['scenario'], x['variant']): x['change'] for x in night}
assert {v for (s, v) in got} == {'control', '+1', '+1-2'}, got
assert got[('large-dirty-1MiB', '+1')] and got[('large-dirty-1MiB', '+1-2')], got
assert not got[('large-dirty-1MiB', 'control')], got
" "${cj:-/nonexistent}"
