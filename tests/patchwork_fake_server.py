#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A stand-in patchwork REST server on 127.0.0.1 for tests/t96-patchwork.sh
(patchwork itself is not packaged in Debian).

patchwork_fake_server.py PORTFILE RECORDFILE PATCHES TOKEN [REDIRECT_URL]

Listens on an ephemeral port (written to PORTFILE once it accepts) and appends
every request to RECORDFILE, one JSON object a line: method, path, the
Authorization header, the body, the time it came (t, seconds since the
epoch).  PATCHES: a JSON file {"msgid": id, ...} (the
Message-IDs without <>).  The endpoints of patchwork's REST API (1.x, as
documented at patchwork.readthedocs.io, "REST API"):
  GET  /api/patches/?msgid=ID      a list of the patch with that Message-ID (or [])
  GET  /api/patches/N/             the patch
  GET  /api/patches/N/checks/      its checks
  POST /api/patches/N/checks/      a new check: needs "Authorization: Token TOKEN"
                                   (else 403), state one of pending, success,
                                   warning, fail and a context (else 400); 201
A msgid "redirect@test" answers 302 to REDIRECT_URL (a token must not follow).
"""
import http.server
import json
import re
import sys
import time
import urllib.parse

portfile, recordfile, patchfile, token = sys.argv[1:5]
redirect = sys.argv[5] if len(sys.argv) > 5 else ""
patches = json.load(open(patchfile))     # msgid -> id
checks = {}                              # id -> [check]


def patch_json(msgid, pid, base):
    return {"id": pid, "url": "%s/api/patches/%d/" % (base, pid), "msgid": "<%s>" % msgid,
            "web_url": "%s/patch/%d/" % (base, pid), "date": "2026-09-10T08:36:00",
            "name": "patch %d" % pid, "state": "new", "archived": False, "check": "pending",
            "commit_ref": None, "delegate": None, "series": [],
            "submitter": {"id": 1, "name": "ablab", "email": "ablab@localhost"},
            "project": {"id": 1, "name": "t96", "link_name": "t96"},
            "checks": "%s/api/patches/%d/checks/" % (base, pid)}


class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def record(self, body):
        with open(recordfile, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "auth": self.headers.get("Authorization"),
                                "body": body, "t": time.time()}) + "\n")

    def answer(self, code, obj, headers=()):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.record(None)
        base = "http://%s:%d" % self.server.server_address[:2]
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        path = re.sub(r"^/api/1\.[0-9]+/", "/api/", u.path)
        if path == "/api/patches/":
            ids = [m.strip("<>") for m in q.get("msgid", [])]
            if ids == ["redirect@test"] and redirect:
                return self.answer(302, {}, [("Location", redirect)])
            return self.answer(200, [patch_json(m, patches[m], base) for m in ids if m in patches])
        m = re.fullmatch(r"/api/patches/(\d+)/(checks/)?", path)
        if m and int(m.group(1)) in patches.values():
            pid = int(m.group(1))
            if m.group(2):
                return self.answer(200, checks.get(pid, []))
            msgid = [k for k, v in patches.items() if v == pid][0]
            return self.answer(200, patch_json(msgid, pid, base))
        if path == "/api/":
            return self.answer(200, {"patches": base + "/api/patches/"})
        self.answer(404, {"detail": "Not found."})

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n).decode()
        self.record(raw)
        path = re.sub(r"^/api/1\.[0-9]+/", "/api/", urllib.parse.urlsplit(self.path).path)
        m = re.fullmatch(r"/api/patches/(\d+)/checks/", path)
        if not m or int(m.group(1)) not in patches.values():
            return self.answer(404, {"detail": "Not found."})
        if self.headers.get("Authorization") != "Token " + token:
            return self.answer(403, {"detail": "You do not have permission to perform this action."})
        try:
            c = json.loads(raw) if "json" in self.headers.get("Content-Type", "") else \
                {k: v[0] for k, v in urllib.parse.parse_qs(raw).items()}
        except ValueError:
            return self.answer(400, {"detail": "JSON parse error"})
        if c.get("state") not in ("pending", "success", "warning", "fail") or not c.get("context"):
            return self.answer(400, {"state": ["not a valid choice"]})
        c["id"] = sum(len(v) for v in checks.values()) + 1
        checks.setdefault(int(m.group(1)), []).append(c)
        self.answer(201, c)


srv = http.server.HTTPServer(("127.0.0.1", 0), H)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
