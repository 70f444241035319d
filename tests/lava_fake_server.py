#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stand-in LAVA REST server on 127.0.0.1 for tests/t72-lava-token.sh.

lava_fake_server.py MODE PORTFILE RECORDFILE [FOREIGN_URL]

Listens on an ephemeral port (written to PORTFILE once it accepts), and
appends every request line with its Authorization header to RECORDFILE.
MODE:
  record        answers 404 to everything (a foreign host that only records)
  next-foreign  a finished job whose test-case page's "next" is FOREIGN_URL
  redirect      the job status answers 302 to FOREIGN_URL
  big-log       the job log is 40 MiB (more than ablab takes)
FAKE_LAVA_JOB: the job id (default 7).  Everything else answers as lava-server does for one finished, complete job.
"""
import http.server
import json
import os
import sys

mode, portfile, recordfile = sys.argv[1:4]
foreign = sys.argv[4] if len(sys.argv) > 4 else ""
JOB = int(os.environ.get("FAKE_LAVA_JOB", "7"))


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
        self.record()
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if mode == "record":
            return self.send(404, "{}")
        self.send(201, json.dumps({"job_ids": [JOB]}))

    def do_GET(self):
        self.record()
        p = self.path.split("?")[0]
        if mode == "record":
            return self.send(404, "{}")
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
