# Backends of real boards, exercised as far as this machine allows: gpiod
# against a fake libgpiod (no GPIO chip here), command power with real
# fork/exec, manual power through a real pty, tty/tcp consoles with real
# ptys and sockets, U-Boot under QEMU (u-boot-qemu + QEMU's TFTP), board
# locks, health checks stored in the database, and every bad
# configuration's one-line error naming the board and the field.
export ABLAB_LOCK_DIR=$tmp/locks
"$ablab" db start >/dev/null
bt=$tmp/t25
mkdir -p "$bt"

# expect_err NAME REGEX CMD...: exits non-zero and its stderr matches REGEX
expect_err() {
	local name=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1 </dev/null); rc=$?
	if [ $rc -ne 0 ] && echo "$out" | grep -Eq "$re"; then ok "$name: $(echo "$out" | grep -E "$re" | head -n 1)"
	else bad "$name (rc $rc): $out"; fi
}
# board NAME CONSOLE POWER BOOT [EXTRA]: a board file in $bt
board() {
	cat >"$bt/$1.json" <<JSON
{ "name": "$1", "cpu": "test", "family": "v7",
  "console": $2,
  "power": $3,
  "boot": $4,
  "shell": { "prompt": "lab# " }${5:+,
  $5} }
JSON
}
pty_console='{ "type": "tty", "device": "/dev/null" }'
true_power='{ "type": "command", "on": ["true"], "off": ["true"], "off_ms": 0 }'
cmd_boot='{ "method": "command", "deploy": ["true"] }'

echo "== real board files: dry run reports exactly what is missing here"
out=$("$ablab" check pi400 --dry-run 2>&1); rc=$?
echo "$out"
check "pi400 dry run fails (exit 1)" test $rc = 1
check "pi400: console.device by-id missing" bash -c "grep -q 'FAIL  console.device: /dev/serial/by-id/usb-FTDI.*No such file or directory' <<<'$out'"
check "pi400: no GPIO chip" bash -c "grep -q 'FAIL  power.chip: gpiochip0 (lines 17): unknown GPIO chip \"gpiochip0\".*no /dev/gpiochip' <<<'$out'"
check "pi400: U-Boot commands' placeholders known" bash -c "grep -q 'ok    boot.commands: 9 commands' <<<'$out'"
out=$("$ablab" check sam9x75 --dry-run 2>&1); rc=$?
echo "$out"
check "sam9x75: adapter by USB serial number missing" bash -c "[ $rc = 1 ] && grep -q 'FAIL  console.usb_serial: .*ATML2637010000000000.*no USB serial adapter' <<<'$out'"
check "sam9x75: pduclient not installed" bash -c "grep -q 'FAIL  power.on: pduclient: not found in PATH' <<<'$out'"
out=$("$ablab" check arm11-2ds --dry-run 2>&1); rc=$?
echo "$out"
check "arm11-2ds: usbrelay and the SD mux deploy tool missing" bash -c "[ $rc = 1 ] && grep -q 'FAIL  power.on: usbrelay: not found' <<<'$out' && grep -q 'FAIL  boot.deploy: /usr/local/bin/sdmux-deploy: not found' <<<'$out'"
for b in qemu-sam9x75 qemu-pi400; do check "$b dry run ok" "$ablab" check $b --dry-run; done
out=$("$ablab" ports 2>&1); rc=$?
echo "$out"
check "ablab ports lists what libserialport sees (or says none)" bash -c "[ $rc = 0 ] && grep -Eq '^DEVICE +VID:PID +SERIAL|no serial ports found' <<<'$out'"

