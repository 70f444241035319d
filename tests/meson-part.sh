#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One shell part under `meson test` (meson.build registers each tests/tNN-*.sh):
# brings the Makefile's artefacts the parts use up to date, runs the part through
# tests/run.sh (own process group, $tmp, ABLAB_DATA, deadline) and maps its counts
# to meson's exit codes: 0 passed, 1 a check failed, 77 every check skipped.
set -u
cd "$(dirname "$0")/.."
name=${1:?usage: tests/meson-part.sh tNN-name}
[ -f "tests/$name.sh" ] || { echo "meson-part: no part tests/$name.sh" >&2; exit 1; }
make -s ablab build/asan/ablab build/boardsim \
	$(ls tests/test_*.c | sed 's|^tests/|build/asan/|; s|\.c$||') || exit 1
out=$(mktemp /tmp/ablab-meson-part.XXXXXX)
trap 'rm -f "$out"' EXIT
TESTS=$name bash tests/run.sh | tee "$out"
rc=${PIPESTATUS[0]}
last=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
read -r p _ f _ s _ <<<"$last"
if [ "$rc" != 0 ] || [ "${f:-1}" != 0 ]; then
	exit 1
fi
if [ "${p:-0}" = 0 ] && [ "${s:-0}" != 0 ]; then
	exit 77
fi
exit 0
