#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/vlab/build-kernel.sh: the x86_64 guest kernel of the virtual lab
# (tests/vlab/README.md), `make tinyconfig` + tests/vlab/kernel.fragment, from
# the same linux-source-6.1 tarball as the boards' kernels and cached the same
# way (boards/kernel/build.sh): by the sha256 of every input, in
#   CACHE=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
#   $CACHE/kernels/vlab-x86_64/bzImage-<key16>/   bzImage config manifest.json
#   $CACHE/kernels/vlab-x86_64/current -> bzImage-<key16>
# The pristine extraction $CACHE/src/<tarball-sha16> is shared with build.sh;
# the build tree is $CACHE/build/vlab-x86_64/tree (incremental, ccache).
# Prints the artefact directory on stdout; progress and errors on stderr.
# --cached: print the directory if it is built, else exit 1 (never builds).
# Environment: ABLAB_CACHE, JOBS (default: nproc).
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
VDIR=$(dirname "$SELF")
FRAGMENT=$VDIR/kernel.fragment
SOURCE_TARBALL=${ABLAB_VLAB_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
NAME=vlab-x86_64
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=ablab KBUILD_BUILD_HOST=ablab KBUILD_BUILD_VERSION=1
export SOURCE_DATE_EPOCH=1767225600 LC_ALL=C
umask 022
T_START=$EPOCHREALTIME

die() { echo "vlab build-kernel.sh: error: $*" >&2; exit 1; }
step() { awk -v a="$T_START" -v b="$EPOCHREALTIME" -v m="$*" 'BEGIN { printf "[%6.1fs] vlab kernel: %s\n", b - a, m }' >&2; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

[[ -f $SOURCE_TARBALL ]] || die "kernel source $SOURCE_TARBALL not found: apt-get install linux-source-6.1"
for t in make:make gcc:gcc bc:bc bison:bison flex:flex perl:perl ccache:ccache xz:xz-utils; do
	command -v "${t%%:*}" >/dev/null 2>&1 || die "'${t%%:*}' not found: apt-get install ${t#*:}"
done
CACHE=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=$CACHE/ccache
mkdir -p "$CACHE"/{hashes,src,build/$NAME,kernels/$NAME,logs,ccache}
LOG=$CACHE/logs/$NAME.log

# the tarball's sha256, cached by path + size + mtime (the file build.sh uses)
path=$(readlink -f "$SOURCE_TARBALL")
hf=$CACHE/hashes/$(printf '%s' "$path $(stat -c '%s %Y' "$path")" | sha256sum | cut -d' ' -f1)
if [[ ! -s $hf ]]; then
	step "hashing $path"
	sha "$path" >"$hf.tmp.$$"
	mv -f "$hf.tmp.$$" "$hf"
fi
SRC_SHA=$(<"$hf")
TOOLCHAIN=$(gcc --version | head -n1)
# RECIPE: bump it when a change here changes what is built (the key does not
# hash this script, so editing its messages does not rebuild the kernel)
RECIPE=1
KEY=$(printf '%s\n' "tarball $SRC_SHA" "fragment $(sha "$FRAGMENT")" "recipe $RECIPE" \
	"toolchain $TOOLCHAIN" | sha256sum | cut -d' ' -f1)
ADIR=$CACHE/kernels/$NAME/bzImage-${KEY:0:16}

publish() {
	local link=$CACHE/kernels/$NAME/current
	[[ -L $link && $(readlink "$link") == "$(basename "$ADIR")" ]] && return 0
	ln -sfn "$(basename "$ADIR")" "$link.tmp.$$"
	mv -T "$link.tmp.$$" "$link"
}
if [[ -f $ADIR/manifest.json ]]; then
	publish
	echo "$ADIR"
	exit 0
fi
# --cached: only say whether it is built (exit 1: not yet)
[[ ${1:-} != --cached ]] || exit 1

# one build at a time
exec 9>"$CACHE/build/$NAME/.lock"
flock 9
if [[ -f $ADIR/manifest.json ]]; then
	publish
	echo "$ADIR"
	exit 0
fi
: >"$LOG"
logged() { # logged WHAT CMD...: run CMD into $LOG, name WHAT and show the log's tail on failure
	local what=$1
	shift
	"$@" >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; die "$what failed; see $LOG"; }
}

# the pristine source, extracted once per tarball hash (as build.sh does)
SRC=$CACHE/src/${SRC_SHA:0:16}
if [[ ! -f $SRC/.ablab-extracted ]]; then
	step "extract $(basename "$SOURCE_TARBALL")"
	tmpd=$CACHE/src/.tmp.$$
	rm -rf "$tmpd" "$SRC"
	mkdir -p "$tmpd"
	logged "extract" tar -xf "$SOURCE_TARBALL" -C "$tmpd" --strip-components=1
	echo "$SRC_SHA" >"$tmpd/.ablab-extracted"
	mv -T "$tmpd" "$SRC"
fi
TREE=$CACHE/build/$NAME/tree
if [[ ! -f $TREE/.ablab-source || $(<"$TREE/.ablab-source") != "$SRC_SHA" ]]; then
	step "new build tree $TREE (hard links to $SRC)"
	rm -rf "$TREE"
	cp -al "$SRC" "$TREE.tmp.$$"
	rm -f "$TREE.tmp.$$/.ablab-extracted"
	mv -T "$TREE.tmp.$$" "$TREE"
	echo "$SRC_SHA" >"$TREE/.ablab-source"
fi
kmake() { make -C "$TREE" O="$TREE/out" ARCH=x86_64 CC="ccache gcc" LOCALVERSION=-ablab-vlab -j"$JOBS" "$@"; }

T0=$EPOCHREALTIME
step "configure (tinyconfig + $(basename "$FRAGMENT"), log: $LOG)"
mkdir -p "$TREE/out"
logged "tinyconfig" kmake tinyconfig
logged "merge fragment" "$TREE/scripts/kconfig/merge_config.sh" -m -O "$TREE/out" "$TREE/out/.config" "$FRAGMENT"
logged "olddefconfig" kmake olddefconfig
bad=0
while IFS= read -r line || [[ -n $line ]]; do
	case $line in
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		if grep -qE "^$sym=" "$TREE/out/.config"; then echo "  $sym: requested off, is on" >&2; bad=1; fi
		;;
	CONFIG_*=*)
		grep -qxF -- "$line" "$TREE/out/.config" || { echo "  requested $line, .config has $(grep -E "^${line%%=*}=" "$TREE/out/.config" || echo "${line%%=*} not set")" >&2; bad=1; }
		;;
	esac