echo "== command power: real fork/exec, no shell"
board cmdpow "$pty_console" "{ \"type\": \"command\", \"on\": [\"touch\", \"$bt/on-{board}\"], \"off\": [\"false\"], \"cycle\": [\"no-such-power-tool\", \"3\"] }" "$cmd_boot" '"timeouts_s": { "power": 2 }'
check "power on runs the argv ({board} expanded)" "$ablab" power "$bt/cmdpow.json" on
check "  ... the file it touched exists" test -f "$bt/on-cmdpow"
expect_err "power off exiting non-zero" '^ablab: cmdpow: power.off: `false` exited with status 1: \(no output\)$' "$ablab" power "$bt/cmdpow.json" off
expect_err "power command not found" '^ablab: cmdpow: power.cycle: cannot run no-such-power-tool: No such file or directory$' "$ablab" power "$bt/cmdpow.json" cycle
board slowpow "$pty_console" '{ "type": "command", "on": ["sleep", "30"], "off": ["true"] }' "$cmd_boot" '"timeouts_s": { "power": 1 }'
t0=$(date +%s%N)
expect_err "power command timeout" 'slowpow: power.on: `sleep 30` did not finish within 1 s \(timeouts_s.power\); killed' "$ablab" power "$bt/slowpow.json" on
check "  ... killed at the deadline (< 3 s)" test $(( ($(date +%s%N) - t0) / 1000000 )) -lt 3000
board failpow "$pty_console" '{ "type": "command", "on": ["sh", "-c", "echo relay 3 not answering >&2; exit 4"], "off": ["true"] }' "$cmd_boot"
expect_err "power command's own error is shown" 'failpow: power.on: `sh -c .*` exited with status 4: relay 3 not answering' "$ablab" power "$bt/failpow.json" on
expect_err "qemu board has no standalone power" 'qemu-sam9x75: power.type qemu: .*exists only during a boot' "$ablab" power qemu-sam9x75 on

echo "== manual power"
board manpow "$pty_console" '{ "type": "manual", "text": "socket 2 on the bench strip" }' "$cmd_boot"
expect_err "manual power without a terminal" 'manpow: power.type manual: needs an operator at a terminal .* no controlling terminal' setsid "$ablab" power "$bt/manpow.json" on
out=$(python3 tests/pty_board.py manual "$ablab" "$bt/manpow.json" 2>&1); rc=$?
echo "$out" | tail -n 2
check "manual power asks on the terminal and continues after Enter" bash -c "[ $rc = 0 ] && grep -q 'manpow: switch the board ON - socket 2 on the bench strip, then press Enter' <<<'$out'"

echo "== consoles: tty through a real pty, tcp raw/telnet/reopen against a real socket"
board ptyboard '{ "type": "tty", "device": "@PTY@" }' "$true_power" "$cmd_boot"
out=$(python3 tests/pty_board.py console "$ablab" "$bt/ptyboard.json" "$bt" 2>&1); rc=$?
check "ablab console passthrough both ways, ~~ sends ~, ~. quits ($(echo "$out" | tail -n 1))" test $rc = 0
board tcpboard '{ "type": "tcp", "host": "127.0.0.1", "port": @PORT@, "protocol": "@PROTO@", "reopen_s": 5 }' "$true_power" "$cmd_boot"
for mode in raw telnet reopen; do
	out=$(python3 tests/pty_board.py tcp "$ablab" "$bt/tcpboard.json" "$bt" $mode 2>&1); rc=$?
	check "tcp console $mode ($(echo "$out" | tail -n 1))" test $rc = 0
done

echo "== board lock: held by a console session, seen by others"
cat >"$bt/hold.py" <<'PY'
import os, pty, sys
bm, bs = pty.openpty()      # the "board" end stays open while attached
text = open(sys.argv[2]).read().replace("@PTY@", os.ttyname(bs)).replace('"ptyboard"', '"lockboard"')
open(sys.argv[3], "w").write(text)
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "console", sys.argv[3]])
got = b""
while b"~. quits" not in got:
    got += os.read(fd, 1024)
