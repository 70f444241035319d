# `ablab serve` (issue 17) driven by headless Chromium and curl, on campaigns made with
# `ablab ingest` of generated boot logs kept in a results directory: screenshots of the
# campaign list, a campaign page and a trend page are not blank; the DOM holds the report
# table, the plot and the transcript links; the list filters; a transcript link opens that
# boot's transcript; hostile strings stored in the database (uname -r, job, scenario) render
# as text; the API answers are byte for byte what the commands print with --format json;
# paths escaping the results directory get 404; the server's session cannot write.
# ABLAB_SHOTS=DIR keeps the three screenshots.
# timeout: 360
d=$tmp/t92
res=$d/results
mkdir -p "$res" "$d/chrome"
"$ablab" db start >/dev/null || bad "t92: db start"
last() { psql_q "SELECT coalesce(max(id), 0) FROM campaigns"; }
# mklogs DIR SEED SHIFT N: N control and N patched boot logs; patched 256 B dirty * SHIFT
mklogs() {
	python3 - "$@" <<'EOF'
import os, random, sys
d, seed, shift, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
random.seed(seed)
os.makedirs(d, exist_ok=True)
for var in ("control", "patched"):
    for i in range(1, n + 1):
        f, s = 1 + random.gauss(0, 0.003), shift if var == "patched" else 1.0
        with open(f"{d}/{var}-{i}.log", "w") as o:
            o.write(f"[    0.000000] Linux version 6.1.0-t92-{var} (ci@build) (gcc) #1 SMP\n")
            o.write(f"[    0.000001] t92 transcript {d} {var} {i}\n")
            o.write("[   41.210021] dmabench: START\n")
            for t, scen, size, reps, base in (("41.221634", "small-dirty-256B", 256, 5000, 3530 * s),
                                              ("41.684512", "large-dirty-1MiB", 1048576, 300, 73840),
                                              ("64.001877", "large-clean-1MiB", 1048576, 300, 73108)):
                m = round(base * f)
                o.write(f"[   {t}] dmabench: {scen} size={size:8d} reps={reps} mean_ns={m} "
                        f"min_ns={round(m * 0.95)} max_ns={round(m * 1.2)} ns_per_KiB={round(m * 1024 / size)}\n")
            o.write("[   85.991820] dmabench: DONE\n")
EOF
}
# campaign BOARD DIR: ingest DIR's control and patched logs as one campaign; prints its id
campaign() {
	"$ablab" ingest "$2"/control-*.log --board "$1" --cpu Cortex-A72 --family v7 --variant control >>"$d/ingest.out" 2>&1 &&
	"$ablab" ingest "$2"/patched-*.log --board "$1" --variant patched --campaign "$(last)" >>"$d/ingest.out" 2>&1 &&
	last
}
mklogs "$res/a" 921 1.06 6
mklogs "$res/b" 922 1.0 4
ca=$(campaign t92-a "$res/a")
cb=$(campaign t92-b "$res/b")
nights=
for n in 1 2 3 4 5 6; do
	mklogs "$res/night$n" $((930 + n)) "$([ $n -ge 4 ] && echo 1.05 || echo 1.0)" 4
	nights="$nights $(campaign t92-a "$res/night$n")"
done
check "t92: 8 campaigns ingested ($ca, $cb,$nights)" test "$(psql_q "SELECT count(*) FROM campaigns")" = 8 ||
	cat "$d/ingest.out"
psql_q "UPDATE campaigns SET trigger = 'nightly', job = '{\"job\": \"t92-nightly\"}' WHERE id IN ($(echo $nights | tr ' ' ,))" >/dev/null
# hostile strings, as a board or a job file could hold them: HTML must show them as text
x_uname='<script>alert(1)</script>'
x_job='<img src=x onerror=alert(2)>'
x_scen='dirty"><svg onload=alert(3)>'
psql_q "UPDATE boots SET uname_r = '$x_uname' WHERE campaign_id = $ca AND seq = 1" >/dev/null
psql_q "UPDATE campaigns SET job = jsonb_build_object('job', '$x_job') WHERE id = $cb" >/dev/null
# health checks as `ablab check` stores them: t92-a passed, t92-b failed
psql_q "INSERT INTO health (board, ok, uname_r, boot_ms, error, host) VALUES ('t92-a', true, '6.1.0-t92-control', 4200, NULL, 'lab1'), ('t92-b', false, NULL, NULL, 'no shell prompt within 60 s', 'lab1')" >/dev/null
for t in samples boot_means; do
	psql_q "UPDATE $t SET scenario = '$x_scen' WHERE scenario = 'large-dirty-1MiB' AND boot_id IN (SELECT id FROM boots WHERE campaign_id IN ($(echo $nights | tr ' ' ,)))" >/dev/null
