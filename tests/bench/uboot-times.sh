#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# U-Boot's TFTP load time and the autoboot interrupt on qemu-pi400, measured from
# outside the agent (issue 29 item 2; not part of make check or make bench):
#   bash tests/bench/uboot-times.sh [ROUNDS] [BOARD.json...]
# Each round runs, for every board file given (default: boards/qemu-pi400.json as it is,
# and with tftp_blocksize 512 / tftp_windowsize 1), a 2+2 campaign with
# strace attached to the agent's threads only (no -f: not QEMU, whose file reads and
# TFTP are what is timed), and prints per board file: per file, the ms from the write
# of `tftpboot` to the read that completes its "Bytes transferred", and the ms from the
# read that brings the autoboot line's first byte to the write of the first command.
# ABLAB=BIN measures another agent binary (e.g. an older tree's, for "before").
set -eu
cd "$(dirname "$0")/../.."
top=$PWD ablab=${ABLAB:-$PWD/ablab} rounds=${1:-3}
shift || true
w=$(mktemp -d /tmp/ablab-uboot-times.XXXXXX)
chmod 755 "$w"	# the private cluster runs as postgres when root
export ABLAB_DATA=$w/data ABLAB_LOCK_DIR=$w/locks
trap '"$ablab" db stop >/dev/null 2>&1; rm -rf "$w"' EXIT
K=${ABLAB_CACHE:-$HOME/.cache/ablab}/kernels/qemu-pi400
boards=("$@")
if [ ${#boards[@]} = 0 ]; then
	cp boards/qemu-pi400.json "$w/default.json"
	sed 's/"server_ip"/"tftp_blocksize": 512, "tftp_windowsize": 1, "server_ip"/' boards/qemu-pi400.json >"$w/512.json"
	boards=("$w/default.json" "$w/512.json")
fi
for r in $(seq "$rounds"); do
	for b in "${boards[@]}"; do
		n=$(basename "$b" .json)
		"$ablab" ab --board "$b" --control "$K/control" --patched "$K/patched" --boots 2 \
			--undecidable-ok --batches 1 --results "$w/res" >/dev/null 2>"$w/$n-$r.err" &
		pid=$!
		until [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge 2 ] && grep -q 'control (' "$w/$n-$r.err"; do
			kill -0 $pid 2>/dev/null || break
			sleep 0.02
		done
		# shellcheck disable=SC2046
		strace -tt -s 4096 -e trace=read,write -o "$w/$n-$r.strace" $(ls /proc/$pid/task | sed 's/^/-p /') 2>/dev/null &
		spid=$!
		wait $pid || echo "uboot-times: $n round $r: campaign failed: $(tail -n 1 "$w/$n-$r.err")" >&2
		kill $spid 2>/dev/null || true
		wait $spid 2>/dev/null || true
	done
done
for b in "${boards[@]}"; do
	n=$(basename "$b" .json)
	echo "== $b ($rounds x 2+2 boots, $ablab)"
	python3 - "$w/$n"-*.strace <<'PY'
import codecs, re, sys
tftp, auto = {}, []
for path in sys.argv[1:]:
    chars, t_cmd, t_hit, name = [], None, None, None
    for line in open(path, errors='replace'):
        m = re.match(r'(?:\d+ +)?(\d+):(\d+):(\d+\.\d+) (read|write)\(\d+, "(.*)"(?:\.\.\.)?, \d+\) = \d+', line)
        if not m:
            continue
        t = (int(m[1]) * 3600 + int(m[2]) * 60 + float(m[3])) * 1000
        data = codecs.decode(m[5].encode(), 'unicode_escape', errors='replace')
        if m[4] == 'write':
            if t_hit is not None and data.startswith('setenv '):
                auto.append(t - t_hit)
                t_hit = None
            if data.startswith('tftpboot ') or ' tftpboot ' in data:
                t_cmd, name, chars = t, data.split()[-1].split('/')[-1], []
            continue
        if data.startswith('{'):
            continue  # a file, not the console
        chars = (chars + [(t, c) for c in data])[-8192:]
        s = ''.join(c for _, c in chars)
        if t_cmd is None and t_hit is None and (i := s.find('Hit any key')) >= 0:
            t_hit, chars = chars[i][0], []
        elif t_cmd is not None and (i := s.find('Bytes transferred')) >= 0:
            tftp.setdefault(name, []).append(chars[i + 16][0] - t_cmd)
            t_cmd, chars = None, []
med = lambda v: (sorted(v)[(len(v) - 1) // 2] + sorted(v)[len(v) // 2]) / 2 if v else float('nan')
for k, v in tftp.items():
    print(f'  {k}: median {med(v):.0f} ms ({" ".join(f"{x:.0f}" for x in v)})')
tot = [sum(x) for x in zip(*tftp.values())]
print(f'  total: median {med(tot):.0f} ms over {len(tot)} boots ({" ".join(f"{x:.0f}" for x in tot)})')
print(f'  autoboot line to first command: median {med(auto):.1f} ms ({" ".join(f"{x:.0f}" for x in auto)})')
PY
done