done <"$FRAGMENT"
[[ $bad -eq 0 ]] || die "the final .config does not honour $FRAGMENT (entries above); fix the fragment (missing dependency?)"
step "build bzImage (make -j$JOBS)"
logged "build" kmake bzImage
release=$(kmake -s kernelrelease)
rm -rf "$ADIR"
mkdir -p "$ADIR"
cp "$TREE/out/arch/x86/boot/bzImage" "$ADIR/bzImage"
cp "$TREE/out/.config" "$ADIR/config"
secs=$(awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
cat >"$ADIR/manifest.json.tmp" <<EOF
{
  "board": "$NAME",
  "release": "$release",
  "key": "$KEY",
  "files": {"bzImage": {"sha256": "$(sha "$ADIR/bzImage")", "size": $(stat -c %s "$ADIR/bzImage")}},
  "config_sha256": "$(sha "$ADIR/config")",
  "defconfig": "tinyconfig",
  "fragment": {"name": "kernel.fragment", "sha256": "$(sha "$FRAGMENT")"},
  "source": {"tarball": "$path", "sha256": "$SRC_SHA"},
  "toolchain": "$TOOLCHAIN",
  "recipe": $RECIPE,
  "built": {"seconds": $secs, "jobs": $JOBS, "host": "$(uname -n)"}
}
EOF
mv -f "$ADIR/manifest.json.tmp" "$ADIR/manifest.json"
publish
step "done: $release in ${secs}s -> $ADIR"
echo "$ADIR"
