# lane: side
# Reports, queries and ingest on a real PostgreSQL, in a database of its own
# (ablab_t50 in the private cluster) so that the expected rows are exact.
# The fixture data: console logs in dmabench v1 format made by a generator
# below (the emulated boards' timings are meaningless anyway; these have a
# known effect), the seed's dmesg (tests/fixtures/seed-dmesg-pi400.txt) and a
# console transcript of the emulated lab (tests/fixtures/qemu-sam9x75-*.log),
# all stored with `ablab ingest`; psql then gives campaigns the triggers,
# dates and timings that `ablab ab` / `ablab nightly` would have recorded.
"$ablab" db start >/dev/null || bad "db start"
t50=$tmp/t50
mkdir -p "$t50"
pq() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=${2:-ablab_t50} user=ablab" -c "$1"; }
pq "DROP DATABASE IF EXISTS ablab_t50" postgres
pq "CREATE DATABASE ablab_t50" postgres
db="host=$ABLAB_DATA/pg dbname=ablab_t50 user=ablab"
A() { "$ablab" --db "$db" "$@"; }

# gen DIR PREFIX VARIANT NBOOTS BATCHES SEED RELEASE SLOWDOWN: one log per boot
gen() {
	python3 - "$@" <<'EOF'
import sys, random
d, prefix, var, nboots, batches, seed, rel, slow = sys.argv[1:9]
nboots, batches, rng, slow = int(nboots), int(batches), random.Random(int(seed)), float(slow)
sc = [("small-dirty-256B", 256, 5000, "dirty", "map_unmap", 1208),
      ("large-dirty-1MiB", 1 << 20, 300, "dirty", "map_unmap", 656888),
      ("large-clean-1MiB", 1 << 20, 300, "clean", "map_unmap", 656608),
      ("null", 0, 100000, "clean", "null", 95)]
for b in range(nboots):
    off = rng.gauss(0, 1)
    with open(f"{d}/{prefix}-{b + 1:02d}.log", "w") as f:
        f.write(f"Booting Linux on physical CPU 0x0\nLinux version {rel} (ablab@ablab) #1\n")
        f.write(f"lab# insmod /lib/modules/dmabench.ko batches={batches} 2>&1\n")
        f.write(f"dmabench: v1 start clock_res_ns=1 timing=auto batches={batches} scenarios=5\n")
        for bt in range(1, batches + 1):
            for name, size, reps, state, op, m in sc:
                if var == "patched" and name.startswith("small"):
                    m *= 1 + slow
                v = int(round(m * (1 + 0.004 * off + 0.002 * rng.gauss(0, 1))))
                kib = v * 1024 // size if size else 0
                f.write(f"dmabench: v1 result scenario={name} batch={bt} size={size} reps={reps} "
                        f"dir=from op={op} state={state} timing=iter mean_ns={v} min_ns={v * 9 // 10} "
                        f"max_ns={v * 3} ns_per_KiB={kib}\n")
            lost = 0 if var == "patched" else 340000 + rng.randrange(12000)
            f.write(f"dmabench: v1 preserve scenario=preserve-409600B batch={bt} size=409600 lost={lost}\n")
        f.write(f"dmabench: v1 done status=0 results={batches * 5}\nlab# \n")
EOF
}

echo "== ingest"
# the fixture logs came from qemu-sam9x75 on the host's wall clock: a board file of that
# name without icount_shift (the shipped one counts instructions exactly)
mkdir -p "$t50/wall"
wallb=$t50/wall/qemu-sam9x75.json
grep -v '"icount_shift"' boards/qemu-sam9x75.json >"$wallb"
gen "$t50" c control 5 5 1 6.1.0-t50-control 0
gen "$t50" p patched 5 5 2 6.1.0-t50-patched 0.068
out=$(A ingest "$t50"/c-*.log --board "$wallb" --variant control 2>&1); rc=$?
check "ingest 5 control logs: exit 0, 5 stored ($(echo "$out" | tail -n 1))" \
	bash -c "[ $rc = 0 ] && [ \$(echo '$out' | grep -c ': stored as control boot') = 5 ]"
