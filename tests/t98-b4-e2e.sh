# SPDX-License-Identifier: GPL-2.0-only
# The b4 path end to end (issue 30 item 4): the project's two-patch series mailed into a
# local mbox, taken by b4 into a real 1+1 campaign on qemu-sam9x75 (the kernels of that
# series already in the cache, else skipped: this part builds no kernel), then from that
# same campaign: `report --reply`, `patchwork post` (each patch found by the Message-ID
# b4 intake recorded; tests/patchwork_fake_server.py) and `report --format kcidb`
# (validated against the vendored KCIDB schema).
# timeout: 300
d=$tmp/t98
mkdir -p "$d/jobs" "$d/cache"
if ! command -v b4 >/dev/null; then
	skip "t98: b4 is not installed (make deps)"
	return 0
fi
real_cache=$kcache
[ -d "$real_cache/kernels" ] && ln -s "$real_cache/kernels" "$d/cache/kernels"
export ABLAB_CACHE=$d/cache
series_mbox "$d/jobs/series.mbox" 20260910083600 jobs/dma-from-device/patches/*.patch
python3 -c 'import json, sys
j = json.load(open("jobs/dma-from-device.json"))
j["variants"]["patched"]["patches"] = {"mbox": "series.mbox"}
j["boards"] = ["qemu-sam9x75"]
j.pop("nightly", None)
j.pop("lava", None)
json.dump(j, open(sys.argv[1], "w"), indent=1)' "$d/jobs/mbox.json"
dry=$("$ablab" run "$d/jobs/mbox.json" --dry-run 2>&1)
if ! grep -qE '^  qemu-sam9x75 +patched +cached' <<<"$dry" || ! grep -qE '^  qemu-sam9x75 +control +cached' <<<"$dry"; then
	skip "t98: the series' qemu-sam9x75 kernels are not in the cache (make kernels): no campaign run"
	echo "$dry" | tail -n 6 | sed "s/^/    /"
	return 0
fi
"$ablab" db start >/dev/null || bad "t98: db start"
"$ablab" run "$d/jobs/mbox.json" --boots 1 --batches 1 --undecidable-ok --results "$d/results" >"$d/run.out" 2>&1
check "t98: the mbox job's 1+1 campaign on qemu-sam9x75 exits 0" test $? = 0 || tail -n 5 "$d/run.out"
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "t98: the campaign records both patches' Message-IDs (b4 intake)" test \
	"$(psql_q "SELECT job->'series'->'msgids' FROM campaigns WHERE id = $cid")" = \
	'["20260910083600.1-1-ablab@localhost", "20260910083600.1-2-ablab@localhost"]'
"$ablab" report "$cid" --format email --reply >"$d/reply.txt" 2>&1
check "t98: report --reply on it: In-Reply-To the series' first message" \
	grep -q '^In-Reply-To: <20260910083600.1-1-ablab@localhost>$' "$d/reply.txt"

echo tok98 >"$d/token"
chmod 600 "$d/token"
echo '{"20260910083600.1-1-ablab@localhost": 21, "20260910083600.1-2-ablab@localhost": 22}' >"$d/patches.json"
python3 tests/patchwork_fake_server.py "$d/pw.port" "$d/pw.rec" "$d/patches.json" tok98 2>"$d/pw.err" &
pwpid=$!
end=$((SECONDS + 10))
until [ -s "$d/pw.port" ] || [ $SECONDS -ge $end ]; do sleep 0.05; done
out=$("$ablab" patchwork post "$cid" --url "http://127.0.0.1:$(cat "$d/pw.port")" --token-file "$d/token" 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "t98: patchwork post: one check per patch, context ablab-qemu-sam9x75, on patches 21 and 22 (exit $rc)" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
posts = [(r["path"], json.loads(r["body"])) for r in rec if r["method"] == "POST"]
assert [p for p, _ in posts] == ["/api/patches/21/checks/", "/api/patches/22/checks/"], posts
for _, c in posts:
    assert c["context"] == "ablab-qemu-sam9x75" and c["state"] in ("success", "warning"), c
    assert "the series (2 patches) against control" in c["description"], c' "$d/pw.rec"
kill "$pwpid" 2>/dev/null
wait "$pwpid" 2>/dev/null

"$ablab" report "$cid" --format kcidb >"$d/kcidb.json" 2>&1
if python3 -c 'import jsonschema' 2>/dev/null; then
	check "t98: its KCIDB export validates against schema v5.3, the patched checkout naming the series" python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1])); k = json.load(open(sys.argv[2]))
jsonschema.Draft7Validator(s, format_checker=jsonschema.FormatChecker()).validate(k)
c = {x["misc"]["variant"]: x for x in k["checkouts"]}
assert c["patched"]["message_id"] == "20260910083600.1-1-ablab@localhost"
assert len(k["tests"]) >= 2 * 3, len(k["tests"])' tests/fixtures/kcidb/kcidb-io.schema.v5.3.json "$d/kcidb.json"
else
	skip "t98: python3-jsonschema is not installed (make test-deps)"
fi
