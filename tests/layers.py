#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The layering check of agent/ (agent/LAYERS), on the built objects' symbols.

  tests/layers.py [--layers agent/LAYERS] [--allow FILE] [--graph] BUILD_DIR
  tests/layers.py [--layers LAYERS] [--allow FILE] --objdir DIR

BUILD_DIR: a meson build directory (its compile_commands.json names the object of
each source under the LAYERS file's folder); --objdir DIR: objects laid out as the
sources (DIR/store/store.o for store/store.c).  A file calls another when its object
has an undefined symbol (nm) that the other defines.  Violations, one a line:
  mutual A <-> B: ...     A and B call each other (A < B)
  upward A -> B: ...     A calls B, whose layer is above A's
  nolayer A     A is in no line of LAYERS
Exit 0 when every violation is on the allow-list (--allow: lines as above up to the
colon, # comments) and every line of the allow-list still occurs (so the list only
shrinks); 1 otherwise, naming each violation not allowed and each allowed line gone.
--graph also prints each file's callees.
"""
import argparse
import collections
import glob
import json
import os
import subprocess
import sys


def objects(args, root):
    """[(source relative to root, object path)]"""
    if args.objdir:
        out = []
        for o in sorted(glob.glob(os.path.join(args.objdir, '**', '*.o'), recursive=True)):
            out.append((os.path.relpath(o, args.objdir)[:-2] + '.c', o))
        return out
    cc = os.path.join(args.builddir, 'compile_commands.json')
    try:
        entries = json.load(open(cc))
    except OSError as e:
        sys.exit('layers: %s: %s (build it first: make build/asan/ablab)' % (cc, e.strerror))
    out, seen = [], set()
    for e in entries:
        src = os.path.realpath(os.path.join(e['directory'], e['file']))
        if not src.startswith(root + os.sep) or src in seen:
            continue
        seen.add(src)
        out.append((os.path.relpath(src, root), os.path.join(e['directory'], e['output'])))
    return out


def symbols(obj):
    r = subprocess.run(['nm', obj], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('layers: nm %s: %s' % (obj, r.stderr.strip() or 'failed'))
    defined, undefined = set(), set()
    for line in r.stdout.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBRCGSV':
            defined.add(p[2])
        elif len(p) == 2 and p[0] == 'U':
            undefined.add(p[1])
    return defined, undefined


def layers_of(path, files):
    layer = {}
    for n, line in enumerate(open(path), 1):
        words = line.split('#')[0].split()
        if not words:
            continue
        try:
            num = int(words[0])
        except ValueError:
            sys.exit('layers: %s:%d: a line is a layer number and its files, not "%s"'
                     % (path, n, line.strip()))
        for p in words[1:]:
            hit = [f for f in files if f == p or (p.endswith('/') and f.startswith(p))]
            if not hit:
                sys.exit('layers: %s:%d: %s names no built file (removed? update LAYERS)'
                         % (path, n, p))
            for f in hit:
                layer[f] = num
    return layer


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--layers', default='agent/LAYERS')
    ap.add_argument('--allow')
    ap.add_argument('--graph', action='store_true')
    ap.add_argument('--objdir')
    ap.add_argument('builddir', nargs='?')
    args = ap.parse_args()
    if not args.objdir and not args.builddir:
        ap.error('a build directory or --objdir DIR')
    root = os.path.realpath(os.path.dirname(args.layers))
    defs, undefs = {}, {}
    for f, o in objects(args, root):
        d, u = symbols(o)
        defs.setdefault(f, set()).update(d)
        undefs.setdefault(f, set()).update(u)
    if not defs:
        sys.exit('layers: no objects of %s/ found' % root)
    owner = {s: f for f, d in defs.items() for s in d}
    calls = collections.defaultdict(dict)  # calls[a][b]: the symbols of b that a uses
    for f, u in undefs.items():
        for s in u:
            if s in owner and owner[s] != f:
                calls[f].setdefault(owner[s], []).append(s)
    layer = layers_of(args.layers, list(defs))
    if args.graph:
        for f in sorted(calls):
            print('%s -> %s' % (f, ' '.join(sorted(calls[f]))))
    found = {}  # key (allow-list form) -> full line
    for f in sorted(defs):
        if f not in layer:
            found['nolayer %s' % f] = 'nolayer %s: add it to a line of %s' % (f, args.layers)
    for a in sorted(calls):
        for b in sorted(calls[a]):
            if a < b and a in calls.get(b, {}):
                key = 'mutual %s <-> %s' % (a, b)
                found[key] = '%s: %s calls %s; %s calls %s' % (
                    key, a, ','.join(sorted(calls[a][b])), b, ','.join(sorted(calls[b][a])))
            la, lb = layer.get(a), layer.get(b)
            if la is not None and lb is not None and lb > la:
                key = 'upward %s -> %s' % (a, b)
                found[key] = '%s: layer %d calls layer %d: %s' % (
                    key, la, lb, ','.join(sorted(calls[a][b])))
    allowed = []
    if args.allow:
        for line in open(args.allow):
            line = line.split('#')[0].strip()
            if line:
                allowed.append(line)
    bad = [found[k] for k in found if k not in allowed]
    gone = [k for k in allowed if k not in found]
    for line in bad:
        print('layers: not allowed: %s' % line)
    for k in gone:
        print('layers: allowed but no longer occurs (remove it from %s): %s' % (args.allow, k))
    nm = sum(1 for k in found if k.startswith('mutual'))
    nu = sum(1 for k in found if k.startswith('upward'))
    print('layers: %d files, %d mutual pairs, %d upward calls, %d without a layer; '
          '%d allowed, %d not allowed, %d allowed lines gone'
          % (len(defs), nm, nu, len(found) - nm - nu, len(found) - len(bad), len(bad), len(gone)))
    return 1 if bad or gone else 0


if __name__ == '__main__':
    sys.exit(main())
