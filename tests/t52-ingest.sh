# `ablab ingest` of logs as people capture them (agent/ingest.c, parse.c), on a
# real PostgreSQL: a console capture holding the kernel's printk output and a
# `dmesg` typed afterwards stores each line once; a log cut short (no DONE)
# with a line cut by other output is refused naming every rejected line by
# file:line and pointing at --partial; with --partial its valid scenarios are
# stored, the boot is marked partial in the database and the report says so.
# timeout: 240
fx=$top/tests/fixtures
d=$tmp/t52
mkdir -p "$d"
"$ablab" db start >/dev/null || bad "t52: db start"
ing() { "$ablab" ingest "$@" --board pi400-t52 --variant control --cpu Cortex-A72 --family v7; }
last() { psql_q "SELECT coalesce(max(id), 0) FROM campaigns"; }
# samples of the last campaign: count/distinct scenarios/max batch
shape() { psql_q "SELECT count(*) || '/' || count(DISTINCT s.scenario) || '/' || max(s.batch) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $(last)"; }

echo "== printk output and a dmesg of it in one capture"
ing "$fx/seed-console-dmesg-pi400.txt" >"$d/dup.out" 2>&1; rc=$?
cat "$d/dup.out"
check "console + dmesg capture: exit 0, each of the 3 lines stored once (samples/scenarios/max batch $(shape))" \
	test "$rc/$(shape)" = 0/3/3/1
check "the repeated lines are counted and said so" grep -q '5 repeated line(s) (same timestamp and text' "$d/dup.out"
check "the values are those printed once" test \
	"$(psql_q "SELECT string_agg(mean_ns::text, ',' ORDER BY scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $(last)")" = "73108,73840,353"
check "a complete log is not marked partial" test "$(psql_q "SELECT partial FROM boots WHERE campaign_id = $(last)")" = f

echo "== a log cut short, with one line cut by other output"
cut=$fx/seed-cut-pi400.txt
n0=$(psql_q "SELECT count(*) FROM boots")
ing "$cut" >"$d/cut.out" 2>&1; rc=$?
cat "$d/cut.out"
check "without --partial: exit 1, nothing stored" test "$rc/$(psql_q "SELECT count(*) FROM boots")" = "1/$n0"
check "the rejected line is named by file and line number, with the reason" \
	grep -qF "$cut:14: rejected: bad number in mean_ns=: \"[   41.684512] dmabench: large-dirty-1MiB" "$d/cut.out"
check "the error says what is wrong and to use --partial" \
	grep -qF "$cut: 1 malformed benchmark line(s); first: bad number in mean_ns=" "$d/cut.out"
check "... and how many scenarios --partial would keep" \
	grep -qF "not stored: run again with --partial to keep its 2 valid scenario(s) and mark the boot partial" "$d/cut.out"
check "the scenario the rejected line was about is named as dropped" \
	grep -qF "$cut: scenario large-dirty-1MiB lost: its line 14 was rejected and no other line of it is valid" "$d/cut.out"
ing "$cut" --partial >"$d/part.out" 2>&1; rc=$?
cat "$d/part.out"
check "--partial: exit 0, the 2 valid scenarios stored ($(shape))" test "$rc/$(shape)" = 0/2/2/1
check "--partial: the rejected line is still named" grep -qF "$cut:14: rejected:" "$d/part.out"
check "--partial: the stored line says partial and why" \
	grep -qF "stored as control boot 1 of campaign $(last) (2 scenarios x 1 batches, kernel 7.3.0-rc1-00324-g986c24e0fe44; partial: no DONE line, 1 rejected line(s), 1 scenario(s) dropped)" "$d/part.out"
check "--partial: the boot is partial in the database" test \
	"$(psql_q "SELECT status || '/' || partial FROM boots WHERE campaign_id = $(last)")" = ok/true
"$ablab" report "$(last)" >"$d/report.txt" 2>&1
check "the report marks the boot partial" grep -qF "pi400-t52: PARTIAL: 1 boot(s) ingested with --partial" "$d/report.txt"
"$ablab" report "$(last)" --format json >"$d/report.json" 2>&1
check "the JSON report counts the partial boot" \
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); b = d["boards"][0]; sys.exit(b["partial_boots"] != 1)' "$d/report.json"
ing "$cut" --partial >"$d/again.out" 2>&1; rc=$?
check "the same file again: already stored" bash -c "[ $rc = 0 ] && grep -q 'already stored' '$d/again.out'"

