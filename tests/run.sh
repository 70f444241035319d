#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The test suite behind `make check` (which builds everything first):
# unit tests (ASan/UBSan), board-file validation, the results database on a
# real private PostgreSQL cluster, and an end-to-end A/B campaign booting the
# real control and patched kernels under QEMU with the real dmabench module.
# Prints "N passed, N failed" last; exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
top=$PWD
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

tmp=$(mktemp -d /tmp/ablab-test.XXXXXX)
chmod 755 "$tmp"	# the postgres user must reach the private cluster below it
export ABLAB_DATA=$tmp/data ABLAB_BOARDS=$top/boards
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
ablab=$top/build/asan/ablab
cleanup() { "$ablab" db stop >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

echo "== unit tests (ASan/UBSan)"
for t in build/asan/test_parse build/asan/test_stats; do
	out=$("$t" 2>&1); rc=$?
	echo "$out" | tail -n 20
	line=$(echo "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
	[ "$rc" = 0 ] || [ "${f:-1}" != 0 ] || bad "$t exited $rc"
done

echo "== board files"
for f in boards/*.json; do check "valid board $f" "$ablab" check-board "$f"; done
board_err() {	# NAME JSON-TEXT EXPECTED-REGEX: check-board fails with one clear line
	local name=$1 text=$2 re=$3 f=$tmp/$1.json out
	printf '%s\n' "$text" >"$f"
	out=$("$ablab" check-board "$f" 2>&1)
	if [ $? -ne 0 ] && echo "$out" | grep -Eq "$re"; then ok "board error: $name: $out"
	else bad "board error: $name: got: $out"; fi
}
good=$(cat boards/qemu-sam9x75.json)
board_err typo-key "${good/\"retries\"/\"retires\"}" "^ablab: $tmp/typo-key.json:[0-9]+:[0-9]+: retires: unknown key; expected one of: .*retries"
board_err wrong-type "${good/\"retries\": 2/\"retries\": \"two\"}" "[0-9]+:[0-9]+: retries: must be an integer"
board_err nested-typo "${good/\"prompt\"/\"promt\"}" "shell.promt: unknown key"
board_err syntax "${good/\"cpu\": /\"cpu\" }" "syntax.json:[0-9]+:[0-9]+: invalid JSON"
board_err trailing "$good }" "trailing.json:[0-9]+:[0-9]+: trailing characters"
board_err range "${good/\"kernel\": 60/\"kernel\": 0}" "timeouts_s.kernel: out of range"
board_err bad-regex "${good/Kernel panic - not syncing/(unclosed}" "invalid regular expression"
board_err power-type "${good/\"type\": \"qemu\"/\"type\": \"pdu\"}" "power.type: unsupported power type"

echo "== results database (real PostgreSQL, private cluster)"
check "db start creates and starts the private cluster" "$ablab" db start
check "db status says running" bash -c "'$ablab' db status | grep -q '^running'"
out=$(build/asan/test_store boards/qemu-sam9x75.json 2>&1); rc=$?
echo "$out" | grep -E 'passed|failed|CHECK|ERROR|Sanitizer' | tail -n 20
line=$(echo "$out" | grep -E '^test_store: [0-9]+ passed' | tail -n 1)
p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
[ "$rc" = 0 ] || [ "${f:-1}" != 0 ] || bad "test_store exited $rc"
psql_q() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "$1"; }

echo "== end to end: A/B campaign on qemu-sam9x75 (real kernels, real module, QEMU pty)"
ctl=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}/kernels/qemu-sam9x75
if [ ! -f "$ctl/control/manifest.json" ] || [ ! -f "$ctl/patched/manifest.json" ]; then
	bad "kernels missing in $ctl (make kernels)"
else
	ncamp0=$(psql_q "SELECT count(*) FROM campaigns")
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --batches 2 --results "$tmp/results" \
		--format json 2>"$tmp/e2e.err"); rc=$?
	tail -n 8 "$tmp/e2e.err"
	check "1+1 campaign exits 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "one new campaign, status complete" test "$(psql_q "SELECT count(*) || status FROM campaigns WHERE id > $ncamp0 GROUP BY status")" = "1complete"
	check "2 boots ok, one per variant" test "$(psql_q "SELECT string_agg(variant, ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = "control,patched"
	for v in control patched; do
		rel=$(sed -E 's/.*"release": *"([^"]+)".*/\1/' <(tr -d '\n' <"$ctl/$v/manifest.json"))
		check "$v boot ran its own kernel ($rel)" test "$(psql_q "SELECT uname_r FROM boots WHERE campaign_id = $cid AND variant = '$v'")" = "$rel"
		check "$v kernel recorded with /proc/version" test "$(psql_q "SELECT count(*) FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $cid AND b.variant = '$v' AND k.release = '$rel' AND b.proc_version LIKE 'Linux version $rel %'")" = 1
	done
	nscen=$(psql_q "SELECT count(DISTINCT scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")
	check "5 scenarios (3 seed + null + preserve): got $nscen" test "$nscen" = 5
	check "every boot has 2 batches x 5 scenarios" test "$(psql_q "SELECT string_agg(n::text, ',') FROM (SELECT count(*) AS n FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid GROUP BY b.id) x")" = "10,10"
	check "seed scenarios present" test "$(psql_q "SELECT count(DISTINCT scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND scenario IN ('small-dirty-256B','large-dirty-1MiB','large-clean-1MiB')")" = 3
	check "preservation check stored (lost bytes, QEMU has no cache: 0)" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND kind = 'preserve' AND lost_bytes = 0")" = 4
	check "timings positive" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND kind = 'result' AND op <> 'null' AND mean_ns <= 0")" = 0
	logs=$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid")
	for l in $logs; do check "transcript $l has the boot and the shell" grep -q 'lab# ' "$l"; done
	check "report json has both variants per row" bash -c "echo '$out' | grep -q '\"n_patched\": 1'"
	check "ablab report prints the table" bash -c "'$ablab' report $cid | grep -q 'large-dirty\|1 MiB dirty'"

	echo "== clear errors, nothing half-written"
	before=$(psql_q "SELECT count(*) FROM boots")
	c0=$(psql_q "SELECT count(*) FROM campaigns")
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --control "$tmp/nonexistent" 2>&1); rc=$?
	check "missing kernel dir: exit 1 and one line naming it ($out)" bash -c "[ $rc = 1 ] && [ \$(echo '$out' | wc -l) = 1 ] && echo '$out' | grep -q nonexistent"
	check "missing kernel dir: no campaign created" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$c0"
	sed 's/"versatilepb"/"no-such-machine"/' boards/qemu-sam9x75.json >"$tmp/badqemu.json"
	out=$("$ablab" ab --board "$tmp/badqemu.json" --boots 1 --results "$tmp/results" 2>&1); rc=$?
	echo "$out" | tail -n 3
	check "QEMU that fails to start: exit 1, error names QEMU's complaint" bash -c "[ $rc = 1 ] && echo '$out' | grep -q 'QEMU exited at start: .*no-such-machine'"
	check "QEMU failure: not retried, no samples, campaign failed" test "$(psql_q "SELECT count(*) || '/' || (SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = c.id) || '/' || c.status FROM boots b2 JOIN campaigns c ON c.id = b2.campaign_id WHERE c.id = (SELECT max(id) FROM campaigns) GROUP BY c.id, c.status")" = "1/0/failed"
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --batches 1 --params 'scenarios=bad' --results "$tmp/results" 2>&1); rc=$?
	echo "$out" | tail -n 3
	check "module that fails to load: exit 1, clear reason" bash -c "[ $rc = 1 ] && echo '$out' | grep -q 'module failed to load'"
	check "module failure: no samples stored for it" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = (SELECT max(id) FROM campaigns)")" = 0
fi

echo
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
