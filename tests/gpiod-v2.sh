#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Compiles the libgpiod v2 path of agent/backend/power_gpiod.c (trixie, Pi OS) on a
# machine that has v1 (bookworm): trixie's libgpiod-dev and libgpiod3 .debs
# are fetched with apt into a private directory (never installed), the code
# is compiled against their headers, every gpiod_* symbol it uses must exist
# in libgpiod.so.3, and a small driver linked against that library runs the
# v2 code for real (no GPIO chip here: it must say so).
# Cache: $ABLAB_CACHE/libgpiod-v2 (default ~/.cache/ablab/libgpiod-v2).
set -eu
cd "$(dirname "$0")/.."
cache=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}/libgpiod-v2
root=$cache/root
arch=$(dpkg --print-architecture)
if [ ! -f "$root/usr/include/gpiod.h" ] || ! ls "$root"/usr/lib/*/libgpiod.so.3 >/dev/null 2>&1; then
	echo "gpiod-v2: fetching trixie's libgpiod-dev + libgpiod3 into $cache (not installed)"
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial" "$cache/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
		>"$cache/apt/sources.list"
	opts=(-o "Dir::Etc::sourcelist=$cache/apt/sources.list" -o Dir::Etc::sourceparts=-
	      -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt/cache"
	      -o Debug::NoLocking=1 -o APT::Sandbox::User=root -q)
	apt-get "${opts[@]}" update >/dev/null
	(cd "$cache/debs" && apt-get "${opts[@]}" download "libgpiod-dev:$arch" "libgpiod3:$arch" >/dev/null)
	rm -rf "$root.tmp" && mkdir -p "$root.tmp"
	for d in "$cache"/debs/libgpiod-dev_*.deb "$cache"/debs/libgpiod3_*.deb; do dpkg-deb -x "$d" "$root.tmp"; done
	rm -rf "$root" && mv "$root.tmp" "$root"
fi
lib=$(dirname "$(ls "$root"/usr/lib/*/libgpiod.so.3 | head -n 1)")
ver=$(sed -n 's/^Version: *//p' "$lib/pkgconfig/libgpiod.pc")
out=$(mktemp -d /tmp/ablab-gpiod-v2.XXXXXX)
trap 'rm -rf "$out"' EXIT
CF="-std=c11 -D_GNU_SOURCE -Iagent -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral"
${CC:-cc} $CF -DHAVE_GPIOD_V2=1 -I"$root/usr/include" -c agent/backend/power_gpiod.c -o "$out/v2.o"
${CC:-cc} $CF -c agent/backend/power_gpiod.c -o "$out/v1.o"
missing=$(comm -23 <(nm -u "$out/v2.o" | awk '$2 ~ /^gpiod_/ {print $2}' | sort) \
		   <(nm -D --defined-only "$lib/libgpiod.so.3" | awk '{print $3}' | sort))
if [ -n "$missing" ]; then echo "gpiod-v2: not in libgpiod $ver: $missing"; exit 1; fi
n=$(nm -u "$out/v2.o" | grep -c ' gpiod_')
cat >"$out/drv.c" <<'C'
#include "backend/power_gpiod.h"
#include <stdio.h>
#include <string.h>
int main(void)
{
	long lines[] = { 17 };
	struct errtext err = { "" };
	int r = gpio_relay_check("gpiochip0", lines, 1, &err);

	printf("%s: %d: %s\n", gpio_api_version(), r, err.msg);
	return r < 0 && strstr(err.msg, "unknown GPIO chip") && strstr(gpio_api_version(), "v2") ? 0 : 1;
}
C
${CC:-cc} $CF -Iagent -c "$out/drv.c" -o "$out/drv.o"
${CC:-cc} $CF -Iagent -c agent/shared/errtext.c -o "$out/errtext.o"
${CC:-cc} $CF -Iagent -c agent/shared/mem.c -o "$out/mem.o"
${CC:-cc} $CF -Iagent -c agent/shared/msg.c -o "$out/msg.o"
${CC:-cc} -o "$out/drv" "$out/drv.o" "$out/v2.o" "$out/errtext.o" "$out/mem.o" "$out/msg.o" -L"$lib" -Wl,-rpath,"$lib" -l:libgpiod.so.3
run=$("$out/drv")
echo "gpiod-v2: power_gpiod.c compiles against libgpiod v1 and v$ver; $n gpiod_* calls all in libgpiod.so.3; run: $run"