echo "== v1: a line cut on the console, whole in the dmesg typed afterwards"
v1() {	# TIME SCENARIO BATCH MEAN [JUNK]: one line, cut by JUNK after the mean when given
	local l="[    5.$1] dmabench: v1 result scenario=$2 batch=$3 size=256 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns=$4"
	if [ -n "${5:-}" ]; then echo "$l$5"; else echo "$l min_ns=1 max_ns=900 ns_per_KiB=4"; fi
}
whole() {	# [JUNK]: the module's output, batch 2 of scenario b cut by JUNK when given
	echo "[    5.000000] dmabench: v1 start clock_res_ns=1"
	v1 100000 a 1 51; v1 110000 b 1 51; v1 200000 a 2 52; v1 210000 b 2 52 "${1:-}"
	echo "[    5.300000] dmabench: v1 done status=0"
}
{ whole "[    5.210001] mmc0: timeout"; echo "lab# dmesg"; whole; } >"$d/v1.txt"
ing "$d/v1.txt" >"$d/v1.out" 2>&1; rc=$?
cat "$d/v1.out"
check "v1 cut line: named with its line number; without --partial refused (exit $rc)" \
	bash -c "[ $rc = 1 ] && grep -qF '$d/v1.txt:5: rejected:' '$d/v1.out' && grep -qF -- '--partial to keep its 2 valid' '$d/v1.out'"
ing "$d/v1.txt" --partial >"$d/v1p.out" 2>&1; rc=$?
cat "$d/v1p.out"
check "--partial: both scenarios kept (the cut batch arrived whole in the dmesg): $(shape)" \
	test "$rc/$(shape)" = 0/4/2/2
check "--partial: the boot is still marked partial (a line was rejected)" test \
	"$(psql_q "SELECT partial FROM boots WHERE campaign_id = $(last)")" = t
printf 'dmabench: START\ndmabench: x size=1 reps=1 mean_ns=1 min_ns=1 max_ns=1 ns_per_KiB=1\ndmabench: x size=1 reps=1 mean_ns=1 min_ns=1 max_ns=1 ns_per_KiB=1\n' >"$d/nots.txt"
ing "$d/nots.txt" --partial >"$d/nots.out" 2>&1; rc=$?
check "lines without a timestamp are never merged (two batches may print the same values): $(shape)" \
	test "$rc/$(shape)" = 0/2/1/2
{ echo "[    5.000000] dmabench: v1 start clock_res_ns=1"; v1 1 a 1 51; v1 2 b 1 51; v1 3 a 2 52; v1 4 b 3 52; v1 5 b 3 52; v1 6 a 3 53; } >"$d/gap.txt"
ing "$d/gap.txt" --partial >"$d/gap.out" 2>&1; rc=$?
cat "$d/gap.out"
check "--partial without DONE: a scenario with a batch twice and one missing is dropped, named; the other kept ($(shape))" \
	bash -c "[ '$rc/$(shape)' = 0/3/1/3 ] && grep -qF '$d/gap.txt: scenario b dropped: batch 3 reported twice' '$d/gap.out'"
printf 'dmabench: START\ndmabench: x size=1 reps=1 mean_ns=1 min_ns=1 max_ns=1 ns_per_KiB=1\ndmabench: size=1 reps=1 mean_ns=1\n' >"$d/noname.txt"
ing "$d/noname.txt" --partial >"$d/noname.out" 2>&1; rc=$?
check "a rejected line naming no scenario drops none; it is named by its line ($(shape))" \
	bash -c "[ '$rc/$(shape)' = 0/1/1/1 ] && grep -qF '$d/noname.txt:3: rejected:' '$d/noname.out' && ! grep -q 'scenario size' '$d/noname.out'"

