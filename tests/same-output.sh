#!/usr/bin/env bash
# same-output.sh OLD_ABLAB NEW_ABLAB: run from a repository's top (its tests/lib.sh,
# build/boardsim and fixtures are used).  Loads test data with OLD into a private
# database (simulator A/B campaigns of one job twice, a series campaign, ingested
# seed logs, a calibration), then runs every read-only command and serve's pages and
# API with OLD and with NEW and diffs them.  Prints "identical: N outputs" or the diffs.
set -u
old=$(realpath "$1") new=$(realpath "$2")
top=$PWD
part_name=same-output
. tests/lib.sh
trap - TERM
KEEP=${KEEP:-}; [ -z "$KEEP" ] || trap - EXIT
ablab=$old
bs=$top/build/boardsim
[ -x "$bs" ] || { echo "same-output: build/boardsim missing (make build/boardsim)"; exit 2; }
"$old" db start >/dev/null || { echo "same-output: db start failed"; exit 2; }
w=$tmp/so
mkdir -p "$w"
# 1. an A/B job on the simulator, twice (compare, trend, nightly-like history)
sim_kernels "$w/k" sim-so
sim_uboot_board sim-so "$w"
cat >"$w/job.json" <<JOB
{ "name": "same-out", "boards": ["$w/board.json"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$w/k/control" } },
                "patched": { "source": { "type": "prebuilt", "dir": "$w/k/patched" } } },
  "benchmark": { "name": "dmabench" }, "boots": 4, "batches": 3 }
JOB
sim() { "$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" --record "$w/record" \
	--tick-ms 5 --autoboot 10 --seed "$1" --between 0.003 --effect small-dirty-256B=0.05 --daemon --pid-file "$w/pid" 2>"$w/sim.err"; }
simq() { local pid end=$((SECONDS + 10)); pid=$(cat "$w/pid" 2>/dev/null); "$bs" ctl "$w/ctl" quit >/dev/null 2>&1
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done; }
for seed in 1 2 4; do
	sim $seed || { echo "same-output: simulator: $(cat "$w/sim.err")"; exit 2; }
	"$old" run "$w/job.json" --results "$w/res" --undecidable-ok >/dev/null 2>"$w/run$seed.err" || { echo "same-output: run $seed failed:"; tail -5 "$w/run$seed.err"; }
	simq
done
sim 5 && { "$old" calibrate "$w/board.json" --boots 3 --batches 2 --kernel "$w/k/control" --results "$w/res" >/dev/null 2>"$w/cal.err" || tail -3 "$w/cal.err"; simq; }
# a failed campaign: the simulator is not running
"$old" calibrate "$w/board.json" --boots 3 --batches 2 --kernel "$w/k/control" --results "$w/res" >/dev/null 2>&1
# the A/B job's campaigns as a nightly history (trend, compare --previous)
psql_q "UPDATE campaigns SET trigger = 'nightly' WHERE id IN (SELECT id FROM campaigns ORDER BY id LIMIT 3)"
# 2. a series job (control, +1, +1-2)
for n in 0 1 2; do
	mkdir -p "$w/s/s$n"
	printf '{"board":"sim-so","variant":"s%s","release":"6.1.0-sim-s%s"}\n' $n $n >"$w/s/s$n/manifest.json"
	printf 'zImage\0Linux version 6.1.0-sim-s%s (boardsim@lab) #1\n' $n >"$w/s/s$n/zImage"
	echo initramfs >"$w/s/s$n/initramfs.cpio.gz"; echo dtb >"$w/s/s$n/sim.dtb"
done
cat >"$w/ser.json" <<JOB
{ "name": "same-ser", "boards": ["$w/board.json"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$w/s/s0" } },
                "+1": { "source": { "type": "prebuilt", "dir": "$w/s/s1" } },
                "+1-2": { "source": { "type": "prebuilt", "dir": "$w/s/s2" } } },
  "benchmark": { "name": "dmabench" }, "boots": 3, "batches": 2 }
JOB
sim 3 && { "$old" run "$w/ser.json" --results "$w/res" --undecidable-ok >/dev/null 2>"$w/ser.err" || tail -3 "$w/ser.err"; simq; }
# 3. ingested seed logs
for f in "$top"/tests/fixtures/seed-*.txt; do
	"$old" ingest "$f" --board so-ingest --cpu Cortex-A72 --family v7 --variant control >/dev/null 2>&1
