#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""png_stats.py FILE: "WIDTH HEIGHT COLOURS INK" of an 8-bit RGB(A) PNG (what Chromium's
--screenshot writes): the number of distinct colours and the fraction of pixels that are
not the most common one.  A blank page is one colour and 0 ink.  Standard library only."""
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise SystemExit(f'{path}: not a PNG')
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f'{path}: depth {depth} colour type {ctype}: not 8-bit RGB(A)')
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out


w, h, bpp, rows = pixels(sys.argv[1])
count = Counter()
for line in rows:
    count.update(line[i:i + 3] for i in range(0, len(line), bpp))
top = count.most_common(1)[0][1]
print(w, h, len(count), f'{1 - top / (w * h):.4f}')
