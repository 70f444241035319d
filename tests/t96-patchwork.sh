# SPDX-License-Identifier: GPL-2.0-only
# Patchwork checks (issue 30 item 1): `ablab patchwork post` against a local stand-in of
# patchwork's REST API (tests/patchwork_fake_server.py: patchwork itself is not packaged in
# Debian) that records every request.  A series campaign of ingested logs (control, +1,
# +1-2: patch 1 slows small-dirty-256B by ~5 %, patch 2 changes nothing) posts per patch
# its own increment: patch 1 warning (change and CI in the description), patch 2 success;
# running: pending; failed: fail; context ablab-BOARD, target_url the campaign's page.  The
# token goes with every request to --url's server only (no redirect followed, http:// off
# loopback refused, a token file others can read refused).  With Debian's git-pw installed,
# it reads the checks back from the server as a real client.
# timeout: 120
# lane: side
d=$tmp/t96
mkdir -p "$d"
"$ablab" db start >/dev/null || bad "t96: db start"
python3 - "$d/logs" <<'PY'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for var, base in (("control", 3530), ("p1", 3700), ("p12", 3700)):
    for i in range(1, 7):
        with open(f"{d}/{var}-{i}.log", "w") as o:
            o.write(f"[    0.000000] Linux version 6.1.0-t96-{var} (ci@build) (gcc) #1 SMP\n")
            o.write("[   41.210021] dmabench: START\n")
            m = base + 7 * i
            o.write(f"[   41.221634] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns={m} "
                    f"min_ns={m - 100} max_ns={m + 300} ns_per_KiB={m * 4}\n")
            m = 120000 + 11 * i
            o.write(f"[   41.331634] dmabench: large-clean-1M size= 1048576 reps=100 mean_ns={m} "
                    f"min_ns={m - 100} max_ns={m + 300} ns_per_KiB={m // 1024}\n")
            o.write("[   85.991820] dmabench: DONE\n")
PY
"$ablab" ingest "$d"/logs/control-*.log --board t96-board --cpu ARM926EJ-S --family v5 --variant control >"$d/ingest.out" 2>&1
cid=$(psql_q "SELECT max(id) FROM campaigns")
"$ablab" ingest "$d"/logs/p1-*.log --board t96-board --variant +1 --campaign "$cid" >>"$d/ingest.out" 2>&1 &&
	"$ablab" ingest "$d"/logs/p12-*.log --board t96-board --variant +1-2 --campaign "$cid" >>"$d/ingest.out" 2>&1 ||
	{ bad "t96: ingest"; cat "$d/ingest.out"; }
# the variants and the series record a b4 job stores (job_json: test_series checks msgids)
psql_q "INSERT INTO campaign_variants (campaign_id, position, label, patch) VALUES ($cid, 0, 'control', NULL), ($cid, 1, '+1', '0001-preserve.patch'), ($cid, 2, '+1-2', '0002-flush.patch')"
series='{"msgid": "20260910083600.1-1-ablab@localhost", "subject": "[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "version": 1, "mbox": "series.mbox", "patches": ["[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "[PATCH 2/2] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends"], "msgids": ["20260910083600.1-1-ablab@localhost", "20260910083600.1-2-ablab@localhost"]}'
psql_q "UPDATE campaigns SET status = 'complete', job = jsonb_build_object('job', 'dma-mbox', 'series', '$series'::jsonb) WHERE id = $cid"