c1=$(pq "SELECT max(id) FROM campaigns")
check "ingest created campaign $c1 with trigger ingest" test "$(pq "SELECT trigger || '/' || status FROM campaigns WHERE id = $c1")" = "ingest/complete"
out=$(A ingest "$t50"/p-*.log --board "$wallb" --variant patched --campaign "$c1" 2>&1); rc=$?
check "ingest 5 patched logs into campaign $c1" bash -c "[ $rc = 0 ] && [ \$(echo '$out' | grep -c 'stored as patched boot') = 5 ]"
n0=$(pq "SELECT count(*) FROM boots")
out=$(A ingest "$t50"/p-*.log --board "$wallb" --variant patched 2>&1); rc=$?
check "second ingest of the same files stores nothing and says so" bash -c "[ $rc = 0 ] && [ \$(echo '$out' | grep -c 'already stored') = 6 ] && [ $(pq "SELECT count(*) FROM boots") = $n0 ]"
check "no empty campaign left by the no-op ingest" test "$(pq "SELECT max(id) FROM campaigns")" = "$c1"
check "ingested kernel release from the log's Linux version line" test "$(pq "SELECT string_agg(DISTINCT uname_r, ',') FROM boots WHERE campaign_id = $c1")" = "6.1.0-t50-control,6.1.0-t50-patched"

