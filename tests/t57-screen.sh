# Batches that cannot lie (issue 26 item 3; agent/stats/stats-screen.c, docs/STATISTICS.md
# "Batches left out"): a campaign on the board simulator with baseline-subtracted batch
# timing (--batch-timing) where one boot has a poisoned memset baseline (its net time
# negative, as after a host hiccup) and an interrupt-length outlier batch; then the same
# result lines, taken from the simulator's record, ingested from log files (`ablab
# ingest`).  Both campaigns: the two batches are stored, flagged with their reason and left
# out of the boot's mean (boot_means, the report); every format (text, email, JSON, CSV,
# HTML, SVG) counts them per row with the reason and shows no negative mean; the boot
# mean is the mean of the kept batches as the simulator printed them.  Last, a database
# from before the rule (schema 15) is upgraded: its negative batches flagged, no negative
# boot mean left.
# timeout: 300
# lane: side
bs=$top/build/boardsim
dd=$tmp/screen57
"$ablab" db start >/dev/null 2>&1
sim_kernels "$dd/k" sim-screen
sim_uboot_board sim-screen "$dd"

# screen_checks CID WHAT: the stored flags, boot_means and every format of campaign CID
screen_checks() {
	local cid=$1 w=$2 f
	check "$w: the poisoned baseline is stored and flagged with its reason" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND s.scenario = 'small-dirty-256B' AND s.mean_ns < 0 AND s.excluded ~ '^baseline [0-9.]+ us, the boot''s median [0-9.]+ ns$'")" = 1
	check "$w: the outlier batch is stored and flagged with its reason" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND s.scenario = 'large-dirty-1MiB' AND s.excluded ~ '^time [0-9.]+ us, the boot''s median [0-9.]+ us$'")" = 1
	check "$w: no other batch is left out" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND s.excluded IS NOT NULL")" = 2
	check "$w: boot_means average the kept batches only (and none is negative)" test \
		"$(psql_q "SELECT count(*) FROM boot_means m JOIN boots b ON b.id = m.boot_id WHERE b.campaign_id = $cid AND (m.mean < 0 OR abs(m.mean - (SELECT avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END) FROM samples s WHERE s.boot_id = m.boot_id AND s.scenario = m.scenario AND s.excluded IS NULL)) > 1e-6 OR m.batches <> (SELECT count(*) FROM samples s WHERE s.boot_id = m.boot_id AND s.scenario = m.scenario AND s.excluded IS NULL))")" = 0
	for f in text email json csv svg html; do
		"$ablab" report "$cid" --format $f >"$dd/r$cid.$f" 2>"$dd/r$cid.$f.err" ||
			bad "$w: report --format $f failed: $(head -c 300 "$dd/r$cid.$f.err")"
	done
	check "$w: json: the left-out batches per row with their reason, boot means of kept batches, the poisoned boot's mean as the simulator's kept batches" \
		python3 - "$dd/r$cid.json" "$dd/kept.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
kept = json.load(open(sys.argv[2]))  # scenario -> mean of the faulty boot's kept batches
rows = {x['scenario']: x for x in r['rows']}
s, l = rows['small-dirty-256B'], rows['large-dirty-1MiB']
assert s['batches_left_out'] == 1 and s['batches_total'] == 30, s
assert s['left_out_reason'].startswith('baseline ') and s['left_out'].startswith('1 of 30 batches left out: baseline '), s
assert l['batches_left_out'] == 1 and l['left_out_reason'].startswith('time '), l
for x in r['rows']:
    assert x['scenario'] in ('small-dirty-256B', 'large-dirty-1MiB') or 'batches_left_out' not in x, x
    for k in ('control_mean', 'patched_mean'):
        assert x[k] is None or x[k] >= 0, (x['scenario'], k, x[k])
    for b in x['boots']:
        v = b['values']
        assert all(y >= 0 for y in v) and abs(b['mean'] - sum(v) / len(v)) < 1e-6, b
        assert len(v) + b.get('batches_left_out', 0) == 3, b