print("attached", flush=True)
sys.stdin.readline()            # until the test says so
os.write(fd, b"\r~.")
os.waitpid(pid, 0)
PY
board ptyboard '{ "type": "tty", "device": "@PTY@" }' "$true_power" "$cmd_boot"
mkfifo "$bt/hold" "$bt/held"
python3 "$bt/hold.py" "$ablab" "$bt/ptyboard.json" "$bt/lockboard.json" <"$bt/hold" >"$bt/held" 2>&1 &
holder=$!
exec 4>"$bt/hold" 5<"$bt/held"
read -t 15 -r line <&5
check "a console session attached ($line)" test "$line" = attached
expect_err "a locked board refuses a second user, naming the holder" 'lockboard: board is in use by pid [0-9]+ \(uid [0-9]+, ablab console\) on ' "$ablab" power "$bt/lockboard.json" on
ABLAB_BOARDS=$bt "$ablab" boards >"$bt/boards.out" 2>&1
check "ablab boards shows the lock holder" bash -c "grep -A3 '^lockboard' '$bt/boards.out' | grep -Eq 'lock +pid [0-9]+ on .*\(ablab console\)'"
echo >&4
exec 4>&- 5<&-
wait $holder
check "lock released after the console quits" bash -c "ABLAB_BOARDS=$bt '$ablab' boards 2>&1 | grep -A3 '^lockboard' | grep -Eq 'lock +free'"

