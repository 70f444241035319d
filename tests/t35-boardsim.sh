# SPDX-License-Identifier: GPL-2.0-only
# The board simulator itself (tests/boardsim.c, tests/boardsim.md): real
# ptys, a real TCP console, power through `boardsim ctl`; a python3 client
# reads with select() and deadlines and checks the banner, U-Boot, the shell,
# dmabench lines against the simulator's record, every fault knob, and the
# speed of 100 power cycles.  The board is a fake by nature: this machine has
# no boards that panic on request.
bs=${BOARDSIM:-$top/build/boardsim}	# BOARDSIM=... tests another build (ASan)
if [ ! -x "$bs" ]; then
	bad "boardsim: $bs is not built (make build/boardsim)"
else
python3 - "$bs" "$tmp/boardsim" >"$tmp/boardsim.out" 2>&1 <<'EOF'
import atexit, os, re, select, signal, socket, subprocess, sys, time, tty

BS, D = sys.argv[1], sys.argv[2]
os.makedirs(D, exist_ok=True)
V1 = {
    'start': rb'dmabench: v1 start clock_res_ns=\d+ timing=auto batches=(\d+) scenarios=(\d+)',
    'result': rb'dmabench: v1 result scenario=([A-Za-z0-9-]+) batch=(\d+) size=(\d+) reps=(\d+) '
              rb'dir=from op=(map_unmap|null) state=(dirty|clean) timing=iter mean_ns=(\d+) '
              rb'min_ns=(\d+) max_ns=(\d+) ns_per_KiB=(\d+)',
    'preserve': rb'dmabench: v1 preserve scenario=preserve-409600B batch=(\d+) size=409600 '
                rb'lost=(\d+)',
    'done': rb'dmabench: v1 done status=(-?\d+) results=(\d+)',
}


def ok(m):
    print('ok', m, flush=True)


def check(cond, m, detail=''):
    print('ok' if cond else 'bad', m + ('' if cond or not detail else ': ' + detail), flush=True)


SIMS = []


@atexit.register
def stop_all():
    """A driver that dies half-way leaves no simulator running."""
    for pid in SIMS:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


