# LAVA campaigns run by the one campaign engine (agent/campaign.c with the
# LAVA runner, agent/lava/lava-runner.c): a database outage mid-campaign spools
# the LAVA boots (their job ids kept) and they are stored later, once each;
# `ablab resume` of an interrupted LAVA campaign submits only the slots not
# yet done.  A stand-in LAVA server (tests/lava_fake_server.py, mode bench)
# runs the jobs: no lava-server, no kernels, seconds.  Waits are on
# conditions with deadlines.
# timeout: 300
"$ablab" db start >/dev/null 2>&1
lt=$tmp/lava-engine
mkdir -p "$lt/gate"
echo "t74-token" >"$lt/token"
chmod 600 "$lt/token"
for v in control patched; do
	mkdir -p "$lt/k/$v"
	printf '{"board":"qemu-sam9x75","variant":"%s","release":"6.1.0-t74-%s"}\n' $v $v \
		>"$lt/k/$v/manifest.json"
	printf 'zImage\n' >"$lt/k/$v/zImage"
	echo initramfs >"$lt/k/$v/initramfs.cpio.gz"
done
cat >"$lt/job.json" <<EOF2
{ "name": "t74", "boards": ["qemu-sam9x75"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$lt/k/control" } },
                "patched": { "source": { "type": "prebuilt", "dir": "$lt/k/patched" } } },
  "benchmark": { "name": "dmabench" } }
EOF2
last() { psql_q "SELECT coalesce(max(id), 0) FROM campaigns"; }
new_campaign() { [ "$(last)" != "$1" ]; }
ok_boots() { [ "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $1 AND status = 'ok'" 2>/dev/null)" -ge "$2" ] 2>/dev/null; }
submitted() { [ "$(grep -c '^submitted' "$lt/lava.rec")" -ge "$1" ]; }
slots() { psql_q "SELECT count(*) || '/' || count(DISTINCT seq) || '/' || count(DISTINCT lava_job_id) FROM boots WHERE campaign_id = $1 AND status = 'ok' AND lava_server = '$url'"; }
# the fake server (mode bench, jobs held by $lt/gate), its URL in $url
port=
rm -f "$lt/lava.port"
: >"$lt/lava.rec"
FAKE_LAVA_JOB=501 FAKE_LAVA_GATE=$lt/gate /usr/bin/python3 tests/lava_fake_server.py bench \
	"$lt/lava.port" "$lt/lava.rec" 2>"$lt/lava.err" &
spid=$!
wait_for 10 test -s "$lt/lava.port" && port=$(cat "$lt/lava.port")
if [ -z "$port" ]; then
	bad "fake LAVA server did not start: $(cat "$lt/lava.err")"
else
	url=http://127.0.0.1:$port
	lava_run() {	# BOOTS: a campaign through the fake server, in the background ($pid)
		"$ablab" lava run "$lt/job.json" --server "$url" --token-file "$lt/token" \
			--boots "$1" --undecidable-ok --batches 2 --results "$lt/results" --format none \
			>"$lt/run.out" 2>"$lt/run.err" &
		pid=$!
	}

	echo "== database outage mid-campaign: LAVA boots spooled, stored later"
	c0=$(last)
	lava_run 2
	wait_for 30 new_campaign "$c0"
	cid=$(last)
	touch "$lt/gate/501"
	wait_for 30 ok_boots "$cid" 1
	"$ablab" db stop >/dev/null
	touch "$lt/gate/all"
	wait $pid
	grep -E 'spooled|unreachable' "$lt/run.err" | head -n 2
	n=$(ls "$lt/results/spool/"*.json 2>/dev/null | wc -l)
	fault 2 "outage: the 3 boots after the outage are spooled ($n), not lost" test "$n" = 3
	fault 2 "outage: the spooled boots keep their LAVA job ids" bash -c \
		"grep -l '\"lava_job_id\"' '$lt/results/spool/'*.json | wc -l | grep -qx 3"
	"$ablab" db start >/dev/null
	(cd "$tmp" && "$ablab" resume "$cid" --format json >"$lt/resume1.out" 2>"$lt/resume1.err"); rc=$?
	grep -E 'spool|already|resum' "$lt/resume1.err" | head -n 3
	fault 2 "outage: resume loads the spool and completes without a LAVA job (exit $rc)" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")/$(grep -c '^submitted' "$lt/lava.rec")" \
		= 0/complete/4
	fault 2 "outage: 4 ok boots, each slot once, each with its own LAVA job id" test "$(slots "$cid")" = 4/4/4
	fault 2 "outage: every boot's samples stored (4 boots x 2 batches)" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = 8
	check "outage: spool emptied" bash -c "! ls '$lt/results/spool/'*.json >/dev/null 2>&1"

	echo "== ablab resume of an interrupted LAVA campaign"
	rm -f "$lt/gate/"*
	: >"$lt/lava.rec"
	c0=$(last)
	lava_run 2
	wait_for 30 new_campaign "$c0"
	cid=$(last)
	touch "$lt/gate/505" "$lt/gate/506"
	wait_for 30 ok_boots "$cid" 2
	wait_for 30 submitted 3	# the third job is held: the agent waits for it
	kill -s TERM $pid
	wait $pid; rc=$?
	fault 2 "interrupted: exit 130, campaign interrupted, 2 ok boots" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")/$(slots "$cid")" = \
		130/interrupted/2/2/2
	first=$(psql_q "SELECT string_agg(lava_job_id::text, ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	touch "$lt/gate/all"
	(cd "$tmp" && "$ablab" resume "$cid" --format json >"$lt/resume2.out" 2>"$lt/resume2.err"); rc=$?
	grep -E 'resum|attempt' "$lt/resume2.err" | head -n 3
	fault 2 "resume: exit 0, campaign complete, 4 ok boots each slot once" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")/$(slots "$cid")" = 0/complete/4/4/4
	fault 2 "resume: only the 2 slots not done were submitted again (5 LAVA jobs in all)" test \
		"$(grep -c '^submitted' "$lt/lava.rec")" = 5
	fault 2 "resume: the finished slots keep their boots ($first)" test -n "$first" -a \
		"$(psql_q "SELECT string_agg(lava_job_id::text, ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok' AND seq <= 2")" = "$first"
	fault 2 "resume: the interrupted attempt is kept as failed, slot 3 continued with attempt 2" test \
		"$(psql_q "SELECT string_agg(attempt || ':' || status, ',' ORDER BY attempt) FROM boots WHERE campaign_id = $cid AND seq = 3")" = "1:failed,2:ok"
	check "resume: the same progress lines as a local campaign" \
		grep -q "qemu-sam9x75 \[4/4\] ok: LAVA job 509, 2 samples" "$lt/resume2.err"
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
fi