echo "== samples -> boots: the foreign key's rules, checked once per statement (schema 12)"
# the row trigger of a foreign key (RI_FKey_check_ins, ~4 us per row) made COPY the bound of ingest
check "no per-row foreign key trigger on samples" test \
	"$(psql_q "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'samples'::regclass AND tgisinternal")" = 0
bid=$(psql_q "SELECT max(b.id) FROM boots b JOIN samples s ON s.boot_id = b.id")
sq() { echo "$1" | psql -X -A -t -q -v ON_ERROR_STOP=1 "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -f - 2>&1; }
check "a sample of a boot that does not exist is refused, naming the boot" bash -c \
	"[[ \"\$(psql -X -A -t -q 'host=$ABLAB_DATA/pg dbname=ablab user=ablab' -c \"INSERT INTO samples (boot_id, scenario, batch, kind) VALUES ($bid, 'x-t52', 99, 'result'), (-7, 'x-t52', 1, 'result')\" 2>&1)\" == *'violates its foreign key to boots: boot -7 is not in boots'* ]]"
check "... and nothing of that statement is stored" test "$(psql_q "SELECT count(*) FROM samples WHERE scenario = 'x-t52'")" = 0
check "an update moving samples to no boot is refused" bash -c \
	"! psql -X -q 'host=$ABLAB_DATA/pg dbname=ablab user=ablab' -c 'UPDATE samples SET boot_id = -7 WHERE boot_id = $bid' 2>/dev/null"
# (its boot_means rows first: their own foreign key would refuse it before)
check "a boot's id that samples use cannot change" bash -c \
	"[[ \"\$(echo 'BEGIN; DELETE FROM boot_means WHERE boot_id = $bid; UPDATE boots SET id = -$bid WHERE id = $bid; ROLLBACK;' | psql -X -A -t -q 'host=$ABLAB_DATA/pg dbname=ablab user=ablab' -f - 2>&1)\" == *'would leave the samples of boot $bid without their boot'* ]]"
check "deleting a boot deletes its samples (rolled back)" test \
	"$(sq "BEGIN; DELETE FROM boot_means WHERE boot_id = $bid; DELETE FROM boots WHERE id = $bid; SELECT count(*) FROM samples WHERE boot_id = $bid; ROLLBACK;")" = 0
check "... which were there" test "$(psql_q "SELECT count(*) > 0 FROM samples WHERE boot_id = $bid")" = t

echo "== several files in one run: each prepared while the one before is stored, said in file order"
for i in 1 2 3; do
	{ echo "[    7.00000$i] dmabench: v1 start clock_res_ns=1"; v1 1$i m 1 6$i; v1 2$i m 2 6$i
	  echo "[    7.90000$i] dmabench: v1 done status=0 results=2"; } >"$d/many$i.txt"
done
echo "nothing here" >"$d/many2.txt"
ing "$d/many1.txt" "$d/many2.txt" "$d/many3.txt" "$d/many1.txt" >"$d/many.out" 2>"$d/many.err"; rc=$?
cat "$d/many.out" "$d/many.err"
check "3 files + one again: exit 1 (one failed), the others stored in order, the repeat already stored" bash -c \
	"[ $rc = 1 ] && [ \"\$(cut -d: -f1 '$d/many.out' | tr '\n' ' ')\" = '$d/many1.txt $d/many3.txt $d/many1.txt campaign $(last) ' ] && grep -q 'many1.txt: already stored' '$d/many.out'"
check "the file without results is named" grep -qF "$d/many2.txt: no dmabench result lines" "$d/many.err"
check "boots 1 and 2 of the campaign, 2 samples each" test \
	"$(psql_q "SELECT string_agg(b.seq || ':' || (SELECT count(*) FROM samples s WHERE s.boot_id = b.id), ',' ORDER BY b.seq) FROM boots b WHERE b.campaign_id = $(last)")" = "1:2,2:2"

echo "== two boots stored at once, on two connections; said in file order"
# 40,000 samples a file: a boot is still being stored while the next files are
# checked.  stdout line-buffered: the order of stdout and stderr lines together
big() {	# FILE SEED
	python3 - "$1" "$2" <<'PY'
import sys
f, k = sys.argv[1], int(sys.argv[2])
with open(f, 'w') as o:
    o.write('[    1.000000] dmabench: v1 start clock_res_ns=1\n')
    for b in range(1, 10001):
        for s in ('p', 'q', 'r', 's'):
            o.write(f'dmabench: v1 result scenario={s} batch={b} size=64 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns={k * 100 + b % 7} min_ns=1 max_ns=99999 ns_per_KiB=4\n')
    o.write('dmabench: v1 done status=0\n')
PY
}
big "$d/two1.txt" 1; big "$d/two2.txt" 2; big "$d/two3.txt" 3
cp "$d/two2.txt" "$d/two2-copy.txt"
ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 stdbuf -oL "$ablab" ingest "$d/two1.txt" "$d/many2.txt" \
	"$d/two2.txt" "$d/two2-copy.txt" "$d/two3.txt" --board pi400-t52 --variant control >"$d/two.out" 2>&1; rc=$?
cat "$d/two.out"
two=$(last)
check "exit 1 (one file failed); stdout and stderr together in file order: stored, refused, stored, already stored (the copy of the boot just before, still being stored), stored" \
	test "$rc|$(sed -e 's/^ablab: //' -e "s|$d/||" -e 's/ (.*//' -e 's/ of campaign [0-9]*//' "$d/two.out" | tr '\n' '|')" = \
	"1|two1.txt: stored as control boot 1|many2.txt: no dmabench result lines|two2.txt: stored as control boot 2|two2-copy.txt: already stored|two3.txt: stored as control boot 3|campaign $two: 3 boot(s) stored, 1 already stored, 1 failed|"
check "every sample and boot mean of the 3 boots stored, boot seq in file order" test \
	"$(psql_q "SELECT string_agg(b.seq || ':' || regexp_replace(b.log_path, '.*/', '') || ':' || (SELECT count(*) FROM samples s WHERE s.boot_id = b.id) || ':' || (SELECT count(*) FROM boot_means m WHERE m.boot_id = b.id), ',' ORDER BY b.seq) FROM boots b WHERE b.campaign_id = $two")" = \
	"1:two1.txt:40000:4,2:two2.txt:40000:4,3:two3.txt:40000:4"
check "the values are each file's own (boot 3: mean of p = 300 + mean of b % 7)" test \
	"$(psql_q "SELECT round(m.mean::numeric, 4) FROM boot_means m JOIN boots b ON b.id = m.boot_id WHERE b.campaign_id = $two AND b.seq = 3 AND m.scenario = 'p'")" = \
	"$(python3 -c 'print(f"{300 + sum(b % 7 for b in range(1, 10001)) / 10000:.4f}")')"

echo "== the board's row: written when new or changed, not rewritten by every boot"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); b["name"] = "t52-brd"; b["cpu"] = sys.argv[3]; json.dump(b, open(sys.argv[2], "w"))' \
	boards/pi400.json "$d/brd1.json" Cortex-A72
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); b["name"] = "t52-brd"; b["cpu"] = sys.argv[3]; json.dump(b, open(sys.argv[2], "w"))' \
	boards/pi400.json "$d/brd2.json" Cortex-A72-r1