class Sim:
    def __init__(self, name, *args):
        self.d = f'{D}/{name}'
        os.makedirs(self.d)
        self.ctl, self.link, self.rec = f'{self.d}/ctl', f'{self.d}/console', f'{self.d}/record'
        subprocess.run([BS, 'run', '--ctl', self.ctl, '--pty-link', self.link, '--record',
                        self.rec, '--daemon', '--pid-file', f'{self.d}/pid', *args],
                       check=True, stderr=open(f'{self.d}/stderr', 'w'))
        self.pid = int(open(f'{self.d}/pid').read())
        SIMS.append(self.pid)
        self.fd, self.buf, self.pos, self.sock = None, b'', 0, None

    def c(self, *a):
        r = subprocess.run([BS, 'ctl', self.ctl, *a], capture_output=True, text=True)
        return r.returncode, r.stdout.strip(), r.stderr.strip()

    def on(self, *a, attach=True):
        rc, out, err = self.c('on', *a)
        if rc:
            raise RuntimeError(f'ctl on: {err}')
        if attach:
            self.attach()
        return out

    def off(self):
        if self.c('off')[0]:
            raise RuntimeError('ctl off failed')

    def cycle(self, *a):
        self.off()
        return self.on(*a)

    def attach(self):
        """Opens the console as the agent does: O_NONBLOCK, raw, no flush."""
        if self.fd is not None:
            os.close(self.fd)
        self.fd = os.open(self.link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd, tty.TCSANOW)
        self.buf, self.pos = b'', 0

    def read_until(self, pred, t):
        """Reads until pred(buf) or the deadline; False on timeout or EIO."""
        end = time.monotonic() + t
        while not pred(self.buf):
            left = end - time.monotonic()
            if left <= 0:
                return False
            src = self.sock if self.sock else self.fd
            if not select.select([src], [], [], left)[0]:
                continue
            try:
                data = src.recv(65536) if self.sock else os.read(self.fd, 65536)
            except BlockingIOError:
                continue
            except OSError:
                return False
            if not data:
                return False
            self.buf += data
        return True

    def expect(self, pat, t=3.0):
        r = re.compile(pat, re.M)
        found = []

        def pred(b):
            m = r.search(b, self.pos)
            if m:
                found.append(m)
            return bool(m)
        if not self.read_until(pred, t):
            return None
        self.pos = found[0].end()
        return found[0]

    def send(self, s):
        data = s.encode() if isinstance(s, str) else s
        if self.sock:
            self.sock.sendall(data)
        else:
            os.write(self.fd, data)

    def shell(self, key=True):
        """From power-on to the shell prompt, through U-Boot's prompt if key."""
        if key:
            if not self.expect(rb'Hit any key to stop autoboot: +\d'):
                return False
            self.send(' ')
            if not self.expect(rb'^=> '):
                return False
            self.send('tftpboot 0x22000000 zImage; bootz 0x22000000 - 0x21000000\n')
        return self.expect(rb'lab# ', 5.0) is not None

    def run(self, cmd, n, t=5.0):
        """Runs cmd between markers, as agent/backend/target.c does; (status, out)."""
        self.send(f"echo ABLAB''_B_t_{n}; {cmd}; echo ABLAB''_E_t_{n} $?\n")
        b = self.expect(rb'^ABLAB_B_t_%d\r?\n' % n, t)
        e = b and self.expect(rb'^ABLAB_E_t_%d (\d+)\r?\n' % n, t)
        if not e:
            return None, self.buf[b.end() if b else self.pos:]
        out = self.buf[b.end():e.start()]
        self.expect(rb'lab# ', t)
        return int(e.group(1)), out

    def records(self, boot):
        return [l.split(' ', 2)[2] for l in open(self.rec).read().splitlines()
                if l.startswith(f'boot {boot} dmabench: ')]

    def status(self):
        rc, out, _ = self.c('status')
        return dict(kv.split('=', 1) for kv in out.split()) if rc == 0 else {}

    def quit(self):
        pidfd = os.pidfd_open(self.pid)
        self.c('quit')
        gone = bool(select.select([pidfd], [], [], 5.0)[0])
        os.close(pidfd)
        if self.fd is not None:
            os.close(self.fd)
        return gone


def dmabench(out):
    """The dmabench lines of a dmesg output, timestamps cut off."""
    lines = re.split(rb'\r\n|\r|\n', out)
    return [l[l.index(b'dmabench: '):].decode() for l in lines if b'dmabench: ' in l]


def boot_values(sim, boot, batches, n):
    """Boots to the shell, runs the module; the dmabench lines of dmesg."""
    st, _ = sim.run('dmesg -n 1', n)
    st2, out = sim.run(f'insmod /lib/modules/dmabench.ko batches={batches} 2>&1', n + 1)
    st3, dm = sim.run('dmesg', n + 2)
    return st, st2, out, dmabench(dm)


# 1. banner, U-Boot, kernel, shell, markers
a = Sim('basic', '--tick-ms', '200')
check(a.status().get('state') == 'off' and os.path.islink(a.link), 'starts powered off, pty link published')
a.on('--variant', 'control')
check(a.expect(rb'^U-Boot SPL 2023\.01 ') is not None, 'SPL banner')
check(a.expect(rb'^U-Boot 2023\.01 \(') is not None, 'U-Boot banner')
check(a.expect(rb'Hit any key to stop autoboot:  3') is not None, 'autoboot countdown')
a.send(' ')
check(a.expect(rb'^=> ') is not None, 'a key stops autoboot at the => prompt')
a.send('setenv autoload no\n')
a.expect(rb'^=> ')
a.send('dhcp\n')
check(a.expect(rb'DHCP client bound to address [0-9.]+') is not None, 'dhcp')
a.send('tftpboot 0x22000000 control/zImage\n')
check(a.expect(rb'Bytes transferred = (\d+) \(([0-9a-f]+) hex\)') is not None, 'tftpboot')
a.send('setenv initrd_size ${filesize}; printenv initrd_size\n')
check(a.expect(rb'^initrd_size=480000\r\n') is not None, 'setenv with ${filesize}, printenv')
a.send('frobnicate\n')
check(a.expect(rb"Unknown command 'frobnicate' - try 'help'") is not None, 'unknown U-Boot command')
a.send('bootz 0x22000000 - 0x21000000\n')
sk = a.expect(rb'^Starting kernel \.\.\.')
ri = a.expect(rb'Run /init as init process', 3)
check(bool(sk and ri and ri.start() - sk.end() > 8192), 'kernel log burst of more than 8 KiB',
      f'{ri.start() - sk.end() if sk and ri else None} bytes')
