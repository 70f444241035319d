# The LAVA API token goes only to --server (agent/lava/lava-api.c): a stand-in LAVA
# server on 127.0.0.1 (tests/lava_fake_server.py) hands out a "next" page
# and a redirect on another origin, and a log too large to take; a second
# server records every request it gets.  No lava-server, no kernels, seconds.
"$ablab" db start >/dev/null 2>&1
lt=$tmp/lava-token
mkdir -p "$lt"
echo "t72-SECRET-token" >"$lt/token"
chmod 600 "$lt/token"
for v in control patched; do
	mkdir -p "$lt/k/$v"
	printf '{"board":"qemu-sam9x75","variant":"%s","release":"6.1.0-t72-%s"}\n' $v $v \
		>"$lt/k/$v/manifest.json"
	printf 'zImage\n' >"$lt/k/$v/zImage"
	echo initramfs >"$lt/k/$v/initramfs.cpio.gz"
done
cat >"$lt/job.json" <<EOF
{ "name": "t72", "boards": ["qemu-sam9x75"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$lt/k/control" } },
                "patched": { "source": { "type": "prebuilt", "dir": "$lt/k/patched" } } },
  "benchmark": { "name": "dmabench" } }
EOF
# fake_server NAME MODE [FOREIGN_URL]: started in the background, its port in $port
fake_server() {
	local end=$((SECONDS + 10))
	rm -f "$lt/$1.port"
	: >"$lt/$1.rec"
	/usr/bin/python3 tests/lava_fake_server.py "$2" "$lt/$1.port" "$lt/$1.rec" ${3:+"$3"} \
		2>"$lt/$1.err" &
	echo $! >"$lt/$1.pid"
	until [ -s "$lt/$1.port" ]; do
		[ $SECONDS -lt $end ] || { bad "fake LAVA server $1 did not start: $(cat "$lt/$1.err")"; return 1; }
		sleep 0.05
	done
	port=$(cat "$lt/$1.port")
}
fake_stop() { kill "$(cat "$lt/$1.pid")" 2>/dev/null; wait "$(cat "$lt/$1.pid")" 2>/dev/null; }
lava_run() {	# URL [options]: a 1+1 boot campaign through the server at URL
	local url=$1
	shift
	"$ablab" lava run "$lt/job.json" --server "$url" --token-file "$lt/token" \
		--boots 1 --undecidable-ok --batches 1 --results "$lt/results" --format none "$@"
}

echo "== lava: which servers get the token"
cp "$lt/token" "$lt/token-open" && chmod 644 "$lt/token-open"
out=$("$ablab" lava run "$lt/job.json" --server https://lava.example.org --token-file "$lt/token-open" \
	--boots 1 --batches 1 --results "$lt/results" --format none 2>&1); rc=$?
fault 27.14 "a token file every user can read (0644): refused, nothing sent (exit $rc)" bash -c \
	"[ $rc != 0 ] && grep -q 'token-file $lt/token-open is open to every user (mode 0644)' <<<'$out'"
out=$(lava_run http://192.0.2.1 2>&1); rc=$?
fault 5 "http:// server off loopback: refused without --insecure-http (exit $rc)" bash -c \
	"[ $rc = 2 ] && grep -q 'clear text.*--insecure-http' <<<'$out'"
out=$(lava_run ftp://127.0.0.1 2>&1); rc=$?
fault 5 "ftp:// server: refused (exit $rc)" bash -c "[ $rc = 2 ] && grep -q 'only https://' <<<'$out'"

if fake_server foreign record; then
	foreign=http://127.0.0.1:$port/api/v0.2/jobs/7/tests/?page=2
	job=100
	for mode in next-foreign redirect big-log; do
		job=$((job + 1))
		export FAKE_LAVA_JOB=$job
		: >"$lt/foreign.rec"
		fake_server lava "$mode" "$foreign" || continue
		c0=$(psql_q "SELECT coalesce(max(id), 0) FROM campaigns")
		lava_run "http://127.0.0.1:$port" >/dev/null 2>"$lt/$mode.err"; rc=$?
		fake_stop lava
		grep -v '  |' "$lt/$mode.err" | grep -E 'not followed|not on|larger' | head -n 2
		case $mode in
		next-foreign) re='"next" page http://127.0.0.1:[0-9]+/api/v0.2/jobs/7/tests/\?page=2 is not on --server' ;;
		redirect) re='HTTP 302 redirect not followed' ;;
		big-log) re='response larger than 32 MiB' ;;
		esac
		fault 5 "$mode: exit 1 with a clear error" bash -c "[ $rc = 1 ] && grep -Eq '$re' '$lt/$mode.err'"
		fault 5 "$mode: the server got the token" grep -q 'auth=Token t72-SECRET-token' "$lt/lava.rec"
		fault 5 "$mode: the foreign host got no request, no token" test ! -s "$lt/foreign.rec"
		fault 5 "$mode: not retried (1 failed attempt), stored without data" test \
			"$(psql_q "SELECT count(*) || '/' || count(*) FILTER (WHERE b.status = 'failed') || '/' || (SELECT count(*) FROM samples s JOIN boots x ON x.id = s.boot_id WHERE x.campaign_id = c.id) FROM campaigns c JOIN boots b ON b.campaign_id = c.id WHERE c.id > $c0 GROUP BY c.id")" = "1/1/0"
	done
	fake_stop foreign
fi