echo "== bad configurations: one line naming the board and the field"
board noserial '{ "type": "serial", "device": "/dev/serial/by-id/usb-nothing-here-if00-port0" }' "$true_power" "$cmd_boot"
expect_err "missing serial device" '^ablab: noserial: console.device /dev/serial/by-id/usb-nothing-here-if00-port0: No such file or directory' "$ablab" console "$bt/noserial.json"
board nochip "$pty_console" '{ "type": "gpiod", "chip": "gpiochip7", "lines": [4] }' "$cmd_boot"
expect_err "unknown GPIO chip" '^ablab: nochip: power.chip gpiochip7 / power.lines: unknown GPIO chip "gpiochip7"' "$ablab" power "$bt/nochip.json" off
board badtcp '{ "type": "tcp", "host": "127.0.0.1" }' "$true_power" "$cmd_boot"
expect_err "tcp console without port" 'badtcp.json:[0-9]+:[0-9]+: console.type: console type tcp needs "host" and "port"' "$ablab" check-board "$bt/badtcp.json"
board strayfield '{ "type": "tty", "device": "/dev/null", "host": "x" }' "$true_power" "$cmd_boot"
expect_err "field of another backend" 'strayfield.json:2:[0-9]+: console.host: not used by type "tty" \(only by: tcp\)' "$ablab" check-board "$bt/strayfield.json"
# the sections' keys come from the backends' own tables (backends.h: struct backend_conf)
board straypower "$pty_console" '{ "type": "command", "on": ["true"], "off": ["true"], "chip": "gpiochip0" }' "$cmd_boot"
expect_err "power key of another backend" 'straypower.json:[0-9]+:[0-9]+: power.chip: not used by type "command" \(only by: gpiod\)' "$ablab" check-board "$bt/straypower.json"
board strayboot "$pty_console" "$true_power" '{ "method": "command", "deploy": ["true"], "autoboot": "Hit" }'
expect_err "boot key of another method" 'strayboot.json:[0-9]+:[0-9]+: boot.autoboot: not used by method "command" \(only by: uboot\)' "$ablab" check-board "$bt/strayboot.json"
board unknownkey '{ "type": "tty", "device": "/dev/null", "bogus": 1 }' "$true_power" "$cmd_boot"
expect_err "unknown console key: every backend's keys listed" 'console.bogus: unknown key; expected one of: type, device, baud, usb_serial, host, port, protocol, reopen_s, transcript_mb$' "$ablab" check-board "$bt/unknownkey.json"
# each console backend parses its own keys (console-tty.c, console-serial.c: console_priv)
board ttyserial '{ "type": "tty", "device": "/dev/null", "usb_serial": "A1" }' "$true_power" "$cmd_boot"
expect_err "serial key under a tty console" 'ttyserial.json:2:[0-9]+: console.usb_serial: not used by type "tty" \(only by: serial\)' "$ablab" check-board "$bt/ttyserial.json"
board ttybaud '{ "type": "tty", "device": "/dev/null", "baud": 12345 }' "$true_power" "$cmd_boot"
expect_err "tty baud termios has no rate for" 'ttybaud.json:2:[0-9]+: console.baud: 12345 is not a rate termios sets \(one of: 50, .*, 115200, .*4000000\); console type serial sets others$' "$ablab" check-board "$bt/ttybaud.json"
board serialbaud '{ "type": "serial", "device": "/dev/null", "baud": 12345 }' "$true_power" "$cmd_boot"
check "  ... a serial console takes that rate (libserialport sets any)" "$ablab" check-board "$bt/serialbaud.json"
board ttybaudlow '{ "type": "tty", "device": "/dev/null", "baud": 10 }' "$true_power" "$cmd_boot"
expect_err "baud out of range (every backend's table)" 'ttybaudlow.json:2:[0-9]+: console.baud: ' "$ablab" check-board "$bt/ttybaudlow.json"
board tcpbaud '{ "type": "tcp", "host": "127.0.0.1", "port": 9, "baud": 9600 }' "$true_power" "$cmd_boot"
check "a tcp console takes baud (the line behind ser2net: the reads' pacing)" "$ablab" check-board "$bt/tcpbaud.json"
board qemutty '{ "type": "tty", "device": "qemu:serial0" }' "$true_power" "$cmd_boot"
expect_err "qemu:LABEL without a power backend that makes it" 'qemutty.json:2:[0-9]+: console.device: "qemu:LABEL" needs power type qemu$' "$ablab" check-board "$bt/qemutty.json"
board qemuserial '{ "type": "serial", "device": "qemu:serial0" }' "$true_power" "$cmd_boot"
expect_err "qemu:LABEL under a serial console" 'qemuserial.json:2:[0-9]+: console.device: "qemu:LABEL" is a pty: use console type tty$' "$ablab" check-board "$bt/qemuserial.json"
expect_err "ablab console of a qemu:LABEL board" '^ablab: qemu-sam9x75: console.device qemu:serial0 is a pty QEMU creates during a boot' "$ablab" console qemu-sam9x75
board typokey "$pty_console" '{ "type": "gpiod", "chip": "gpiochip0", "line": [1] }' "$cmd_boot"
expect_err "misspelt key of a backend" 'power.line: unknown key; did you mean "lines"\?$' "$ablab" check-board "$bt/typokey.json"
board directreal "$pty_console" "$true_power" '{ "method": "direct" }'
expect_err "direct boot on a real board" 'boot.method: boot method direct .* needs power type qemu' "$ablab" check-board "$bt/directreal.json"
board noprompt "$pty_console" "$true_power" '{ "method": "uboot", "tftp_root": "/tmp", "autoboot": "Hit", "interrupt": " ", "commands": ["boot"] }'
expect_err "uboot without prompt" 'boot.method: boot method uboot needs "autoboot" \(regex\), "interrupt" and a non-empty "prompt"' "$ablab" check-board "$bt/noprompt.json"
board badph "$pty_console" "$true_power" '{ "method": "uboot", "tftp_root": "/tmp", "autoboot": "Hit", "interrupt": " ", "prompt": "=> ", "commands": ["tftpboot {kernel_adr} {kernel}", "bootz"], "addrs": { "kernel_addr": "0x1" } }'
expect_err "unknown U-Boot placeholder (dry run)" 'FAIL  boot.commands\[0\]: unknown placeholder \{kernel_adr\}' "$ablab" check "$bt/badph.json" --dry-run
mkdir -p "$bt/tftp-ro" && chmod 755 "$bt/tftp-ro" && chmod o+rx "$bt"
board rotftp "$pty_console" "$true_power" "{ \"method\": \"uboot\", \"tftp_root\": \"$bt/tftp-ro\", \"autoboot\": \"Hit\", \"interrupt\": \" \", \"prompt\": \"=> \", \"commands\": [\"bootz\"] }"
chmod o+r "$bt/rotftp.json"
# nobody may not reach the checkout (a 0700 clone directory): run a copy from $tmp
install -m 755 "$ablab" "$bt/ablab-nobody"
expect_err "TFTP root not writable (as an unprivileged user: root writes anywhere)" "FAIL  boot.tftp_root: $bt/tftp-ro: not writable \(Permission denied\)" runuser -u nobody -- env ABLAB_DATA="$bt/nobody-data" ABLAB_LOCK_DIR="$bt/nobody-locks" "$bt/ablab-nobody" check "$bt/rotftp.json" --dry-run
board deployfail "$pty_console" "$true_power" '{ "method": "command", "deploy": ["sh", "-c", "echo sd-mux: no card >&2; exit 3", "{kernel}"] }'
ctl=$kcache/kernels/qemu-sam9x75/control
expect_err "deploy command failing" 'deployfail: boot.deploy: sh exited with status 3: sd-mux: no card' "$ablab" check "$bt/deployfail.json" --kernel "$ctl"