check(a.expect(rb'lab# ') is not None, 'shell prompt')
a.send("echo ABLAB''_S_x_1\n")
m = a.expect(rb"echo ABLAB''_S_x_1\r\nABLAB_S_x_1\r\nlab# ")
check(m is not None, "the shell echoes input; echo removes '' quotes")
st, out = a.run('false', 2)
check(st == 1 and out == b'', '$? after false is 1', f'{st} {out!r}')
st, out = a.run('true; echo  one   two; nosuchcmd', 3)
check(st == 127 and out == b'one two\r\n-sh: nosuchcmd: not found\r\n', '; sequences, not found = 127',
      repr(out))
st, out = a.run('uname -r', 4)
check(out == b'6.1.0-sim-control\r\n', 'uname -r', repr(out))
st, out = a.run('cat /proc/version', 5)
check(out.startswith(b'Linux version 6.1.0-sim-control (boardsim@lab)'), 'cat /proc/version')

# 2. the module: exact v1 lines, console quiet after dmesg -n 1, record equal
st, st2, out, lines = boot_values(a, 1, 3, 10)
check(st == 0 and st2 == 0 and b'dmabench' not in out, 'insmod exit 0, nothing on the console after dmesg -n 1',
      f'{st2} {out[:200]!r}')
kinds = {k: [re.fullmatch(p, l.encode()) for l in lines] for k, p in V1.items()}
counts = {k: sum(1 for x in v if x) for k, v in kinds.items()}
check(counts == {'start': 1, 'result': 12, 'preserve': 3, 'done': 1} and len(lines) == 17,
      'dmesg: start, 4 scenarios x 3 batches, 3 preserve, done (exact format)', f'{counts} {lines[:3]}')
check(lines[0].endswith('batches=3 scenarios=4') and lines[-1] == 'dmabench: v1 done status=0 results=15',
      'start and done lines', f'{lines[0]} / {lines[-1]}')
