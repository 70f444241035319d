# SPDX-License-Identifier: GPL-2.0-only
# Patchwork checks posted by a series campaign itself (issue 30, acceptance 1): the
# project's two-patch series mailed into a local mbox, taken by b4 into a job with
# "series": "prefixes" (control, +1, +1-2) and "patchwork": {url, token_file, web_url},
# run on the board simulator.  The simulator's board has a kernel recipe whose build.sh
# is a stand-in (no kernel is compiled for a simulated board: it writes a kernel
# directory whose release, 6.1.0-sim-sN, says how many patches PATCHES_DIR gave it,
# which is what the simulator reads), so the job goes through the real recipe and
# prefix path.  The simulator puts +5 % on small-dirty-256B for patch 1 only
# (--patch-effect 1:...).  The patchwork server is tests/patchwork_fake_server.py
# (patchwork is not packaged in Debian), recording every request.
# Expected: pending on both patches before the first boot, then patch 1 warning (its
# change and CI), patch 2 success, context ablab-sim-pw; a campaign whose kernel never
# boots (--fault panic-boot) posts pending then fail, and so does one stopped by SIGTERM;
# a server that cannot be reached is a warning, the campaign completes and `ablab
# patchwork post N` posts it later.
# The token goes to the configured server only: never to the target_url's server (a
# second recording server), nor into the database, transcripts or output.
# timeout: 300
# lane: side
d=$tmp/t99
bs=$top/build/boardsim
mkdir -p "$d/jobs" "$d/cache" "$d/boards/kernel"
if ! command -v b4 >/dev/null; then
	skip "t99: b4 is not installed (make deps)"
	return 0
fi
export ABLAB_CACHE=$d/cache
"$ablab" db start >/dev/null || bad "t99: db start"