"$ablab" ingest "$d/many1.txt" --board "$d/brd1.json" --variant control >/dev/null 2>&1
x1=$(psql_q "SELECT xmin || '/' || cpu FROM boards WHERE name = 't52-brd'")
"$ablab" ingest "$d/many3.txt" --board "$d/brd1.json" --variant control >/dev/null 2>&1
x2=$(psql_q "SELECT xmin || '/' || cpu FROM boards WHERE name = 't52-brd'")
check "a second boot of the same board definition leaves its row as it was ($x1, $x2)" test "$x1" = "$x2"
"$ablab" ingest "$d/v1.txt" --partial --board "$d/brd2.json" --variant control >/dev/null 2>&1
x3=$(psql_q "SELECT count(*) || '/' || max(cpu) FROM boards WHERE name = 't52-brd'")
check "a changed definition updates the row ($x3)" test "$x3" = 1/Cortex-A72-r1
check "... and one kernel row serves the boots of the same kernel" test \
	"$(psql_q "SELECT count(DISTINCT b.kernel_id) || '/' || count(*) FROM boots b JOIN boards o ON o.id = b.board_id WHERE o.name = 't52-brd'")" = 1/3

echo "== a capture of two boots (two kernels): refused naming the line where each run starts"
# (issue 27 item 2: stored as one boot with 2 batches under the first kernel's name)
two=$d/two-boots.txt
{ cat "$fx/seed-console-dmesg-pi400.txt"
  sed -e 's/7\.3\.0-rc1-00324-g986c24e0fe44/7.3.0-rc2-patched/' -e 's/\[   \([0-9]\)/[  1\1/' "$fx/seed-dmesg-pi400.txt"; } >"$two"
