# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# lane: side
# The virtual lab (tests/vlab/README.md): the real-board backends against real
# kernel drivers. An x86_64 guest (KVM, else TCG) runs this machine's root
# read-only over 9p, udev, PostgreSQL and build/asan/ablab; its FTDI USB
# serial adapter (ftdi_sio) is wired to the board simulator's console and its
# gpio-sim line "relay0" to the simulator's power, by tests/vlab/labhw.py.
# The checks run inside the guest (tests/vlab/guest.sh, with tests/lib.sh);
# their counts are added here, and labhw's own log is checked here.
# The guest kernel comes from `make kernels` (tests/vlab/build-kernel.sh).
# A console that does not come back within console.reopen_s (on the host: a
# tty path that is not there; the guest does it with the FTDI adapter): the
# boot names the board, the device and reopen_s, not "console closed".
gone_part() {
	local g=$tmp/gone out rc
	sim_uboot_board gone "$g"
	sim_kernels "$g/k" gone
	sed -i -e 's|"device": "[^"]*", "reopen_s": 5|"device": "'"$g"'/ttyGONE", "reopen_s": 1|' \
		-e 's|"on": \[[^]]*\]|"on": ["true"]|' -e 's|"off": \[[^]]*\]|"off": ["true"]|' \
		-e 's|"retries": 1|"retries": 0|' "$g/board.json"
	"$ablab" db start >/dev/null 2>&1
	out=$("$ablab" check "$g/board.json" --kernel "$g/k/control" 2>&1)
	rc=$?
	echo "$out" | grep FAILED | sed 's/^/  /'
	check "a console not back within console.reopen_s: the boot names the board, the device and reopen_s" \
		sh -c '[ $1 != 0 ] && echo "$2" | grep -q "gone: console.device $3/ttyGONE: No such file or directory; still absent after 1.[0-9] s of waiting (console.reopen_s 1) (waiting for U-Boot.s autoboot line)"' \
		_ $rc "$out" "$g"
}
gone_part
vlab_part() {
	local w=$tmp/vlab kdir accel rc t0 t1 r
	if ! command -v qemu-system-x86_64 >/dev/null; then
		skip "vlab: no qemu-system-x86_64 (Debian package qemu-system-x86)"
		return
	fi
	if ! kdir=$(bash tests/vlab/build-kernel.sh --cached 2>/dev/null); then
		skip "vlab: the guest kernel is not built (make kernels, or bash tests/vlab/build-kernel.sh)"
		return
	fi
	if [ ! -x build/boardsim ] || [ ! -x "$ablab" ]; then
		skip "vlab: build/boardsim or $ablab not built (make check builds them)"
		return
	fi
	mkdir -p "$w/tftp"
	# the real ARM board behind the wire: qemu-pi400 (U-Boot, TFTP) and its
	# kernels, copied into the work share (the guest's /root is a tmpfs)
	local cache=$kcache arm=() armk= v2=
	if command -v qemu-system-arm >/dev/null && [ -f /usr/lib/u-boot/qemu_arm/u-boot.bin ] &&
	   [ -f "$cache/kernels/qemu-pi400/control/manifest.json" ] &&
	   [ -f "$cache/kernels/qemu-pi400/patched/manifest.json" ]; then
		mkdir -p "$w/k-pi400"
		cp -rL "$cache/kernels/qemu-pi400/control" "$cache/kernels/qemu-pi400/patched" "$w/k-pi400/"
		armk=$w/k-pi400
		arm=(--arm-board boards/qemu-pi400.json)
	fi
	# the libgpiod v2 build of power_gpiod.c (tests/gpiod-v2.sh's trixie .debs)
	local v2root=$cache/libgpiod-v2/root v2lib
	v2lib=$(dirname "$(ls "$v2root"/usr/lib/*/libgpiod.so.3 2>/dev/null | head -n 1)")
	if [ -f "$v2root/usr/include/gpiod.h" ] && [ -f "$v2lib/libgpiod.so.3" ]; then
		mkdir -p "$w/gpiod-v2"
		cp -L "$v2lib/libgpiod.so.3" "$w/gpiod-v2/"
		if ${CC:-cc} -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -DHAVE_GPIOD_V2=1 \
			-I"$v2root/usr/include" -Iagent -o "$w/gpiod-v2/gpiod-drv" tests/vlab/gpiod-drv.c \
			agent/backend/power_gpiod.c agent/shared/errtext.c agent/shared/mem.c agent/shared/msg.c -L"$w/gpiod-v2" -Wl,-rpath,"$w/gpiod-v2" \
			-l:libgpiod.so.3 2>"$w/gpiod-v2/cc.err"; then
			v2=$w/gpiod-v2/gpiod-drv
		else
			bad "vlab: tests/vlab/gpiod-drv.c does not build against libgpiod v2: $(head -c 600 "$w/gpiod-v2/cc.err")"
		fi
	fi
	cat >"$w/guest-part.sh" <<EOF
cd '$top' || exit 1
export VLAB_WORK='$w' VLAB_SERIAL=ABLAB0001 VLAB_ARM_KERNELS='$armk' VLAB_GPIOD_V2='$v2'
ABLAB_PART_RESULT='$w/guest.result' ABLAB_FAILS='$w/guest.fails' part_name='$part_name (guest)' \
	bash -c '. tests/lib.sh; . tests/vlab/guest.sh'
EOF
	t0=$(date +%s.%N)
	python3 tests/vlab/labhw.py --kernel "$kdir/bzImage" --work "$w" --run "$w/guest-part.sh" \
		--active-low --timeout "${VLAB_TIMEOUT:-720}" ${VLAB_TRACE:+--trace} --rom-ms 1500 "${arm[@]}" \
		--board-arg=--tftp-root --board-arg="$w/tftp" --board-arg=--record \
		--board-arg="$w/record" --board-arg=--tick-ms --board-arg=200 --board-arg=--autoboot --board-arg=10 --board-arg=--seed \
		--board-arg=86 2>"$w/labhw.err"
	rc=$?
	t1=$(date +%s.%N)
	accel=$(awk '$2 == "accel" { a = $3 } END { print a }' "$w/labhw.log")
	sed 's/^/  guest: /' "$w/guest.out" 2>/dev/null
	echo "  vlab: $accel guest, $(echo "$t1 - $t0" | bc) s from QEMU start to power off$(awk '$2 == "tcg:" { $1 = ""; printf " (%s)", substr($0, 2) }' "$w/labhw.log")"
	[ ! -f "$w/guest.figures" ] || sed 's/^/  vlab figure: /' "$w/guest.figures"
	check "vlab: the guest ran its part and powered off (labhw exit $rc: $(cat "$w/labhw.err"))" \
		test -f "$w/guest.rc" -a -f "$w/guest.result"
	if [ ! -f "$w/guest.result" ]; then
		echo "  last lines of the guest console:"
		tail -n 30 "$w/guest-console.log" | sed 's/^/  | /'
		return
	fi
	read -r gp gf gs <"$w/guest.result"
	pass=$((pass + gp)) fail=$((fail + gf)) skipped=$((skipped + gs))
	[ -z "${ABLAB_FAILS:-}" ] || [ ! -s "$w/guest.fails" ] || cat "$w/guest.fails" >>"$ABLAB_FAILS"
	# labhw's exit is the guest part's (guest.rc), or 124 when labhw's --timeout ended QEMU
	check "vlab: the guest part exited 0 with no failed check ($gp passed, $gf failed; labhw exit $rc$(grep -o ' timeout after .*' "$w/labhw.log" | head -n 1))" \
		test "$rc" = 0 -a "$gf" = 0
	r=$(awk '$2 == "power" { n[$3]++; last = $3 } END { printf "%d %d %s", n["on"], n["off"], last }' \
		"$w/labhw.log")
	check "vlab: labhw: every power on had its power off, the board ends off ($r)" \
		sh -c 'set -- $1; [ "$1" -ge 1 ] && [ "$1" = "$2" ] && [ "$3" = off ]' _ "$r"
}
vlab_part
[ -z "${VLAB_KEEP:-}" ] || cp -a "$tmp/vlab" "$VLAB_KEEP"
