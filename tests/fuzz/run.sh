#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# `make fuzz`: builds every tests/fuzz/fuzz_*.c with clang's libFuzzer under
# ASan/UBSan and runs each for FUZZ_SECONDS (default 60), seeded from the
# repository's own inputs (board files, job files, console logs).  Prints the
# executions per harness; exits non-zero on the first crash (the reproducer is
# left in build/fuzz/).  The loaders' own error lines (stderr) are muted with
# -close_fd_mask=2; libFuzzer still prints crash reports.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
if ! command -v clang >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
	echo "fuzz: installing clang and libclang-rt-14-dev"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi
mkdir -p build/fuzz
flags="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iagent $(pkg-config --cflags json-c libpq libmicrohttpd)"
libs="$(pkg-config --libs json-c libpq libserialport libgpiod libcurl libcrypto libmicrohttpd) -pthread -lm"
srcs=$(ls agent/*.c agent/*/*.c | grep -v agent/main.c)
# FUZZ_ONLY=NAME: that harness alone (e.g. fuzz_serve)
for h in tests/fuzz/${FUZZ_ONLY:-fuzz_*}.c; do
	name=$(basename "$h" .c)
	echo "fuzz: building $name"
	hsrcs=$srcs
	# fuzz_series includes agent/series.c (its parser's helpers are static)
	[ "$name" != fuzz_series ] || hsrcs=$(echo "$srcs" | grep -v '^agent/series.c$')
	# shellcheck disable=SC2086
	clang $flags -o "build/fuzz/$name" "$h" $hsrcs $libs
	corpus=build/fuzz/$name.corpus
	mkdir -p "$corpus"
	case $name in
	fuzz_parse) cp tests/fixtures/*.log tests/fixtures/*.txt "$corpus/" 2>/dev/null || true ;;
	fuzz_files) cp boards/*.json jobs/*.json "$corpus/" ;;
	fuzz_console | fuzz_target) cp tests/fixtures/*.log tests/fuzz/seeds/target-*.txt "$corpus/" ;;
	fuzz_spool) cp tests/fixtures/spool-*.json "$corpus/" ;;
	fuzz_lava) cp tests/fixtures/lava-*.yaml "$corpus/" ;;
	fuzz_serve) cp tests/fuzz/seeds/serve-*.txt "$corpus/" ;;
	fuzz_series)
		cp jobs/dma-from-device/patches/*.patch "$corpus/"
		# the patches as b4's am-ready mbox (one message each, then both)
		for p in jobs/dma-from-device/patches/*.patch; do
			{ echo 'From git@z Thu Jan  1 00:00:00 1970'; sed 1d "$p"; } >"$corpus/mbx-$(basename "$p" .patch)"
		done
		cat "$corpus"/mbx-* >"$corpus/mbx-series"
		;;
	esac
	log=build/fuzz/$name.log
	if ! (cd build/fuzz && "./$name" -max_total_time="$secs" -print_final_stats=1 \
		-max_len=65536 -timeout=10 -close_fd_mask=2 "$name.corpus" >"$name.log" 2>&1); then
		tail -n 40 "$log"
		echo "fuzz: $name FAILED (reproducer in build/fuzz/)"
		exit 1
	fi
	runs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}')
	echo "fuzz: $name: $runs executions in ${secs} s, 0 crashes (ASan+UBSan)"
done
