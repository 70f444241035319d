# SPDX-License-Identifier: GPL-2.0-only
# Shared by the parts of tests/run.sh: counters, a private database in a
# temporary ABLAB_DATA (removed at exit), helpers.
top=$PWD
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; return 1; fi; }

tmp=$(mktemp -d /tmp/ablab-test.XXXXXX)
chmod 755 "$tmp"	# the postgres user must reach the private cluster below it
export ABLAB_DATA=$tmp/data ABLAB_BOARDS=$top/boards ABLAB_LOCK_DIR=$tmp/locks
mkdir -p "$tmp/locks"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
ablab=$top/build/asan/ablab
cleanup() { "$ablab" db stop >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

# count_unit BINARY [ARGS]: run a C test binary, add its "N passed, N failed"
count_unit() {
	local out rc line p f
	out=$("$@" 2>&1); rc=$?
	echo "$out" | grep -E 'passed|failed|CHECK|ERROR|Sanitizer|runtime error' | tail -n 20
	line=$(echo "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
	[ "$rc" = 0 ] || [ "${f:-1}" != 0 ] || bad "$1 exited $rc"
}
psql_q() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "$1"; }
