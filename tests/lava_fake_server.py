#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stand-in LAVA REST server on 127.0.0.1 for tests/t72-lava-token.sh and
tests/t74-lava-engine.sh.

lava_fake_server.py MODE PORTFILE RECORDFILE [FOREIGN_URL]

Listens on an ephemeral port (written to PORTFILE once it accepts), and
appends every request line with its Authorization header to RECORDFILE.
MODE:
  record        answers 404 to everything (a foreign host that only records)
  next-foreign  a finished job whose test-case page's "next" is FOREIGN_URL
  redirect      the job status answers 302 to FOREIGN_URL
  big-log       the job log is 40 MiB (more than ablab takes)
  bench         every submitted job gets the next id (from FAKE_LAVA_JOB) and
                finishes Complete with a dmabench run of its kernel (the
                ablab.release and batches= of its definition) in its log and
                the matching test cases; with FAKE_LAVA_GATE=DIR a job stays
                Running until DIR/ID or DIR/all exists
FAKE_LAVA_JOB: the job id (default 7).  Everything else answers as lava-server does for one finished, complete job.
"""
import http.server
import json
import os
import re
import sys

mode, portfile, recordfile = sys.argv[1:4]
foreign = sys.argv[4] if len(sys.argv) > 4 else ""
JOB = int(os.environ.get("FAKE_LAVA_JOB", "7"))
GATE = os.environ.get("FAKE_LAVA_GATE", "")
jobs = {}   # bench: id -> (release, batches)


def bench_lines(jid):
    release, batches = jobs[jid]
    out = ["ABLAB-UNAME=" + release, "ABLAB-PROC=Linux version %s (fake@lava) #1" % release,
           "dmabench: v1 start clock_res_ns=1000 timing=auto batches=%d scenarios=1" % batches]
    tests = []
    for b in range(1, batches + 1):
        mean = 300 + (jid * 7 + b * 3) % 50
        out.append("dmabench: v1 result scenario=small-dirty-256B batch=%d size=256 reps=5000 "
                   "dir=from op=map_unmap state=dirty timing=batch mean_ns=%d raw_ns=%d "
                   "base_ns=0 ns_per_KiB=1200" % (b, mean, mean * 5000))
        tests.append({"name": "small_dirty_256b_batch_%d" % b, "unit": "mean_ns",
                      "measurement": "%d.0000000000" % mean, "result": "pass"})
    out.append("dmabench: v1 done status=0 results=%d" % batches)
    return out, tests


def finished(jid):
    return not GATE or os.path.exists(os.path.join(GATE, str(jid))) or \
        os.path.exists(os.path.join(GATE, "all"))


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def record(self):
        with open(recordfile, "a") as f:
            f.write("%s %s auth=%s\n" % (self.command, self.path,
                                         self.headers.get("Authorization", "-")))

    def send(self, code, body, ctype="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        global JOB
        self.record()
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if mode == "record":
            return self.send(404, "{}")
        if mode == "bench":
            d = json.loads(body)["definition"]
            rel = re.search(r'ablab\.release: "([^"]*)"', d).group(1)
            batches = int(re.search(r"batches=(\d+)", d).group(1))
            jid = JOB
            JOB += 1
            jobs[jid] = (rel, batches)
            with open(recordfile, "a") as f:
                f.write("submitted %d %s\n" % (jid, rel))
            return self.send(201, json.dumps({"job_ids": [jid]}))
        self.send(201, json.dumps({"job_ids": [JOB]}))

    def do_GET(self):
        self.record()
        p = self.path.split("?")[0]
        if mode == "record":
            return self.send(404, "{}")
        m = re.match(r"^/api/v0\.2/jobs/(\d+)/(logs/|tests/)?$", p)
        if mode == "bench" and m and int(m.group(1)) in jobs:
            jid = int(m.group(1))
            if not m.group(2):
                if not finished(jid):
                    return self.send(200, json.dumps({"state": "Running", "health": "Unknown"}))
                return self.send(200, json.dumps({"state": "Finished", "health": "Complete"}))
            lines, tests = bench_lines(jid)
            if m.group(2) == "logs/":
                return self.send(200, "".join(
                    '- {"dt": "2026-01-01T00:00:00", "lvl": "target", "msg": %s}\n' %
                    json.dumps(t) for t in ["lab# "] + lines), "application/yaml")
            return self.send(200, json.dumps({"results": tests, "next": None}))
        if p == "/api/v0.2/jobs/%d/" % JOB:
            if mode == "redirect":
                return self.send(302, "", headers=[("Location", foreign)])
            return self.send(200, json.dumps({"state": "Finished", "health": "Complete"}))
        if p == "/api/v0.2/jobs/%d/logs/" % JOB:
            line = '- {"dt": "2026-01-01T00:00:00", "lvl": "target", "msg": "lab# "}\n'
            if mode == "big-log":
                self.send_response(200)
                self.send_header("Content-Type", "application/yaml")
                self.end_headers()   # no length: ablab must stop reading by itself
                chunk = (line * 1024).encode()
                try:
                    for _ in range(40 * (1 << 20) // len(chunk) + 1):
                        self.wfile.write(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                return
            return self.send(200, line, "application/yaml")
        if p == "/api/v0.2/jobs/%d/tests/" % JOB:
            return self.send(200, json.dumps({"results": [], "next": foreign or None}))
        self.send(404, "{}")


srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
tmp = portfile + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % srv.server_address[1])
os.rename(tmp, portfile)
srv.serve_forever()
