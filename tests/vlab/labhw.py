#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The virtual lab's host side (tests/vlab/README.md): the "lab hardware".

Starts the x86_64 guest in QEMU (KVM when /dev/kvm is usable, TCG otherwise)
with an FTDI USB serial adapter (usb-serial on xhci, serial number
--usb-serial) whose other end is the emulated ARM board's console, and plays
the relay. Two boards are behind the wire: the board simulator
(build/boardsim, for the fault cases) and, with --arm-board FILE, the real
QEMU ARM board that board file describes (its power.binary and power.args,
U-Boot and all; its serial port is labhw's socket WORK/arm.sock instead of a
pty, {tftp_root} is WORK/tftp). The guest picks one with a line "board sim"
or "board arm" on its second serial port while the board is off; "sim" at
start. The ARM board's power on starts its QEMU, power off kills it (a board
that resets by itself, QEMU -no-reboot, stays off until the next power on).
The relay: the guest's watcher
(tests/vlab/watch.py) reports the level of the gpio-sim line on the guest's
second serial port, and the board is on while the level is the active one
(--active-low: 0). Runs the guest script --run, waits for the guest to power
off and exits with the script's status (124 on --timeout, 125 on a rig
failure). Every relay change and power switch is a line in WORK/labhw.log:
  <ms> level 1
  <ms> power on         (or: power off)
With --vanish, the adapter is unplugged (QMP device_del) when the relay
switches the board off and plugged back (device_add) when it switches it on,
as a board-powered FTDI adapter would be. Other lines the guest may send on
its second serial port: "vanish on|off", "rom-ms N" (with --vanish: the
board's first byte N ms after the adapter is plugged), "plug-ms N" (with
--vanish: the adapter enumerates N ms after the board starts, which then
prints into a wire nobody reads: a slow adapter or USB hub).
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


