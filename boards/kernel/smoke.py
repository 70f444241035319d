#!/usr/bin/env python3
"""Boot one artefact dir of boards/kernel/build.sh under QEMU and run commands.

usage: smoke.py ARTEFACT_DIR [COMMAND...]   (default command: uname -r)

Reads the QEMU machine, memory, extra arguments and kernel command line from
ARTEFACT_DIR/manifest.json, waits for the "lab# " prompt, runs each command,
prints its output and the boot timings, then quits QEMU. Exit status 1 on a
timeout. A test helper, not the lab agent.
"""
import json, os, pty, re, select, shlex, subprocess, sys, time

adir = sys.argv[1]
cmds = sys.argv[2:] or ["uname -r"]
man = json.load(open(os.path.join(adir, "manifest.json")))
boot = man["boot"]
cmd = [boot["qemu_system"] or "qemu-system-arm", "-M", boot["qemu_machine"], "-nographic"]
if boot.get("qemu_cpu"):
    cmd += ["-cpu", boot["qemu_cpu"]]
if boot.get("qemu_mem_mib"):
    cmd += ["-m", str(boot["qemu_mem_mib"])]
cmd += shlex.split(boot.get("qemu_extra") or "")
cmd += ["-kernel", os.path.join(adir, "zImage")]
dtbs = [f for f in man["files"] if f.endswith(".dtb")]
if dtbs:
    cmd += ["-dtb", os.path.join(adir, dtbs[0])]
cmd += ["-initrd", os.path.join(adir, "initramfs.cpio.gz"), "-append", boot["cmdline"]]
print("$", shlex.join(cmd), flush=True)

master, slave = pty.openpty()
t0 = time.monotonic()
qemu = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
os.close(slave)
buf = b""


def expect(pattern, timeout):
    global buf
    deadline = time.monotonic() + timeout
    rx = re.compile(pattern)
    while True:
        mo = rx.search(buf)
        if mo:
            out, buf = buf[:mo.end()], buf[mo.end():]
            return out
        left = deadline - time.monotonic()
        r, _, _ = select.select([master], [], [], max(0.0, left))
        if not r:
            qemu.kill()
            sys.exit(f"TIMEOUT waiting for {pattern!r}; last output: {buf[-400:]!r}")
        buf += os.read(master, 65536)


try:
    log = expect(rb"Linux version [^\r\n]*[\r\n]", 60)
    t_version = time.monotonic() - t0
    version = re.search(rb"Linux version [^\r\n]*", log).group().decode()
    expect(rb"lab# ", 120)
    t_prompt = time.monotonic() - t0
    print(f"{version}\n'Linux version' after {t_version:.2f} s, 'lab# ' after {t_prompt:.2f} s")
    for c in cmds:
        os.write(master, c.encode() + b"\n")
        t1 = time.monotonic()
        out = expect(rb"lab# ", 600).decode(errors="replace").replace("\r", "")
        print(f"--- {c} ({time.monotonic() - t1:.2f} s)\n{out}")
finally:
    if qemu.poll() is None:
        os.write(master, b"\x01x")
        try:
            qemu.wait(timeout=5)
        except subprocess.TimeoutExpired:
            qemu.kill()