echo "== U-Boot under QEMU (u-boot-qemu, QEMU's TFTP server)"
fk=$bt/fakekernel
mkdir -p "$fk"
head -c 300000 /dev/urandom >"$fk/zImage"; head -c 70000 /dev/urandom >"$fk/initramfs.cpio.gz"; head -c 100 /dev/urandom >"$fk/virt.dtb"
echo '{ "variant": "control", "release": "0.0-not-a-kernel" }' >"$fk/manifest.json"
expect_err "not a zImage: U-Boot error detected, after real TFTP transfers" 'qemu-pi400: U-Boot command `bootz 0x40400000 0x44000000:\$\{filesize\} \$\{fdtcontroladdr\}` \(boot.commands\[6\]\) failed: zimage: Bad magic' "$ablab" check qemu-pi400 --kernel "$fk"
log=$(ls -t "$ABLAB_DATA"/health/qemu-pi400-*.log | head -n 1)
check "transcript: ablab typed the commands, TFTP moved the exact bytes" bash -c "grep -q '=> tftpboot 0x40400000 qemu-pi400/zImage' '$log' && grep -q 'Bytes transferred = 300000 ' '$log' && grep -q 'Bytes transferred = 70000 ' '$log'"
check "failed health check stored" test "$(psql_q "SELECT ok::text || ':' || (error LIKE '%Bad magic%')::text FROM health WHERE board = 'qemu-pi400' ORDER BY id DESC LIMIT 1")" = "false:true"
sed -e 's/"prompt": "=> "/"prompt": "U-Boot> "/' -e 's/"bootloader": 20/"bootloader": 3/' boards/qemu-pi400.json >"$bt/ubprompt.json"
expect_err "U-Boot prompt never seen" 'qemu-pi400: U-Boot prompt "U-Boot> " \(boot.prompt\) never seen within 3 s' "$ablab" check "$bt/ubprompt.json" --kernel "$fk"
sed -e 's/"Hit any key to stop autoboot"/"Press SPACE to abort autoboot"/' -e 's/"bootloader": 20/"bootloader": 3/' boards/qemu-pi400.json >"$bt/ubauto.json"
expect_err "autoboot line never seen" 'qemu-pi400: U-Boot autoboot line /Press SPACE to abort autoboot/ \(boot.autoboot\) never seen within 3 s .*last output: ' "$ablab" check "$bt/ubauto.json" --kernel "$fk"
sed 's|"tftpboot {ramdisk_addr} {ramdisk}"|"tftpboot {ramdisk_addr} {board}/missing.cpio.gz"|' boards/qemu-pi400.json >"$bt/ubtftp.json"
expect_err "TFTP of a missing file" "qemu-pi400: U-Boot command \`tftpboot 0x44000000 qemu-pi400/missing.cpio.gz\` \(boot.commands\[4\]\) failed: TFTP error: 'File not found'" "$ablab" check "$bt/ubtftp.json" --kernel "$fk"