done

echo "== the server"
"$ablab" serve --listen 127.0.0.1:0 --results "$res" --host-name lab.example --statement-timeout 2 >"$d/serve.out" 2>"$d/serve.err" &
spid=$!
wait_for 60 grep -q '^ablab: serving http://127.0.0.1:[0-9]*/' "$d/serve.err"
port=$(sed -n 's|^ablab: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d/serve.err")
url=http://127.0.0.1:$port
check "serve: listening on 127.0.0.1:$port, a read-only session" grep -q 'read-only database session' "$d/serve.err" || cat "$d/serve.err"
check "serve: answers within the deadline" wait_for 30 curl -sf -o /dev/null "$url/"
chrome() {
	timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$d/chrome" "$@" 2>>"$d/chrome.err"
}
shot() {	# NAME URL HEIGHT: a screenshot; "W H COLOURS INK" of it
	chrome --window-size=1280,"$3" --screenshot="$d/$1.png" "$2" >/dev/null &&
	python3 "$top/tests/png_stats.py" "$d/$1.png"
}
nonblank() {	# NAME STATS: more than 16 colours and at least 2 % of the pixels not background
	echo "$1: $2"
	python3 -c 'import sys; w, h, c, ink = sys.argv[1:5]; sys.exit(not (int(c) > 16 and float(ink) >= 0.02))' $2
}

echo "== campaigns list"
s=$(shot list "$url/" 700)
check "list: the screenshot is not blank ($s)" nonblank list "$s"
chrome --dump-dom "$url/" >"$d/list.dom"
check "list: every campaign, newest first" test "$(grep -o 'href="/campaign/[0-9]*"' "$d/list.dom" | tr -dc '0-9\n' | tr '\n' ' ')" = "$(psql_q "SELECT string_agg(id::text, ' ' ORDER BY id DESC) FROM campaigns") "
chrome --dump-dom "$url/?board=t92-b" >"$d/listb.dom"
check "list: ?board=t92-b lists only campaign $cb" test "$(grep -o 'href="/campaign/[0-9]*"' "$d/listb.dom" | tr -dc '0-9\n' | tr '\n' ' ')" = "$cb "
chrome --dump-dom "$url/?trigger=nightly&status=complete&since=2000-01-01" >"$d/listn.dom"
check "list: ?trigger=nightly&status=complete&since=... lists the 6 nightly campaigns" test "$(grep -c 'href="/campaign/[0-9]*"' "$d/listn.dom")" = 6
check "list: a hostile job name is text" bash -c "grep -qF '&lt;img src=x onerror=alert(2)&gt;' '$d/list.dom' && ! grep -qF '<img src=x' '$d/list.dom'"
check "list: a bad date is refused (400)" test "$(curl -s -o /dev/null -w '%{http_code}' "$url/?since=yesterday")" = 400

echo "== campaign page"
s=$(shot campaign "$url/campaign/$ca" 1400)
check "campaign: the screenshot is not blank ($s)" nonblank campaign "$s"
chrome --dump-dom "$url/campaign/$ca" >"$d/camp.dom"
check "campaign: the report table with its three rows and a verdict" bash -c "grep -q '<table class=\"sortable\" id=\"report\">' '$d/camp.dom' && [ \$(grep -c '<tr><td>t92-a</td><td>Cortex-A72, v7, ' '$d/camp.dom') = 3 ] && grep -q 'class=\"v-diff\">different' '$d/camp.dom'"
check "campaign: the plot (svg) inline, with a dot per boot" bash -c "grep -q '<svg' '$d/camp.dom' && [ \$(grep -o '<circle' '$d/camp.dom' | wc -l) -ge 36 ]"
check "campaign: a transcript link per boot (12)" test "$(grep -o 'href="/results/[^"]*">transcript' "$d/camp.dom" | wc -l)" = 12
check "campaign: the method paragraph and the email text" bash -c "grep -q '<p class=\"method\">Method (ablab campaign $ca)' '$d/camp.dom' && grep -q '<pre id=\"email\">' '$d/camp.dom'"
check "campaign: a hostile uname -r is text" bash -c "grep -qF '<td>&lt;script&gt;alert(1)&lt;/script&gt;</td>' '$d/camp.dom' && ! grep -qF '<script>alert' '$d/camp.dom'"
curl -s -o "$d/camp.html" "$url/campaign/$ca"
check "campaign: without JavaScript (the HTML as served) the table, the plot and the email are there" bash -c "grep -q 'id=\"report\"' '$d/camp.html' && grep -q '<svg' '$d/camp.html' && grep -q 'class=\"copy\" data-copy=\"email\" hidden' '$d/camp.html'"
check "campaign: with JavaScript (/static/app.js under the CSP) the copy button is shown" grep -q '<button type="button" class="copy" data-copy="email">' "$d/camp.dom"
link=$(grep -o 'href="/results/a/control-2.log"' "$d/camp.dom" | head -n 1 | sed 's/href="\(.*\)"/\1/')
chrome --dump-dom "$url$link" >"$d/transcript.dom"
check "campaign: the transcript link of control boot 2 ($link) opens its transcript" bash -c "[ -n '$link' ] && grep -qF 't92 transcript $res/a control 2' '$d/transcript.dom'"
curl -s -o "$d/t.log" "$url$link"
check "transcript: served byte for byte" cmp "$d/t.log" "$res/a/control-2.log"
check "transcript: served as text/plain in a sandbox" bash -c "curl -s -D - -o /dev/null '$url$link' | tr -d '\r' | grep -qx 'Content-Type: text/plain; charset=utf-8' && curl -s -D - -o /dev/null '$url$link' | grep -q '^Content-Security-Policy: sandbox'"
hdr=$(curl -s -D - -o /dev/null "$url/campaign/$ca" | tr -d '\r')
check "campaign: strict Content-Security-Policy, no inline script" grep -q "^Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'" <<<"$hdr"
et=$(sed -n 's/^ETag: //p' <<<"$hdr")
check "campaign: a finished campaign has an ETag and Cache-Control" bash -c "[ -n '$et' ] && grep -q '^Cache-Control: public, max-age=60, must-revalidate' <<<'$hdr'"
check "campaign: If-None-Match with it gets 304" test "$(curl -s -o /dev/null -w '%{http_code}' -H "If-None-Match: $et" "$url/campaign/$ca")" = 304
check "campaign: an unknown one gets 404" test "$(curl -s -o /dev/null -w '%{http_code}' "$url/campaign/9999")/$(curl -s -o /dev/null -w '%{http_code}' "$url/campaign/1%20OR%201=1")" = 404/404

echo "== trend and board pages"
s=$(shot trend "$url/trend?job=t92-nightly&scenario=small-dirty-256B" 900)
check "trend: the screenshot is not blank ($s)" nonblank trend "$s"
chrome --dump-dom "$url/trend?job=t92-nightly&scenario=small-dirty-256B" >"$d/trend.dom"
check "trend: the svg with a point per night and the table" bash -c "grep -q '<svg' '$d/trend.dom' && [ \$(grep -o '<circle' '$d/trend.dom' | wc -l) = 6 ] && grep -q 'nightly job t92-nightly' '$d/trend.dom'"
check "trend: the change point at the fourth night" grep -q 'change point' "$d/trend.dom"
chrome --dump-dom "$url/trend" >"$d/trends.dom"
check "trend index: a hostile scenario name is text" bash -c "grep -qF 't92-nightly: dirty\"&gt;&lt;svg onload=alert(3)&gt;</a>' '$d/trends.dom' && ! grep -qF '<svg onload' '$d/trends.dom'"
chrome --dump-dom "$url/board/t92-a" >"$d/board.dom"
check "board: its health check and campaigns" bash -c "grep -q '<td>ok</td><td>6.1.0-t92-control</td><td>4200</td>' '$d/board.dom' && [ \$(grep -c 'href=\"/campaign/' '$d/board.dom') = 7 ]"
chrome --dump-dom "$url/board/t92-b" >"$d/boardb.dom"
check "board: a failed health check with its error" grep -q '<td class="v-diff">FAILED</td>.*<td>no shell prompt within 60 s</td>' "$d/boardb.dom"

echo "== the API is what the commands print"
curl -s -o "$d/api-report.json" "$url/api/v1/report/$ca"
"$ablab" report "$ca" --format json >"$d/cli-report.json"
check "api: /api/v1/report/$ca = ablab report $ca --format json, byte for byte" cmp "$d/api-report.json" "$d/cli-report.json"
curl -s -o "$d/api-c.json" "$url/api/v1/campaigns?trigger=nightly&limit=3"
"$ablab" campaigns --trigger nightly --limit 3 --format json >"$d/cli-c.json"
check "api: /api/v1/campaigns?trigger=nightly&limit=3 = ablab campaigns ... --format json" cmp "$d/api-c.json" "$d/cli-c.json"
curl -s -o "$d/api-q.json" "$url/api/v1/query?board=t92-b&scenario=small-dirty-256B"
"$ablab" query --board t92-b --scenario small-dirty-256B --format json >"$d/cli-q.json"
check "api: /api/v1/query?board=...&scenario=... = ablab query ... --format json" cmp "$d/api-q.json" "$d/cli-q.json"
curl -s -o "$d/api-b.json" "$url/api/v1/boards"
"$ablab" boards --format json >"$d/cli-b.json" 2>/dev/null
check "api: /api/v1/boards = ablab boards --format json" cmp "$d/api-b.json" "$d/cli-b.json"
check "api: a bad option value is 400" test "$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/campaigns?trigger=bogus")" = 400

echo "== confinement to the results directory"
echo "t92 secret outside the results" >"$d/secret"
ln -s "$d/secret" "$res/a/link.log"
for p in "/results/../secret" "/results/%2e%2e/secret" "/results/a/%2e%2e/%2e%2e/secret" "/results/..%2fsecret" "/results/a/link.log" "/results/" "/results/a"; do
	code=$(curl -s --path-as-is -o "$d/esc.out" -w '%{http_code}' "$url$p")
	check "confined: $p gets 404" bash -c "[ $code = 404 ] && ! grep -q 'secret outside' '$d/esc.out'"
done

echo "== read-only"
check "metrics: the server's own session is read-only" grep -qx 'ablab_serve_read_only 1' <(curl -s "$url/metrics")
curl -s -o "$d/metrics" "$url/metrics"
fault 27.18 "the server's session has the statement_timeout it was given (--statement-timeout 2): no query holds the one-thread server longer" \
	grep -qx 'ablab_serve_statement_timeout{value="2s"} 1' "$d/metrics"
check "metrics: campaigns by status, boards by health, the last nightly" bash -c "grep -qx 'ablab_campaigns{status=\"complete\"} 8' '$d/metrics' && grep -qx 'ablab_boards{health=\"ok\"} 1' '$d/metrics' && grep -qx 'ablab_boards{health=\"failed\"} 1' '$d/metrics' && grep -qx 'ablab_board_health_ok{board=\"t92-b\"} 0' '$d/metrics' && grep -q '^ablab_nightly_last_status{job=\"t92-nightly\",status=\"complete\",campaign=\"$(echo $nights | awk '{print $NF}')\"} 1' '$d/metrics'" || cat "$d/metrics"
check "read-only: the server's session is in pg_stat_activity as ablab-serve" test "$(psql_q "SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = 'ablab-serve'")" = t
out=$(psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab options='-c default_transaction_read_only=on'" -c "DELETE FROM campaigns" 2>&1)
check "read-only: a write with the server's session setting fails" grep -q 'cannot execute DELETE in a read-only transaction' <<<"$out"
check "read-only: POST is refused (405)" test "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/")" = 405
check "read-only: the database is unchanged (8 campaigns)" test "$(psql_q "SELECT count(*) FROM campaigns")" = 8
echo "== the dashboard views (Grafana), through a read-only session"
roq() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab options='-c default_transaction_read_only=on'" -c "$1"; }
check "views: ablab_boot_means has every ok boot x scenario of campaign $ca (12 x 3)" test "$(roq "SELECT count(*) || '/' || count(DISTINCT boot_id) || '/' || min(unit) FROM ablab_boot_means WHERE campaign_id = $ca")" = 36/12/ns
roq "SELECT row_to_json(r) FROM ablab_rows r WHERE campaign_id = $ca ORDER BY scenario" >"$d/rows.json"
check "views: ablab_rows of campaign $ca has the report's means and counts" python3 -c '
import json, sys
rows = {r["scenario"]: r for r in map(json.loads, open(sys.argv[1]))}
rep = json.load(open(sys.argv[2]))
assert len(rows) == 3, rows
for x in rep["rows"]:
    v = rows[x["scenario"]]
    assert (v["n_control"], v["n_patched"]) == (x["n_control"], x["n_patched"]) == (6, 6), (v, x)
    for k in ("control_mean", "patched_mean"):
        assert abs(v[k] / x[k] - 1) < 1e-9, (k, v[k], x[k])
assert 0.05 < rows["small-dirty-256B"]["rel_change"] < 0.07, rows
' "$d/rows.json" "$d/cli-report.json"
check "views: ablab_nightly has the 6 nights of t92-nightly, the last 3 about +5%" test "$(roq "SELECT string_agg(CASE WHEN rel_change > 0.04 THEN 'up' ELSE 'flat' END, ' ' ORDER BY time, campaign_id) FROM ablab_nightly WHERE job = 't92-nightly' AND scenario = 'small-dirty-256B'")" = "flat flat flat up up up"
check "views: ablab_campaigns and ablab_health answer" test "$(roq "SELECT count(*) FILTER (WHERE status = 'complete') || '/' || sum(ok_boots) FROM ablab_campaigns")/$(roq "SELECT count(*) FROM ablab_health")" = "8/68/2"
check "views: docs/grafana-dashboard.json is JSON whose every query names an ablab_ view" python3 -c '
import json, re, sys
d = json.load(open(sys.argv[1]))
sql = [t["rawSql"] for p in d["panels"] for t in p.get("targets", [])]
assert sql and all(re.search(r"\bablab_(boot_means|rows|nightly|campaigns|health)\b", q) for q in sql), sql
' "$top/docs/grafana-dashboard.json"
check "views: every query of the example dashboard runs (Grafana macros filled in)" python3 -c '
import json, re, subprocess, sys
d = json.load(open(sys.argv[1]))
sql = [t["rawSql"] for p in d["panels"] for t in p.get("targets", [])]
sql += [v["query"] for v in d["templating"]["list"]]
fill = {"job": "t92-nightly", "scenario": "small-dirty-256B", "board": "t92-a"}
for q in sql:
    q = re.sub(r"\$__timeFilter\((\w+)\)", lambda m: m.group(1) + " > now() - 90 * interval " + chr(39) + "1 day" + chr(39), q)
    q = re.sub(r"\$(\w+)", lambda m: fill[m.group(1)], q)
    out = subprocess.run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", sys.argv[2], "-c", q],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip(), (q, out.stderr)
' "$top/docs/grafana-dashboard.json" "host=$ABLAB_DATA/pg dbname=ablab user=ablab options='-c default_transaction_read_only=on'"
echo "== issue 27 (Low): a job named like an option, a FIFO for a transcript, control bytes in the log"
code=$(curl -s -m 10 -o "$d/trend-help.out" -w '%{http_code}' "$url/trend?job=--help&scenario=small-dirty-256B")
fault 27.18 "/trend?job=--help: the job is a name after --, not an option of trend: 404, no usage text (HTTP $code)" bash -c \
	'[ "$1" = 404 ] && ! grep -q "usage: ablab trend" "$2" "$3" "$4"' _ "$code" "$d/trend-help.out" "$d/serve.out" "$d/serve.err"
mkfifo "$res/a/fifo.log"
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$url/results/a/fifo.log"); rc=$?
fault 27.18 "a FIFO in a transcript's place: 404 at once, the server does not hang (curl exit $rc, HTTP $code)" \
	test "$rc/$code" = 0/404
curl -s -m 10 -o /dev/null "$url/nowhere%0Aablab:%20forged%1b%5b2J" 
fault 27.18 "control bytes in a request URL are escaped in the log (no forged line)" bash -c \
	"grep -qF 'GET /nowhere\\x0aablab: forged\\x1b[2J 404' '$d/serve.err' && ! grep -q '^ablab: forged' '$d/serve.err'"
echo "== issue 27 (Low): a transcript swapped for a FIFO"
mv "$res/a/control-3.log" "$d/control-3.log"
mkfifo "$res/a/control-3.log"
code=$(curl -s -m 10 -o /dev/null -w '%{http_code}' "$url/results/a/control-3.log"); rc=$?
fault 27.18 "a transcript the database names swapped for a FIFO: 404 at once, no hang (curl exit $rc, HTTP $code)" \
	test "$rc/$code" = 0/404
rm "$res/a/control-3.log"
mv "$d/control-3.log" "$res/a/control-3.log"

echo "== issue 27 (Low): only the transcripts the database names"
mkdir -p "$res/spool"
echo '{"board": "t92-a", "power": {"on": ["secret-power-argv"]}}' >"$res/spool/t92.json"
echo "not a boot's transcript" >"$res/a/unnamed.log"
code=$(curl -s -o "$d/spool.out" -w '%{http_code}' "$url/results/spool/t92.json")
fault 27.18 "/results/spool/t92.json (a spool file below the results directory) gets 404 (HTTP $code)" \
	bash -c "[ $code = 404 ] && ! grep -q secret-power-argv '$d/spool.out'"
fault 27.18 "/results/a/unnamed.log (no boot names it) gets 404, /results/a/control-2.log (a boot's) 200" \
	test "$(curl -s -o /dev/null -w '%{http_code}' "$url/results/a/unnamed.log")/$(curl -s -o /dev/null -w '%{http_code}' "$url/results/a/control-2.log")" = 404/200

echo "== issue 27 (Low): Host check (DNS rebinding)"
host_code() { curl -s -o /dev/null -w '%{http_code}' -H "Host: $1" "$url/"; }
codes="$(host_code evil.example)/$(host_code "127.0.0.1.evil.example:$port")/$(host_code "evil.example:$port")"
fault 27.18 "a Host that is no address, localhost or --host-name gets 421 ($codes)" test "$codes" = 421/421/421
codes="$(host_code "localhost:$port")/$(host_code "LAB.example:$port")/$(host_code "[::1]:$port")/$(host_code "127.0.0.1:$port")"
check "localhost, the --host-name and address literals are answered ($codes)" test "$codes" = 200/200/200/200

echo "== issue 27 (Low): bad dates and invalid UTF-8 are 400"
for p in "/?since=2026-02-31" "/?until=0000-01-01" "/api/v1/query?since=2026-02-31" "/api/v1/query?until=2026-13-01" \
	"/?board=%FF" "/?job=%C0%AF" "/api/v1/query?board=%FF" "/api/v1/campaigns?job=%ED%A0%80" "/trend?job=%FF&scenario=x" "/board/%FF%FE"; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$url$p")
	fault 27.18 "$p gets 400 (HTTP $code)" test "$code" = 400
done

echo "== issue 27 (Low): /api/v1/query pages its rows"
total=$(psql_q "SELECT count(*) FROM boots b CROSS JOIN LATERAL (SELECT DISTINCT scenario FROM samples s WHERE s.boot_id = b.id) s WHERE b.status = 'ok'")
curl -s -D "$d/q50.h" -o "$d/q50.json" "$url/api/v1/query?limit=50&scenario=small-dirty-256B&offset=0"
"$ablab" query --scenario small-dirty-256B --limit 50 --format json >"$d/cli-q50.json"
n=$(jq length "$d/q50.json")
fault 27.18 "/api/v1/query?limit=50&scenario=...: 50 rows (of $total), = ablab query --limit 50, a Link to offset=50" bash -c \
	"[ $n = 50 ] && cmp -s '$d/q50.json' '$d/cli-q50.json' && tr -d '\r' <'$d/q50.h' | grep -qx 'Link: </api/v1/query?scenario=small-dirty-256B&limit=50&offset=50>; rel=\"next\"'"
curl -s -D "$d/qlast.h" -o "$d/qlast.json" "$url/api/v1/query?limit=1000&offset=$((total - 4))"
check "the last page: 4 rows, no Link" bash -c "[ \$(jq length '$d/qlast.json') = 4 ] && ! grep -qi '^Link:' '$d/qlast.h'"
curl -s -o "$d/qall.json" "$url/api/v1/query"
check "without limit=: at most 1000 rows ($total here: all of them)" test "$(jq length "$d/qall.json")" = "$total"
codes="$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/query?limit=10001")/$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/query?limit=0")/$(curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/query?offset=-1")"
fault 27.18 "limit= above 10,000, limit=0, a negative offset: 400 ($codes)" test "$codes" = 400/400/400

