#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Test helpers with real ptys and sockets for tests/t25-backends.sh.

  pty_board.py console ABLAB BOARDFILE_TEMPLATE OUTDIR
      A fake board behind a real pty pair: writes the board file with the
      pty's path, runs `ABLAB console BOARD` under a second pty (a real
      terminal for the operator side), types a line, checks it reaches the
      board, has the board answer, checks the answer reaches the operator,
      then types ~. and checks the exit status.
  pty_board.py tcp ABLAB BOARDFILE_TEMPLATE OUTDIR MODE
      A TCP console server on 127.0.0.1 (MODE raw, telnet, or reopen: the
      server drops the connection and ablab must reconnect) and
      `ABLAB console` against it under a pty.
  pty_board.py manual ABLAB BOARD
      Runs `ABLAB power BOARD on` under a pty and answers the operator
      prompt with Enter.
"""
import os, pty, select, signal, socket, sys, time

def read_until(fd, needle, timeout=10.0):
    got = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.time()))
        if not r:
            continue
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        got += d
        if needle in got:
            return got
    raise SystemExit("timeout waiting for %r; got %r" % (needle, got))

def spawn(argv):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    return pid, fd

def wait_exit(pid, timeout=10):
    signal.alarm(timeout)       # a hung ablab fails the test instead of hanging it
    _, st = os.waitpid(pid, 0)
    signal.alarm(0)
    return os.waitstatus_to_exitcode(st)

def console(ablab, template, outdir):
    bm, bs = pty.openpty()
    path = os.ttyname(bs)
    board = open(template).read().replace("@PTY@", path)
    bf = os.path.join(outdir, "ptyboard.json")
    open(bf, "w").write(board)
    import tty
    tty.setraw(bm)
    pid, fd = spawn([ablab, "console", bf])
    read_until(fd, b"~. quits")
    os.write(fd, b"hello board\r")
    read_until(bm, b"hello board\r")
    os.write(bm, b"board says hi\r\n")
    read_until(fd, b"board says hi")
    os.write(fd, b"~~x\r")            # ~~ sends one ~
    read_until(bm, b"~x\r")
    os.write(fd, b"~.")
    rc = wait_exit(pid)
    print("console passthrough ok, exit %d" % rc)
    sys.exit(rc)

def recv_until(c, needle):
    got = b""
    c.settimeout(10)
    while needle not in got:
        d = c.recv(4096)
        if not d:
            break
        got += d
    return got

def tcp(ablab, template, outdir, mode):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(2)
    s.settimeout(10)
    board = open(template).read().replace("@PORT@", str(s.getsockname()[1]))
    board = board.replace("@PROTO@", "telnet" if mode == "telnet" else "raw")
    bf = os.path.join(outdir, "tcpboard-%s.json" % mode)
    open(bf, "w").write(board)
    pid, fd = spawn([ablab, "console", bf])
    c, _ = s.accept()
    read_until(fd, b"~. quits")
    if mode == "telnet":
        # WILL ECHO, WILL SGA, DO TTYPE, a subnegotiation, text with an escaped 0xff
        c.sendall(bytes([255, 251, 1, 255, 251, 3, 255, 253, 24]) + b"login: " +
                  bytes([255, 250, 24, 1, 255, 240]) + b"tel" + bytes([255, 255]) + b"net\r\n")
        read_until(fd, b"login: tel\xffnet")
        os.write(fd, b"typed\r")
        got = recv_until(c, b"typed\r")
        # the client refused DO TTYPE, accepted WILL ECHO; its text arrived clean
        ok = bytes([255, 252, 24]) in got and bytes([255, 253, 1]) in got
        c.sendall(b"server saw: " + (b"OK" if ok else b"BAD " + repr(got).encode()) + b"\r\n")
        read_until(fd, b"server saw: OK")
    elif mode == "reopen":
        c.sendall(b"first connection\r\n")
        read_until(fd, b"first connection")
        c.close()                   # ser2net drops the client when the board's adapter vanishes
        c, _ = s.accept()           # ablab must come back within console.reopen_s
        c.sendall(b"second connection\r\n")
        read_until(fd, b"second connection")
    else:
        c.sendall(b"raw hello\r\n")
        read_until(fd, b"raw hello")
        os.write(fd, b"typed\r")
        got = recv_until(c, b"typed\r")
        c.sendall(b"server saw: " + got.strip() + b"\r\n")
        read_until(fd, b"server saw: typed")
    os.write(fd, b"\r~.")
    rc = wait_exit(pid)
    c.close()
    print("tcp %s console ok, exit %d" % (mode, rc))
    sys.exit(rc)

def manual(ablab, board):
    pid, fd = spawn([ablab, "power", board, "on"])
    out = read_until(fd, b"press Enter")
    os.write(fd, b"\r")
    rc = wait_exit(pid)
    print(out.decode(errors="replace").strip().replace("\a", ""))
    sys.exit(rc)

if __name__ == "__main__":
    {"console": lambda a: console(*a), "tcp": lambda a: tcp(*a),
     "manual": lambda a: manual(*a)}[sys.argv[1]](sys.argv[2:])
