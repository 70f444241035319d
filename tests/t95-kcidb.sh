# SPDX-License-Identifier: GPL-2.0-only
# KCIDB export (issue 30 item 3): `ablab report N --format kcidb` on a campaign of ingested
# logs (two rows, a series record as a b4 job stores it) validates against KCIDB's published
# schema v5.3 (tests/fixtures/kcidb/, JSON Schema draft 7, formats checked); a checkout and a
# build per kernel, a test per row and kernel; the patched tests' misc carries the numbers of
# `report --format json` (control and patched values, change, CI, verdict); the patched
# checkout names the series' message-id.
# timeout: 120
# lane: side
d=$tmp/t95
mkdir -p "$d"
if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "t95: python3-jsonschema is not installed (make test-deps)"
	return 0
fi
schema=$top/tests/fixtures/kcidb/kcidb-io.schema.v5.3.json
"$ablab" db start >/dev/null || bad "t95: db start"
python3 - "$d/logs" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for var, base in (("control", 3530), ("patched", 3700)):
    for i in range(1, 7):
        with open(f"{d}/{var}-{i}.log", "w") as o:
            o.write(f"[    0.000000] Linux version 6.1.0-t95-{var} (ci@build) (gcc) #1 SMP\n")
            o.write("[   41.210021] dmabench: START\n")
            m = base + 7 * i
            o.write(f"[   41.221634] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns={m} "
                    f"min_ns={m - 100} max_ns={m + 300} ns_per_KiB={m * 4}\n")
            m = 120000 + 11 * i
            o.write(f"[   41.331634] dmabench: large-clean-1M size= 1048576 reps=100 mean_ns={m} "
                    f"min_ns={m - 100} max_ns={m + 300} ns_per_KiB={m // 1024}\n")
            o.write("[   85.991820] dmabench: DONE\n")
PY
"$ablab" ingest "$d"/logs/control-*.log --board t95-board --cpu ARM926EJ-S --family v5 --variant control >"$d/ingest.out" 2>&1
cid=$(psql_q "SELECT max(id) FROM campaigns")
"$ablab" ingest "$d"/logs/patched-*.log --board t95-board --variant patched --campaign "$cid" >>"$d/ingest.out" 2>&1 ||
	cat "$d/ingest.out"
series='{"msgid": "20260910083600.1-1-ablab@localhost", "subject": "[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "version": 1, "mbox": "series.mbox", "patches": ["[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "[PATCH 2/2] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends"]}'
psql_q "UPDATE campaigns SET job = jsonb_build_object('job', 'dma-mbox', 'series', '$series'::jsonb) WHERE id = $cid"

"$ablab" report "$cid" --format kcidb >"$d/kcidb.json" 2>"$d/kcidb.err"
check "t95: report --format kcidb: exit 0" test $? = 0 || cat "$d/kcidb.err"
"$ablab" report "$cid" --format json >"$d/report.json" 2>&1 || bad "t95: report --format json"
# validate SCHEMA DOC: jsonschema's draft 7 validator with its format checker
validate() {
	python3 - "$1" "$2" <<'PY'
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
for e in errs[:5]:
    print("invalid:", "/".join(map(str, e.path)), e.message[:200])
sys.exit(1 if errs else 0)
PY
}
check "t95: the submission validates against KCIDB schema v5.3" validate "$schema" "$d/kcidb.json"
check "t95: 2 checkouts, 2 builds, 4 tests (2 rows x 2 kernels), version 5.3, ids unique" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))
assert k["version"] == {"major": 5, "minor": 3}, k["version"]
assert (len(k["checkouts"]), len(k["builds"]), len(k["tests"])) == (2, 2, 4), k
ids = [o["id"] for t in ("checkouts", "builds", "tests") for o in k[t]]
assert len(ids) == len(set(ids)), ids
builds = {b["id"] for b in k["builds"]}
assert all(t["build_id"] in builds for t in k["tests"])
assert {b["checkout_id"] for b in k["builds"]} == {c["id"] for c in k["checkouts"]}
' "$d/kcidb.json"
check "t95: each patched test carries the json report's control and patched means, change, CI and verdict" python3 -c '
import json, sys
k = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
rows = {x["scenario"]: x for x in r["rows"]}
pt = [t for t in k["tests"] if t["misc"]["variant"] == "patched"]
assert len(pt) == 2
for t in pt:
    m, x = t["misc"], rows[t["misc"]["scenario"]]
    assert t["status"] == "DONE" and t["number"]["unit"] == "ns", t
    assert abs(t["number"]["value"] - x["patched_mean"]) < 1e-6 * x["patched_mean"], (t, x)
    for a, b in (("control_value", "control_mean"), ("patched_value", "patched_mean"),
                 ("rel_change", "rel_change"), ("ci_lo", "ci_lo"), ("ci_hi", "ci_hi")):
        assert abs(m[a] - x[b]) <= 1e-9 * max(1, abs(x[b])), (a, m[a], x[b])
    assert m["verdict"] == x["verdict"] and m["verdict"] in ("same", "different", "undecided"), m
    assert m["change"].endswith("%") and m["ci"].startswith("["), m
    assert t["path"] == "ablab." + m["scenario"] and t["environment"]["comment"] == "t95-board"
ct = [t for t in k["tests"] if t["misc"]["variant"] == "control"]
for t in ct:
    x = rows[t["misc"]["scenario"]]
    assert abs(t["number"]["value"] - x["control_mean"]) < 1e-6 * x["control_mean"], (t, x)
print("patched rows:", ", ".join("%s %s %s %s" % (t["misc"]["scenario"], t["misc"]["change"],
      t["misc"]["ci"], t["misc"]["verdict"]) for t in pt))
' "$d/kcidb.json" "$d/report.json"
check "t95: the patched checkout names the series message-id, the control checkout none" python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))
c = {x["misc"]["variant"]: x for x in k["checkouts"]}
assert c["patched"]["message_id"] == "20260910083600.1-1-ablab@localhost", c
assert "message_id" not in c["control"], c
' "$d/kcidb.json"
# the validator can fail: a null number and a bad origin are refused
python3 -c '
import json, sys
k = json.load(open(sys.argv[1]))
k["tests"][0]["number"]["value"] = None
k["builds"][0]["origin"] = "Ablab Lab"
json.dump(k, open(sys.argv[2], "w"))' "$d/kcidb.json" "$d/broken.json"
out=$(validate "$schema" "$d/broken.json"); rc=$?
check "t95: a broken submission is invalid (exit $rc), both errors named" bash -c \
	"[ $rc = 1 ] && grep -q 'tests/0/number/value' <<<\"\$1\" && grep -q 'builds/0/origin' <<<\"\$1\"" _ "$out"
# an empty campaign is an error, not an empty submission
psql_q "INSERT INTO campaigns (trigger, order_kind) VALUES ('cli', 'abab')" >/dev/null 2>&1
eid=$(psql_q "SELECT max(id) FROM campaigns")
if [ "$eid" != "$cid" ]; then
	"$ablab" report "$eid" --format kcidb >"$d/empty.json" 2>&1; rc=$?
	check "t95: a campaign without rows: exit 1" test "$rc" = 1
fi
check "t95: report --help lists kcidb" bash -c "\"$ablab\" report --help | grep -q '^  kcidb  a KernelCI results database'"