pk=$kcache/kernels/qemu-pi400/control
if [ -f "$pk/manifest.json" ]; then
	out=$("$ablab" check qemu-pi400 2>&1); rc=$?
	echo "$out" | tail -n 2
	rel=$(sed -E 's/.*"release": *"([^"]+)".*/\1/' <(tr -d '\n' <"$pk/manifest.json"))
	check "qemu-pi400 boots its kernel through U-Boot + TFTP to the shell (uname -r $rel)" bash -c "[ $rc = 0 ] && grep -q 'uname -r = $rel' <<<'$out'"
	log=$(ls -t "$ABLAB_DATA"/health/qemu-pi400-*.log | head -n 1)
	check "  ... transcript: bootz, Starting kernel, shell" bash -c "grep -q '=> bootz' '$log' && grep -q 'Starting kernel' '$log' && grep -q 'lab# ' '$log'"
	# a kernel that cannot find init panics; QEMU reboots into U-Boot: a board reset
	sed -e 's/, "-no-reboot"//' -e 's/"fail_patterns": \[[^]]*\]/"fail_patterns": []/' \
	    -e 's|rdinit=/init panic=-1|rdinit=/nope init=/nope panic=1|' boards/qemu-pi400.json >"$bt/ubreset.json"
	expect_err "U-Boot banner after Starting kernel = board reset" 'qemu-pi400: board reset after the kernel was started \(boot.reset_patterns "\^U-Boot 20\[0-9\]\[0-9\]"\): U-Boot 20' "$ablab" check "$bt/ubreset.json"
else
	skip "qemu-pi400 end to end: no kernel in $pk yet (make kernels BOARDS=qemu-pi400)"
fi

echo "== health check of an emulated board, tcp console to QEMU's socket"
if [ -f "$ctl/manifest.json" ]; then
	out=$("$ablab" check qemu-sam9x75 2>&1); rc=$?
	echo "$out" | tail -n 1
	rel=$(sed -E 's/.*"release": *"([^"]+)".*/\1/' <(tr -d '\n' <"$ctl/manifest.json"))
	check "health check qemu-sam9x75 ok, uname -r $rel" bash -c "[ $rc = 0 ] && grep -q 'uname -r = $rel' <<<'$out'"
	check "health stored" test "$(psql_q "SELECT ok::text || ' ' || uname_r FROM health WHERE board = 'qemu-sam9x75' ORDER BY id DESC LIMIT 1")" = "true $rel"
	check "ablab boards shows the last health result" bash -c "'$ablab' boards 2>&1 | grep -A3 '^qemu-sam9x75' | grep -Eq 'health +ok .*\($rel\)'"
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	sed -e "s|\"console\": { \"type\": \"tty\", \"device\": \"qemu:serial0\" }|\"console\": { \"type\": \"tcp\", \"host\": \"127.0.0.1\", \"port\": $port }|" \
	    -e "s|\"-serial\", \"pty\"|\"-serial\", \"tcp:127.0.0.1:$port,server=on,wait=off\"|" boards/qemu-sam9x75.json >"$bt/sam-tcp.json"
	out=$("$ablab" check "$bt/sam-tcp.json" 2>&1); rc=$?
	echo "$out" | tail -n 1
	check "health check through a tcp console (QEMU -serial tcp:...,server)" bash -c "[ $rc = 0 ] && grep -q 'uname -r = $rel' <<<'$out'"
	# a board that boots another kernel than the one deployed: a failure,
	# never an "ok" line (it used to print "ok: ... (NOT the kernel deployed)")
	cp -a "$(readlink -f "$ctl")" "$bt/wrongrel"
	sed -i "s/\"release\": *\"$rel\"/\"release\": \"6.1.0-not-this-one\"/" "$bt/wrongrel/manifest.json"
	"$ablab" check qemu-sam9x75 --kernel "$bt/wrongrel" >"$bt/wrongrel.out" 2>&1; rc=$?
	tail -n 1 "$bt/wrongrel.out" | cut -c1-160
	check "health check of another kernel than deployed: exit 1, no ok line, both releases named" bash -c \
		"[ $rc = 1 ] && ! grep -q ': ok:' '$bt/wrongrel.out' && grep -q 'health check FAILED: wrong kernel: uname -r = $rel, the kernel deployed is 6.1.0-not-this-one' '$bt/wrongrel.out'"
else
	skip "no qemu-sam9x75 kernel in $ctl (make kernels)"
fi