echo "t96-secret-token" >"$d/token"
chmod 600 "$d/token"
echo '{"20260910083600.1-1-ablab@localhost": 11, "20260910083600.1-2-ablab@localhost": 12}' >"$d/patches.json"
echo '{}' >"$d/none.json"
# fake_pw NAME PATCHES [REDIRECT]: a server in the background, its port in $port
fake_pw() {
	local end=$((SECONDS + 10))
	rm -f "$d/$1.port"
	: >"$d/$1.rec"
	python3 tests/patchwork_fake_server.py "$d/$1.port" "$d/$1.rec" "$2" t96-secret-token ${3:+"$3"} \
		2>"$d/$1.err" &
	echo $! >"$d/$1.pid"
	until [ -s "$d/$1.port" ]; do
		[ $SECONDS -lt $end ] || { bad "t96: fake patchwork $1 did not start: $(cat "$d/$1.err")"; return 1; }
		sleep 0.05
	done
	port=$(cat "$d/$1.port")
}
fake_stop() { kill "$(cat "$d/$1.pid")" 2>/dev/null; wait "$(cat "$d/$1.pid")" 2>/dev/null; }
fake_pw foreign "$d/none.json"
fport=$port
fake_pw pw "$d/patches.json" "http://127.0.0.1:$fport/api/patches/11/checks/"
url=http://127.0.0.1:$port
post() { "$ablab" patchwork post "$cid" --url "$url" --token-file "$d/token" "$@"; }