echo "== issue 27 (Low): a statement timeout on serve's session"
# the lock is held until the request has been answered (killed below), so a slow start of
# the locking session cannot let the request through after the lock ended
psql -X -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "BEGIN; LOCK TABLE campaigns IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT" >/dev/null 2>&1 &
lpid=$!
lock_held() { [ "$(psql_q "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'campaigns' AND l.mode = 'AccessExclusiveLock' AND l.granted")" = 1 ]; }
wait_for 30 lock_held || bad "t92: the locking session did not get its lock in 30 s"
t0=$(date +%s%N)
code=$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$url/")
ms=$((($(date +%s%N) - t0) / 1000000))
fault 27.18 "a query blocked behind a lock ends at the statement timeout (2 s): HTTP $code in $ms ms (503 expected), not after the lock (8 s)" \
	bash -c "[ $code = 503 ] && [ $ms -lt 5000 ]"
check "the server answers the next request (status page)" test "$(curl -s -o /dev/null -w '%{http_code}' "$url/static/app.css")" = 200
psql_q "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()" >/dev/null
kill "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null

echo "== issue 27 (Low): the first request after a database restart"
"$ablab" db stop >/dev/null && "$ablab" db start >/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' "$url/")
fault 27.18 "after ablab db stop and start, the first request gets 200 (HTTP $code; the query retried once after reconnecting)" test "$code" = 200