second=$(($(wc -l <"$fx/seed-console-dmesg-pi400.txt") + $(grep -n 'Linux version' "$fx/seed-dmesg-pi400.txt" | cut -d: -f1)))
n0=$(psql_q "SELECT count(*) FROM boots")
ing "$two" >"$d/tb.out" 2>&1; rc=$?
cat "$d/tb.out"
fault 27.2 "two boots in one file: refused (exit $rc), nothing stored, each run's first line named (2 and $second)" bash -c \
	"[ $rc = 1 ] && [ $(psql_q "SELECT count(*) FROM boots") = $n0 ] && grep -qF '$two: 2 runs in one file (a kernel'\\''s \"Linux version\" line or a benchmark start line begins each: lines 2, $second); not stored: one file per boot' '$d/tb.out'"
ing "$two" --partial >"$d/tbp.out" 2>&1; rc=$?
fault 27.2 "  ... also with --partial (exit $rc), saying so" bash -c \
	"[ $rc = 1 ] && [ $(psql_q "SELECT count(*) FROM boots") = $n0 ] && grep -qF 'lines 2, $second); not stored, also with --partial' '$d/tbp.out'"
printf '%s\n' '[    1.000000] dmabench: v1 start clock_res_ns=1' \
	'dmabench: v1 result scenario=p batch=1 size=64 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns=100 min_ns=1 max_ns=999 ns_per_KiB=4' \
	'dmabench: v1 done status=0' '[   50.000000] dmabench: v1 start clock_res_ns=1' \
	'dmabench: v1 result scenario=p batch=1 size=64 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns=900 min_ns=1 max_ns=999 ns_per_KiB=4' \
	'dmabench: v1 done status=0' >"$d/v1-twice.txt"
ing "$d/v1-twice.txt" >"$d/v1t.out" 2>&1; rc=$?
fault 27.2 "v1: a second start line (the module loaded twice) no longer discards the first run silently: refused (exit $rc), lines 1, 4" bash -c \
	"[ $rc = 1 ] && [ $(psql_q "SELECT count(*) FROM boots") = $n0 ] && grep -qF 'begins each: lines 1, 4); not stored' '$d/v1t.out'"
ing "$two" --split >"$d/tbs.out" 2>&1; rc=$?
cat "$d/tbs.out"
fault 27.2 "--split: one boot per run, each under its own kernel (exit $rc)" bash -c \
	"[ $rc = 0 ] && grep -qF '$two (run 1 of 2, from line 1): stored as control boot 1' '$d/tbs.out' && grep -qF '$two (run 2 of 2, from line $second): stored as control boot 2' '$d/tbs.out' && [ \"$(psql_q "SELECT string_agg(seq || ':' || uname_r || ':' || (SELECT count(*) FROM samples s WHERE s.boot_id = b.id), ' ' ORDER BY seq) FROM boots b WHERE campaign_id = $(last)")\" = '1:7.3.0-rc1-00324-g986c24e0fe44:3 2:7.3.0-rc2-patched:3' ]"