done
ncamp=$(psql_q "SELECT count(*) FROM campaigns")
echo "same-output: $ncamp campaigns loaded"
out() {	# DIR: every read-only output of binary $bin into DIR
	local d=$1 c f
	mkdir -p "$d"
	for c in $(psql_q "SELECT id FROM campaigns ORDER BY id"); do
		for f in text email json csv svg html kcidb; do "$bin" report "$c" --format $f >"$d/report-$c.$f" 2>&1; echo "rc=$?" >>"$d/report-$c.$f"; done
		"$bin" attempts "$c" >"$d/attempts-$c" 2>&1; "$bin" attempts "$c" --format json >"$d/attempts-$c.json" 2>&1
		"$bin" patchwork post "$c" --dry-run >"$d/pw-$c" 2>&1
		"$bin" compare "$c" --previous >"$d/compare-prev-$c" 2>&1
	done
	"$bin" campaigns >"$d/campaigns" 2>&1
	"$bin" campaigns --job same-out >"$d/campaigns-job" 2>&1
	for f in table json csv; do "$bin" query --format $f >"$d/query.$f" 2>&1; done
	"$bin" query --scenario small-dirty-256B --variant patched >"$d/query-filter" 2>&1
	"$bin" compare 1 2 >"$d/compare-1-2" 2>&1
	"$bin" trend same-out --scenario small-dirty-256B >"$d/trend" 2>&1
	"$bin" trend same-out --scenario small-dirty-256B --format svg >"$d/trend.svg" 2>&1
	"$bin" boards >"$d/boards" 2>&1; "$bin" boards --format json >"$d/boards.json" 2>&1
	"$bin" spool list --results "$w/res" >"$d/spool" 2>&1
	"$bin" --help >"$d/help" 2>&1
	for c in ab report run nightly bisect lava patchwork ingest query campaigns calibrate attempts serve compare trend boards resume spool; do "$bin" $c --help >"$d/help-$c" 2>&1; done
	# serve
	local pid end
	"$bin" serve --listen 127.0.0.1:$port --results "$w/res" >"$d/serve.log" 2>&1 &
	pid=$!
	end=$((SECONDS + 20))
	until curl -s -o /dev/null "http://127.0.0.1:$port/" || [ $SECONDS -ge $end ]; do sleep 0.2; done
	for u in / /campaigns "/campaigns?job=same-out" /boards /board/sim-so /board/so-ingest "/trend?job=same-out&scenario=small-dirty-256B" \
		/metrics /api/v1/campaigns /api/v1/boards "/api/v1/query?board=sim-so" "/api/v1/query?scenario=small-dirty-256B&limit=5" \
		/static/app.css /static/app.js /nonexistent "/campaigns?since=bad"; do
		curl -s -D - "http://127.0.0.1:$port$u" | grep -v -i '^date:' >"$d/http-$(echo "$u" | tr '/?&=' '____')" 2>&1
	done
	for c in $(psql_q "SELECT id FROM campaigns ORDER BY id"); do
		curl -s "http://127.0.0.1:$port/campaign/$c" >"$d/http-campaign-$c"
		curl -s "http://127.0.0.1:$port/api/v1/report/$c" >"$d/http-api-report-$c"
	done
	kill $pid; wait $pid 2>/dev/null
	# the metrics' request counters and timings differ run to run
	sed -i -E '/ablab_(http|serve)_[a-z_]*(seconds|total|requests)/d' "$d"/http-_metrics 2>/dev/null
	sed -i -E "s/ [0-9]+ ms$/ N ms/" "$d/serve.log"
}
port=$((20000 + RANDOM % 20000))
bin=$old out "$w/old"
bin=$new out "$w/new"
n=$(ls "$w/old" | wc -l)
if diff -r "$w/old" "$w/new" >"$w/diff"; then
	echo "same-output: identical: $n outputs"
else
	echo "same-output: DIFFERENT ($(grep -c '^diff\|^Only' "$w/diff") of $n outputs):"
	head -n 80 "$w/diff"
	exit 1
fi
