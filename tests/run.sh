#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The test suite behind `make check` (which builds everything first).  It
# sources tests/lib.sh (counters, private database, helpers) and then every
# tests/tNN-*.sh in order; each part adds to the pass/fail counts.
# Prints "N passed, N failed" last; exits non-zero on any failure.
# TESTS='t10 t40' bash tests/run.sh runs only the parts whose names start so.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
for part in tests/t[0-9][0-9]-*.sh; do
	name=$(basename "$part" .sh)
	if [ -n "${TESTS:-}" ]; then
		sel=0
		for t in $TESTS; do case $name in "$t"*) sel=1 ;; esac; done
		[ $sel = 1 ] || continue
	fi
	echo "== $name"
	. "$part"
done
echo
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