ing "$two" --split >"$d/tbs2.out" 2>&1; rc=$?
check "--split again: each run already stored (exit $rc)" test "$(grep -c 'already stored (boot' "$d/tbs2.out")/$rc" = 2/0
ing "$fx/seed-console-dmesg-pi400.txt" >"$d/one.out" 2>&1; rc=$?
check "one boot with a dmesg of it is still one run (exit $rc: already stored)" grep -q 'already stored' "$d/one.out"

echo "== a Linux version line whose release is no release: stored as unknown, CSV safe"
# (issue 27, Low: "=HYPERLINK(...)" became the release and a formula in CSV output)
sed -e 's/Linux version 7\.3\.0-rc1-00324-g986c24e0fe44/Linux version =HYPERLINK("http:\/\/x.example","y")/' \
	-e 's/mean_ns=353/mean_ns=357/' "$fx/seed-console-dmesg-pi400.txt" >"$d/formula.txt"
ing "$d/formula.txt" >"$d/formula.out" 2>&1; rc=$?
grep -m1 'names no kernel release' "$d/formula.out"
"$ablab" query --campaign "$(last)" --format csv >"$d/formula.csv" 2>&1
rel=$(psql_q "SELECT coalesce(uname_r, '') FROM boots WHERE campaign_id = $(last)")
fault 27.12 "a release =HYPERLINK(...) is refused as a release: stored (exit $rc) as $rel, said so, no formula cell in query CSV" bash -c \
	"[ $rc = 0 ] && [ '$rel' = unknown ] && grep -qF 'names no kernel release (as uname -r prints it): its release is stored as \"unknown\"' '$d/formula.out' && grep -q ',unknown,' '$d/formula.csv' && ! grep -qE '(^|,)\"?[=@]' '$d/formula.csv'"

echo "== a NUL byte inside a benchmark line: dropped, and said so"
sed -e 's/mean_ns=353/mean_ns=35\x003/' -e 's/7\.3\.0-rc1-00324-g986c24e0fe44/7.3.0-nul/' "$fx/seed-console-dmesg-pi400.txt" >"$d/nul.txt"
ing "$d/nul.txt" >"$d/nul.out" 2>&1; rc=$?
grep NUL "$d/nul.out"
fault 27.17 "ingest: a NUL inside a benchmark line is named with its line (exit $rc)" \
	grep -qF "$d/nul.txt:13: 2 benchmark line(s) held NUL bytes, dropped" "$d/nul.out"

echo "== SIGKILL during an ingest: no empty campaign; a rerun continues the campaign the killed run left"
# (issue 27, Low: a kill left an empty "stale" campaign, and a rerun split one set of files
# over two campaigns.)  The campaign is made with its first boot, in one transaction; a
# rerun of the same files (board, variant) finds the killed run's campaign and adds the
# boots it had not stored.
kb=pi400-t52k
ingk() { "$ablab" ingest "$@" --board $kb --variant control --cpu Cortex-A72 --family v7; }
# ingk_bg OUT FILES...: the same in the background, $kpid ablab's own pid (the one killed)
ingk_bg() {
	local out=$1; shift
	"$ablab" ingest "$@" --board $kb --variant control --cpu Cortex-A72 --family v7 >"$out" 2>&1 &
	kpid=$!
}
ncamp() { psql_q "SELECT count(*) FROM campaigns WHERE job->>'board' = '$kb'"; }
nboots() { psql_q "SELECT count(*) FROM boots b JOIN boards o ON o.id = b.board_id WHERE o.name = '$kb'"; }
two_boots() { test "$(nboots)" = 2; }
lockwait() { test "$(psql_q "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'boots'::regclass")" -ge 1; }
no_client() { test "$(psql_q "SELECT count(*) FROM pg_stat_activity WHERE datname = 'ablab' AND backend_type = 'client backend' AND pid <> pg_backend_pid()")" = 0; }
wait_for() { local end=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.05; done; }
for k in 1 2 3 4; do
	python3 - "$d/k$k.txt" "$k" <<'PY'