hit = 0
for sc in ('small-dirty-256B', 'large-dirty-1MiB'):
    for b in rows[sc]['boots']:
        if b.get('batches_left_out'):
            hit += 1
            assert abs(b['mean'] - kept[sc]) < 1e-6, (sc, b['mean'], kept[sc])
assert hit == 2, hit
EOF
	grep -h -B1 -A1 'left out' "$dd/r$cid.text" "$dd/r$cid.email"
	check "$w: text: the row says 1 of 30 batches left out and why" \
		grep -Eq "256 B dirty: 1 of 30 batches left out: baseline [0-9.]+ us, the boot's median [0-9.]+ ns \(left out" "$dd/r$cid.text"
	check "$w: text: the outlier's row too" grep -Eq "1 MiB dirty: 1 of 30 batches left out: time [0-9.]+ us" "$dd/r$cid.text"
	check "$w: email: both rows counted" test "$(tr '\n' ' ' <"$dd/r$cid.email" | grep -Eo '1 of 30 batches left out: (baseline|time)' | wc -l)" = 2
	check "$w: csv: batches_left_out and left_out columns" python3 -c "
import csv, sys
rows = {x['scenario']: x for x in csv.DictReader(open(sys.argv[1]))}
assert rows['small-dirty-256B']['batches_left_out'] == '1' and 'baseline' in rows['small-dirty-256B']['left_out']
assert rows['large-dirty-1MiB']['batches_left_out'] == '1' and rows['null']['batches_left_out'] == '0' and rows['null']['left_out'] == ''
assert all(float(x[k]) >= 0 for x in rows.values() for k in ('control_mean', 'patched_mean') if x[k])
" "$dd/r$cid.csv"
	check "$w: html: the left-out note under the table and in the plots" test \
		"$(grep -c 'class="left-out"' "$dd/r$cid.html")" = 4
	check "$w: svg: the left-out note in both panels" test \
		"$(grep -c '<text class="left-out".*batches left out' "$dd/r$cid.svg")" = 2
	"$ablab" query --campaign "$cid" --format csv >"$dd/q$cid.csv"
	check "$w: query: the boots' means over kept batches, none negative" python3 -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 50 and all(float(x[k]) >= 0 for x in rows for k in ('mean', 'min', 'max')), rows[:3]
assert sorted(int(x['batches']) for x in rows).count(2) == 2, [x['batches'] for x in rows]
" "$dd/q$cid.csv"
	for f in text email json csv svg html; do
		check "$w: $f: no negative duration or mean anywhere" bash -c \
			"! grep -Eq -- '(^|[^0-9A-Za-z.+])-[0-9][0-9.,]* ?(ns|us|µs|ms|s)\b|\"(mean|control_mean|patched_mean)\": -|mean -' '$dd/r$cid.$f'"
	done
}

if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 5 --autoboot 10 --seed 57 --batch-timing \
	--fault 2:poison-base,outlier --daemon --pid-file "$dd/pid" 2>"$dd/sim.err"; then
	bad "t57: cannot start the simulator: $(cat "$dd/sim.err")"
else
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots 5 --batches 3 --results "$dd/res" >"$dd/out" 2>"$dd/err"; rc=$?
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "campaign: exit 0, 5+5 ok boots" test "$rc/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = 0/10 ||
		tail -n 20 "$dd/err"
	# the simulator's record: each boot's dmabench lines, as in its dmesg, as log files
	python3 - "$dd/record" "$dd/logs" "$dd/kept.json" <<'EOF'
import json, os, re, sys
rec, out, kept_path = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
lines, variant, faulty = {}, {}, set()
for l in open(rec):
    m = re.match(r'boot (\d+) (.*)', l.rstrip('\n'))
    if not m:
        continue
    n, t = int(m.group(1)), m.group(2)
    if t.startswith('dmabench: '):
        if t.startswith('dmabench: v1 start'):
            lines[n] = []
        lines.setdefault(n, []).append(t)
    elif t.startswith('kernel variant='):
        variant[n] = t.split('=')[1].split()[0]
    elif t in ('fault poison-base', 'fault outlier'):
        faulty.add(n)