# the series, mailed: two messages, the second a reply to the first
series_mbox "$d/jobs/series.mbox" 20260911093000 jobs/dma-from-device/patches/*.patch

# the simulated board, with a recipe whose build.sh stands in for a kernel build
sim_uboot_board sim-pw "$d/sim"
python3 -c 'import json, sys; b = json.load(open(sys.argv[1])); b["kernel"] = {"recipe": "kernel/sim.conf"}; json.dump(b, open(sys.argv[2], "w"))' \
	"$d/sim/board.json" "$d/boards/sim-pw.json"
: >"$d/boards/kernel/sim.conf"
cat >"$d/boards/kernel/build.sh" <<'EOF'
# stand-in build for the simulated board: a kernel directory per number of patches
set -e
n=0
[ "$2" = control ] || n=$(ls "$PATCHES_DIR"/*.patch | wc -l)
out=$ABLAB_CACHE/kernels/$1/$2-s$n
mkdir -p "$out"
printf '{"board":"%s","variant":"%s","release":"6.1.0-sim-s%s"}\n' "$1" "$2" "$n" >"$out/manifest.json"
printf 'zImage\0Linux version 6.1.0-sim-s%s (boardsim@lab) #1\n' "$n" >"$out/zImage"
echo initramfs >"$out/initramfs.cpio.gz"
echo dtb >"$out/sim.dtb"
echo "$1: done: $2 with $n patch(es) -> $out"
EOF

# the patchwork server and the server of the target_url (it must get nothing)
echo "t99-secret-token-$$" >"$d/jobs/token"
chmod 600 "$d/jobs/token"
tok=$(cat "$d/jobs/token")
echo '{"20260911093000.1-1-ablab@localhost": 31, "20260911093000.1-2-ablab@localhost": 32}' >"$d/patches.json"
echo '{}' >"$d/none.json"
rec_reset() {	# NAME: a new record file, the old one kept in NAME.all
	[ ! -f "$d/$1.rec" ] || cat "$d/$1.rec" >>"$d/$1.all"
	: >"$d/$1.rec"
}
fake_pw() {	# NAME PATCHES: a recording server in the background, its port in $port
	local end=$((SECONDS + 10))
	rm -f "$d/$1.port"
	rec_reset "$1"
	python3 tests/patchwork_fake_server.py "$d/$1.port" "$d/$1.rec" "$2" "$tok" 2>"$d/$1.err" &
	echo $! >"$d/$1.pid"
	until [ -s "$d/$1.port" ]; do
		[ $SECONDS -lt $end ] || { bad "t99: recording server $1 did not start: $(cat "$d/$1.err")"; return 1; }
		sleep 0.05
	done
	port=$(cat "$d/$1.port")
}
fake_stop() { kill "$(cat "$d/$1.pid")" 2>/dev/null; wait "$(cat "$d/$1.pid")" 2>/dev/null; }
fake_pw web "$d/none.json"
wport=$port
fake_pw pw "$d/patches.json"
pport=$port

cat >"$d/jobs/pw.json" <<JOB
{
  "name": "pw-series",
  "boards": ["$d/boards/sim-pw.json"],
  "series": "prefixes",
  "variants": {
    "control": { "source": { "type": "recipe" } },
    "patched": { "source": { "type": "recipe" }, "patches": { "mbox": "series.mbox" } }
  },
  "benchmark": { "name": "dmabench" },
  "boots": 6,
  "batches": 3,
  "patchwork": { "url": "http://127.0.0.1:$pport/", "token_file": "token",
                 "web_url": "http://127.0.0.1:$wport/ablab/" }
}
JOB
sim_start() {	# SEED [more simulator options]
	local seed=$1
	shift
	rm -f "$d/sim/pid"
	"$bs" run --ctl "$d/sim/ctl" --pty-link "$d/sim/console" --tftp-root "$d/sim/tftp" \
		--record "$d/sim/record" --tick-ms 5 --autoboot 10 --seed "$seed" --between 0.003 \
		--patch-effect 1:small-dirty-256B=0.05 "$@" --daemon --pid-file "$d/sim/pid" 2>"$d/sim.err"
}
sim_quit() {	# stop the simulator and wait (10 s at most) until it has gone
	local pid end=$((SECONDS + 10))
	pid=$(cat "$d/sim/pid" 2>/dev/null)
	"$bs" ctl "$d/sim/ctl" quit >/dev/null 2>&1
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $end ]; do sleep 0.1; done
}
posts() {	# RECORD: the POSTed checks, one "path state context|description" a line
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["method"] == "POST":
        c = json.loads(r["body"])
        print(r["path"], c["state"], c["context"] + "|" + c["description"])' "$1"
}

out=$("$ablab" run "$d/jobs/pw.json" --dry-run 2>&1)
check "t99: dry run: the series from b4, three variants, and where the checks go" bash -c \
	"grep -q '3 variants, in series order: control +1 (adds 0001-' <<<\"\$1\" && grep -q 'patchwork: checks to http://127.0.0.1:$pport (token $d/jobs/token)' <<<\"\$1\"" _ "$out" ||
	echo "$out" | tail -n 8

# refused before anything runs: checks without a series from a mailbox (no Message-IDs to
# find the patches by), a token file others can read
mkdir -p "$d/jobs/pdir"
cp jobs/dma-from-device/patches/*.patch "$d/jobs/pdir/"
sed 's|{ "mbox": "series.mbox" }|"pdir"|' "$d/jobs/pw.json" >"$d/jobs/pdir.json"
out=$("$ablab" run "$d/jobs/pdir.json" --dry-run 2>&1); rc=$?
check "t99: \"patchwork\" with a patch directory: a job error naming the field (exit $rc)" bash -c \
	"[ $rc != 0 ] && grep -q 'pdir.json:[0-9]*:[0-9]*: patchwork: checks need a series from a mailbox' <<<\"\$1\"" _ "$out" || echo "$out"
chmod 644 "$d/jobs/token"
out=$("$ablab" run "$d/jobs/pw.json" 2>&1); rc=$?
chmod 600 "$d/jobs/token"
ncamp=$(psql_q "SELECT count(*) FROM campaigns")
check "t99: a token file others can read: refused before any build or campaign (exit $rc, $ncamp campaigns)" bash -c \
	"[ $rc != 0 ] && grep -q 'readable by its owner only (chmod 600' <<<\"\$1\" && [ $ncamp = 0 ] && [ ! -d '$d/cache/kernels' ]" _ "$out" || echo "$out"

# 1. the series campaign: pending at the start, the verdicts at the end
if ! sim_start 99; then
	bad "t99: cannot start the simulator: $(cat "$d/sim.err")"
else
	"$ablab" run "$d/jobs/pw.json" --results "$d/res" >"$d/run1.out" 2>"$d/run1.err"; rc=$?
	sim_quit
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	grep -E 'patchwork|campaign [0-9]+ (complete|stopped)' "$d/run1.err" | sed 's/^/    /'
	posts "$d/pw.rec" | sed 's/^/    /'
	check "t99: series campaign $cid: exit 0, complete, 6 ok boots of control, +1 and +1-2" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")/$(psql_q "SELECT string_agg(variant || '=' || n, ' ' ORDER BY variant) FROM (SELECT variant, count(*) n FROM boots WHERE campaign_id = $cid AND status = 'ok' GROUP BY variant) x")" = \
		"0/complete/+1=6 +1-2=6 control=6"
	check "t99: the kernels came through the recipe: +1 carries 1 patch, +1-2 two (the simulator's record)" bash -c \
		"grep -q 'kernel variant=.* patches=1' '$d/sim/record' && grep -q 'kernel variant=.* patches=2' '$d/sim/record'"
	check "t99: pending on patches 31 and 32 before the first boot, then patch 1 warning and patch 2 success, context ablab-sim-pw" \
		python3 - "$d/pw.rec" "$cid" "$(psql_q "SELECT extract(epoch FROM min(started)) FROM boots WHERE campaign_id = $cid")" \
		"$(psql_q "SELECT extract(epoch FROM finished) FROM campaigns WHERE id = $cid")" "$wport" <<'PY'
import json, re, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
cid, first_boot, finished = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
posts = [(r["path"], json.loads(r["body"]), r["t"]) for r in rec if r["method"] == "POST"]
assert [p for p, _, _ in posts] == ["/api/patches/31/checks/", "/api/patches/32/checks/"] * 2, posts
st = [c["state"] for _, c, _ in posts]
assert st == ["pending", "pending", "warning", "success"], st
assert all(c["context"] == "ablab-sim-pw" for _, c, _ in posts), posts
assert all(c["target_url"] == "http://127.0.0.1:%s/ablab/campaign/%s" % (sys.argv[5], cid)
           for _, c, _ in posts), posts
assert all(t < first_boot for _, _, t in posts[:2]), (posts[:2], first_boot)
assert all(t >= finished for _, _, t in posts[2:]), (posts[2:], finished)
assert posts[0][1]["description"] == "ablab campaign %s is running" % cid, posts[0]
d1, d2 = posts[2][1]["description"], posts[3][1]["description"]
assert re.fullmatch(r"patch 1/2's own increment \(\+1 against control\): different: \+[45]\.[0-9]% "
                    r"\[\+[0-9.]+%, \+[0-9.]+%\] on small-dirty-256B, sim-pw "
                    r"\(2 more rows same or undecided\) \(ablab campaign " + cid + r"\)", d1), d1
assert d2 == "patch 2/2's own increment (+1-2 against +1): same within +-1 % on all 3 timing rows (ablab campaign " + cid + ")", d2
print("    patch 1:", d1)
print("    patch 2:", d2)
PY
	# the same campaign's reply to the series and its KCIDB export (issue 30 item 4)
	"$ablab" report "$cid" --format email --reply >"$d/reply.txt" 2>&1
	check "t99: report --reply on the series campaign: In-Reply-To the series' first message" \
		grep -q '^In-Reply-To: <20260911093000.1-1-ablab@localhost>$' "$d/reply.txt"
	"$ablab" report "$cid" --format kcidb >"$d/kcidb.json" 2>&1
	if python3 -c 'import jsonschema' 2>/dev/null; then
		check "t99: the series campaign's KCIDB export validates against schema v5.3, a checkout per variant" python3 -c '
import json, sys, jsonschema
s = json.load(open(sys.argv[1])); k = json.load(open(sys.argv[2]))
jsonschema.Draft7Validator(s, format_checker=jsonschema.FormatChecker()).validate(k)
assert sorted(x["misc"]["variant"] for x in k["checkouts"]) == ["+1", "+1-2", "control"], k["checkouts"]' \
			tests/fixtures/kcidb/kcidb-io.schema.v5.3.json "$d/kcidb.json"
	else
		skip "t99: python3-jsonschema is not installed (make test-deps)"
	fi
fi

# 2. a campaign whose kernels never boot: pending, then fail
if ! sim_start 98 --fault panic-boot; then
	bad "t99: cannot start the simulator: $(cat "$d/sim.err")"
else
	rec_reset pw
	"$ablab" run "$d/jobs/pw.json" --boots 2 --undecidable-ok --results "$d/res" >"$d/run2.out" 2>"$d/run2.err"; rc=$?
	sim_quit
	cid2=$(psql_q "SELECT max(id) FROM campaigns")
	grep -E 'patchwork|campaign [0-9]+ (complete|stopped)' "$d/run2.err" | sed 's/^/    /'
	posts "$d/pw.rec" | sed 's/^/    /'
	got=$(posts "$d/pw.rec" | cut -d'|' -f1 | tr '\n' ' ')
	check "t99: failed campaign $cid2 (kernel panics at boot): exit 1, status failed, pending then fail on both patches" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid2")/$got/$(posts "$d/pw.rec" | tail -n 1 | cut -d'|' -f2)" = \
		"1/failed//api/patches/31/checks/ pending ablab-sim-pw /api/patches/32/checks/ pending ablab-sim-pw /api/patches/31/checks/ fail ablab-sim-pw /api/patches/32/checks/ fail ablab-sim-pw /ablab campaign $cid2 failed: no verdict"
fi

# 3. the patchwork server cannot be reached: a warning, the campaign is not failed, and
# `ablab patchwork post` posts the checks later
fake_stop pw
if ! sim_start 97; then
	bad "t99: cannot start the simulator: $(cat "$d/sim.err")"
else
	"$ablab" run "$d/jobs/pw.json" --boots 2 --undecidable-ok --results "$d/res" >"$d/run3.out" 2>"$d/run3.err"; rc=$?
	sim_quit
	cid3=$(psql_q "SELECT max(id) FROM campaigns")
	grep -E 'patchwork' "$d/run3.err" | sed 's/^/    /'
	check "t99: server unreachable: campaign $cid3 exit 0, complete, a warning for the pending and the final checks naming the repost" bash -c \
		"[ '$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid3")' = 0/complete ] && [ \$(grep -c 'warning: patchwork: campaign $cid3.s .* checks were not all posted .*ablab patchwork post $cid3 --url http://127.0.0.1:$pport --token-file $d/jobs/token' '$d/run3.err') = 2 ]"
	fake_pw pw "$d/patches.json"
	out=$("$ablab" patchwork post "$cid3" --url "http://127.0.0.1:$port" --token-file "$d/jobs/token" 2>&1); rc=$?
	got=$(posts "$d/pw.rec" | cut -d'|' -f1 | tr '\n' ' ')
	check "t99: patchwork post $cid3 afterwards: exit $rc, a final check (not pending) on each patch: $got" bash -c \
		"[ $rc = 0 ] && grep -Eq '^/api/patches/31/checks/ (success|warning) ablab-sim-pw /api/patches/32/checks/ (success|warning) ablab-sim-pw \$' <<<'$got'" || echo "$out"
fi

# 4. SIGTERM once the pending checks are posted: the campaign is interrupted, fail posted
# (to the restarted server on its new port: --patchwork-url overrides the job's url)
if ! sim_start 96; then
	bad "t99: cannot start the simulator: $(cat "$d/sim.err")"
else
	rec_reset pw
	"$ablab" run "$d/jobs/pw.json" --results "$d/res" --patchwork-url "http://127.0.0.1:$port" \
		>"$d/run4.out" 2>"$d/run4.err" &
	apid=$!
	end=$((SECONDS + 60))
	until [ "$(grep -c '"POST"' "$d/pw.rec")" -ge 2 ] || [ $SECONDS -ge $end ]; do sleep 0.05; done
	kill -TERM "$apid"
	wait "$apid"; rc=$?
	sim_quit
	cid4=$(psql_q "SELECT max(id) FROM campaigns")
	got=$(posts "$d/pw.rec" | cut -d' ' -f2 | tr '\n' ' ')
	check "t99: SIGTERM during campaign $cid4: exit $rc, status interrupted, pending then fail on both patches ($got)" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid4")/$got/$(posts "$d/pw.rec" | tail -n 1 | cut -d'|' -f2)" = \
		"130/interrupted/pending pending fail fail /ablab campaign $cid4 interrupted: no verdict"
fi

# where the token went: every request to the patchwork server carried it; the target_url's
# server got no request at all; no file, row or line of output of these runs holds it
rec_reset pw
rec_reset web
check "t99: the target_url's server got no request" test ! -s "$d/web.all"
check "t99: every request the patchwork server got ($(wc -l <"$d/pw.all") in 4 campaigns and a repost) carried the token" python3 -c '
import json, sys
rec = [json.loads(l) for l in open(sys.argv[1])]
assert rec and all(r["auth"] == "Token " + sys.argv[2] for r in rec), rec' "$d/pw.all" "$tok"
psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "SELECT c::text FROM campaigns c" \
	-c "SELECT b::text FROM boots b" >"$d/db.txt"
check "t99: the token is in no database row, transcript, simulator record or output ($(wc -l <"$d/db.txt") rows read)" bash -c \
	"[ -s '$d/db.txt' ] && ! grep -rqF '$tok' '$d/db.txt' '$d/res' '$d/sim/record' '$d'/run*.out '$d'/run*.err"
fake_stop pw
fake_stop web