class SimBoard:
    """The board simulator: a daemon with a pty (its console) and a control
    socket (power)."""
    name = "sim"

    def __init__(self, lab):
        self.lab = lab
        self.fd = None

    def start(self):
        a, w = self.lab.a, self.lab.w
        bs_args = [a.boardsim, "run", "--ctl", self.lab.bs_ctl, "--pty-link",
                   os.path.join(w, "bs.pty"), "--daemon", "--pid-file",
                   os.path.join(w, "bs.pid")] + a.board_arg
        # not a pipe: the daemon keeps its stdout and stderr open
        with open(os.path.join(w, "boardsim.log"), "w") as f:
            r = subprocess.run(bs_args, stdin=subprocess.DEVNULL, stdout=f, stderr=f)
        if r.returncode:
            print("labhw: boardsim did not start (see %s/boardsim.log)" % w, file=sys.stderr)
            return False
        fd = os.open(os.path.join(w, "bs.pty"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd)
        self.fd = fd
        return True

    def on(self):
        self.lab.boardsim("on")

    def off(self):
        self.lab.boardsim("off")

    def eof(self):
        pass

    def quit(self):
        self.lab.boardsim("quit")


class ArmBoard:
    """A real QEMU ARM board as its board file describes it (power type
    qemu), its serial port on labhw's socket: powered while its QEMU runs."""
    name = "arm"

    def __init__(self, lab, board_file):
        self.lab = lab
        self.fd = None
        self.proc = None
        self.conn = None
        with open(board_file) as f:
            pw = json.load(f)["power"]
        self.path = os.path.join(lab.w, "arm.sock")
        self.listener = lab.listen("arm.sock")[0]
        args, i = [], 0
        while i < len(pw["args"]):
            x = pw["args"][i].replace("{tftp_root}", os.path.join(lab.w, "tftp"))
            if x == "-serial" and i + 1 < len(pw["args"]):
                args += ["-chardev", "socket,id=con,path=%s" % self.path, "-serial",
                         "chardev:con"]
                i += 2
                continue
            args.append(x)
            i += 1
        self.cmd = [pw.get("binary", "qemu-system-arm")] + args
        self.starts = 0

    def start(self):
        return True

    def on(self):
        self.starts += 1
        log = open(os.path.join(self.lab.w, "arm-qemu.log"), "a")
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=subprocess.STDOUT)
        self.listener.settimeout(30)
        try:
            self.conn, _ = self.listener.accept()
        except socket.timeout:
            self.lab.note("arm board: QEMU did not connect its serial port in 30 s "
                          "(see arm-qemu.log)")
            self.off()
            return
        self.conn.setblocking(False)
        self.fd = self.conn.fileno()
        self.lab.note("arm board: qemu pid %d" % self.proc.pid)

    def off(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
        self.proc = None
        self.eof()

    def eof(self):
        if self.conn:
            self.conn.close()
        self.conn = None
        self.fd = None
        if self.proc and self.proc.poll() is None:
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                return
        if self.proc:
            self.lab.note("arm board: QEMU exited by itself (status %d): the board is off "
                          "until the next power on" % self.proc.returncode)
            self.proc = None

    def quit(self):
        self.off()


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
        self.boards = {}
        self.pending_plug = None
        self.rom_ms = a.rom_ms
        self.plug_ms = 0
        self.period = None  # [bytes, first byte ms, last byte ms] of this power on
        self.lost = 0  # console bytes the board printed while the adapter was unplugged
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
        if self.plugged and self.lost:
            self.note("adapter plugged; %d console bytes were lost while it was unplugged" %
                      self.lost)
        else:
            self.note("adapter plugged" if self.plugged else "device_add failed: %s" % r)
        self.lost = 0

    def unplug(self):
        r = self.qmp_cmd("device_del", id="ftdi")
        self.plugged = "error" in r
        self.note("adapter unplugged" if not self.plugged else "device_del failed: %s" % r)

    def set_power(self, on):
        if on == self.powered:
            return
        if on and self.a.vanish and not self.plugged:
            if self.plug_ms:
                # the board starts now; its adapter enumerates plug_ms later
                self.pending_plug = time.monotonic() + self.plug_ms / 1000
                self.note("power on (adapter plugged in %d ms)" % self.plug_ms)
                self.powered = on
                self.board.on()
                return
            self.plug()
            if self.rom_ms:
                # the SoC's boot ROM and SPL print nothing for a while after
                # power on: the board-powered adapter enumerates meanwhile
                self.pending_on = time.monotonic() + self.rom_ms / 1000
                self.powered = on
                self.note("power on (first console byte in %d ms)" % self.rom_ms)
                return
        self.pending_on = None
        self.pending_plug = None
        self.powered = on
        self.note("power %s" % ("on" if on else "off"))
        if on:
            self.board.on()
        else:
            self.board.off()
            if self.period:
                # the console of one power on, for the serial figure (the
                # wire is not paced: QEMU's usb-serial ignores the baud rate)
                self.note("console %s: %d bytes to the guest, first to last byte %d ms" %
                          (self.board.name, self.period[0], self.period[2] - self.period[1]))
            self.period = None
        if not on and self.a.vanish and self.plugged:
            self.unplug()

    def relay_line(self, line):
        w = line.split()
        if len(w) == 2 and w[0] in ("rom-ms", "plug-ms") and w[1].isdigit():
            setattr(self, w[0].replace("-", "_"), int(w[1]))
            self.note(line)
            return
        if len(w) == 2 and w[0] == "board":
            if self.powered or w[1] not in self.boards:
                self.note("board %s refused (powered: %s, boards: %s)" %
                          (w[1], self.powered, " ".join(self.boards)))
            else:
                self.board = self.boards[w[1]]
                self.note(line)
            return
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
        except OSError as e:
            self.note("tcg: /dev/kvm: %s" % e.strerror)
            return "tcg"
        if os.path.isdir("/sys/module/kvm_pvm") and not any(
                os.path.isdir("/sys/module/" + m) for m in ("kvm_intel", "kvm_amd")):
            # PVM (pagetable-based virtualisation, a VM without VMX/SVM): it runs
            # PVM guest kernels (CONFIG_PVM_GUEST) only; any other guest's
            # kernel mode is emulated one instruction at a time (QMP query-stats:
            # insn_emulation grows ~1.1 M/s, the bzImage decompressor alone
            # takes minutes): tests/vlab/README.md
            self.note("tcg: /dev/kvm is kvm_pvm without kvm_intel or kvm_amd: it runs only "
                      "PVM guest kernels (CONFIG_PVM_GUEST), linux-source-6.1 has none")
            return "tcg"
        return "kvm"

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
        self.boards["sim"] = SimBoard(self)
        if a.arm_board:
            self.boards["arm"] = ArmBoard(self, a.arm_board)
        for b in self.boards.values():
            if not b.start():
                return 125
        self.board = self.boards["sim"]
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
            if self.pending_on is not None and time.monotonic() >= self.pending_on:
                self.pending_on = None
                self.board.on()
                self.note("board console starts")
            if self.pending_plug is not None and time.monotonic() >= self.pending_plug:
                self.pending_plug = None
                self.plug()
            bfd = self.board.fd
            if bfd is None:
                to_board = b""  # a wire to a board that is off: nobody reads it
            rfds = [relay]
            if len(to_board) < 65536:
                rfds.append(self.wire)
            if len(to_guest) < 65536 and bfd is not None:
                rfds.append(bfd)
            wfds = ([self.wire] if to_guest else []) + ([bfd] if to_board else [])
            wait = min(left, 0.5)
            for t in (self.pending_on, self.pending_plug):
                if t is not None:
                    wait = max(0, min(wait, t - time.monotonic()))
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
            if bfd is not None and bfd in rd:
                try:
                    d = os.read(bfd, 65536)
                except BlockingIOError:
                    d = None
                except OSError:
                    d = b""
                if d and not self.plugged:
                    # the board prints into an adapter that is not there
                    self.lost += len(d)
                    self.traced("lost", d)
                elif d:
                    self.bytes_to_guest += len(d)
                    self.traced("<", d)
                    to_guest += d
                    if self.powered:
                        if self.period is None:
                            self.period = [0, ms(), 0]
                        self.period[0] += len(d)
                        self.period[2] = ms()
                elif d == b"":
                    self.board.eof()  # the ARM board's QEMU exited
            if self.wire in wr:
                try:
                    n = self.wire.send(to_guest)
                    to_guest = to_guest[n:]
                except BlockingIOError:
                    pass
            if bfd is not None and bfd in wr and self.board.fd == bfd:
                try:
                    n = os.write(bfd, to_board)
                    to_board = to_board[n:]
                except BlockingIOError:
                    pass
                except OSError:
                    to_board = b""
        try:
            qemu.wait(timeout=30)
        except subprocess.TimeoutExpired:
            qemu.kill()
            qemu.wait()
        for b in self.boards.values():
            b.quit()
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
    p.add_argument("--arm-board", help="board file of a QEMU ARM board (power type qemu) "
                   "behind the wire too (the guest selects it with \"board arm\")")
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