res = [x for x in kinds['result'] if x]
mm = all(int(x.group(8)) <= int(x.group(7)) <= int(x.group(9)) for x in res)
kib = all(int(x.group(10)) == (int(x.group(7)) * 1024 // int(x.group(3)) if int(x.group(3)) else 0) for x in res)
check(mm and kib, 'min <= mean <= max, ns_per_KiB = mean*1024/size')
lost = [int(x.group(2)) for x in kinds['preserve'] if x]
check(all(320000 < v < 360000 for v in lost), 'control loses ~340000 of 409600 bytes', str(lost))
check(a.records(1) == lines, 'dmesg lines equal the --record file of boot 1')
st, out = a.run('insmod /lib/modules/dmabench.ko batches=3', 13)
check(st == 1 and b'File exists' in out, 'a second insmod: File exists')
st, out = a.run('rmmod dmabench; insmod /lib/modules/dmabench.ko batches=0', 14)
check(st == 1 and b'Invalid argument' in out, 'batches=0 refused', repr(out))

# 3. patched via ctl, autoboot without a key
a.cycle('--variant', 'patched')
check(a.shell(key=False), 'autoboot reaches the shell')
st, out = a.run('uname -r', 1)
check(out == b'6.1.0-sim-patched\r\n', 'uname -r of the patched variant', repr(out))
_, _, _, lines = boot_values(a, 2, 2, 2)
check([l for l in lines if 'preserve' in l] ==
      [f'dmabench: v1 preserve scenario=preserve-409600B batch={b} size=409600 lost=0' for b in (1, 2)],
      'patched loses nothing')
a.cycle()
a.expect(rb'Hit any key')
a.send(' ')
a.expect(rb'^=> ')
a.send('tftpboot 0x22000000 kernels/patched/zImage; bootz 0x22000000\n')
a.expect(rb'lab# ', 5)
st, out = a.run('uname -r', 1)
check(out == b'6.1.0-sim-patched\r\n', 'variant taken from the TFTP file name when power-on names none',
      repr(out))
check(a.quit() and not os.path.lexists(a.link) and not os.path.exists(a.ctl),
      'quit: exits, removes the pty link and the socket')

# 4. values: seeded, between/within spread, A/B effect
def run_boots(sim, variant, n, batches=2):
    means = []
    for i in range(n):
        sim.cycle('--variant', variant) if i or sim.status()['state'] != 'off' else sim.on('--variant', variant)
        sim.expect(rb'lab# ', 5)
        st, out = sim.run(f'dmesg -n 1; insmod /lib/modules/dmabench.ko batches={batches}', 1)
        boot = int(sim.status()['boot'])
        v = [int(re.search(r'mean_ns=(\d+)', l).group(1)) for l in sim.records(boot)
             if 'scenario=small-dirty-256B' in l]
        means.append(sum(v) / len(v))
    return means


e1 = Sim('seed1', '--direct', '--seed', '7', '--effect', 'small-dirty-256B=0.5')
e2 = Sim('seed2', '--direct', '--seed', '7')
e3 = Sim('seed3', '--direct', '--seed', '8')
v1, v2, v3 = run_boots(e1, 'control', 3), run_boots(e2, 'control', 3), run_boots(e3, 'control', 3)
check(v1 == v2 and v1 != v3, 'same seed, same values; another seed, other values', f'{v1} {v2} {v3}')
p1 = run_boots(e1, 'patched', 8)
c1 = run_boots(e1, 'control', 8)
ratio = (sum(p1) / len(p1)) / (sum(c1) / len(c1))
check(1.45 < ratio < 1.55 and max(c1) < min(p1), 'configured A/B effect +50% appears', f'ratio {ratio:.3f}')
sd = (sum((x - sum(c1) / 8) ** 2 for x in c1) / 7) ** 0.5 / (sum(c1) / 8)
check(0.003 < sd < 0.03, 'between-boot spread ~1%', f'{sd:.4f}')
for s in (e1, e2, e3):
    s.quit()

# 5. fault knobs, one power-on each
f = Sim('faults', '--tick-ms', '1', '--klog-bytes', '4096')
f.on('--fault', 'uboot-hang')
check(f.expect(rb'^U-Boot 2023\.01') is not None and f.expect(rb'Hit any key', 0.3) is None,
      'uboot-hang: banner, then silence')
f.cycle('--fault', 'kernel-hang')
check(f.expect(rb'Starting kernel \.\.\.') is not None and f.expect(rb'Booting Linux|lab# ', 0.3) is None,
      'kernel-hang: silence after Starting kernel')
f.cycle('--fault', 'panic-boot')
check(f.expect(rb'Kernel panic - not syncing: VFS') is not None and f.expect(rb'lab# ', 0.3) is None,
      'panic-boot: panic, no prompt')
f.cycle('--fault', 'panic-run')
f.shell(key=False)
st, out = f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=4', 1, t=0.5)
check(st is None and b'Kernel panic - not syncing: Fatal exception' in out, 'panic-run: panic during insmod, no exit status')
for kind, pat, console in (('oops', b'Internal error: Oops', True),
                           ('bug', b'BUG: sleeping function', False),
                           ('warn', b'WARNING: CPU: 0', False)):
    f.cycle('--fault', kind)
    f.shell(key=False)
    st, out = f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=4', 1)
    st2, dm = f.run('dmesg', 2)
    check(st == 0 and pat in dm and b'done status=0 results=20' in dm and (pat in out) == console,
          f'{kind}: {pat.decode()} in dmesg{" and on the console" if console else ""}, '
          'the run completes', f'{st}')
f.cycle('--fault', 'reset')
f.shell(key=False)
boot = int(f.status()['boot'])
st, out = f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=4', 1, t=0.5)
check(st is None and re.search(rb'U-Boot SPL 2023\.01', out), 'reset: U-Boot SPL banner in the middle of the benchmark')
check(f.expect(rb'lab# ', 3) is not None and int(f.status()['boot']) == boot + 1,
      'reset: the board boots again by itself (boot count +1)')
f.off()
f.on('--fault', 'garbage,nul,ansi,crlf')
f.shell(key=False)
f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=1', 1)
st, dm = f.run('dmesg', 2)
spl = f.buf.index(b'U-Boot SPL')
check(re.search(rb'[\x80-\xff]{16}', f.buf[:spl]) is not None and b'\0' in f.buf[:spl],
      'garbage and nul: high bytes and NULs before the banner')
check(re.search(rb'\x00[^\r\n]*ns_per_KiB', dm) is not None, 'nul: NUL bytes inside dmesg lines')
check(b'lab# \x1b[6n' in f.buf and b'\x1b[0;32m' in f.buf, 'ansi: ESC[6n after the prompt, colours')
check(b'Run /init as init process\r\r\n' in f.buf, 'crlf: CR CR LF line ends')
f.cycle('--fault', 'cr')
f.expect(rb'lab# ', 3)
check(re.search(rb'\] Booting Linux on physical CPU 0x0\r\[', f.buf) is not None,
      'cr: lone CR line ends')
f.cycle('--fault', 'split')
f.shell(key=False)
f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=2', 1)
st, dm = f.run('dmesg', 2)
check(re.search(rb'dmabench: v1 result [^\r\n]*\r\n\[[ .0-9]+\] usb 1-1: USB disconnect[^\r\n]*\r\n[a-z]', dm)
      is not None, 'split: a dmabench line cut by interleaved printk text')
f.cycle('--fault', 'burst')
t0 = time.monotonic()
sk = f.expect(rb'Starting kernel')
ri = f.expect(rb'Run /init as init process\r\n\r\nBusyBox[^\n]*\n\r\nlab# ', 10)
check(bool(sk and ri and ri.start() - sk.end() >= 1 << 20), '1 MiB burst with the prompt right after it',
      f'{(ri.start() - sk.end()) if sk and ri else None} bytes in {time.monotonic() - t0:.2f} s')
f.cycle('--fault', 'modfail')
f.shell(key=False)
st, out = f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=4 2>&1', 1)
st2, dm = f.run('dmesg', 2)
check(st == 1 and out == b"insmod: can't insert '/lib/modules/dmabench.ko': Cannot allocate memory\r\n"
      and b'dmabench: v1 done status=-12 results=0 error=ENOMEM' in dm, 'modfail: insmod exit 1, ENOMEM', repr(out))
f.cycle('--fault', 'corrupt')
f.shell(key=False)
f.run('dmesg -n 1; insmod /lib/modules/dmabench.ko batches=4', 1)
st, dm = f.run('dmesg', 2)
bad_lines = re.findall(rb'mean_ns=\d+x\d+ ', dm)
check(len(bad_lines) == 1, 'corrupt: one line with mean_ns=NNxN', repr(bad_lines))
f.cycle('--fault', 'slow')
t0 = time.monotonic()
f.expect(rb'U-Boot SPL')
f.read_until(lambda b: len(b) >= 300, 5)
dt = time.monotonic() - t0
check(0.25 <= dt < 1.5, 'slow: about 1 byte/ms', f'300 bytes in {dt:.3f} s')
f.off()
rc, _, err = f.c('on', '--fault', 'explode')
check(rc == 1 and 'unknown fault' in err and 'panic-run' in err, 'ctl: unknown fault refused, kinds listed', err)
rc, _, err = f.c('on', '--variant', 'beta')
check(rc == 1 and 'bad argument' in err, 'ctl: unknown variant refused', err)
r = subprocess.run([BS, 'ctl', f'{D}/nosuch', 'on'], capture_output=True, text=True)
check(r.returncode == 1 and 'is `boardsim run' in r.stderr, 'ctl: no simulator there: exit 1, clear message',
      r.stderr.strip())
f.quit()

# 6. the adapter vanishes with the power; a schedule of faults; ctl arm
g = Sim('vanish', '--tick-ms', '1', '--fault', 'vanish', '--fault', '3:panic-boot')
check(not os.path.lexists(g.link), 'vanish: no pty while off')
pts = g.on()
check(g.shell(key=False), 'vanish: the pty appears at power on')
g.off()
gone = not os.path.lexists(g.link)
try:
    eio = bool(select.select([g.fd], [], [], 2)[0]) and os.read(g.fd, 100) == b''
except OSError:
    eio = True
check(gone and eio, 'vanish: power off removes the link; the open console gets EOF/EIO')
g.on()
check(g.shell(key=False), 'vanish: reopened after power on, boots again')
g.off()
g.on()
check(g.expect(rb'Kernel panic', 3) is not None and g.expect(rb'lab# ', 0.3) is None,
      '--fault 3:panic-boot: power-on 3 panics')
g.off()
g.c('arm', 'modfail')
g.on()
g.shell(key=False)
st, out = g.run('insmod /lib/modules/dmabench.ko', 1)
check(st == 1 and b'Cannot allocate memory' in out, 'ctl arm: the next power-on gets the fault')
g.cycle()
g.shell(key=False)
st, out = g.run('insmod /lib/modules/dmabench.ko batches=1', 1)
check(st == 0, 'the retry after it boots clean')
g.quit()

# 7. a TCP console next to the pty
t = Sim('tcp', '--tcp', '0', '--tick-ms', '100')
port = int(t.status()['tcp'])
t.sock = socket.create_connection(('127.0.0.1', port))
t.on(attach=False)
check(t.shell(key=True), 'tcp console: banner, key, U-Boot, shell over TCP')
st, out = t.run('uname -r', 1)
check(out == b'6.1.0-sim-control\r\n', 'tcp console: commands run')
t.sock.close()
t.sock = None
t.quit()

# 8. speed: 100 power cycles with U-Boot, kernel and shell each
s = Sim('speed', '--tick-ms', '0')
t0 = time.monotonic()
n = 0
for i in range(100):
    s.on()
    n += s.expect(rb'lab# ', 3) is not None
    s.off()
dt = time.monotonic() - t0
check(n == 100 and dt < 10, f'100 power cycles to the shell prompt', f'{n} prompts')
ok(f'100 power cycles took {dt:.2f} s')
check(s.quit(), 'quit after 100 cycles')
EOF
rc=$?
while read -r kind msg; do
	case $kind in
	ok) ok "boardsim: $msg" ;;
	bad) bad "boardsim: $msg" ;;
	*) echo "  $kind $msg" ;;
	esac
