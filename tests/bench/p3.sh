#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# P3 alone: N simulators under one campaign_bench, its JSON line on stdout.
#
#   bash tests/bench/p3.sh CAMPAIGN_BENCH slow|fast N [PERF_DATA]
#
# slow: console.baud 9600, the simulator at 1 byte/ms (--fault slow
# --klog-bytes 1024), 1+1 boots a board; fast: pty speed, 5+5 boots (as
# `make bench` P2/P3).  CAMPAIGN_BENCH: this tree's build/bench/campaign_bench
# or an older tree's (before/after pairs, run one after the other).
# PERF_DATA: run it under `perf record -g -o PERF_DATA`.  Needs a running
# `ablab db` in $ABLAB_DATA and build/boardsim.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cb=$1 kind=$2 n=$3 perf=${4:-}
bs=$top/build/boardsim
tmp=$(mktemp -d /tmp/ablab-p3.XXXXXX)
chmod 755 "$tmp"
export ABLAB_LOCK_DIR=$tmp/locks ABLAB_BOARDS=$top/boards
mkdir -p "$tmp/locks"
cd "$top" || exit 1
. tests/bench/sim.sh
sims=() args=()
boots=5 sargs=
[ "$kind" = slow ] && { boots=1; sargs="--fault slow --klog-bytes 1024"; }
for i in $(seq 1 "$n"); do
	d=$tmp/s$i
	SIM_BAUD=$([ "$kind" = slow ] && echo 9600 || echo 115200) SIM_ARGS=$sargs \
		sim_board "p3$kind$n-$i" "$d" uboot && sims+=("$d")
	args+=("$d/board.json:$d/k/control:$d/k/patched")
done
run=("$cb" --boots "$boots" --batches 2 --results "$tmp/res" "${args[@]}")
[ -n "$perf" ] && run=(perf record -g -o "$perf" "${run[@]}")
"${run[@]}" 2>"$tmp/err"
rc=$?
for d in "${sims[@]}"; do sim_stop "$d"; done
[ $rc = 0 ] || tail -n 3 "$tmp/err" >&2
rm -rf "$tmp"
exit $rc