echo "== issue 27 (Low): serve's database role is no superuser"
role=$(psql_q "SELECT usename || '/' || r.rolsuper FROM pg_stat_activity a JOIN pg_roles r ON r.rolname = a.usename WHERE application_name = 'ablab-serve' LIMIT 1")
fault 27.19 "serve connects as a role without SUPERUSER ($role)" test "$role" = ablab_read/false
out=$(psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=${role%/*}" -c "COPY (SELECT 1) TO PROGRAM 'touch $d/pwned'" 2>&1)
fault 27.19 "COPY ... TO PROGRAM through serve's role is refused ($(head -n 1 <<<"$out" | head -c 100))" \
	bash -c '[ ! -e "$1/pwned" ] && grep -q "permission denied\|must be superuser" <<<"$2"' _ "$d" "$out"
out=$(psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=${role%/*}" -c "SELECT pg_read_file('PG_VERSION')" 2>&1)
check "pg_read_file through serve's role is refused" grep -q 'permission denied' <<<"$out"
check "serve's role reads the views the dashboard uses" test "$(psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=${role%/*}" -c "SELECT count(*) FROM ablab_campaigns")" = 8

echo "== issue 27 (Low): connections: per-address limit, timeout"
mkfifo "$d/quiet.in" "$d/trickle.in" "$d/idle.in"	# their stdin: closed, they end
python3 "$top/tests/serve_load.py" quiet "$port" 64 127.0.0.1 >"$d/quiet.out" <"$d/quiet.in" &
qpid=$!
exec {qin}>"$d/quiet.in"
python3 "$top/tests/serve_load.py" trickle "$port" 8 127.0.0.4 >"$d/trickle.out" <"$d/trickle.in" &
tpid=$!
exec {tin}>"$d/trickle.in"
wait_for 20 grep -q '^held' "$d/quiet.out"
wait_for 20 grep -q '^held' "$d/trickle.out"
t0=$(date +%s%N)
code=$(curl -s -m 5 --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "$url/")
ms=$((($(date +%s%N) - t0) / 1000000))
fault 27.18 "64 idle connections from 127.0.0.1 ($(cat "$d/quiet.out")): a client at 127.0.0.2 gets / in $ms ms (HTTP $code)" \
	bash -c "[ $code = 200 ] && [ $ms -lt 1000 ]"
wait_for 25 grep -q '^all closed' "$d/quiet.out"
fault 27.18 "idle connections are closed by the server within 12 s ($(tail -n 1 "$d/quiet.out"))" \
	python3 -c 'import sys; f = open(sys.argv[1]).read().split(); sys.exit(not ("closed" in f and float(f[f.index("after") + 1]) < 12))' "$d/quiet.out"
wait_for 25 grep -q '^all closed' "$d/trickle.out"
fault 27.18 "connections trickling a header byte every 2 s are cut at the 10 s header deadline ($(tr '\n' ' ' <"$d/trickle.out"))" \
	python3 -c 'import sys; f = open(sys.argv[1]).read().split(); sys.exit(not ("held 8 of 8" in open(sys.argv[1]).read() and "closed" in f and float(f[f.index("after") + 1]) < 13))' "$d/trickle.out"
exec {qin}>&- {tin}>&-
wait "$qpid" "$tpid"

echo "== load: 200 trickling connections (reopened when cut) and 1,000 requests from a second process; a normal client"
srcs=$(for i in $(seq 10 29); do echo 127.0.1.$i; done)
python3 "$top/tests/serve_load.py" idle "$port" 200 $srcs >"$d/idle.out" <"$d/idle.in" &
ipid=$!
exec {lin}>"$d/idle.in"
wait_for 30 grep -q '^held' "$d/idle.out"
python3 "$top/tests/serve_load.py" load "$port" 1000 127.0.0.3 / /boards /metrics /static/app.css "/api/v1/query?limit=100" "/api/v1/campaigns" /trend >"$d/load.out" &
lpid=$!
python3 "$top/tests/serve_load.py" client "$port" 127.0.0.2 8 / "/campaign/$ca" "/api/v1/query?limit=200" /boards >"$d/client.out"
wait "$lpid"
exec {lin}>&-
wait "$ipid"
echo "load: idle: $(tr '\n' ' ' <"$d/idle.out"); load: $(cat "$d/load.out"); normal client: $(cat "$d/client.out")"
check "load: the server took the 200 trickling connections (each reopened when cut: $(tr '\n' ' ' <"$d/idle.out"))" grep -qx 'held 200 of 200' "$d/idle.out"
check "load: 1,000 requests from a second process, none failed ($(cat "$d/load.out"))" grep -q '^requests 1000 errors 0 ' "$d/load.out"
fault 27.18 "load: the normal client got every page within 1 s ($(cat "$d/client.out"))" \
	python3 -c 'import sys; f = open(sys.argv[1]).read().split(); sys.exit(not (int(f[1]) > 0 and f[3] == "0" and int(f[5]) < 1000))' "$d/client.out"
kill "$spid"
wait "$spid"
rc=$?
check "serve: SIGTERM stops it, exit 0, no sanitizer report (exit $rc)" bash -c "[ $rc = 0 ] && ! grep -q 'Sanitizer' '$d/serve.err'" || tail -n 20 "$d/serve.err"
if [ -n "${ABLAB_SHOTS:-}" ]; then
	mkdir -p "$ABLAB_SHOTS" && cp "$d/list.png" "$d/campaign.png" "$d/trend.png" "$ABLAB_SHOTS/"
fi
