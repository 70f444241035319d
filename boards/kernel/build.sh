#!/bin/bash
# boards/kernel/build.sh BOARD [VARIANT...]
#
# Build the kernel artefacts of one emulated board for the ablab A/B lab:
# zImage, the DTB, dmabench.ko (from the repository's kmod/) and an
# initramfs with busybox, for the variants
#
#   control   the pristine kernel source
#   patched   control + every $PATCHES_DIR/*.patch, in name order
#
# (default: both). The recipe of a board is boards/kernel/BOARD.conf plus
# the config fragment it names; adding a board means adding those two files.
#
# Everything is cached outside the repository, in
#   CACHE=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
# and an artefact set is keyed by the sha256 of all of its inputs:
#   $CACHE/kernels/BOARD/VARIANT-<key16>/   zImage dtb dmabench.ko
#                                           initramfs.cpio.gz config System.map manifest.json
#   $CACHE/kernels/BOARD/VARIANT -> VARIANT-<key16>
# manifest.json is written last: a directory that has it is complete, and
# asking for it again is a no-op.
#
# Build trees (out-of-tree objects in SRC/out, sources hard-linked to the
# pristine extraction, which nothing writes to):
#   $CACHE/src/<tarball-sha16>/             the extracted tarball
#   $CACHE/build/BOARD/control/{.,out}      configured and built once, then
#                                           incrementally
#   $CACHE/build/BOARD/patched/{.,out}      control's objects copied (cp -a,
#                                           mtimes kept) + patches: only what
#                                           the patches touch is rebuilt; a
#                                           series' next prefix is built over
#                                           the previous one in place (only the
#                                           new patch's files are rebuilt):
#                                           .ablab-applied lists what it holds
# Logs of make & co: $CACHE/logs/BOARD-VARIANT.log
#
# Environment: ABLAB_CACHE, JOBS (default: nproc), PATCHES_DIR (see the
# board's .conf), ABLAB_REFRESH_BUSYBOX=1 (download the busybox .deb again),
# ABLAB_MODULE_SRC (a job's own benchmark module, built next to dmabench.ko).
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
KDIR=$(dirname "$SELF")
REPO=$(cd "$KDIR/../.." && pwd)
T_START=$EPOCHREALTIME

# Reproducible builds: fixed identity and time stamps.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=ablab
export KBUILD_BUILD_HOST=ablab
export KBUILD_BUILD_VERSION=1
export SOURCE_DATE_EPOCH=1767225600
export LC_ALL=C
umask 022

