# LAVA with the real engine (Debian's lava-server 2023.01, lava-dispatcher):
# generated jobs pass LAVA's validator, run standalone with lava-run, and run
# through a lava-server + lava-worker on 127.0.0.1 (jobs/lava/local-server.sh
# installs and starts everything it needs); boots come back as data with
# their LAVA job ids; a job that cannot deploy is an infrastructure failure,
# retried and stored without data.
"$ablab" db start >/dev/null 2>&1 || true
cache=$kcache
kdir=$cache/kernels/qemu-sam9x75
lstate=$tmp/lava
job=jobs/dma-from-device.json
if [ ! -f "$kdir/control/manifest.json" ] || [ ! -f "$kdir/patched/manifest.json" ]; then
	skip "kernels missing in $kdir (make kernels)"
else
	# one local LAVA instance per machine (system-wide config, ports 8000/8001/5500):
	# concurrent test runs take turns
	exec 8>/run/lock/ablab-lava-test.lock
	flock -w 900 8 || bad "another test run holds the local LAVA instance"
	pg_was_online=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" && $4 == "online"' | wc -l)
	lava_stop() {
		bash jobs/lava/local-server.sh stop "$lstate"
		if [ "$pg_was_online" = 0 ]; then
			v=$(pg_lsclusters -h | awk '$2 == "main" { print $1 }' | head -n1)
			[ -n "$v" ] && pg_ctlcluster "$v" main stop
		fi
	}
	# the daemons must not outlive an interrupted run ($tmp holds their pids)
	trap 'lava_stop >/dev/null 2>&1; cleanup' EXIT
	t0=$(date +%s)
	# state of its own: FRESH=1 (make check FRESH=1) wipes the instance first, as
	# on a fresh machine; every run gets an empty lava-server database and a new
	# token (LAVA_OWN_DB=1), so job ids start at 1 as on a fresh machine
	if [ -n "${FRESH:-}" ] && [ "${FRESH:-}" != 0 ]; then
		bash jobs/lava/local-server.sh wipe "$lstate" || bad "local-server.sh wipe failed"
	fi
	if ! LAVA_OWN_DB=1 bash jobs/lava/local-server.sh start "$lstate"; then
		bad "local lava-server did not start (logs in $lstate)"
		tail -n 20 "$lstate"/*.log "$lstate"/logs/*.log 2>/dev/null
	fi
	echo "   lava-server + worker up in $(($(date +%s) - t0)) s"

	echo "== lava export + LAVA's validator"
	out=$tmp/lava-export
	"$ablab" lava export "$job" --boards qemu-sam9x75 --boots 2 --batches 2 --out "$out" \
		>"$tmp/lx.out" 2>"$tmp/lx.err"; rc=$?
	check "export: exit 0, 4 jobs" bash -c "[ $rc = 0 ] && [ \$(ls '$out'/*.yaml | wc -l) = 4 ]"
	check "export: files in alternation order (abab)" test \
		"$(sed -E 's/.*-[0-9]{3}-(control|patched)\.yaml/\1/' "$tmp/lx.out" | tr '\n' ' ')" \
		= "control patched control patched "
	for f in "$out"/*.yaml; do
		check "lava_common.schemas.validate($(basename "$f"))" /usr/bin/python3 -c \
			'import sys, yaml, lava_common.schemas as s; s.validate(yaml.safe_load(open(sys.argv[1])))' "$f"
	done
	f1=$(head -n1 "$tmp/lx.out")
	check "deploy tmpfs + boot qemu + monitors with measurement" bash -c \
		"grep -q 'to: tmpfs' '$f1' && grep -q 'method: qemu' '$f1' && grep -q 'P<measurement>' '$f1'"
	# the monitor as lava-dispatcher runs it (pexpect + its ShellLogger) on a done line
	# read in two parts: the end matches only once the line end has been read, so the
	# line is logged as target output (else the monitor stopped first and finalize
	# logged it as "feedback": "no dmabench done line" on a loaded host)
	check "monitor end: the whole done line, logged as target before the monitor stops" \
		/usr/bin/python3 tests/lava_monitor_end.py "$f1"
	# lava-run --validate with the device dictionary rendered as lava-server does
	/usr/bin/python3 -c "
import os, sys, jinja2, yaml
d = os.path.abspath(sys.argv[1])
ctx = yaml.safe_load(open(sys.argv[2])).get('context') or {}
env = jinja2.Environment(loader=jinja2.FileSystemLoader([os.path.dirname(d), '/usr/share/lava-server/device-types']), trim_blocks=True, autoescape=False)
sys.stdout.write(env.get_template(os.path.basename(d)).render(**ctx))" \
		jobs/lava/devices/qemu-sam9x75.jinja2 "$f1" >"$tmp/lava-device.yaml"
	check "lava-run --validate against the rendered device" lava-run --validate --job-id 1 \
		--output-dir "$tmp/lava-validate" --device "$tmp/lava-device.yaml" "$f1"
	# the real boards' jobs (u-boot + tftp; flasher + minimal for a board
	# deployed by command) from their board files, with the emulated
	# board's kernels standing in for theirs
	rbs=$(for rb in sam9x75 pi400 arm11-2ds; do [ -f "boards/$rb.json" ] && printf '"%s", ' "$rb"; done)
	if [ -n "$rbs" ]; then
		cat >"$tmp/real.json" <<-EOF
		{ "name": "real", "boards": [${rbs%, }],
		  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kdir/control")" } },
		                "patched": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kdir/patched")" } } },
		  "benchmark": { "name": "dmabench" }, "lava": { "tags": ["{board}"] } }
		EOF
		check "export for the real boards ($rbs)" "$ablab" lava export "$tmp/real.json" --boots 1 \
			--out "$tmp/lx-real" --artifacts-url http://192.0.2.1/kernels
		for f in "$tmp"/lx-real/*.yaml; do
			check "validate($(basename "$f"))" /usr/bin/python3 -c \
				'import sys, yaml, lava_common.schemas as s; s.validate(yaml.safe_load(open(sys.argv[1])))' "$f"
		done
		[ -f boards/sam9x75.json ] && check "sam9x75: deploy tftp, boot u-boot ramdisk, http URLs" bash -c \
			"grep -q 'to: tftp' $tmp/lx-real/real-sam9x75-001-control.yaml && grep -q 'commands: ramdisk' $tmp/lx-real/real-sam9x75-001-control.yaml && grep -q 'http://192.0.2.1/kernels/sam9x75/' $tmp/lx-real/real-sam9x75-001-control.yaml"
	fi

	echo "== lava run --local (lava-run on this host)"
	c0=$(psql_q "SELECT coalesce(max(id), 0) FROM campaigns")
	t0=$(date +%s)
	"$ablab" lava run "$job" --local --boards qemu-sam9x75 --boots 1 --undecidable-ok --batches 2 \
		--results "$tmp/results" --format none 2>"$tmp/ll.err"; rc=$?
	grep -v '  |' "$tmp/ll.err" | tail -n 4
	echo "   lava run --local, 1+1 boots: $(($(date +%s) - t0)) s"
	check "lava run --local: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	# a retried attempt is the engine's rule, not a failure of this part: say why it failed
	psql_q "SELECT '   failed attempt ' || seq || ': ' || coalesce(error, '?') FROM boots WHERE campaign_id = $cid AND status <> 'ok'"
	got=$(psql_q "SELECT count(DISTINCT lava_server) || ' ' || count(DISTINCT lava_job_id) || ' ' || bool_and(lava_server ~ '^local:[^:]+:[0-9a-f-]{36}\$') || ' ' || min(lava_server) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	fault 2 "local: the boots' server is this run (local:HOST:UUID), one job id each ($got)" \
		test "${got% *}" = "1 2 true"
	check "local: campaign trigger lava, complete, 2 ok boots with samples" test \
		"$(psql_q "SELECT c.trigger || ' ' || c.status || ' ' || count(DISTINCT b.id) || ' ' || count(s.*) FROM campaigns c JOIN boots b ON b.campaign_id = c.id JOIN samples s ON s.boot_id = b.id WHERE c.id = $cid AND c.id > $c0 AND b.status = 'ok' GROUP BY c.id")" \
		= "lava complete 2 20"

	echo "== lava run --server (lava-server + lava-worker on 127.0.0.1)"
	url=http://127.0.0.1:${LAVA_PORT:-8000}
	t0=$(date +%s)
	"$ablab" lava run "$job" --server "$url" --token-file "$lstate/token" --boards qemu-sam9x75 \
		--boots 1 --undecidable-ok --batches 2 --results "$tmp/results" --format text >"$tmp/ls.out" 2>"$tmp/ls.err"; rc=$?
	grep -v '  |' "$tmp/ls.err" | tail -n 5
	echo "   lava run --server, 1+1 boots: $(($(date +%s) - t0)) s"
	check "lava run --server: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	psql_q "SELECT '   failed attempt ' || seq || ': ' || coalesce(error, '?') FROM boots WHERE campaign_id = $cid AND status <> 'ok'"
	check "server: 2 ok boots, control then patched, each with its LAVA job id" test \
		"$(psql_q "SELECT string_agg(variant || ':' || (lava_job_id IS NOT NULL)::text, ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" \
		= "control:true,patched:true"
	check "server: the boots ran the kernels of the job (uname -r)" test \
		"$(psql_q "SELECT count(*) FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $cid AND b.status = 'ok' AND b.uname_r = k.release")" = 2
	fault 2 "server: the boots name their server ($url)" test \
		"$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok' AND lava_server = '$url'")" = 2
	lid=$(psql_q "SELECT lava_job_id FROM boots WHERE campaign_id = $cid AND seq = 1 AND status = 'ok'")
	n=$(curl -fsS -H "Authorization: Token $(cat "$lstate/token")" "$url/api/v0.2/jobs/$lid/tests/?limit=200" |
		/usr/bin/python3 -c 'import json, sys; print(sum(1 for t in json.load(sys.stdin)["results"] if t["unit"] == "mean_ns"))')
	# a job id is unique only on its server (the --local run's jobs have ids from 1 too)
	fault 2 "LAVA holds the measurements as test cases ($n mean_ns, as many as stored timing samples)" test \
		"$n" = "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND b.lava_server = '$url' AND b.lava_job_id = $lid AND s.kind = 'result'")"
	fault 2 "query shows LAVA boots as SERVER#ID" bash -c \
		"'$ablab' query --campaign $cid --format csv | grep -q ',$url#$lid\$'"
	check "ablab report prints the LAVA campaign" bash -c "'$ablab' report $cid | grep -q 'lava'"
	"$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 2 --results "$tmp/results" --format text >/dev/null 2>&1
	check "a direct campaign of the same board stores the same scenarios" test \
		"$(psql_q "SELECT count(DISTINCT s.scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = \
		"$(psql_q "SELECT count(DISTINCT s.scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = (SELECT max(id) FROM campaigns)")"
	# the LAVA boots next to direct boots of the same job, in one report
	dcid=$(psql_q "SELECT max(id) FROM campaigns")
	"$ablab" compare "$cid" "$dcid" --undecidable-ok >"$tmp/cmp.out" 2>&1; rc=$?
	sed -n 1,6p "$tmp/cmp.out"
	check "compare LAVA campaign $cid with direct campaign $dcid: exit 0, both named" \
		grep -q "campaign $cid (.*lava) -> campaign $dcid (.*cli)" "$tmp/cmp.out"
	check "compare: every scenario with both kernels from both campaigns" test \
		"$(grep -cE '^    (control|patched) {2,}' "$tmp/cmp.out")" = 10

	echo "== a LAVA job that cannot deploy (bad kernel URL)"
	"$ablab" lava run "$job" --server "$url" --token-file "$lstate/token" --boards qemu-sam9x75 \
		--boots 1 --undecidable-ok --batches 2 --results "$tmp/results" --format none \
		--artifacts-url "$url/ablab-no-such-artefacts" >"$tmp/lb.out" 2>"$tmp/lb.err"; rc=$?
	grep -v '  |' "$tmp/lb.err" | tail -n 3
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "bad URL: exit 1, reported as an infrastructure failure with LAVA's reason" bash -c \
		"[ $rc = 1 ] && grep -q 'Incomplete (infrastructure): .*ablab-no-such-artefacts' '$tmp/lb.err'"
	check "bad URL: retried (3 attempts of slot 1), each with its LAVA job id" test \
		"$(psql_q "SELECT count(*) || ' ' || count(DISTINCT lava_job_id) FROM boots WHERE campaign_id = $cid AND seq = 1 AND status = 'failed'")" = "3 3"
	check "bad URL: nothing stored as data" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = 0
	check "bad URL: campaign failed" test "$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = failed

	echo "== errors"
	out=$("$ablab" lava run "$job" --server "$url" --boards qemu-sam9x75 2>&1); rc=$?
	check "--server without --token-file: usage error" bash -c "[ $rc = 2 ] && echo '$out' | grep -q 'token-file'"
	echo wrong >"$tmp/badtoken"
	chmod 600 "$tmp/badtoken"
	"$ablab" lava run "$job" --server "$url" --token-file "$tmp/badtoken" --boards qemu-sam9x75 \
		--boots 1 --undecidable-ok --results "$tmp/results" --format none >/dev/null 2>"$tmp/lt.err"; rc=$?
	grep -v '  |' "$tmp/lt.err" | tail -n 3
	check "a wrong token: exit 1, HTTP 401/403 named, no retry loop" bash -c \
		"[ $rc = 1 ] && grep -Eq 'HTTP 40[13]' '$tmp/lt.err' && [ \$(grep -c 'attempt [0-9]* failed' '$tmp/lt.err') = 1 ]"
	lava_stop
	trap cleanup EXIT
	flock -u 8
	exec 8>&-
fi