assert len(faulty) == 1, faulty
kept = {}
for n, ls in sorted(lines.items()):
    if not any('v1 done status=0' in x for x in ls):
        continue
    with open(f'{out}/{variant[n]}-{n:03d}.log', 'w') as f:
        f.write(f'[    0.000000] Linux version 6.1.0-sim-{variant[n]} (boardsim@lab) #1\n')
        for i, x in enumerate(ls):
            f.write(f'[   {5 + i * 0.001:.6f}] {x}\n')
    if n in faulty:
        for sc in ('small-dirty-256B', 'large-dirty-1MiB'):
            v = [int(re.search(r' mean_ns=(-?\d+)', x).group(1)) for x in ls
                 if f'scenario={sc} ' in x and ' batch=2 ' not in x]
            kept[sc] = sum(v) / len(v)
json.dump(kept, open(kept_path, 'w'))
print('faulty boot', faulty, 'kept means', kept)
EOF
	screen_checks "$cid" "campaign"

	echo "== the same lines ingested from log files"
	"$ablab" ingest "$dd"/logs/control-*.log --board sim-screen --variant control >"$dd/ing.out" 2>&1; rc=$?
	c2=$(psql_q "SELECT max(id) FROM campaigns")
	"$ablab" ingest "$dd"/logs/patched-*.log --board sim-screen --variant patched --campaign "$c2" >>"$dd/ing.out" 2>&1; rc2=$?
	check "ingest: both variants stored in one new campaign (exit $rc/$rc2)" test \
		"$rc/$rc2/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $c2 AND status = 'ok'")" = 0/0/10 ||
		tail -n 20 "$dd/ing.out"
	[ "$c2" != "$cid" ] && screen_checks "$c2" "ingest"
	check "ingest: the same boot means as the campaign" test \
		"$(psql_q "SELECT string_agg(round(m.mean::numeric, 6)::text, ',' ORDER BY b.variant, m.scenario, m.mean) FROM boot_means m JOIN boots b ON b.id = m.boot_id WHERE b.campaign_id = $cid")" = \
		"$(psql_q "SELECT string_agg(round(m.mean::numeric, 6)::text, ',' ORDER BY b.variant, m.scenario, m.mean) FROM boot_means m JOIN boots b ON b.id = m.boot_id WHERE b.campaign_id = $c2")"
fi

echo "== a database from before the screening rule (schema 15): upgraded, its batches screened by net time"
if [ -n "${cid:-}" ]; then
	psql_q "ALTER TABLE samples DROP COLUMN excluded; ALTER TABLE boots DROP COLUMN phases, DROP COLUMN env; DELETE FROM schema_version WHERE version >= 16; DELETE FROM boot_means; INSERT INTO boot_means SELECT s.boot_id, s.scenario, avg(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END), count(CASE WHEN s.kind = 'preserve' THEN s.lost_bytes ELSE s.mean_ns END) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.status = 'ok' GROUP BY s.boot_id, s.scenario"
	check "schema 15: the poisoned boot's mean is negative there (one per campaign)" test \
		"$(psql_q "SELECT count(*) FROM boot_means WHERE mean < 0")" = 2
	"$ablab" report "$cid" --format json >"$dd/up.json" 2>"$dd/up.err"; rc=$?
	check "upgrade: report exit 0, schema 17" test "$rc/$(psql_q "SELECT max(version) FROM schema_version")" = 0/17
	check "upgrade: the negative batches flagged by the migration, no negative boot mean left" test \
		"$(psql_q "SELECT count(*) FROM samples WHERE excluded = 'net time <= 0 (stored before the screening rule)'")/$(psql_q "SELECT count(*) FROM samples WHERE excluded IS NOT NULL")/$(psql_q "SELECT count(*) FROM boot_means WHERE mean < 0")" = 2/2/0
	check "upgrade: the report counts the batch with the migration's reason" python3 -c "
import json, sys
r = {x['scenario']: x for x in json.load(open(sys.argv[1]))['rows']}
s = r['small-dirty-256B']
assert s['left_out'] == '1 of 30 batches left out: net time <= 0 (stored before the screening rule)', s.get('left_out')
assert all(b['mean'] >= 0 for x in r.values() for b in x['boots'])
" "$dd/up.json"
fi