seed=tests/fixtures/seed-dmesg-pi400.txt
out=$(A ingest "$seed" --board pi400-karl --variant control 2>&1); rc=$?
check "unknown board without --cpu/--family: exit 1, one line naming the fix" bash -c "[ $rc = 1 ] && [ \$(echo '$out' | wc -l) = 1 ] && echo '$out' | grep -q -- '--cpu CPU --family FAMILY'"
out=$(A ingest "$seed" --board pi400-karl --variant control --cpu Cortex-A72 --family v7 2>&1); rc=$?
echo "$out" | head -n 1
c2=$(pq "SELECT max(id) FROM campaigns")
check "seed-format dmesg: one boot with 3 scenarios, kernel from the log" test "$(pq "SELECT count(DISTINCT b.id) || '/' || count(*) || '/' || min(b.uname_r) FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $c2")" = "1/3/7.3.0-rc1-00324-g986c24e0fe44"
check "seed-format means stored as printed" test "$(pq "SELECT string_agg(mean_ns::text, ',' ORDER BY scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $c2")" = "73108,73840,353"
out=$(A ingest "$seed" --board pi400-karl --variant control 2>&1); rc=$?
check "seed dmesg again: nothing stored (board now known from the database)" bash -c "[ $rc = 0 ] && echo '$out' | grep -q 'already stored' && [ $(pq "SELECT count(*) FROM boots WHERE campaign_id > $c2") = 0 ]"
out=$(A ingest "$seed" --board pi400-karl --variant control --kernel 6.6.0-other 2>&1); rc=$?
check "--kernel contradicting the log's Linux version: exit 1" bash -c "[ $rc = 1 ] && echo \"\$1\" | grep -q 'wrong file or wrong option'" _ "$out"

real=$(ls tests/fixtures/qemu-sam9x75-*.log | head -n 1)
out=$(A ingest "$real" --board "$wallb" --variant control 2>&1); rc=$?
echo "$out" | head -n 1
c3=$(pq "SELECT max(id) FROM campaigns")
check "emulated-lab console transcript: one boot" bash -c "[ $rc = 0 ] && [ $(pq "SELECT count(*) FROM boots WHERE campaign_id = $c3") = 1 ]"
check "transcript: 5 scenarios, release 6.1.192-ablab-control" test "$(pq "SELECT count(DISTINCT scenario) || '/' || min(b.uname_r) FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $c3")" = "5/6.1.192-ablab-control"
out=$(A ingest "$real" --board "$wallb" --variant control 2>&1)
check "transcript again: none" bash -c "echo '$out' | grep -q 'already stored' && [ $(pq "SELECT count(*) FROM campaigns WHERE id > $c3") = 0 ]"
printf 'Booting Linux\nno benchmark here\n' >"$t50/empty.log"
out=$(A ingest "$t50/empty.log" --board "$wallb" --variant control 2>&1); rc=$?
check "a log without dmabench lines: exit 1, says what was expected" bash -c "[ $rc = 1 ] && echo \"\$1\" | grep -q 'no dmabench result lines'" _ "$out"

# campaign c1 as `ablab ab` would have recorded it: alternating, with boot and run times
# (in two steps: one ok boot per slot holds after every row, schema version 7)
pq "UPDATE boots SET seq = -seq WHERE campaign_id = $c1;
    UPDATE boots SET boot_ms = 2300, run_ms = 4000, seq = CASE WHEN variant = 'control' THEN 2 * -seq - 1 ELSE 2 * (-seq - 5) END WHERE campaign_id = $c1;
    UPDATE boots SET started = '2026-01-10 12:00' WHERE campaign_id = $c1 AND variant = 'control';
    UPDATE boots SET started = '2026-01-11 12:00' WHERE campaign_id = $c1 AND variant = 'patched';
    UPDATE campaigns SET trigger = 'cli', order_kind = 'abab' WHERE id = $c1"

echo "== report"
A report "$c1" --format email >"$t50/email.txt"; rc=$?
cat "$t50/email.txt" | head -n 6
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$t50/email.txt")
check "email report: exit 0, within 72 columns (widest $w)" bash -c "[ $rc = 0 ] && [ $w -le 72 ]"
check "email: the seed's header and rows" bash -c "grep -Eq '^ +control +patched +change$' '$t50/email.txt' && grep -Eq '^ARM926EJ-S, legacy, 256 B dirty +1\.[0-9]{3} us +1\.[0-9]{3} us +\+[67]\.[0-9]%$' '$t50/email.txt'"
check "email: rows without a change beyond the margin print same" grep -Eq '^ARM926EJ-S, legacy, 1 MiB clean .* same$' "$t50/email.txt"
check "email: method paragraph (boots, alternation, verdicts, emulated caveat)" bash -c "tr '\n' ' ' <'$t50/email.txt' | grep -q 'on qemu-sam9x75 each kernel booted 5 times, alternating; 5 batches per boot' && tr '\n' ' ' <'$t50/email.txt' | grep -q 'Different: 256 B dirty\. Same within ±1%: 1 MiB dirty and 1 MiB clean\.' && tr '\n' ' ' <'$t50/email.txt' | grep -q 'Holm over 3 rows' && tr '\n' ' ' <'$t50/email.txt' | grep -q 'qemu-sam9x75 is emulated (QEMU, no cache model): not hardware costs\.'"
nm=$(sed -n '/^Method/,$p' "$t50/email.txt" | wc -l)
check "email: the method paragraph is at most 8 lines ($nm)" test "$nm" -le 8

A report "$c1" --format json >"$t50/r.json"
check "json: rows with per-boot stats, design advice, method" python3 -c "
import json, sys
r = json.load(open('$t50/r.json'))
rows = {x['scenario']: x for x in r['rows']}
s = rows['small-dirty-256B']
assert len(rows) == 5 and s['n_control'] == 5 and s['n_patched'] == 5, rows.keys()
assert s['verdict'] == 'different' and s['separation'] == 'above' and abs(s['p_mwu'] - 2 / 252) < 1e-12
assert abs(s['p_holm'] - 3 * 2 / 252) < 1e-12 and abs(s['ci_conf'] - 0.96825) < 1e-4
h = s['hodges_lehmann']
assert h['shift_ns_lo'] < h['shift_ns'] < h['shift_ns_hi'] and s['cliff_delta'] == 1.0
assert len(s['boots']) == 10 and all(len(b['values']) == 5 for b in s['boots'])
b = s['boots'][0]
assert b['min'] <= b['median'] <= b['max'] and b['module_min'] < b['min'] and b['sd'] > 0
assert s['ci_lo'] < s['rel_change'] < s['ci_hi'] and r['bootstrap_seed'] == 20260910
assert r['boards'][0]['design']['boots_per_kernel'] >= 2 and s['design']['batches_opt'] >= 1
assert rows['large-clean-1MiB']['verdict'] == 'same' and rows['large-clean-1MiB']['verdict_text'] == 'same within \u00b11%'
assert 'alternating' in r['method']
"
check "wall-clock board, json: clock wall, no ns per instruction" python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))['boards'][0]
assert b['clock'] == 'wall' and b['ns_per_insn'] is None, b
" "$t50/r.json"
check "json report is reproducible (bootstrap seed fixed)" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A report $c1 --format json | cmp -s - '$t50/r.json'"
# the format table (report.c) feeds --help and the error: every format with its line
rh=$("$ablab" report --help)
for f in text email json csv svg html; do
	check "report --help: format $f listed with its description" grep -Eq "^  $f +[a-z0-9]" <<<"$rh"
