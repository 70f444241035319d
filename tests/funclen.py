#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
# funclen.py DIR: functions over 100 lines in DIR's .c files (a function: a line starting
# with a non-space that ends a signature, then "{" at column 0 ... "}" at column 0).
import sys, glob, re
rows = []
for f in glob.glob(sys.argv[1] + '/**/*.c', recursive=True):
    lines = open(f).read().split('\n')
    start = None
    for i, l in enumerate(lines):
        if l == '{' and i > 0:
            j = i - 1
            while j > 0 and lines[j] and lines[j][0] in ' \t': j -= 1
            m = re.search(r'(\w+)\s*\(', lines[j])
            start = (i, m.group(1) if m else '?')
        elif l.startswith('}') and start:
            n = i - start[0] + 1
            rows.append((n, f, start[1])); start = None
rows.sort(reverse=True)
tot = len(rows)
over = [r for r in rows if r[0] > 100]
for n, f, name in over: print('%4d %s %s' % (n, f, name))
print('%d functions, %d over 100 lines, %d over 150, longest %d' % (tot, len(over), sum(1 for r in rows if r[0] > 150), rows[0][0] if rows else 0))
