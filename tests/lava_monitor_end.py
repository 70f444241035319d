#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# The monitor of a generated LAVA job (JOB.yaml), run as lava-dispatcher runs
# it (lava_dispatcher/actions/test/monitor.py: pexpect's expect on EOF,
# TIMEOUT, the end pattern and the result pattern, the console logged through
# lava_dispatcher.shell.ShellLogger), on a console whose done line arrives in
# two reads: "dmabench: v1 done" first, its tail and line end later (a slow
# console on a loaded host).  The end must not match before the line end has
# been read, so that LAVA logs the done line as "target" console output before
# the monitor stops (else finalize logs it as "feedback", or not at all).
# Exit 0 when so; 1 with the reason.
import os
import sys

import pexpect
import pexpect.fdpexpect
import yaml
from lava_dispatcher.shell import ShellLogger


class Logger:
    """the dispatcher's logger, as ShellLogger uses it: one call per line"""

    def __init__(self):
        self.lines = []

    def target(self, line):
        self.lines.append(("target", line))

    def feedback(self, line, namespace=None):
        self.lines.append(("feedback", line))


def main():
    job = yaml.safe_load(open(sys.argv[1]))
    mon = [a["test"] for a in job["actions"] if "test" in a and "monitors" in a["test"]]
    mon = mon[0]["monitors"][0]
    pats = [pexpect.EOF, pexpect.TIMEOUT, mon["end"], mon["pattern"]]
    rfd, wfd = os.pipe()
    log = Logger()
    con = pexpect.fdpexpect.fdspawn(rfd, encoding="utf-8", logfile=ShellLogger(log))
    done = "dmabench: v1 done status=0 results=1"
    os.write(wfd, b"dmabench: v1 preserve scenario=p batch=1 size=4 lost=0\r\n")
    if con.expect(pats, timeout=10) != 3:
        print("the result pattern did not match a result line")
        return 1
    # the done line without its tail and line end: already in the pipe, so
    # the first read has it; the end must not match it (0.5 s: the time the
    # end is given to match what was read, not a wait for anything)
    os.write(wfd, done[:17].encode())
    i = con.expect(pats, timeout=0.5)
    if i == 2:
        print("end pattern %r matched %r, a done line whose end has not arrived: "
              "LAVA's monitor stops before the line is logged as target output (logged: %r)"
              % (mon["end"], con.after, log.lines[-1:]))
        return 1
    if i != 1:
        print("expected no match on the partial done line, got pattern %d" % i)
        return 1
    os.write(wfd, (done[17:] + "\r\nlab# ").encode())
    i = con.expect(pats, timeout=10)
    if i != 2:
        print("end pattern %r did not match the whole done line (pattern %d)" % (mon["end"], i))
        return 1
    if ("target", done) not in log.lines:
        print("the end matched before LAVA logged the done line as target output: %r"
              % log.lines)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
