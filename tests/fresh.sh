#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make check FRESH=1` (tests/run.sh with FRESH=1 in the environment) runs
# this first: it removes the state that earlier runs of the suite leave on a
# machine, so the run meets what a new user meets.  Debian packages stay
# (`make deps` is cheap when they are present), and so do the six kernels of
# `make kernels` unless FRESH=cold, which removes the whole kernel cache
# ($ABLAB_CACHE) too: that run rebuilds everything (see README for the time).
#   - leftover suite directories /tmp/ablab-test.* /tmp/ablab-results.*
#     /tmp/ablab-gpiod-v2.* (their private PostgreSQL clusters stopped first)
#   - kernels that tests built into the cache (every BOARD/VARIANT-KEY that
#     no BOARD/VARIANT link of `make kernels` points to), and the fetched
#     libgpiod v2 .debs
#   - the local LAVA instance (databases, token, devices, job outputs): t70
#     runs jobs/lava/local-server.sh wipe first when FRESH is set
# It refuses while another run of the suite is alive.
set -u
cd "$(dirname "$0")/.."
cache=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
say() { echo "fresh: $*"; }

if pgrep -f 'tests/run\.sh' >/dev/null; then
	echo "fresh: another run of the suite is alive (pgrep -f tests/run.sh: $(pgrep -f 'tests/run\.sh' | tr '\n' ' ')); let it end first" >&2
	exit 1
fi
n=0
for d in /tmp/ablab-test.* /tmp/ablab-results.* /tmp/ablab-gpiod-v2.*; do
	[ -e "$d" ] || continue
	for pg in "$d"/data/pg "$d"/*/pg; do
		[ -f "$pg/postmaster.pid" ] || continue
		runuser -u postgres -- /usr/lib/postgresql/*/bin/pg_ctl -D "$pg" -m immediate stop >/dev/null 2>&1 ||
			/usr/lib/postgresql/*/bin/pg_ctl -D "$pg" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$d" && n=$((n + 1))
done
say "removed $n leftover suite directories under /tmp"

if [ "${FRESH:-1}" = cold ]; then
	rm -rf "$cache" && say "removed the whole cache $cache (FRESH=cold: kernels are rebuilt)"
else
	n=0
	for bd in "$cache"/kernels/*/; do
		[ -d "$bd" ] || continue
		keep=" "
		for l in "$bd"control "$bd"patched; do
			[ -L "$l" ] && keep="$keep$(readlink "$l" | xargs basename) "
		done
		for k in "$bd"*-*; do
			[ -d "$k" ] && [ ! -L "$k" ] || continue
			case $keep in *" $(basename "$k") "*) continue ;; esac
			rm -rf "$k" && n=$((n + 1))
		done
	done
	rm -rf "$cache/libgpiod-v2"
	say "removed $n test-built kernels and the fetched libgpiod v2 from $cache (kept: the kernels of make kernels)"
fi

# the local LAVA instance is wiped by t70 itself when FRESH is set (it knows
# its state directory and holds the instance's lock while it does)
exit 0