import sys
f, k = sys.argv[1], int(sys.argv[2])
with open(f, 'w') as o:
    o.write('[    1.000000] dmabench: v1 start clock_res_ns=1\n')
    for b in range(1, 4):
        o.write(f'dmabench: v1 result scenario=p batch={b} size=64 reps=10 dir=from op=map_unmap state=dirty timing=iter mean_ns={k * 100 + b} min_ns=1 max_ns=99999 ns_per_KiB=4\n')
    o.write('dmabench: v1 done status=0\n')
PY
done
# a. killed before its first boot is stored: a session of the test holds the boots table
# (LOCK TABLE ... EXCLUSIVE), so the boot's INSERT waits; killed while it waits
mkfifo "$d/lockq"
psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" <"$d/lockq" >"$d/lock.out" 2>&1 &
lpid=$!
exec 7>"$d/lockq"
echo "BEGIN; LOCK TABLE boots IN EXCLUSIVE MODE; SELECT 'locked';" >&7
wait_for 20 grep -q locked "$d/lock.out" || bad "t52: the test's lock on boots was not taken: $(cat "$d/lock.out")"
ingk_bg "$d/kill1.out" "$d/k1.txt" "$d/k2.txt"
wait_for 30 lockwait || bad "t52: the ingest never waited for the boots table"
kill -9 $kpid
wait $kpid 2>/dev/null
echo "ROLLBACK;" >&7
exec 7>&-
wait $lpid
wait_for 30 no_client || bad "t52: the killed ingest's session did not end"
fault 27.25 "ingest killed (SIGKILL) before its first boot was stored: no campaign left ($(ncamp) of board $kb, $(nboots) boots)" \
	test "$(ncamp)/$(nboots)" = 0/0
# b. killed after two boots: its third file a FIFO that no one writes (its reader waits)
mv "$d/k3.txt" "$d/k3.real"
mkfifo "$d/k3.txt"
ingk_bg "$d/kill2.out" "$d/k1.txt" "$d/k2.txt" "$d/k3.txt" "$d/k4.txt"
wait_for 30 two_boots || bad "t52: the ingest did not store its first two boots: $(cat "$d/kill2.out")"
kill -9 $kpid
wait $kpid 2>/dev/null
rm -f "$d/k3.txt"
mv "$d/k3.real" "$d/k3.txt"
check "the killed ingest left 1 campaign with 2 boots, shown stale ($(ncamp) campaign(s), $(nboots) boots)" bash -c \
	"[ $(ncamp)/$(nboots) = 1/2 ] && '$ablab' campaigns | grep -w stale | grep -qw $(psql_q "SELECT max(id) FROM campaigns WHERE job->>'board' = '$kb'")"
ingk "$d/k1.txt" "$d/k2.txt" "$d/k3.txt" "$d/k4.txt" >"$d/rerun.out" 2>&1; rc=$?
cat "$d/rerun.out"
kc=$(psql_q "SELECT max(id) FROM campaigns WHERE job->>'board' = '$kb'")
fault 27.25 "the rerun of the same ingest continues the killed run's campaign: 1 campaign, its 4 boots (seq $(psql_q "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM boots WHERE campaign_id = $kc")), complete, exit $rc" \
	test "$rc/$(ncamp)/$(psql_q "SELECT count(*) || '/' || c.status FROM boots b JOIN campaigns c ON c.id = b.campaign_id WHERE c.id = $kc GROUP BY c.status")" = 0/1/4/complete
fault 27.25 "  ... and says so: continued, 2 stored, 2 already stored" bash -c \
	"grep -q '^campaign $kc: continued: an ingest of these files (board $kb, variant control) stopped before its end' '$d/rerun.out' && grep -q '^campaign $kc: 2 boot(s) stored, 2 already stored, 0 failed' '$d/rerun.out'"
check "no campaign of board $kb is empty" test "$(psql_q "SELECT count(*) FROM campaigns c WHERE job->>'board' = '$kb' AND NOT EXISTS (SELECT 1 FROM boots b WHERE b.campaign_id = c.id)")" = 0
