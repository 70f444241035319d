#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The test suite behind `make check` (which builds everything first).  Every
# part tests/tNN-*.sh runs in its own bash process, in its own process group,
# which sources tests/lib.sh (its own temporary directory, ABLAB_DATA with its
# own private PostgreSQL cluster, lock directory) and then the part, under a
# deadline (PART_TIMEOUT seconds, default 1200; a part may lower or raise it
# with a line "# timeout: N").  A part reports "PASS:", "FAIL:" and "SKIP:"
# lines; one that overruns its deadline is killed (the whole process group)
# and counted as one failure.  Prints "N passed, N failed, N skipped" last;
# exits non-zero on any failure.
#   TESTS='t10 t40' bash tests/run.sh   runs only the parts whose names start so
# `make check FRESH=1` first runs tests/fresh.sh (the state earlier runs leave).
# Two lanes (TEST_JOBS=2, the default on a machine with 2 or more CPUs): the parts
# with a line "# lane: side" (parts that share nothing with the others: no
# LAVA, no ports, no packages) run one after another beside the main lane, their
# output shown whole when each ends; the parts with "# lane: alone" (timing on QEMU
# boards: load beside them widens their intervals) run after the side lane has ended.
# TEST_JOBS=1: every part in turn, in name order, as before.
# CI=true (.ci/run): a part that skips a check (SKIP: no kernels, no b4, ...) fails
# the run unless tests/ci-skips.txt names it, with the reason.
set -u
cd "$(dirname "$0")/.."
top=$PWD
res=$(mktemp -d /tmp/ablab-results.XXXXXX)
trap 'rm -rf "$res"' EXIT
pass=0 fail=0 skipped=0 t_all=$(date +%s)
set -m	# each part in its own process group: a deadline kills all of it
jobs=${TEST_JOBS:-$(n=$(nproc 2>/dev/null || echo 1); [ "$n" -ge 2 ] && echo 2 || echo 1)}

selected() {
	local t
	[ -n "${TESTS:-}" ] || return 0
	for t in $TESTS; do case $1 in "$t"*) return 0 ;; esac; done
	return 1
}

# run_part PART: one part in its own process group under its deadline; its counts in
# $res/NAME, its time in $res/NAME.time
run_part() {
	local part=$1 name limit t0 pid wd rc
	name=$(basename "$part" .sh)
	limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$part" | head -n 1)
	limit=${limit:-${PART_TIMEOUT:-1200}}
	echo "== $name"
	t0=$(date +%s)
	ABLAB_PART_RESULT=$res/$name ABLAB_FAULTS=$res/faults ABLAB_FAILS=$res/fails part_name=$name bash -c '. tests/lib.sh; . "$1"' _ "$part" </dev/null &
	pid=$!
	( trap "exit 0" TERM; sleep "$limit"
	  echo "FAIL: $name: still running after its deadline of $limit s: killed"
	  echo "$name: still running after its deadline of $limit s: killed" >>"$res/fails"
	  kill -TERM -- -"$pid" 2>/dev/null; sleep 10; kill -KILL -- -"$pid" 2>/dev/null ) 2>/dev/null &
	wd=$!
	wait "$pid"; rc=$?
	kill -TERM -- -"$wd" 2>/dev/null; wait "$wd" 2>/dev/null
	if [ ! -s "$res/$name" ]; then
		echo "FAIL: $name: ended (exit $rc) without reporting its counts"
		echo "$name: ended (exit $rc) without reporting its counts" >>"$res/fails"
		echo "0 1 0" >"$res/$name"
	fi
	read -r p f s <"$res/$name"
	echo "-- $name: $p passed, $f failed, $s skipped in $(($(date +%s) - t0)) s"
}

main=() side=() alone=()
for part in tests/t[0-9][0-9]-*.sh; do
	selected "$(basename "$part" .sh)" || continue
	if [ "$jobs" -ge 2 ] && grep -q '^# lane: side' "$part"; then
		side+=("$part")
	elif [ "$jobs" -ge 2 ] && grep -q '^# lane: alone' "$part"; then
		alone+=("$part")
	else
		main+=("$part")
	fi
done
side_pid=
if [ ${#side[@]} -gt 0 ]; then
	echo "side lane (beside the others, output when each ends): ${side[*]}"
	# set -m again: a subshell starts without job control, and without it the part and
	# its deadline would not get process groups of their own (kill -- -PID)
	( set -m
	  for part in "${side[@]}"; do
		run_part "$part" >"$res/side.log" 2>&1
		sed 's/^/[side] /' "$res/side.log"
	  done ) &
	side_pid=$!
fi
for part in "${main[@]}"; do
	run_part "$part"
done
[ -z "$side_pid" ] || wait "$side_pid"
[ ${#alone[@]} = 0 ] || echo "after the side lane, alone: ${alone[*]}"
for part in "${alone[@]}"; do
	run_part "$part"
done
pass=0 fail=0 skipped=0
for part in "${main[@]}" "${side[@]}" "${alone[@]}"; do
	name=$(basename "$part" .sh)
	read -r p f s <"$res/$name"
	pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s))
	# CI=true: a skipped check is a claim left unrun; only tests/ci-skips.txt's parts may
	if [ "${CI:-}" = true ] && [ "$s" != 0 ] && ! grep -q "^$name:" tests/ci-skips.txt; then
		fail=$((fail + 1))
		echo "$name: $s checks skipped under CI=true, and tests/ci-skips.txt does not allow it" >>"$res/fails"
	fi
done
if [ -s "$res/faults" ]; then
	echo
	echo "fault table (item, result, part, what is checked):"
	sort -t "$(printf '\t')" -k1,1n -s "$res/faults" | awk -F '\t' '{ printf "  %-4s %-4s %-14s %s\n", $1, $2, $3, $4 }'
fi
if [ -s "$res/fails" ]; then
	echo
	echo "failed checks (part: what):"
	sed 's/^/  /' "$res/fails"
fi
echo
echo "suite time: $(($(date +%s) - t_all)) s"
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" = 0 ]
