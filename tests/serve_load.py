#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# Load on `ablab serve` over loopback (tests/t92-serve.sh), bounded in sockets, requests and time.
#   serve_load.py quiet PORT N SRC... : opens N connections spread over the source addresses SRC
#       (127.x.y.z), each sending a request line and part of a header, then nothing; prints
#       "held K of N" once they are up (the others the server refused), then "all closed after
#       S s" when the server has closed every one (or stdin closes first).
#   serve_load.py trickle PORT N SRC... : the same, each sending one more header byte every 2 s
#   serve_load.py idle PORT N SRC... : trickling connections, each reopened when the server
#       closes it, until stdin closes; then prints "dropped D reopened R"
#   serve_load.py load PORT N SRC PATH... : N requests over 4 keep-alive connections from SRC,
#       cycling over PATH; prints "requests N errors E seconds S rps R p50_ms A p99_ms B max_ms C"
#   serve_load.py client PORT SRC SECONDS PATH... : a normal client (a new connection per page)
#       fetching every PATH in turn for SECONDS; prints "pages N errors E max_ms M"
import http.client
import select
import socket
import sys
import threading
import time


def connect(port, src):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ")
        return s
    except OSError:
        s.close()
        return None


def idle(port, n, srcs, trickle, reopen):
    socks = [connect(port, srcs[i % len(srcs)]) for i in range(n)]
    socks = [s for s in socks if s]
    # a connection the server refused (over the per-address limit) ends at once
    time.sleep(0.2)
    held = []
    for s in socks:
        r, _, _ = select.select([s], [], [], 0)
        if r:
            s.close()
        else:
            held.append(s)
    print(f"held {len(held)} of {n}", flush=True)
    dropped = reopened = 0
    t0 = last = time.monotonic()
    while True:
        if not reopen and held == [] and dropped:
            print(f"all closed after {time.monotonic() - t0:.1f} s", flush=True)
            return
        r, _, _ = select.select([sys.stdin] + held, [], [], 0.5)
        if sys.stdin in r:
            break
        for s in [s for s in held if s in r]:
            src = s.getsockname()[0]
            held.remove(s)
            s.close()
            dropped += 1
            if reopen:  # as a client that wants to hold its connections would
                s = connect(port, src)
                if s:
                    held.append(s)
                    reopened += 1
        if trickle and time.monotonic() - last >= 2:
            last = time.monotonic()
            for s in held:
                try:
                    s.send(b"x")
                except OSError:
                    pass
    print(f"dropped {dropped} reopened {reopened}", flush=True)


def load(port, n, src, paths):
    lat, errors, lock = [], [0], threading.Lock()
    per = [n // 4 + (1 if i < n % 4 else 0) for i in range(4)]

    def worker(k, count):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(src, 0))
        for j in range(count):
            t = time.monotonic()
            try:
                c.request("GET", paths[(k + j) % len(paths)])
                r = c.getresponse()
                r.read()
                ok = r.status == 200
                if r.getheader("Connection", "").lower() == "close":
                    c.close()
            except (OSError, http.client.HTTPException):
                ok = False
                c.close()
            with lock:
                lat.append((time.monotonic() - t) * 1000)
                if not ok:
                    errors[0] += 1
        c.close()

    t0 = time.monotonic()
    th = [threading.Thread(target=worker, args=(k, per[k])) for k in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    secs = time.monotonic() - t0
    lat.sort()
    print(f"requests {len(lat)} errors {errors[0]} seconds {secs:.1f} rps {len(lat) / secs:.0f} "
          f"p50_ms {lat[len(lat) // 2]:.0f} p99_ms {lat[int(len(lat) * 0.99)]:.0f} max_ms {lat[-1]:.0f}",
          flush=True)


def client(port, src, seconds, paths):
    pages, errors, worst = 0, 0, 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for p in paths:
            t = time.monotonic()
            try:
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(src, 0))
                c.request("GET", p)
                r = c.getresponse()
                r.read()
                c.close()
                ok = r.status == 200
            except (OSError, http.client.HTTPException):
                ok = False
            worst = max(worst, (time.monotonic() - t) * 1000)
            pages += 1
            errors += not ok
    print(f"pages {pages} errors {errors} max_ms {worst:.0f}", flush=True)


if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode in ("idle", "quiet", "trickle"):
        idle(port, int(sys.argv[3]), sys.argv[4:], mode != "quiet", mode == "idle")
    elif mode == "load":
        load(port, int(sys.argv[3]), sys.argv[4], sys.argv[5:])
    else:
        client(port, sys.argv[3], float(sys.argv[4]), sys.argv[5:])