die() { echo "build.sh: error: $*" >&2; exit 1; }
usage() {
	echo "usage: $0 BOARD [control|patched]..." >&2
	echo "boards: $(cd "$KDIR" && ls -- *.conf 2>/dev/null | sed 's/\.conf$//' | tr '\n' ' ')" >&2
	exit 2
}
elapsed() { awk -v a="$T_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "%6.1f", b - a }'; }
# step MESSAGE: one progress line, with seconds since the start.
step() { echo "[$(elapsed)s] $BOARD/$VARIANT: $*"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
sha_str() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }

[[ $# -ge 1 ]] || usage
BOARD=$1; shift
[[ $BOARD =~ ^[A-Za-z0-9._-]+$ ]] || die "bad board name '$BOARD'"
CONF=$KDIR/$BOARD.conf
[[ -f $CONF ]] || { echo "build.sh: error: no recipe $CONF" >&2; usage; }
VARIANTS=("$@")
[[ ${#VARIANTS[@]} -gt 0 ]] || VARIANTS=(control patched)
for v in "${VARIANTS[@]}"; do
	[[ $v == control || $v == patched || $v == git ]] ||
		die "unknown variant '$v' (control, patched, git)"
done

# ---- recipe -------------------------------------------------------------
SOURCE_TARBALL=/usr/src/linux-source-6.1.tar.xz
SOURCE_PACKAGE=linux-source-6.1
ARCH=arm
CROSS_COMPILE=arm-linux-gnueabi-
KIMAGE=zImage
DTB=
DEFCONFIG='' FRAGMENT='' KEEP_SYMBOLS='' CONSOLE='' CMDLINE='' PATCHES_DIR=${PATCHES_DIR:-}
BUSYBOX_ARCH=armel
QEMU_SYSTEM='' QEMU_MACHINE='' QEMU_CPU='' QEMU_MEM='' QEMU_EXTRA=''
KMOD_DIR=kmod
INIT_SCRIPT=init.sh
# shellcheck source=qemu-sam9x75.conf
. "$CONF"
for var in DEFCONFIG FRAGMENT CONSOLE PATCHES_DIR SOURCE_TARBALL ARCH CROSS_COMPILE KIMAGE; do
	[[ -n ${!var} ]] || die "$CONF: $var is not set"
done
[[ -n $CMDLINE ]] || CMDLINE="console=$CONSOLE rdinit=/init"
[[ -z $QEMU_MEM || $QEMU_MEM =~ ^[0-9]+$ ]] || die "$CONF: QEMU_MEM must be a number of MiB"
abs() { case $1 in /*) echo "$1" ;; *) echo "$2/$1" ;; esac; }
FRAGMENT=$(abs "$FRAGMENT" "$KDIR")
INIT_SCRIPT=$(abs "$INIT_SCRIPT" "$KDIR")
PATCHES_DIR=$(abs "$PATCHES_DIR" "$REPO")
KMOD_DIR=$(abs "$KMOD_DIR" "$REPO")
[[ -f $FRAGMENT ]] || die "$CONF: fragment $FRAGMENT not found"
[[ -f $INIT_SCRIPT ]] || die "initramfs /init script $INIT_SCRIPT not found"

CACHE=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
JOBS=${JOBS:-$(nproc)}
export CCACHE_DIR=$CACHE/ccache
mkdir -p "$CACHE"/{hashes,src,build/"$BOARD",kernels/"$BOARD",logs,busybox,ccache}

# ---- tools ----------------------------------------------------------------
need() { # need COMMAND DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 || die "'$1' not found: apt-get install $2"
}
need "${CROSS_COMPILE}gcc" "gcc-${CROSS_COMPILE%-}"
need "${CROSS_COMPILE}ld" "binutils-${CROSS_COMPILE%-}"
for t in make:make gcc:gcc bc:bc bison:bison flex:flex perl:perl ccache:ccache \
	xz:xz-utils gzip:gzip patch:patch dpkg-deb:dpkg apt-get:apt \
	sha256sum:coreutils awk:mawk flock:util-linux; do
	need "${t%%:*}" "${t#*:}"
done
[[ -f $SOURCE_TARBALL ]] || die "kernel source $SOURCE_TARBALL not found: apt-get install ${SOURCE_PACKAGE:-linux-source}"
TOOLCHAIN=$("${CROSS_COMPILE}gcc" --version | head -n1)

# ---- input hashes ----------------------------------------------------------
# The tarball's sha256, cached by path + size + mtime.
tarball_sha() {
	local path id f
	path=$(readlink -f "$SOURCE_TARBALL")
	id=$(sha_str "$path $(stat -c '%s %Y' "$path")")
	f=$CACHE/hashes/$id
	if [[ ! -s $f ]]; then
		echo "[$(elapsed)s] $BOARD: hashing $path" >&2
		sha "$path" >"$f.tmp.$$"
		mv -f "$f.tmp.$$" "$f"
	fi
	cat "$f"
}
SRC_SHA=$(tarball_sha)
SRC_VERSION=
if [[ -n ${SOURCE_PACKAGE:-} ]]; then
	SRC_VERSION=$(dpkg-query -W -f='${Version}' "$SOURCE_PACKAGE" 2>/dev/null || true)
fi
FRAGMENT_SHA=$(sha "$FRAGMENT")
CONF_SHA=$(sha "$CONF")
SELF_SHA=$(sha "$SELF")
INIT_SHA=$(sha "$INIT_SCRIPT")

# The patch series, in order.
PATCHES=()
if [[ -d $PATCHES_DIR ]]; then
	shopt -s nullglob
	PATCHES=("$PATCHES_DIR"/*.patch)
	shopt -u nullglob
fi
patches_list() { # "name sha256" per line
	local p
	for p in "${PATCHES[@]}"; do echo "$(basename "$p") $(sha "$p")"; done
}

# kmod sources: Kbuild, Makefile, *.c (not kbuild's *.mod.c), *.h. Empty output if dmabench.c is missing.
KMOD_FILES=()
if [[ -f $KMOD_DIR/dmabench.c ]]; then
	shopt -s nullglob
	for f in "$KMOD_DIR"/Kbuild "$KMOD_DIR"/Makefile "$KMOD_DIR"/*.c "$KMOD_DIR"/*.h; do
		if [[ -f $f && $f != *.mod.c ]]; then KMOD_FILES+=("$f"); fi
	done
	shopt -u nullglob
fi
KMOD_LIST=$(for f in "${KMOD_FILES[@]}"; do echo "$(basename "$f") $(sha "$f")"; done)

# A job's own out-of-tree benchmark module (ablab job "benchmark": {"name":
# "module", "src": DIR}), built next to dmabench.ko against the same tree and
# put in the initramfs as /lib/modules/NAME.ko (NAME from its obj-m line).
MOD_SRC=${ABLAB_MODULE_SRC:-}
MOD_FILES=() MOD_NAME='' MOD_LIST=''
if [[ -n $MOD_SRC ]]; then
	MOD_SRC=$(abs "$MOD_SRC" "$PWD")
	[[ -d $MOD_SRC ]] || die "ABLAB_MODULE_SRC: $MOD_SRC is not a directory"
	shopt -s nullglob
	for f in "$MOD_SRC"/Kbuild "$MOD_SRC"/Makefile "$MOD_SRC"/*.c "$MOD_SRC"/*.h; do
		if [[ -f $f && $f != *.mod.c ]]; then MOD_FILES+=("$f"); fi
	done
	shopt -u nullglob
	for f in "$MOD_SRC"/Kbuild "$MOD_SRC"/Makefile; do
		[[ -f $f ]] || continue
		MOD_NAME=$(sed -n 's/^obj-m[[:space:]]*[:+]\{0,1\}=[[:space:]]*\([A-Za-z0-9_-]*\)\.o[[:space:]]*$/\1/p' "$f" | head -n1)
		[[ -n $MOD_NAME ]] && break
	done
	[[ -n $MOD_NAME ]] ||
		die "ABLAB_MODULE_SRC: $MOD_SRC has no \"obj-m := NAME.o\" line in Kbuild or Makefile"
	[[ $MOD_NAME != dmabench ]] ||
		die "ABLAB_MODULE_SRC: the module must not be called dmabench (the lab's own)"
	MOD_LIST=$(for f in "${MOD_FILES[@]}"; do echo "$(basename "$f") $(sha "$f")"; done)
fi

# busybox-static for $BUSYBOX_ARCH: downloaded once into the cache (never installed).
BB_DIR=$CACHE/busybox
busybox_deb() {
	local debs
	shopt -s nullglob
	debs=("$BB_DIR"/busybox-static_*_"$BUSYBOX_ARCH".deb)
	shopt -u nullglob
	[[ ${#debs[@]} -gt 0 ]] || return 0
	printf '%s\n' "${debs[@]}" | sort -V | tail -n1
}
fetch_busybox() {
	local log=$CACHE/logs/busybox-$BUSYBOX_ARCH.log tmp
	echo "[$(elapsed)s] $BOARD: downloading busybox-static:$BUSYBOX_ARCH (log: $log)"
	: >"$log"
	if [[ $(dpkg --print-architecture) != "$BUSYBOX_ARCH" ]] &&
		! dpkg --print-foreign-architectures | grep -qx "$BUSYBOX_ARCH"; then
		[[ $EUID -eq 0 ]] || die "need the $BUSYBOX_ARCH architecture: run as root 'dpkg --add-architecture $BUSYBOX_ARCH && apt-get update'"
		dpkg --add-architecture "$BUSYBOX_ARCH" >>"$log" 2>&1
		apt-get update >>"$log" 2>&1 || die "apt-get update failed (see $log)"
	fi
	tmp=$(mktemp -d "$BB_DIR/dl.XXXXXX")
	if ! (cd "$tmp" && apt-get download "busybox-static:$BUSYBOX_ARCH") >>"$log" 2>&1; then
		if [[ $EUID -eq 0 ]]; then apt-get update >>"$log" 2>&1 || true; fi
		(cd "$tmp" && apt-get download "busybox-static:$BUSYBOX_ARCH") >>"$log" 2>&1 ||
			{ tail -n5 "$log" >&2; rm -rf "$tmp"; die "cannot download busybox-static:$BUSYBOX_ARCH (see $log)"; }
	fi
	mv -f "$tmp"/*.deb "$BB_DIR"/
	rmdir "$tmp"
}
BB_DEB=$(busybox_deb)
if [[ -z $BB_DEB || ${ABLAB_REFRESH_BUSYBOX:-0} == 1 ]]; then
	fetch_busybox
	BB_DEB=$(busybox_deb)
	[[ -n $BB_DEB ]] || die "busybox-static:$BUSYBOX_ARCH download produced no .deb"
fi
BB_SHA=$(sha "$BB_DEB")

# Key of a configured+built kernel tree (no kmod, no initramfs).
tree_key() { # VARIANT
	{
		echo "build.sh $SELF_SHA"
		echo "conf $CONF_SHA"
		if [[ $1 == git ]]; then echo "source git $GIT_COMMIT"; else echo "source $SRC_SHA"; fi
		echo "arch $ARCH $CROSS_COMPILE"
		echo "toolchain $TOOLCHAIN"
		echo "defconfig $DEFCONFIG"
		echo "fragment $FRAGMENT_SHA"
		echo "variant $1"
		if [[ $1 == patched ]]; then patches_list; fi
	} | sha256sum | cut -d' ' -f1
}
# Key of an artefact set.
artefact_key() { # VARIANT
	{
		echo "tree $(tree_key "$1")"
		echo "kmod"
		echo "$KMOD_LIST"
		echo "init $INIT_SHA"
		echo "busybox $(basename "$BB_DEB") $BB_SHA"
		if [[ -n $MOD_NAME ]]; then
			echo "module $MOD_NAME"
			echo "$MOD_LIST"
		fi
	} | sha256sum | cut -d' ' -f1
}

# ---- helpers -----------------------------------------------------------------
LOG=/dev/null
fail_log() {
	echo "build.sh: error: $BOARD/$VARIANT: $* failed; last lines of $LOG:" >&2
	tail -n 40 "$LOG" >&2
	exit 1
}
# logged DESCRIPTION CMD...: run CMD with its output in $LOG; while it runs,
# print a line every 30 s so that a long build is visibly alive.
logged() {
	local desc=$1 tick rc=0
	shift
	(
		while :; do
			sleep 30 >/dev/null 2>&1
			echo "[$(elapsed)s] $BOARD/$VARIANT:   ... $desc: $(tail -n1 "$LOG" | cut -c1-80)"
		done
	) 9>&- &
	tick=$!
	"$@" >>"$LOG" 2>&1 || rc=$?
	kill "$tick" 2>/dev/null || true
	wait "$tick" 2>/dev/null || true
	[[ $rc -eq 0 ]] || fail_log "$desc"
}
# the release's suffix: -ablab-VARIANT; a git build's names its commit (-ablab-g<12 hex>)
localversion() { # VARIANT
	if [[ $1 == git ]]; then echo "-ablab-g${GIT_COMMIT:0:12}"; else echo "-ablab-$1"; fi
}
kmake() { # kmake TREE VARIANT make-args...
	local tree=$1 variant=$2
	shift 2
	make -C "$tree" O="$tree/out" ARCH="$ARCH" CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" LOCALVERSION="$(localversion "$variant")" \
		-j"$JOBS" "$@"
}
# Remove a directory in the background (unlinking a kernel tree takes seconds).
discard() {
	local d=$1 t
	[[ -e $d ]] || return 0
	t=$CACHE/build/.trash.$$.$RANDOM
	mv -T "$d" "$t"
	(setsid rm -rf "$t" </dev/null >/dev/null 2>&1 9>&- &)
}

# The pristine source, extracted once per tarball hash.
SRC=$CACHE/src/${SRC_SHA:0:16}
ensure_source() {
	[[ -f $SRC/.ablab-extracted ]] && return 0
	step "extract $(basename "$SOURCE_TARBALL")"
	discard "$SRC"
	local tmp=$CACHE/src/.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	logged "extract" tar -xf "$SOURCE_TARBALL" -C "$tmp" --strip-components=1
	[[ -f $tmp/Makefile && -d $tmp/arch/$ARCH ]] || die "$SOURCE_TARBALL does not look like a kernel source tarball"
	echo "$SRC_SHA" >"$tmp/.ablab-extracted"
	mv -T "$tmp" "$SRC"
}

# Make a fresh tree: sources hard-linked to the pristine extraction.
new_tree() { # DIR
	local tmp=$1.tmp.$$
	rm -rf "$tmp"
	cp -al "$SRC" "$tmp"
	rm -f "$tmp/.ablab-extracted"
	discard "$1"
	mv -T "$tmp" "$1"
}

# verify_config FRAGMENT CONFIG: every fragment entry must have survived.
verify_config() {
	local frag=$1 cfg=$2 line sym got bad=0
	while IFS= read -r line || [[ -n $line ]]; do
		line=${line%%[[:space:]]}
		case $line in
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if got=$(grep -E "^$sym=" "$cfg"); then
				echo "  $sym: requested off, .config has $got" >&2
				bad=1
			fi
			;;
		CONFIG_*=n)
			sym=${line%%=*}
			if got=$(grep -E "^$sym=" "$cfg"); then
				echo "  $sym: requested off, .config has $got" >&2
				bad=1
			fi
			;;
		CONFIG_*=*)
			sym=${line%%=*}
			if ! grep -qxF -- "$line" "$cfg"; then
				got=$(grep -E "^$sym=" "$cfg" || echo "$sym is not set")
				echo "  requested $line, .config has $got" >&2
				bad=1
			fi
			;;
		'' | '#'*) ;;
		*) die "$frag: cannot parse line '$line'" ;;
		esac
	done <"$frag"
	[[ $bad -eq 0 ]] || die "$BOARD: the final .config does not honour $(basename "$frag") (entries above); fix the fragment (missing dependency?)"
}

# configure TREE VARIANT: defconfig + fragment, checked. DEFCONFIG=allnoconfig
# makes the fragment the whole config: every option it does not name (or
# that what it names does not select) is off, also those a plain merge would
# have turned on by their defaults (KCONFIG_ALLCONFIG).
configure() {
	local tree=$1 variant=$2
	step "configure ($DEFCONFIG + $(basename "$FRAGMENT"))"
	mkdir -p "$tree/out"
	if [[ $DEFCONFIG == allnoconfig ]]; then
		logged "allnoconfig" kmake "$tree" "$variant" KCONFIG_ALLCONFIG="$FRAGMENT" allnoconfig
	else
		logged "defconfig" kmake "$tree" "$variant" "$DEFCONFIG"
		logged "merge fragment" "$tree/scripts/kconfig/merge_config.sh" -m -O "$tree/out" \
			"$tree/out/.config" "$FRAGMENT"
	fi
	logged "olddefconfig" kmake "$tree" "$variant" olddefconfig
	verify_config "$FRAGMENT" "$tree/out/.config"
}

# check_symbols SYSTEM.MAP: the code paths the board exists to run
# (KEEP_SYMBOLS of the .conf) are in the kernel, named in the error if not.
check_symbols() {
	local map=$1 s missing=()
	[[ -f $map ]] || die "$BOARD/$VARIANT: no $map"
	for s in $KEEP_SYMBOLS; do
		grep -q " $s\$" "$map" || missing+=("$s")
	done
	[[ ${#missing[@]} -eq 0 ]] ||
		die "$BOARD/$VARIANT: $map lacks ${missing[*]} (KEEP_SYMBOLS in $CONF): the fragment $(basename "$FRAGMENT") lost the code path they are part of"
}

build_kernel() { # TREE VARIANT
	local tree=$1 variant=$2 targets=("$KIMAGE" modules)
	if [[ -n $DTB ]]; then targets+=("$DTB"); fi
	step "build ${targets[*]} (make -j$JOBS, log: $LOG)"
	logged "build" kmake "$tree" "$variant" "${targets[@]}"
}

# ensure_tree VARIANT: the built tree of a variant, up to date.
ensure_tree() {
	local variant=$1 tree=$CACHE/build/$BOARD/$1 key
	key=$(tree_key "$variant")
	if [[ -f $tree/.ablab-tree-key && $(<"$tree/.ablab-tree-key") == "$key" ]]; then
		return 0
	fi
	ensure_source
	if [[ $variant == control ]]; then
		if [[ ! -f $tree/.ablab-source || $(<"$tree/.ablab-source") != "$SRC_SHA" ]]; then
			step "new build tree $tree"
			new_tree "$tree"
			echo "$SRC_SHA" >"$tree/.ablab-source"
		else
			step "reusing build tree $tree (incremental)"
			rm -f "$tree/.ablab-tree-key"
		fi
		configure "$tree" control
		build_kernel "$tree" control
	else
		# patched = control's tree (objects copied with their mtimes) + patches; or, along
		# a series, the patched tree as the last build left it when that held a prefix of
		# these patches over the same control tree: then only the rest is applied there
		local saved=$VARIANT
		VARIANT=control ensure_tree control
		VARIANT=$saved
		local ctree=$CACHE/build/$BOARD/control p f files want held n=0 i
		want=$(patches_list)
		if [[ -f $tree/.ablab-applied && -f $tree/.ablab-base &&
			$(<"$tree/.ablab-base") == "$(<"$ctree/.ablab-tree-key")" ]]; then
			held=$(<"$tree/.ablab-applied")
			n=$(grep -c . <<<"$held" || true)
			if ((n == 0 || n >= ${#PATCHES[@]})) || [[ $(head -n "$n" <<<"$want") != "$held" ]]; then
				n=0
			fi
		fi
		rm -f "$tree/.ablab-tree-key" "$tree/.ablab-applied"
		if ((n > 0)); then
			step "apply patches $((n + 1))-${#PATCHES[@]} of ${PATCHES_DIR#"$REPO"/} over the tree of the first $n (incremental along the series)"
		else
			step "copy control tree + apply ${#PATCHES[@]} patch(es) from ${PATCHES_DIR#"$REPO"/}"
			new_tree "$tree"
			cp -a "$ctree/out" "$tree/out"
		fi
		for ((i = n; i < ${#PATCHES[@]}; i++)); do
			p=${PATCHES[i]}
			# Files the patch touches get their own copy first: the other
			# files stay hard links to the pristine source.
			files=$(sed -n -E 's#^(---|\+\+\+) [ab]/([^[:space:]]+).*#\2#p' "$p" | sort -u)
			for f in $files; do
				if [[ -f $tree/$f && $(stat -c %h "$tree/$f") -gt 1 ]]; then
					cp -p "$tree/$f" "$tree/$f.ablab-tmp"
					mv -f "$tree/$f.ablab-tmp" "$tree/$f"
				fi
			done
			echo "== $(basename "$p")" >>"$LOG"
			if ! patch -d "$tree" -p1 --batch --forward --no-backup-if-mismatch -r - --dry-run <"$p" >>"$LOG" 2>&1; then
				tail -n 20 "$LOG" >&2
				die "$BOARD/patched: patch $(basename "$p") does not apply to $(basename "$SOURCE_TARBALL") (+ the patches before it); see $LOG"
			fi
			patch -d "$tree" -p1 --batch --forward --no-backup-if-mismatch -r - <"$p" >>"$LOG" 2>&1 ||
				die "$BOARD/patched: applying $(basename "$p") failed; see $LOG"
		done
		# The patched tree's config must be control's config.
		logged "olddefconfig" kmake "$tree" patched olddefconfig
		cmp -s "$ctree/out/.config" "$tree/out/.config" ||
			die "$BOARD/patched: .config differs from control after olddefconfig (a patch touched Kconfig?)"
		build_kernel "$tree" patched
		echo "$want" >"$tree/.ablab-applied"
		cp "$ctree/.ablab-tree-key" "$tree/.ablab-base"
	fi
	echo "$key" >"$tree/.ablab-tree-key"
}

# Busybox applet names, read from the binary's packed applet_names table
# ("[\0[[\0acpid\0...\0\0"); the binary is for the target, so it cannot be
# asked with --list here. (awk reads to the end: no SIGPIPE under pipefail.)
busybox_applets() {
	tr '\0' '\n' <"$1" | awk '
		done { next }
		p && $0 == "" { done = 1; next }
		p { print; next }
		prev == "[" && $0 == "[[" { p = 1; print "["; print "[[" }
		{ prev = $0 }'
}

build_initramfs() { # TREE VARIANT ADIR
	local tree=$1 variant=$2 adir=$3 stage list bbx gen applets a
	step "initramfs (busybox $(basename "$BB_DEB" .deb | cut -d_ -f2 | sed 's/%3a/:/'))"
	stage=$CACHE/build/$BOARD/initramfs-$variant
	rm -rf "$stage"
	mkdir -p "$stage/deb"
	dpkg-deb -x "$BB_DEB" "$stage/deb"
	bbx=$stage/deb/bin/busybox
	[[ -x $bbx ]] || die "$BB_DEB has no /bin/busybox"
	applets=$(busybox_applets "$bbx")
	for a in sh mount insmod rmmod uname cat dmesg; do
		grep -qx -- "$a" <<<"$applets" || die "cannot read the applet list of $bbx (no '$a')"
	done
	cp "$INIT_SCRIPT" "$stage/init"
	cp "$adir/dmabench.ko" "$stage/dmabench.ko"
	chmod 0755 "$stage/init" "$bbx"
	touch -h -d "@$SOURCE_DATE_EPOCH" "$stage/init" "$stage/dmabench.ko" "$bbx"
	list=$stage/cpio.list
	{
		for a in /bin /sbin /dev /proc /sys /tmp /root /etc /lib /lib/modules /usr /usr/bin /usr/sbin; do
			echo "dir $a 0755 0 0"
		done
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/null 0666 0 0 c 1 3"
		echo "file /bin/busybox $bbx 0755 0 0"
		echo "file /init $stage/init 0755 0 0"
		echo "file /lib/modules/dmabench.ko $stage/dmabench.ko 0644 0 0"
		echo "file /bin/dma_map_benchmark $adir/dma_map_benchmark 0755 0 0"
		if [[ -n $MOD_NAME ]]; then
			echo "file /lib/modules/$MOD_NAME.ko $adir/$MOD_NAME.ko 0644 0 0"
		fi
		while IFS= read -r a; do
			[[ $a == busybox ]] && continue
			[[ $a =~ ^[][A-Za-z0-9._-]+$ ]] || die "odd busybox applet name '$a'"
			echo "slink /bin/$a busybox 0777 0 0"
		done <<<"$applets"
	} >"$list"
	gen=$tree/out/usr/gen_init_cpio
	if [[ ! -x $gen ]]; then
		gcc -O2 -o "$stage/gen_init_cpio" "$tree/usr/gen_init_cpio.c" >>"$LOG" 2>&1 ||
			fail_log "compiling usr/gen_init_cpio"
		gen=$stage/gen_init_cpio
	fi
	"$gen" -t "$SOURCE_DATE_EPOCH" "$list" 2>>"$LOG" | gzip -9n >"$adir/initramfs.cpio.gz.tmp"
	mv -f "$adir/initramfs.cpio.gz.tmp" "$adir/initramfs.cpio.gz"
	rm -rf "$stage"
}

json_str() { # JSON string literal
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	printf '"%s"' "$s"
}

write_manifest() { # TREE VARIANT ADIR KEY RELEASE T0
	local tree=$1 variant=$2 adir=$3 key=$4 release=$5 t0=$6 f sep m
	local files=(zImage)
	if [[ -n $DTB ]]; then files+=("$DTB"); fi
	files+=(dmabench.ko dma_map_benchmark initramfs.cpio.gz System.map)
	if [[ -n $MOD_NAME ]]; then files+=("$MOD_NAME.ko"); fi
	m=$adir/manifest.json.tmp
	for f in "${files[@]}"; do	# a file missing here would leave a manifest that is not JSON
		[[ -f $adir/$f ]] || die "$BOARD/$variant: $adir/$f was not built"
	done
	{
		echo "{"
		echo "  \"board\": $(json_str "$BOARD"),"
		echo "  \"variant\": $(json_str "$variant"),"
		echo "  \"release\": $(json_str "$release"),"
		echo "  \"key\": $(json_str "$key"),"
		echo "  \"files\": {"
		sep=
		for f in "${files[@]}"; do
			printf '%s    %s: {"sha256": "%s", "size": %s}' "$sep" "$(json_str "$f")" \
				"$(sha "$adir/$f")" "$(stat -c %s "$adir/$f")"
			sep=$',\n'
		done
		echo
		echo "  },"
		echo "  \"config_sha256\": \"$(sha "$adir/config")\","
		echo "  \"defconfig\": $(json_str "$DEFCONFIG"),"
		echo "  \"fragment\": {\"name\": $(json_str "$(basename "$FRAGMENT")"), \"sha256\": \"$FRAGMENT_SHA\"},"
		if [[ $variant == git ]]; then
			echo "  \"source\": {\"git\": $(json_str "$GIT_TREE"), \"ref\": $(json_str "$GIT_REF"), \"commit\": \"$GIT_COMMIT\", \"subject\": $(json_str "$GIT_SUBJECT")},"
		else
			echo "  \"source\": {\"tarball\": $(json_str "$(readlink -f "$SOURCE_TARBALL")"), \"sha256\": \"$SRC_SHA\", \"package\": $(json_str "${SOURCE_PACKAGE:-}"), \"version\": $(json_str "$SRC_VERSION")},"
		fi
		echo -n "  \"patches\": ["
		if [[ $variant == patched ]]; then
			sep=
			while read -r f m2; do
				printf '%s\n    {"name": %s, "sha256": "%s"}' "$sep" "$(json_str "$f")" "$m2"
				sep=,
			done < <(patches_list)
			if [[ ${#PATCHES[@]} -gt 0 ]]; then echo; echo -n "  "; fi
		fi
		echo "],"
		echo "  \"patches_dir\": $(json_str "${PATCHES_DIR#"$REPO"/}"),"
		echo "  \"kmod\": ["
		sep=
		while read -r f m2; do
			[[ -n $f ]] || continue
			printf '%s    {"name": %s, "sha256": "%s"}' "$sep" "$(json_str "$f")" "$m2"
			sep=$',\n'
		done <<<"$KMOD_LIST"
		echo
		echo "  ],"
		if [[ -n $MOD_NAME ]]; then
			echo "  \"module\": {\"name\": $(json_str "$MOD_NAME"), \"src\": $(json_str "$MOD_SRC"), \"files\": ["
			sep=
			while read -r f m2; do
				printf '%s    {"name": %s, "sha256": "%s"}' "$sep" "$(json_str "$f")" "$m2"
				sep=$',\n'
			done <<<"$MOD_LIST"
			echo
			echo "  ]},"
		fi
		echo "  \"initramfs\": {\"init_sha256\": \"$INIT_SHA\", \"busybox_deb\": $(json_str "$(basename "$BB_DEB")"), \"busybox_deb_sha256\": \"$BB_SHA\"},"
		echo "  \"toolchain\": $(json_str "$TOOLCHAIN"),"
		echo "  \"build_script_sha256\": \"$SELF_SHA\","
		echo "  \"boot\": {\"console\": $(json_str "$CONSOLE"), \"cmdline\": $(json_str "$CMDLINE"), \"qemu_system\": $(json_str "$QEMU_SYSTEM"), \"qemu_machine\": $(json_str "$QEMU_MACHINE"), \"qemu_cpu\": $(json_str "$QEMU_CPU"), \"qemu_mem_mib\": ${QEMU_MEM:-null}, \"qemu_extra\": $(json_str "$QEMU_EXTRA")},"
		echo "  \"kbuild\": {\"timestamp\": $(json_str "$KBUILD_BUILD_TIMESTAMP"), \"user\": \"$KBUILD_BUILD_USER\", \"host\": \"$KBUILD_BUILD_HOST\", \"localversion\": \"$(localversion "$variant")\"},"
		echo "  \"built\": {\"started\": \"$(date -u -d "@${t0%.*}" +%Y-%m-%dT%H:%M:%SZ)\", \"finished\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"seconds\": $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'), \"host\": $(json_str "$(uname -n)")}"
		echo "}"
	} >"$m"
	mv -f "$m" "$adir/manifest.json"
}

# point kernels/BOARD/VARIANT at DIR, atomically.
publish() { # VARIANT DIR
	local link=$CACHE/kernels/$BOARD/$1 tmp
	[[ -L $link && $(readlink "$link") == "$(basename "$2")" ]] && return 0
	tmp=$CACHE/kernels/$BOARD/.$1.link.$$
	ln -sfn "$(basename "$2")" "$tmp"
	mv -T "$tmp" "$link"
}

# artefacts TREE VARIANT ADIR: from a built tree, everything but the manifest into ADIR
# (emptied first): dmabench.ko (+ a job's own module), dma_map_benchmark, System.map, the
# image, the DTB, the config, the initramfs.  Sets RELEASE.
artefacts() {
	local tree=$1 variant=$2 adir=$3 kb ub f dtb
	RELEASE=$(kmake "$tree" "$variant" -s kernelrelease)
	rm -rf "$adir"
	mkdir -p "$adir"

	step "modules (dmabench.ko from ${KMOD_DIR#"$REPO"/}, kernel $RELEASE)"
	kb=$CACHE/build/$BOARD/kmod-$variant
	rm -rf "$kb"
	mkdir -p "$kb"
	for f in "${KMOD_FILES[@]}"; do cp -p "$f" "$kb/"; done
	logged "modules" kmake "$tree" "$variant" M="$kb" modules
	[[ -f $kb/dmabench.ko ]] || fail_log "modules (no dmabench.ko)"
	grep -aq "vermagic=$RELEASE " "$kb/dmabench.ko" ||
		die "$BOARD/$VARIANT: dmabench.ko vermagic does not match $RELEASE"
	cp "$kb/dmabench.ko" "$adir/dmabench.ko"
	if [[ -n $MOD_NAME ]]; then
		step "modules ($MOD_NAME.ko from $MOD_SRC)"
		kb=$CACHE/build/$BOARD/module-$variant
		rm -rf "$kb"
		mkdir -p "$kb"
		for f in "${MOD_FILES[@]}"; do cp -p "$f" "$kb/"; done
		logged "modules ($MOD_NAME)" kmake "$tree" "$variant" M="$kb" modules
		[[ -f $kb/$MOD_NAME.ko ]] || fail_log "modules (no $MOD_NAME.ko)"
		grep -aq "vermagic=$RELEASE " "$kb/$MOD_NAME.ko" ||
			die "$BOARD/$VARIANT: $MOD_NAME.ko vermagic does not match $RELEASE"
		cp "$kb/$MOD_NAME.ko" "$adir/$MOD_NAME.ko"
		rm -rf "$kb"
	fi

	# the kernel's own DMA mapping benchmark tool (CONFIG_DMA_MAP_BENCHMARK),
	# static against the cross libc; its header is kernel-internal, so only
	# that one file goes on the include path
	step "dma_map_benchmark (tools/testing/selftests/dma, static)"
	ub=$CACHE/build/$BOARD/dmb-$variant
	rm -rf "$ub"
	mkdir -p "$ub/linux"
	cp "$tree/include/linux/map_benchmark.h" "$ub/linux/"
	logged "dma_map_benchmark (needs libc6-dev-armel-cross)" "${CROSS_COMPILE}gcc" -static -O2 \
		-I"$ub" -o "$adir/dma_map_benchmark" \
		"$tree/tools/testing/selftests/dma/dma_map_benchmark.c"
	rm -rf "$ub"

	check_symbols "$tree/out/System.map"
	cp "$tree/out/System.map" "$adir/System.map"
	cp "$tree/out/arch/$ARCH/boot/$KIMAGE" "$adir/$KIMAGE"
	if [[ -n $DTB ]]; then
		dtb=$(find "$tree/out/arch/$ARCH/boot/dts" -name "$DTB" -print -quit)
		[[ -n $dtb ]] || fail_log "DTB $DTB not built"
		cp "$dtb" "$adir/$DTB"
	fi
	cp "$tree/out/.config" "$adir/config"
	build_initramfs "$tree" "$variant" "$adir"
}

# ---- one variant -------------------------------------------------------------
build_variant() {
	local variant=$1 key adir tree t0=$EPOCHREALTIME
	VARIANT=$variant
	if [[ $variant == patched && ${#PATCHES[@]} -eq 0 ]]; then
		die "$BOARD/patched: no *.patch in $PATCHES_DIR"
	fi
	if [[ -n $KMOD_LIST ]]; then
		key=$(artefact_key "$variant")
		adir=$CACHE/kernels/$BOARD/$variant-${key:0:16}
		if [[ -f $adir/manifest.json ]]; then
			publish "$variant" "$adir"
			echo "$BOARD/$variant: cached ($adir)"
			return 0
		fi
	fi
	LOG=$CACHE/logs/$BOARD-$variant.log
	: >"$LOG"
	step "building (log: $LOG)"
	tree=$CACHE/build/$BOARD/$variant
	ensure_tree "$variant"
	VARIANT=$variant

	[[ -n $KMOD_LIST ]] ||
		die "$BOARD/$variant: kernel tree is built, but the benchmark module source $KMOD_DIR/dmabench.c does not exist (yet); run again when it does"
	artefacts "$tree" "$variant" "$adir"
	write_manifest "$tree" "$variant" "$adir" "$key" "$RELEASE" "$t0"
	publish "$variant" "$adir"
	step "done: $RELEASE -> $adir"
}

# ---- a commit of a git tree ----------------------------------------------------
# `build.sh BOARD git` with ABLAB_GIT_TREE (a git work tree or bare repository) and
# ABLAB_GIT_REF (anything `git rev-parse` takes) builds the board's recipe from that
# commit instead of the tarball, with no patches.  The ref is resolved to its commit id,
# which is part of the cache key:
#   $CACHE/kernels/BOARD/git-<commit12>-<key16>/   the artefacts, as for the tarball
# (not published as kernels/BOARD/control or patched: `make kernels` owns those).
# The commit is checked out into a private work tree of the cache, one per board and
# history (the history's first-parent root commit, so that clones of one history share
# it), with its own index, so that moving to another commit rewrites only the files that
# differ and kbuild rebuilds only what depends on them, in one object directory:
#   $CACHE/build/BOARD/git-<root16>/{.,out}   (+ .index: the private index)
# The user's repository is only read (no checkout, no HEAD moved).  A commit that does
# not build fails with the compiler's messages on stderr and in
#   $CACHE/logs/BOARD-git-<commit12>.log
build_git() {
	local t0=$EPOCHREALTIME key adir wt root gitdir cfgkey
	GIT_TREE=${ABLAB_GIT_TREE:-} GIT_REF=${ABLAB_GIT_REF:-}
	VARIANT=git
	[[ -n $GIT_TREE && -n $GIT_REF ]] ||
		die "$BOARD/git: set ABLAB_GIT_TREE (the kernel git tree) and ABLAB_GIT_REF (the commit to build)"
	need git git
	gitdir=$(git -C "$GIT_TREE" rev-parse --absolute-git-dir 2>/dev/null) ||
		die "ABLAB_GIT_TREE: $GIT_TREE is not a git repository"
	GIT_TREE=$(readlink -f "$GIT_TREE")
	GIT_COMMIT=$(git --git-dir="$gitdir" rev-parse -q --verify "$GIT_REF^{commit}") ||
		die "ABLAB_GIT_REF: '$GIT_REF' is not a commit of $GIT_TREE"
	GIT_SUBJECT=$(git --git-dir="$gitdir" log -1 --format=%s "$GIT_COMMIT")
	VARIANT=git-${GIT_COMMIT:0:12}
	[[ -n $KMOD_LIST ]] ||
		die "$BOARD/git: the benchmark module source $KMOD_DIR/dmabench.c does not exist"
	key=$(artefact_key git)
	adir=$CACHE/kernels/$BOARD/git-${GIT_COMMIT:0:12}-${key:0:16}
	if [[ -f $adir/manifest.json ]]; then
		echo "$BOARD/$VARIANT: cached ($adir)"
		return 0
	fi
	LOG=$CACHE/logs/$BOARD-git-${GIT_COMMIT:0:12}.log
	: >"$LOG"
	step "building $GIT_COMMIT \"$GIT_SUBJECT\" of $GIT_TREE (log: $LOG)"
	root=$(git --git-dir="$gitdir" rev-list --first-parent --max-parents=0 "$GIT_COMMIT" | tail -n1)
	wt=$CACHE/build/$BOARD/git-${root:0:16}
	mkdir -p "$wt"
	# the private index records what the work tree holds: --reset -u rewrites only the
	# files whose content differs from the commit's, and deletes those it does not have
	if [[ -f $wt.index ]]; then
		step "check out ${GIT_COMMIT:0:12} in $wt (incremental)"
	else
		step "check out ${GIT_COMMIT:0:12} into a new work tree $wt"
	fi
	logged "git checkout" env GIT_INDEX_FILE="$wt.index" git --git-dir="$gitdir" --work-tree="$wt" \
		read-tree --reset -u "$GIT_COMMIT"
	[[ -f $wt/Makefile && -d $wt/arch/$ARCH ]] || die "$GIT_TREE: $GIT_COMMIT is not a kernel source tree"
	cfgkey=$(tree_key config)
	if [[ ! -f $wt/out/.ablab-config-key || $(<"$wt/out/.ablab-config-key") != "$cfgkey" ]]; then
		configure "$wt" git
		echo "$cfgkey" >"$wt/out/.ablab-config-key"
	else
		logged "olddefconfig" kmake "$wt" git olddefconfig
		verify_config "$FRAGMENT" "$wt/out/.config"
	fi
	build_kernel "$wt" git
	artefacts "$wt" git "$adir"
	write_manifest "$wt" git "$adir" "$key" "$RELEASE" "$t0"
	step "done: $RELEASE -> $adir"
}

# One build per board at a time.
exec 9>"$CACHE/build/$BOARD/.lock"
if ! flock -n 9; then
	echo "[$(elapsed)s] $BOARD: waiting for another build.sh of this board"
	flock 9
fi

# Leftovers of interrupted runs.
for t in "$CACHE"/build/.trash.*; do
	if [[ -e $t ]]; then (setsid rm -rf "$t" </dev/null >/dev/null 2>&1 9>&- &); fi
done

for v in "${VARIANTS[@]}"; do
	if [[ $v == git ]]; then build_git; else build_variant "$v"; fi
done