done
check "report --format nope: the error names every format" bash -c "'$ablab' --db '$db' report $c1 --format nope 2>&1 | grep -qx 'ablab: --format: \"nope\" is not one of text, email, json, csv, svg, html, kcidb'"
check "csv: header + one line per board x scenario" test "$(A report "$c1" --format csv | wc -l)" = 6
check "csv --detail: one line per boot x scenario" test "$(A report "$c1" --format csv --detail | wc -l)" = 51
check "text --detail: per-boot lines with median and module min/max" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A report $c1 --detail | grep -c 'small-dirty-256B *control' | grep -qx 5"
check "text report: design advice under the table" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A report $c1 | grep -q '^qemu-sam9x75: [0-9]* boots per kernel x [0-9]* batch'"
out=$(A report "$c1" --format yaml 2>&1); rc=$?
check "unknown --format: exit 2, lists the formats" bash -c "[ $rc = 2 ] && echo '$out' | grep -q 'text, email, json, csv, svg, html'"
check "3+3-free campaign: single-boot seed campaign says too few boots" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A report $c2 | grep -q 'too few boots'"

A report "$c1" --format svg >"$t50/r.svg"
A report "$c1" --format html >"$t50/r.html"
check "svg: well-formed, one dot per boot and scenario (50)" python3 -c "
import xml.etree.ElementTree as E
t = E.parse('$t50/r.svg')
c = [e for e in t.iter('{http://www.w3.org/2000/svg}circle') if 'boot' in e.get('class', '')]
assert len(c) == 50, len(c)"
check "html: one self-contained file with the table and the plot" bash -c "grep -q '<table id=\"ab\">' '$t50/r.html' && grep -q '<svg' '$t50/r.html' && ! grep -Eq '(src|href)=\"(http|//)' '$t50/r.html'"
if command -v chromium >/dev/null; then
	for f in r.svg r.html; do
		prof=$(mktemp -d "$t50/chromium.XXXXXX")
		timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
			--screenshot="$t50/$f.png" --window-size=1200,900 "file://$t50/$f" >/dev/null 2>&1
		# distinct colours in the screenshot: a blank or failed render has 1-2
		ncol=$(convert "$t50/$f.png" ppm:- 2>/dev/null | python3 -c "
import sys
d = sys.stdin.buffer.read()
parts = d.split(maxsplit=4)
px = parts[4]
print(len({px[i:i + 3] for i in range(0, len(px) - 2, 3)}))" 2>/dev/null)
		check "chromium renders $f: screenshot with ${ncol:-0} colours (> 20)" test "${ncol:-0}" -gt 20
		# the blue of the control dots and the orange of the patched ones are on screen
		check "$f screenshot shows both variants' colours" bash -c "convert '$t50/$f.png' ppm:- | python3 -c \"
import sys
px = sys.stdin.buffer.read().split(maxsplit=4)[4]
cols = {px[i:i + 3] for i in range(0, len(px) - 2, 3)}
near = lambda c, t: any(all(abs(a - b) < 40 for a, b in zip(x, t)) for x in c)
assert near(cols, (0x00, 0x72, 0xb2)) and near(cols, (0xd5, 0x5e, 0x00))\""
	done
	# the screenshot kept for a person to look at, in the local results directory (not /tmp)
	mkdir -p "$top/results" && cp "$t50/r.html.png" "$top/results/t50-report.png" 2>/dev/null
else
	bad "chromium not installed (make deps): SVG/HTML not rendered"
fi

echo "== nightly history: campaigns, compare, trend"
for night in 1 2 3; do
	rm -f "$t50"/n*.log
	gen "$t50" nc control 3 3 $((10 + night)) 6.1.0-nightly-control 0
	gen "$t50" np patched 3 3 $((20 + night)) 6.1.0-nightly-patched "0.0$((night * 3))"
	A ingest "$t50"/nc-*.log --board "$wallb" --variant control >/dev/null
	cn=$(pq "SELECT max(id) FROM campaigns")
	A ingest "$t50"/np-*.log --board "$wallb" --variant patched --campaign "$cn" >/dev/null
	pq "UPDATE campaigns SET trigger = 'nightly', job = '{\"job\": \"t50-nightly\"}', created = '2026-02-0$night 03:00' WHERE id = $cn;
	    UPDATE boots SET started = '2026-02-0$night 03:00' WHERE campaign_id = $cn"
done
check "campaigns lists all 6" test "$(A campaigns --format csv | tail -n +2 | wc -l)" = 6
check "campaigns --trigger nightly --job t50-nightly: 3, with boot counts" test "$(A campaigns --trigger nightly --job t50-nightly --format csv | tail -n +2 | cut -d, -f9,10 | sort -u)" = "3,3"
out=$(A compare "$cn" --previous --undecidable-ok); rc=$?
echo "$out" | head -n 4
check "compare N --previous: the previous night of the same job" bash -c "[ $rc = 0 ] && echo '$out' | head -n 1 | grep -q '^campaign $((cn - 1)) .* -> campaign $cn '"
check "compare shows each kernel and the patched-vs-control change" bash -c "echo '$out' | grep -q '^    control' && echo '$out' | grep -q '^    patched' && echo '$out' | grep -q 'patched vs control'"
out=$(A compare "$c1" --previous 2>&1); rc=$?
check "compare --previous on a non-nightly campaign: exit 1, clear" bash -c "[ $rc = 1 ] && echo \"\$1\" | grep -q 'not a nightly'" _ "$out"
check "compare A B json" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A compare $c1 $cn --format json | python3 -c 'import json,sys; r = json.load(sys.stdin); assert len(r[\"rows\"]) == 5 and r[\"rows\"][0][\"control\"][\"n_a\"] == 5'"
out=$(A trend t50-nightly --scenario small-dirty-256B); rc=$?
echo "$out" | tail -n 3
check "trend text: one line per night, oldest first" bash -c "[ $rc = 0 ] && [ \"\$(echo '$out' | grep -Eo '^  2026-02-0[0-9]' | tr -d ' ' | tr '\n' ,)\" = 2026-02-01,2026-02-02,2026-02-03, ]"
check "trend svg: well-formed, a dot per night" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A trend t50-nightly --scenario small-dirty-256B --format svg | python3 -c 'import sys, xml.etree.ElementTree as E; t = E.fromstring(sys.stdin.read()); assert len(list(t.iter(\"{http://www.w3.org/2000/svg}circle\"))) == 3'"
out=$(A trend no-such-job --scenario x 2>&1); rc=$?
check "trend of an unknown job: exit 1, clear" bash -c "[ $rc = 1 ] && echo '$out' | grep -q 'no nightly campaigns of job'"

echo "== query: every filter"
qn() { A query --format csv "$@" | tail -n +2 | wc -l; }
check "query --campaign: 10 boots x 5 scenarios" test "$(qn --campaign "$c1")" = 50
check "query --board pi400-karl: the seed's 3 scenarios" test "$(qn --board pi400-karl)" = 3
check "query --scenario --campaign" test "$(qn --scenario small-dirty-256B --campaign "$c1")" = 10
check "query --variant patched --campaign" test "$(qn --variant patched --campaign "$c1")" = 25
check "query --kernel" test "$(qn --kernel 6.1.0-t50-control)" = 25
check "query --trigger nightly: 3 nights x 6 boots x 5" test "$(qn --trigger nightly)" = 90
check "query --trigger ingest: seed dmesg + transcript" test "$(qn --trigger ingest)" = 8
check "query --since DATE --until DATE (a whole day)" test "$(qn --since 2026-01-11 --until 2026-01-11)" = 25
check "query --until DATE" test "$(qn --until 2026-01-10 --board qemu-sam9x75)" = 25
check "query --since DATETIME" test "$(qn --since '2026-02-02 00:00' --until 2026-02-28)" = 60
check "query --since AGE (ingested just now: the transcript)" test "$(qn --since 1d --board qemu-sam9x75 --variant control --kernel 6.1.192-ablab-control)" = 5
check "query all filters at once" test "$(qn --board qemu-sam9x75 --scenario null --variant control --kernel 6.1.0-t50-control --campaign "$c1" --since 2026-01-01 --until 2026-01-31 --trigger cli)" = 5
check "query json: numbers are numbers" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A query --campaign $c1 --scenario null --format json | python3 -c 'import json,sys; r = json.load(sys.stdin); assert len(r) == 10 and isinstance(r[0][\"mean\"], float) and r[0][\"batches\"] == 5'"
check "query table format" bash -c "A() { '$ablab' --db '$db' \"\$@\"; }; A query --board pi400-karl | grep -q '^campaign *trigger'"
nsamp=$(pq "SELECT count(*) FROM samples")
check "filter with quotes is data, not SQL (board)" test "$(qn --board "x' OR '1'='1")" = 0
check "filter with SQL is data (scenario)" test "$(qn --scenario "'; DROP TABLE samples; --")" = 0
check "filter with SQL is data (kernel, variant)" test "$(qn --kernel "6.1.0-t50-control' --" --variant "patched\" OR 1=1 --")" = 0
check "samples survived" test "$(pq "SELECT count(*) FROM samples")" = "$nsamp"
out=$(A query --since "2026-01-01'; DROP TABLE boots; --" 2>&1); rc=$?
check "bad --since: exit 2, says what a date is" bash -c "[ $rc = 2 ] && echo \"\$1\" | grep -q 'is not a date'" _ "$out"
out=$(A query --trigger "cli' OR 'x'='x" 2>&1); rc=$?
check "bad --trigger: exit 2" test "$rc" = 2

check "boot_means: one row per ok boot and scenario, equal to the mean of its samples" test "$(pq "SELECT count(*) FROM (SELECT s.boot_id, s.scenario, avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END) AS v FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.status = 'ok' GROUP BY 1, 2) x FULL JOIN boot_means m USING (boot_id, scenario) WHERE m.mean IS NULL OR x.v IS NULL OR abs(m.mean - x.v) > 1e-9 * abs(x.v)")/$(pq "SELECT (count(*) > 0)::text FROM boot_means")" = 0/true

