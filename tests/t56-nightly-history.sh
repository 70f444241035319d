# lane: side
# Nightly alerts over 20 simulated nights (issue 12 item 8, acceptance), through the real
# data path: `ablab ingest` stores each night's boots (a boot-level model: 6+6 boots a night,
# 2 % between-boot CV, 0.2 % within), the campaigns get the marks `ablab nightly` gives its
# own (trigger nightly, the job's name, the night's date, complete), and `ablab nightly
# --recompare --date D` runs the night's comparison: the previous night and the change
# points of the history, the p-values of both jobs of the night adjusted together (Holm).
# Job "step" gets +5 % on small-dirty-256B (both kernels) from night 11 on; job "flat" never
# changes.  Expected: exit 3 on night 11 only (a change point, and night against night: 6+6
# boots under Holm over the night's 12 comparisons can alert, 5+5 never could), 0 on every
# other night, and job "flat" alerts on no night.  (The rule's rates over many seeds: `make validate`,
# docs/STATISTICS.md, "nightly" rows.)
d56=${T56_DIR:-$tmp/t56}
mkdir -p "$d56/jobs/series" "$d56/logs"
cp jobs/dma-from-device/patches/*.patch "$d56/jobs/series/"
"$ablab" db start >/dev/null 2>&1
for j in step flat; do
	cat >"$d56/jobs/$j.json" <<-EOF
	{ "name": "$j", "boards": ["qemu-sam9x75"],
	  "variants": { "control": { "source": { "type": "recipe" } },
	                "patched": { "source": { "type": "recipe" }, "patches": "series" } },
	  "benchmark": { "name": "dmabench" },
	  "boots": 6, "batches": 3, "nightly": true,
	  "threshold": { "change_pct": 3, "alpha": 0.05 } }
	EOF
done
gen56() {	# DIR JOB NIGHT: the night's control and patched logs
	python3 - "$@" <<-'EOF'
	import sys, random
	d, job, night = sys.argv[1], sys.argv[2], int(sys.argv[3])
	rng = random.Random(f"t56-{job}-{night}")
	sc = [("small-dirty-256B", 256, 5000, "dirty", 1208), ("large-dirty-1MiB", 1 << 20, 300, "dirty", 656888),
	      ("large-clean-1MiB", 1 << 20, 300, "clean", 656608), ("null", 0, 100000, "clean", 95)]
	for var, slow in (("control", 0.0), ("patched", 0.02)):
	    for b in range(6):
	        off = rng.gauss(0, 0.02)
	        with open(f"{d}/{var}-{b + 1}.log", "w") as f:
	            f.write(f"Linux version 6.1.0-t56-{var} (ablab@ablab) #1\n")
	            f.write("dmabench: v1 start clock_res_ns=1 timing=auto batches=3 scenarios=4\n")
	            for bt in range(1, 4):
	                for name, size, reps, state, m in sc:
	                    m *= 1 + (slow if name.startswith("small") else 0)
	                    if job == "step" and night >= 11 and name.startswith("small"):
	                        m *= 1.05
	                    v = int(round(m * (1 + off + 0.002 * rng.gauss(0, 1))))
	                    f.write(f"dmabench: v1 result scenario={name} batch={bt} size={size} reps={reps} "
	                            f"dir=from op={'null' if not size else 'map_unmap'} state={state} timing=iter mean_ns={v} "
	                            f"min_ns={v * 9 // 10} max_ns={v * 3} ns_per_KiB={v * 1024 // size if size else 0}\n")
	            f.write("dmabench: v1 done status=0 results=12\n")
	EOF
}
rc_nights=""
flat_alerts=0
for night in $(seq 1 20); do
	day=$(printf '2026-03-%02d' "$night")
	for j in step flat; do
		rm -f "$d56"/logs/*.log
		gen56 "$d56/logs" "$j" "$night"
		"$ablab" ingest "$d56"/logs/control-*.log --board qemu-sam9x75 --variant control >/dev/null 2>"$d56/ingest.err" ||
			bad "t56: ingest of night $night ($j): $(tail -n 1 "$d56/ingest.err")"
		cn=$(psql_q "SELECT max(id) FROM campaigns")
		"$ablab" ingest "$d56"/logs/patched-*.log --board qemu-sam9x75 --variant patched --campaign "$cn" >/dev/null 2>>"$d56/ingest.err" ||
			bad "t56: ingest of night $night ($j, patched): $(tail -n 1 "$d56/ingest.err")"
		psql_q "UPDATE campaigns SET trigger = 'nightly', status = 'complete', job = '{\"job\": \"$j\"}', created = '$day 03:00' WHERE id = $cn;
			UPDATE boots SET started = '$day 03:00' WHERE campaign_id = $cn" >/dev/null
	done
	"$ablab" nightly --recompare --jobs "$d56/jobs" --reports "$d56/rep" --date "$day" \
		>"$d56/n$night.out" 2>"$d56/n$night.err"
	rc=$?
	rc_nights="$rc_nights$night:$rc "
	if [ -f "$d56/rep/$day/flat/compare.json" ] && ! grep -q '"changes": 0' "$d56/rep/$day/flat/compare.json"; then
		flat_alerts=$((flat_alerts + 1))
	fi
done
echo "   exit status per night: $rc_nights"
check "nightly --recompare over 20 nights: exit 3 on night 11 only, 0 on the others" test \
	"$rc_nights" = "1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 11:3 12:0 13:0 14:0 15:0 16:0 17:0 18:0 19:0 20:0 "
grep -E 'CHANGE' "$d56/n11.err" | sed 's/^/   /'
check "night 11: the alerts are step's small-dirty-256B, as a change point of its history and night against night" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
ch = [w for w in r["rows"] if w["change"]]
assert ch and all(w["scenario"] == "small-dirty-256B" for w in ch), ch
assert {w["against"] for w in ch} == {"history", "previous night"}, ch
assert all(0.04 < w["rel_change"] < 0.07 for w in ch), ch
' "$d56/rep/2026-03-11/step/compare.json"
# 6+6 boots a night: 12 comparisons x 2 / C(12, 6) = 0.026 <= 0.05 (5+5 gave 0.095: never)
check "the plan says each job's night-against-night comparisons can alert" bash -c \
	"grep -q 'step: night against night 6+6 boots, 12 comparisons in the Holm family of the night .*: can alert' '$d56/n1.err' && grep -q 'flat: night against night 6+6 boots, 12 comparisons' '$d56/n1.err'"
check "job flat: no alert on any of the 20 nights" test "$flat_alerts" = 0
check "the night's Holm family spans both jobs (same size in both, family_jobs 2), the null baseline not in it" python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["family_jobs"] == b["family_jobs"] == 2, (a["family_jobs"], b["family_jobs"])
rows = a["rows"] + b["rows"]
base = [w for w in rows if w["scenario"] == "null"]
assert base and all(w["verdict"] == "baseline (not tested)" and w["p_holm"] is None for w in base), base
n = sum(1 for w in rows if w["scenario"] != "null" and (w.get("p_mwu") is not None or w.get("p_ttest") is not None))
assert a["family_size"] == b["family_size"] == n, (a["family_size"], b["family_size"], n)
' "$d56/rep/2026-03-11/step/compare.json" "$d56/rep/2026-03-11/flat/compare.json"
check "night 1: nothing before it, reports written, exit 0" bash -c \
	"[ -s '$d56/rep/2026-03-01/step/report.txt' ] && grep -q 'first nightly campaign' '$d56/n1.err'"
out=$("$ablab" nightly --recompare --jobs "$d56/jobs" --reports "$d56/rep" --date 2026-04-01 2>&1); rc=$?
check "--recompare for a date without campaigns: exit 1, names job and date" bash -c \
	"[ $rc = 1 ] && echo \"\$1\" | grep -q 'step: no nightly campaign of this job on 2026-04-01'" _ "$out"
out=$("$ablab" nightly --recompare --dry-run --jobs "$d56/jobs" 2>&1); rc=$?
check "--recompare with --dry-run: usage error 2" bash -c "[ $rc = 2 ] && echo \"\$1\" | grep -q 'exclude each other'" _ "$out"
# --recompare after a threshold change (what it is for); a threshold of any size (500 %) is
# no equivalence margin: the night's rows are still compared, and none is a change
sed -i 's/"change_pct": 3,/"change_pct": 500,/' "$d56/jobs/step.json"
"$ablab" nightly --recompare --jobs "$d56/jobs" --reports "$d56/rep" --date 2026-03-11 >/dev/null 2>"$d56/r11.err"; rc=$?
check "--recompare of night 11 with change_pct 500: exit 0, every row compared, below threshold" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
rows = [w for w in r["rows"] if w["against"] == "previous night" and w["scenario"] != "null"]
assert int(sys.argv[2]) == 0 and r["threshold"] == 5 and len(rows) == 6, (sys.argv[2], r["threshold"], len(rows))
assert all(w["verdict"] == "below threshold" for w in rows), rows
' "$d56/rep/2026-03-11/step/compare.json" "$rc"