done <"$tmp/boardsim.out"
[ $rc = 0 ] || bad "boardsim: the test driver exited $rc (output above)"
fi

# A whole `ablab ab` campaign against the simulator: command power backend
# (boardsim ctl), U-Boot with TFTP from a real directory, the tty console on
# the pty link.  The fake kernel images carry their "Linux version" banner in
# clear, so the simulator boots the variant the agent deployed; every stored
# value must equal the one the simulator emitted (its --record file).
if [ -x "$bs" ]; then
	w=$tmp/boardsim-ab
	mkdir -p "$w/tftp"
	for v in control patched; do
		mkdir -p "$w/k/$v"
		printf '{"board":"boardsim-t35","variant":"%s","release":"6.1.0-sim-%s"}\n' $v $v \
			>"$w/k/$v/manifest.json"
		printf 'zImage\0Linux version 6.1.0-sim-%s (boardsim@lab) #1\n' $v >"$w/k/$v/zImage"
		echo initramfs >"$w/k/$v/initramfs.cpio.gz"
		echo dtb >"$w/k/$v/sim.dtb"
		echo ko >"$w/k/$v/dmabench.ko"
	done
	sed -e "s|@BS@|$bs|g" -e "s|@W@|$w|g" >"$w/board.json" <<'JSON'
{
  "name": "boardsim-t35",
  "description": "tests/boardsim.c behind the command power backend",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "console": { "type": "tty", "device": "@W@/console" },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"] },
  "boot": {
    "method": "uboot",
    "tftp_root": "@W@/tftp",
    "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot",
    "interrupt": " ",
    "prompt": "=> ",
    "commands": ["setenv autoload no", "dhcp", "setenv serverip {server_ip}",
                 "tftpboot {kernel_addr} {kernel}", "tftpboot {ramdisk_addr} {ramdisk}",
                 "setenv initrd_size ${filesize}", "tftpboot {dtb_addr} {dtb}",
                 "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init panic=-1",
    "fail_patterns": ["Kernel panic - not syncing", "Internal error: Oops", "Unable to handle kernel"]
  },
  "shell": { "prompt": "lab# ", "module_path": "/lib/modules/dmabench.ko" },
  "timeouts_s": { "power": 5, "bootloader": 5, "kernel": 10, "command": 20 },
  "retries": 1
}
JSON
	"$ablab" db start >/dev/null 2>&1
	if "$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
		--record "$w/record" --tick-ms 20 --seed 35 --daemon --pid-file "$w/pid" 2>"$w/sim.err"; then
		out=$("$ablab" ab --board "$w/board.json" --control "$w/k/control" \
			--patched "$w/k/patched" --boots 2 --undecidable-ok --batches 2 --results "$w/results" 2>&1)
		rc=$?
		echo "$out" | grep -E '^ablab: boardsim-t35|complete|failed' | sed 's/^/  /' | head -n 12
		check "boardsim: ablab ab on the simulator completes 2+2 boots" \
			test "$rc" = 0 -a -n "$(echo "$out" | grep -F 'boardsim-t35: 4 ok boot(s), 0 failed')"
		camp="(SELECT max(id) FROM campaigns)"
		check "boardsim: stored uname -r follows the deployed kernel" test \
			"$(psql_q "SELECT string_agg(variant || '=' || uname_r, ' ' ORDER BY seq) FROM boots
				   WHERE campaign_id = $camp AND status = 'ok'")" = \
			"control=6.1.0-sim-control patched=6.1.0-sim-patched control=6.1.0-sim-control patched=6.1.0-sim-patched"
		psql_q "SELECT b.variant, s.scenario, s.batch, coalesce(s.mean_ns::bigint, s.lost_bytes)
			FROM boots b JOIN samples s ON s.boot_id = b.id
			WHERE b.campaign_id = $camp AND b.status = 'ok'" | tr '|' ' ' | sort >"$w/stored"
		awk '$3 == "kernel" { v[$2] = substr($4, 9) }
		     $3 == "dmabench:" && ($5 == "result" || $5 == "preserve") {
			for (i = 6; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			print v[$2], f["scenario"], f["batch"], ($5 == "result" ? f["mean_ns"] : f["lost"])
		     }' "$w/record" | sort >"$w/emitted"
		check "boardsim: stored values equal the emitted ones ($(wc -l <"$w/stored") samples)" \
			test -s "$w/stored" -a -z "$(diff "$w/stored" "$w/emitted")"
		"$bs" ctl "$w/ctl" quit >/dev/null
	else
		bad "boardsim: cannot start the simulator: $(cat "$w/sim.err")"
	fi
fi
