#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The virtual lab's host side (tests/vlab/README.md): the "lab hardware".

Starts the x86_64 guest in QEMU (KVM when /dev/kvm is usable, TCG otherwise)
with an FTDI USB serial adapter (usb-serial on xhci, serial number
--usb-serial) whose other end is the emulated ARM board's console (the board
simulator, build/boardsim), and plays the relay: the guest's watcher
(tests/vlab/watch.py) reports the level of the gpio-sim line on the guest's
second serial port, and the board is on while the level is the active one
(--active-low: 0). Runs the guest script --run, waits for the guest to power
off and exits with the script's status (124 on --timeout, 125 on a rig
failure). Every relay change and power switch is a line in WORK/labhw.log:
  <ms> level 1
  <ms> power on         (or: power off)
With --vanish, the adapter is unplugged (QMP device_del) when the relay
switches the board off and plugged back (device_add) when it switches it on,
as a board-powered FTDI adapter would be.
"""
import argparse
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import tty

T0 = time.monotonic()
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ms():
    return int((time.monotonic() - T0) * 1000)


class Lab:
    def __init__(self, a):
        self.a = a
        self.w = os.path.abspath(a.work)
        self.log = open(os.path.join(self.w, "labhw.log"), "a", buffering=1)
        self.powered = False
        self.plugged = True
        self.level = None
        self.qmp = None
        self.pending_on = None
        self.qmp_buf = b""
        self.wire = None
        self.board = None
        self.bs_ctl = os.path.join(self.w, "bs.ctl")
        self.bytes_to_guest = 0
        self.bytes_to_board = 0
        self.trace = open(os.path.join(self.w, "wire.trace"), "w", buffering=1) if a.trace else None

    def traced(self, way, d):
        if self.trace:
            self.trace.write("%d %s %r\n" % (ms(), way, d))

    def note(self, msg):
        self.log.write("%d %s\n" % (ms(), msg))

    def listen(self, name):
        p = os.path.join(self.w, name)
        if os.path.exists(p):
            os.unlink(p)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(p)
        s.listen(1)
        return s, p

    def boardsim(self, *args):
        r = subprocess.run([self.a.boardsim, "ctl", self.bs_ctl] + list(args),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if r.returncode:
            self.note("boardsim ctl %s failed: %s" % (" ".join(args), r.stderr.strip()))
        return r.returncode == 0

    def open_board(self):
        link = os.path.join(self.w, "bs.pty")
        fd = os.open(link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd)
        self.board = fd

    def qmp_cmd(self, cmd, **args):
        msg = {"execute": cmd}
        if args:
            msg["arguments"] = args
        self.qmp.sendall(json.dumps(msg).encode() + b"\n")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            while b"\n" in self.qmp_buf:
                line, self.qmp_buf = self.qmp_buf.split(b"\n", 1)
                r = json.loads(line)
                if "return" in r or "error" in r:
                    return r
            d = self.qmp.recv(65536)
            if not d:
                break
            self.qmp_buf += d
        return {"error": "no QMP reply"}

    def usb_device(self):
        return dict(driver="usb-serial", id="ftdi", bus="xhci.0", chardev="wire",
                    serial=self.a.usb_serial)

    def plug(self):
        """device_add of the adapter; device_del is asynchronous, so a
        "Duplicate ID" means the old one is still going: retry for 5 s."""
        end = time.monotonic() + 5
        while True:
            r = self.qmp_cmd("device_add", **self.usb_device())
            if "error" not in r or time.monotonic() > end:
                break
            time.sleep(0.02)
        self.plugged = "error" not in r
        self.note("adapter plugged" if self.plugged else "device_add failed: %s" % r)

    def unplug(self):
        r = self.qmp_cmd("device_del", id="ftdi")
        self.plugged = "error" in r
        self.note("adapter unplugged" if not self.plugged else "device_del failed: %s" % r)

    def set_power(self, on):
        if on == self.powered:
            return
        if on and self.a.vanish and not self.plugged:
            self.plug()
            if self.a.rom_ms:
                # the SoC's boot ROM and SPL print nothing for a while after
                # power on: the board-powered adapter enumerates meanwhile
                self.pending_on = time.monotonic() + self.a.rom_ms / 1000
                self.powered = on
                self.note("power on (first console byte in %d ms)" % self.a.rom_ms)
                return
        self.pending_on = None
        self.boardsim("on" if on else "off")
        self.powered = on
        self.note("power %s" % ("on" if on else "off"))
        if not on and self.a.vanish and self.plugged:
            self.unplug()

    def relay_line(self, line):
        if line in ("vanish on", "vanish off"):
            # the guest's test switches the adapter's behaviour at run time
            self.a.vanish = line == "vanish on"
            self.note(line)
            if self.a.vanish and not self.powered and self.plugged:
                self.unplug()
            elif not self.a.vanish and not self.plugged:
                self.plug()
            return
        if not line.startswith("level "):
            self.note("relay: odd line %r" % line)
            return
        self.level = line.split()[1]
        self.note("level %s" % self.level)
        self.set_power(self.level == ("0" if self.a.active_low else "1"))

    def accel(self):
        if self.a.accel != "auto":
            return self.a.accel
        try:
            fd = os.open("/dev/kvm", os.O_RDWR)
            os.close(fd)
            return "kvm"
        except OSError:
            return "tcg"

    def banner(self, secs):
        """Whether the guest kernel printed its banner within secs."""
        end = time.monotonic() + secs
        path = os.path.join(self.w, "guest-console.log")
        while time.monotonic() < end:
            try:
                with open(path, "rb") as f:
                    if b"Linux version" in f.read():
                        return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def start_qemu(self, accel):
        a, w = self.a, self.w
        wire_l, wire_p = self.listen("wire.sock")
        relay_l, relay_p = self.listen("relay.sock")
        qmp_l, qmp_p = self.listen("qmp.sock")
        self.note("accel %s" % accel)
        append = ("console=ttyS0 earlyprintk=serial,ttyS0,115200 root=root rootfstype=9p "
                  "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro "
                  "init=%s/tests/vlab/init VLAB_WORK=%s VLAB_REPO=%s VLAB_RUN=%s VLAB_PULL=%s" %
                  (REPO, w, REPO, os.path.abspath(a.run),
                   "pull-up" if a.active_low else "pull-down"))
        cmd = [a.qemu, "-accel", accel, "-m", str(a.mem), "-smp", "1",
               "-nodefaults", "-no-user-config", "-nographic", "-no-reboot",
               "-kernel", a.kernel, "-append", append,
               "-fsdev", "local,id=root,path=/,security_model=passthrough,readonly=on,multidevs=remap",
               "-device", "virtio-9p-pci,fsdev=root,mount_tag=root",
               "-fsdev", "local,id=work,path=%s,security_model=passthrough" % w,
               "-device", "virtio-9p-pci,fsdev=work,mount_tag=work",
               # the checkout, read-only at its own path: under /tmp (a CI clone) the
               # guest's tmpfs on /tmp would hide it
               "-fsdev", "local,id=repo,path=%s,security_model=passthrough,readonly=on" % REPO,
               "-device", "virtio-9p-pci,fsdev=repo,mount_tag=repo",
               "-chardev", "file,id=con,path=%s" % os.path.join(w, "guest-console.log"),
               "-serial", "chardev:con",
               "-chardev", "socket,id=relay,path=%s" % relay_p,
               "-serial", "chardev:relay",
               "-chardev", "socket,id=wire,path=%s" % wire_p,
               "-device", "qemu-xhci,id=xhci",
               "-device", "usb-serial,id=ftdi,bus=xhci.0,chardev=wire,serial=%s" % a.usb_serial,
               "-chardev", "socket,id=qmp,path=%s" % qmp_p,
               "-mon", "chardev=qmp,mode=control"]
        if accel == "kvm":
            cmd[1:1] = ["-cpu", "host"]
        qemu = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=open(os.path.join(w, "qemu.log"), "w"),
                                stderr=subprocess.STDOUT)
        self.note("qemu pid %d" % qemu.pid)
        conns = {}
        for lsock, name in ((wire_l, "wire"), (relay_l, "relay"), (qmp_l, "qmp")):
            lsock.settimeout(30)
            try:
                conns[name], _ = lsock.accept()
            except socket.timeout:
                print("labhw: QEMU did not connect to %s (see %s/qemu.log)" % (name, w),
                      file=sys.stderr)
                qemu.kill()
                return None, None
            lsock.close()
        self.wire, relay, self.qmp = conns["wire"], conns["relay"], conns["qmp"]
        self.qmp_buf = b""
        self.qmp_cmd("qmp_capabilities")
        return qemu, relay

    def run(self):
        a, w = self.a, self.w
        for f in ("guest.rc", "guest.out", "guest-console.log"):
            if os.path.exists(os.path.join(w, f)):
                os.unlink(os.path.join(w, f))
        bs_args = [a.boardsim, "run", "--ctl", self.bs_ctl, "--pty-link",
                   os.path.join(w, "bs.pty"), "--daemon", "--pid-file",
                   os.path.join(w, "bs.pid")] + a.board_arg
        # not a pipe: the daemon keeps its stdout and stderr open
        with open(os.path.join(w, "boardsim.log"), "w") as f:
            r = subprocess.run(bs_args, stdin=subprocess.DEVNULL, stdout=f, stderr=f)
        if r.returncode:
            print("labhw: boardsim did not start (see %s/boardsim.log)" % w, file=sys.stderr)
            return 125
        self.open_board()
        accel = self.accel()
        qemu, relay = self.start_qemu(accel)
        if qemu and accel == "kvm" and not self.banner(a.kvm_probe):
            self.note("kvm: no kernel banner on the console in %d s: TCG instead" % a.kvm_probe)
            qemu.kill()
            qemu.wait()
            accel = "tcg"
            qemu, relay = self.start_qemu(accel)
        if not qemu:
            return 125
        relay_buf = b""
        # both directions buffered, every fd non-blocking: QEMU blocks its
        # main loop on a chardev write, so labhw must never stop reading
        self.wire.setblocking(False)
        to_board = b""
        to_guest = b""
        deadline = time.monotonic() + a.timeout
        rc = None
        while rc is None:
            if qemu.poll() is not None:
                break
            left = deadline - time.monotonic()
            if left <= 0:
                self.note("timeout after %d s: killing QEMU" % a.timeout)
                qemu.kill()
                qemu.wait()
                rc = 124
                break
            rfds = [relay]
            if len(to_board) < 65536:
                rfds.append(self.wire)
            if len(to_guest) < 65536:
                rfds.append(self.board)
            wfds = ([self.wire] if to_guest else []) + ([self.board] if to_board else [])
            if self.pending_on is not None and time.monotonic() >= self.pending_on:
                self.pending_on = None
                self.boardsim("on")
                self.note("board console starts")
            wait = min(left, 0.5)
            if self.pending_on is not None:
                wait = max(0, min(wait, self.pending_on - time.monotonic()))
            rd, wr, _ = select.select(rfds, wfds, [], wait)
            if relay in rd:
                d = relay.recv(4096)
                if not d:
                    break
                relay_buf += d
                while b"\n" in relay_buf:
                    line, relay_buf = relay_buf.split(b"\n", 1)
                    self.relay_line(line.decode(errors="replace").strip())
            if self.wire in rd:
                try:
                    d = self.wire.recv(65536)
                except BlockingIOError:
                    d = None
                if d == b"":
                    break
                if d:
                    self.bytes_to_board += len(d)
                    self.traced(">", d)
                    to_board += d
            if self.board in rd:
                try:
                    d = os.read(self.board, 65536)
                except OSError:
                    d = b""
                if d:
                    self.bytes_to_guest += len(d)
                    self.traced("<", d)
                    to_guest += d
            if self.wire in wr:
                try:
                    n = self.wire.send(to_guest)
                    to_guest = to_guest[n:]
                except BlockingIOError:
                    pass
            if self.board in wr:
                try:
                    n = os.write(self.board, to_board)
                    to_board = to_board[n:]
                except BlockingIOError:
                    pass
        try:
            qemu.wait(timeout=30)
        except subprocess.TimeoutExpired:
            qemu.kill()
            qemu.wait()
        self.boardsim("quit")
        self.note("guest exited; console bytes to guest %d, to board %d" %
                  (self.bytes_to_guest, self.bytes_to_board))
        if rc is None:
            try:
                with open(os.path.join(w, "guest.rc")) as f:
                    rc = int(f.read().strip())
            except (OSError, ValueError):
                print("labhw: the guest left no guest.rc (see %s/guest-console.log)" % w,
                      file=sys.stderr)
                rc = 125
        self.note("exit %d" % rc)
        return rc


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernel", required=True)
    p.add_argument("--work", required=True, help="directory shared read-write with the guest")
    p.add_argument("--run", required=True, help="script the guest runs (sh)")
    p.add_argument("--boardsim", default=os.path.join(REPO, "build/boardsim"))
    p.add_argument("--board-arg", action="append", default=[],
                   help="extra argument of `boardsim run` (repeat)")
    p.add_argument("--active-low", action="store_true")
    p.add_argument("--usb-serial", default="ABLAB0001")
    p.add_argument("--vanish", action="store_true")
    p.add_argument("--rom-ms", type=int, default=0,
                   help="with --vanish: ms from power on (adapter plugged) to the board's first byte")
    p.add_argument("--trace", action="store_true",
                   help="every console chunk in WORK/wire.trace (> to the board, < to the guest)")
    p.add_argument("--accel", default="auto", choices=["auto", "kvm", "tcg"])
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--kvm-probe", type=int, default=15,
                   help="seconds for the kernel banner under KVM before falling back to TCG")
    p.add_argument("--mem", type=int, default=768)
    p.add_argument("--timeout", type=int, default=300)
    a = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(Lab(a).run())


if __name__ == "__main__":
    main()
