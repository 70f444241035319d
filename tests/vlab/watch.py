#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# The relay's coil, inside the virtual lab's guest: watch the level of a
# gpio-sim line (sysfs sim_gpioN/value, which gpio-sim does not notify, so it
# is polled every 5 ms, as a relay driver board samples its input) and send
# every change to the host's lab hardware (tests/vlab/labhw.py) as a line
# "level 0|1" on the second serial port. The first line is the level now.
import os
import sys
import time

value_path, port = sys.argv[1], sys.argv[2]
out = os.open(port, os.O_WRONLY | os.O_NOCTTY)
last = None
while True:
    with open(value_path) as f:
        v = f.read().strip()
    if v != last:
        os.write(out, ("level %s\n" % v).encode())
        last = v
    time.sleep(0.005)