out=$(post --web-url https://ablab.example.org/ 2>&1); rc=$?
echo "$out" | sed 's/^/    /'
check "t96: post on the complete series campaign: exit 0 (2 checks)" test "$rc" = 0
check "t96: patch 1 warning with the change and CI of its increment, patch 2 success, context ablab-t96-board, target_url the campaign page" python3 - "$d/pw.rec" "$cid" <<'PY'
import json, re, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
posts = [r for r in rec if r["method"] == "POST"]
assert [r["path"] for r in posts] == ["/api/patches/11/checks/", "/api/patches/12/checks/"], posts
c1, c2 = (json.loads(r["body"]) for r in posts)
assert c1["state"] == "warning" and c1["context"] == "ablab-t96-board", c1
assert re.search(r"patch 1/2's own increment \(\+1 against control\): different: \+4\.[0-9]% \[\+[0-9.]+%, \+[0-9.]+%\] on small-dirty-256B, t96-board", c1["description"]), c1
assert c2["state"] == "success" and c2["context"] == "ablab-t96-board", c2
assert "patch 2/2's own increment (+1-2 against +1): same within +-1 % on all 2 timing rows" in c2["description"], c2
for c in (c1, c2):
    assert c["target_url"] == "https://ablab.example.org/campaign/%s" % sys.argv[2], c
gets = [r["path"] for r in rec if r["method"] == "GET"]
assert gets == ["/api/patches/?msgid=20260910083600.1-1-ablab%40localhost",
                "/api/patches/?msgid=20260910083600.1-2-ablab%40localhost"], gets
print("    patch 1:", c1["description"])
PY
check "t96: every request carries the token, to --url's server only" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
assert rec and all(r["auth"] == "Token t96-secret-token" for r in rec), rec
assert open(sys.argv[2]).read() == ""' "$d/pw.rec" "$d/foreign.rec"

# running (an agent holds it: the advisory lock campaign_hold takes) -> pending
coproc HOLD { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab"; }
echo "SELECT 'held' FROM (SELECT pg_advisory_lock(4243, $cid)) l;" >&"${HOLD[1]}"
read -r -t 10 held <&"${HOLD[0]}"
psql_q "UPDATE campaigns SET status = 'running' WHERE id = $cid"
: >"$d/pw.rec"
out=$(post 2>&1); rc=$?
check "t96: a running campaign posts pending on both patches (exit $rc, lock $held)" python3 -c '
import json, sys
posts = [json.loads(json.loads(l)["body"]) for l in open(sys.argv[1]) if json.loads(l)["method"] == "POST"]
assert [p["state"] for p in posts] == ["pending", "pending"], posts
assert "target_url" not in posts[0] and "is running" in posts[0]["description"], posts' "$d/pw.rec" || echo "$out"
exec {HOLD[1]}>&-
wait "$HOLD_PID" 2>/dev/null
psql_q "UPDATE campaigns SET status = 'failed' WHERE id = $cid"
: >"$d/pw.rec"
out=$(post 2>&1); rc=$?
check "t96: a failed campaign posts fail on both patches (exit $rc)" python3 -c '
import json, sys
posts = [json.loads(json.loads(l)["body"]) for l in open(sys.argv[1]) if json.loads(l)["method"] == "POST"]
assert [p["state"] for p in posts] == ["fail", "fail"], posts
assert "failed" in posts[0]["description"], posts' "$d/pw.rec" || echo "$out"
psql_q "UPDATE campaigns SET status = 'complete' WHERE id = $cid"

# where the token may not go
out=$("$ablab" patchwork post "$cid" --url http://192.0.2.1 --token-file "$d/token" 2>&1); rc=$?
check "t96: http:// off loopback refused without --insecure-http (exit $rc)" bash -c \
	"[ $rc = 2 ] && grep -q 'clear text.*--insecure-http' <<<\"\$1\"" _ "$out"
chmod 644 "$d/token"
out=$(post 2>&1); rc=$?
check "t96: a token file others can read is refused, saying chmod 600 (exit $rc)" bash -c \
	"[ $rc = 2 ] && grep -q 'readable by its owner only (chmod 600' <<<\"\$1\"" _ "$out"
chmod 600 "$d/token"
psql_q "UPDATE campaigns SET job = jsonb_set(job, '{series,msgids,0}', '\"redirect@test\"') WHERE id = $cid"
: >"$d/pw.rec"
out=$(post 2>&1); rc=$?
check "t96: a redirect is not followed: exit 1, the foreign server got nothing, no check posted" bash -c \
	"[ $rc = 1 ] && grep -q 'redirect not followed' <<<\"\$1\" && [ ! -s '$d/foreign.rec' ] && ! grep -q POST '$d/pw.rec'" _ "$out"
psql_q "UPDATE campaigns SET job = jsonb_set(job, '{series,msgids,0}', '\"nosuch@localhost\"') WHERE id = $cid"
out=$(post 2>&1); rc=$?
check "t96: an unknown Message-ID: exit 1, named, nothing posted" bash -c \
	"[ $rc = 1 ] && grep -q 'no patch with Message-ID <nosuch@localhost>' <<<\"\$1\" && ! grep -q POST '$d/pw.rec'" _ "$out"
echo wrong >"$d/bad-token"
chmod 600 "$d/bad-token"
psql_q "UPDATE campaigns SET job = jsonb_set(job, '{series,msgids,0}', '\"20260910083600.1-1-ablab@localhost\"') WHERE id = $cid"
out=$("$ablab" patchwork post "$cid" --url "$url" --token-file "$d/bad-token" 2>&1); rc=$?
check "t96: a refused token: exit 1, saying so" bash -c "[ $rc = 1 ] && grep -q 'token was refused' <<<\"\$1\"" _ "$out"
psql_q "UPDATE campaigns SET job = job - 'series' WHERE id = $cid"
out=$("$ablab" patchwork post "$cid" --dry-run 2>&1); rc=$?
check "t96: a campaign without a series: exit 1, saying why" bash -c \
	"[ $rc = 1 ] && grep -q 'has no series with per-patch Message-IDs' <<<\"\$1\"" _ "$out"
psql_q "UPDATE campaigns SET job = jsonb_build_object('job', 'dma-mbox', 'series', '$series'::jsonb) WHERE id = $cid"

# a real client: Debian's git-pw (2.0 has no command for checks) reads a patch of the stand-in
# server, the API ablab finds patches through
if command -v git-pw >/dev/null; then
	out=$(cd "$d" && git init -q gp && cd gp && git config pw.server "$url/api/1.1" &&
		git config pw.project t96 && git config pw.token t96-secret-token &&
		git pw patch show 11 --format csv 2>&1); rc=$?
	check "t96: git-pw patch show 11 (a real patchwork client) reads the stand-in server: exit $rc, the patch's Message ID" \
		grep -q '"Message ID","<20260910083600.1-1-ablab@localhost>"' <<<"$out" || echo "$out" | tail -5
else
	skip "t96: git-pw is not installed (Debian package git-pw, make test-deps): no real client read the stand-in server"
fi
fake_stop pw
fake_stop foreign