echo "== a row whose boots disagree on the timing mode is refused, never averaged"
mkdir -p "$t50/mixed"
gen "$t50/mixed" mc control 3 3 71 6.1.0-t50-control 0
gen "$t50/mixed" mp patched 3 3 72 6.1.0-t50-patched 0.05
# one patched boot's small-dirty-256B lines as timing=batch (baseline subtracted)
sed -i -E '/scenario=small-dirty-256B/ s/timing=iter mean_ns=([0-9]+) min_ns=[0-9]+ max_ns=[0-9]+/timing=batch mean_ns=\1 raw_ns=99999999 base_ns=1000/' "$t50/mixed/mp-02.log"
A ingest "$t50"/mixed/mc-*.log --board "$wallb" --variant control >/dev/null 2>&1
cm=$(pq "SELECT max(id) FROM campaigns")
A ingest "$t50"/mixed/mp-*.log --board "$wallb" --variant patched --campaign "$cm" >/dev/null 2>&1
check "mixed: one boot stored with batch timing for small-dirty-256B" test "$(pq "SELECT count(DISTINCT s.boot_id) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cm AND scenario = 'small-dirty-256B' AND timing = 'batch'")" = 1
out=$(A report "$cm" 2>&1)
echo "$out" | grep -i 'refused'
check "mixed: the text report refuses the row, naming the modes" grep -q '256 B dirty: refused: 1 of 6 boots timed by batch, the others by iter; iteration and baseline-subtracted batch timings are not comparable' <<<"$out"
check "mixed: no change figure in that row" bash -c "grep -E '256 B dirty' <<<\"\$1\" | head -n 1 | grep -Eq ' - +- +- +3\+3 +- +- +- +refused$'" _ "$out"
check "mixed: the other rows still have their p" grep -qE '1 MiB dirty.* 3\+3 ' <<<"$out"
A report "$cm" --format json >"$t50/mixed.json" 2>&1
check "mixed: json verdict refused with the reason" python3 -c "import json,sys; r = json.load(open(sys.argv[1])); x = [w for w in r['rows'] if w['scenario'] == 'small-dirty-256B']; assert x and x[0]['verdict'] == 'refused' and 'timed by batch' in x[0]['refused'], x" "$t50/mixed.json"
echo "== a board with exact instruction counting"
# the same logs on a board file with "icount_shift": 0 (QEMU's exact instruction counting):
# every format says once what its figures are
sed 's/"name": "qemu-sam9x75"/"name": "qemu-icount"/' boards/qemu-sam9x75.json >"$t50/qemu-icount.json"
out=$(A ingest "$t50"/c-*.log --board "$t50/qemu-icount.json" --variant control 2>&1); rc=$?
ci=$(pq "SELECT max(id) FROM campaigns")
out2=$(A ingest "$t50"/p-*.log --board "$t50/qemu-icount.json" --variant patched --campaign "$ci" 2>&1)
check "icount board: 10 boots ingested into campaign $ci" bash -c "[ $rc = 0 ] && [ $(pq "SELECT count(*) FROM boots WHERE campaign_id = $ci AND status = 'ok'") = 10 ]" || echo "$out $out2"
icount_sentence='qemu-icount is a QEMU board with exact instruction counting: its times are instructions on the CPU path (1 ns = 1 instruction), no cache cost.'
for f in text email json html; do
	A report "$ci" --format $f >"$t50/icount.$f"
	n=$(tr '\n' ' ' <"$t50/icount.$f" | grep -o 'exact instruction counting' | wc -l)
	check "icount board, $f: the emulated sentence once ($n), no wall-clock caveat" bash -c "[ $n = 1 ] && tr '\n' ' ' <'$t50/icount.$f' | sed 's/  */ /g' | grep -qF '$icount_sentence' && ! grep -q 'not hardware costs\|procedure works' '$t50/icount.$f'"
done
check "icount board, json: clock icount, 1 ns per instruction" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
b = r['boards'][0]
assert (b['board'], b['clock'], b['ns_per_insn']) == ('qemu-icount', 'icount', 1), b
assert r['method'].count('exact instruction counting') == 1
" "$t50/icount.json"
pq "DROP DATABASE IF EXISTS ablab_t50" postgres
