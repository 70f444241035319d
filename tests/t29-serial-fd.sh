# lane: side
# Children cannot inherit the serial console (issue 27, Low: "a window in which children
# can inherit the serial fd").  libserialport 0.1.1 opens the UART without O_CLOEXEC; a
# fake libserialport (tests/fake_serialport.c, LD_PRELOAD) starts a child at the first
# call after its open, as another board thread's power command starting at that moment
# would, and records the descriptors the child inherited: the UART is not among them.
w=$tmp/serial-fd
mkdir -p "$w"
if ! cc -shared -fPIC -o "$w/fakesp.so" "$top/tests/fake_serialport.c" $(pkg-config --cflags libserialport) 2>"$w/cc.err"; then
	bad "serial fd: cannot build the fake libserialport: $(cat "$w/cc.err")"
	return 0
fi
sim_uboot_board sim-serial "$w"
: >"$w/uart"
sed -i "s|\"console\": {[^}]*}|\"console\": { \"type\": \"serial\", \"device\": \"$w/uart\" }|" "$w/board.json"
# the console command opens the port, then fails at termios (a plain file): the child
# ran inside the open, before that
FAKE_SP_FDS=$w/fds LD_PRELOAD=$w/fakesp.so ASAN_OPTIONS=$ASAN_OPTIONS:verify_asan_link_order=0 \
	timeout 20 "$ablab" console "$w/board.json" </dev/null >"$w/out" 2>&1
check "serial fd: the child started during the open listed its descriptors" test -s "$w/fds" ||
	sed 's/^/  /' "$w/out"
fault 27.24 "serial console: a child started right after libserialport's open does not inherit the UART ($(grep -c ' -> ' "$w/fds" 2>/dev/null) descriptors, $(grep -c " -> $w/uart" "$w/fds" 2>/dev/null) the UART)" \
	bash -c "[ -s '$w/fds' ] && ! grep -q ' -> $w/uart' '$w/fds'"
