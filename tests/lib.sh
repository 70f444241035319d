# SPDX-License-Identifier: GPL-2.0-only
# Sourced by each part of tests/run.sh, in the part's own process: counters,
# a private database in a temporary ABLAB_DATA (removed at exit), helpers.
# At exit the counts go to $ABLAB_PART_RESULT for the runner.
top=$PWD
pass=0
fail=0
skipped=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	[ -z "${ABLAB_FAILS:-}" ] || echo "${part_name:-?}: $*" >>"$ABLAB_FAILS"
}
# skip REASON: a check that cannot run here, and why
skip() { skipped=$((skipped + 1)); echo "SKIP: $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; return 1; fi; }
# fault ITEM WHAT CMD...: a check that also goes into the fault table the
# runner prints at the end (ITEM: the hardening item it covers, e.g. 3)
fault() {
	local item=$1 what=$2 r=PASS
	shift 2
	check "$what" "$@" || r=FAIL
	fault_rec "$item" $r "$what"
	[ $r = PASS ]
}
# fault_rec ITEM PASS|FAIL WHAT: a fault-table row for a check made with ok/bad
fault_rec() {
	[ -z "${ABLAB_FAULTS:-}" ] || printf '%s\t%s\t%s\t%s\n' "$1" "$2" "${part_name:-?}" "$3" >>"$ABLAB_FAULTS"
}

tmp=$(mktemp -d /tmp/ablab-test.XXXXXX)
chmod 755 "$tmp"	# the postgres user must reach the private cluster below it
# the part's temporary files (ablab's run directories, mktemp) go with it,
# even those of an agent a test kills with SIGKILL
mkdir -m 1777 "$tmp/tmp" && export TMPDIR=$tmp/tmp
export ABLAB_DATA=$tmp/data ABLAB_BOARDS=$top/boards ABLAB_LOCK_DIR=$tmp/locks
mkdir -p "$tmp/locks"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
ablab=$top/build/asan/ablab
cleanup() {
	"$ablab" db stop >/dev/null 2>&1
	rm -rf "$tmp"
	[ -z "${ABLAB_PART_RESULT:-}" ] || echo "$pass $fail $skipped" >"$ABLAB_PART_RESULT"
}
trap cleanup EXIT
trap 'bad "part stopped by SIGTERM (deadline)"; exit 143' TERM

# wait_for DEADLINE_S CMD...: poll CMD (every $wait_poll s, default 0.05) until it
# succeeds; 1 at the deadline.  The one way a part waits for something.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep "${wait_poll:-0.05}"
	done
}
# The kernel cache (make kernels builds into it; ablab's own default, ABLAB_CACHE):
# $kcache/kernels/BOARD/{control,patched}, $kcache/src, $kcache/build/BOARD, ...
kcache=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
# need_kernels BOARD [VARIANT...]: 0 when `make kernels` built BOARD's kernels
# (control and patched unless named); else a SKIP naming what is missing and the
# fix, and 1.  Missing kernels are a SKIP in every part (a machine without them
# still runs the rest); under CI=true tests/run.sh fails a part that skips unless
# tests/ci-skips.txt allows it.
need_kernels() {
	local b=$1 v missing=
	shift
	for v in ${*:-control patched}; do
		[ -f "$kcache/kernels/$b/$v/manifest.json" ] ||
			missing="$missing $v"
	done
	[ -z "$missing" ] && return 0
	skip "${part_name:-?}: no$missing kernel of $b in $kcache/kernels/$b (make kernels)"
	return 1
}
# count_unit BINARY [ARGS]: run a C test binary, add its "N passed, N failed"
count_unit() {
	local out rc line p f
	out=$("$@" 2>&1); rc=$?
	echo "$out" | grep -E 'passed|failed|CHECK|ERROR|Sanitizer|runtime error' | tail -n 20
	line=$(echo "$out" | grep -E '^[a-z_]+: [0-9]+ passed, [0-9]+ failed$' | tail -n 1)
	p=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-1}))
	if [ "${f:-1}" != 0 ] && [ -n "${ABLAB_FAILS:-}" ]; then
		echo "${part_name:-?}: $(basename "$1"): ${f:-no count} failed" >>"$ABLAB_FAILS"
		echo "$out" | grep -E 'FAIL|CHECK|ERROR|Sanitizer|runtime error' | head -n 5 | sed 's/^/    /' >>"$ABLAB_FAILS"
	fi
	[ "$rc" = 0 ] || [ "${f:-1}" != 0 ] || bad "$1 exited $rc"
}
# sim_kernels DIR BOARD: DIR/control and DIR/patched as kernel directories for
# the board simulator (manifest, a zImage with its version line, initramfs, dtb)
sim_kernels() {
	local v
	for v in control patched; do
		mkdir -p "$1/$v"
		printf '{"board":"%s","variant":"%s","release":"6.1.0-sim-%s"}\n' "$2" $v $v \
			>"$1/$v/manifest.json"
		printf 'zImage\0Linux version 6.1.0-sim-%s (boardsim@lab) #1\n' $v >"$1/$v/zImage"
		echo initramfs >"$1/$v/initramfs.cpio.gz"
		echo dtb >"$1/$v/sim.dtb"
	done
}
# sim_uboot_board NAME DIR: DIR/board.json, a U-Boot board NAME behind the board
# simulator whose control socket, console link and TFTP root are in DIR (start
# it with `boardsim run --ctl DIR/ctl --pty-link DIR/console --tftp-root DIR/tftp`)
sim_uboot_board() {
	mkdir -p "$2/tftp"
	sed -e "s|@BS@|$top/build/boardsim|g" -e "s|@W@|$2|g" -e "s|@N@|$1|g" >"$2/board.json" <<'JSON'
{
  "name": "@N@", "cpu": "Cortex-A72", "family": "v7",
  "console": { "type": "tty", "device": "@W@/console", "reopen_s": 5 },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"] },
  "boot": {
    "method": "uboot", "tftp_root": "@W@/tftp", "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot", "interrupt": " ", "prompt": "=> ",
    "commands": ["setenv autoload no", "dhcp", "tftpboot {kernel_addr} {kernel}",
                 "tftpboot {ramdisk_addr} {ramdisk}", "setenv initrd_size ${filesize}",
                 "tftpboot {dtb_addr} {dtb}", "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init panic=-1"
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 5, "bootloader": 3, "kernel": 3, "command": 20 },
  "retries": 1
}
JSON
}
# series_mbox OUT STEM PATCH...: the patches mailed as one thread into mbox OUT, each
# message's Message-Id <STEM.1-N-ablab@localhost>, every later one a reply to the first
series_mbox() {
	python3 - "$@" <<'PY'
import mailbox, re, sys
out, stem, files = sys.argv[1], sys.argv[2], sys.argv[3:]
mb = mailbox.mbox(out, create=True)
first = "<%s.1-1-ablab@localhost>" % stem
for i, f in enumerate(files, 1):
    head, _, body = open(f, "rb").read().partition(b"\n\n")
    head = re.sub(rb"\n[ \t]+", b" ", head)
    lines = head.split(b"\n")[1:]
    lines.append(b"Message-Id: <%s.1-%d-ablab@localhost>" % (stem.encode(), i))
    if i > 1:
        lines += [b"In-Reply-To: " + first.encode(), b"References: " + first.encode()]
    mb.add(mailbox.mboxMessage(b"\n".join(lines) + b"\n\n" + body))
mb.flush()
PY
}
psql_q() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "$1"; }
