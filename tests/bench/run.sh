#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Benchmarks of the lab itself (docs/BENCHMARKS.md; `make bench`).
#
#   P1  agent overhead per boot (simulator, qemu-sam9x75) next to LAVA
#       (lava-run standalone, `ablab lava run --local`, lava-server)
#   P2  parallel scaling: 1..3 emulated boards, 10 and 50 simulators
#   P3  agent CPU and peak RSS per boot
#   bytes  console bytes read per boot (simulator, at 115200 baud, QEMU)
#   P4  sample ingest rate (COPY), P5 report/query latency on 1M samples
#   P6  kernel builds: no-op `make kernels`, patched after control
#   parser throughput (parse_log)
#
# Every figure is printed in one table at the end and written to
# results/bench/SECTION.json with the machine and the command behind it.
# Private everything: ABLAB_DATA, lock dir, simulators and LAVA daemons in a
# temporary directory, all stopped at exit.  BENCH="p1 p4" runs a subset.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top"
BENCH=${BENCH:-"parse p1 bytes p2 p4 p5 p6"}
ablab=$top/ablab
bs=$top/build/boardsim
cb=$top/build/bench/campaign_bench
pb=$top/build/bench/parse_bench
out=$top/results/bench
mkdir -p "$out"
for x in "$ablab" "$bs" "$cb" "$pb"; do
	[ -x "$x" ] || { echo "bench: $x is not built (make bench builds it)" >&2; exit 1; }
done
tmp=$(mktemp -d /tmp/ablab-bench.XXXXXX)
chmod 755 "$tmp"	# the postgres user must reach the private cluster below it
export ABLAB_DATA=$tmp/data ABLAB_LOCK_DIR=$tmp/locks ABLAB_BOARDS=$top/boards
mkdir -p "$tmp/locks"
rec=$tmp/rec.tsv
: >"$rec"
sims=()
lava_state=
cleanup() {
	local d
	for d in "${sims[@]}"; do sim_stop "$d"; done
	if [ -n "$lava_state" ]; then
		bash jobs/lava/local-server.sh stop "$lava_state" >/dev/null 2>&1
		lava_pg_restore
	fi
	"$ablab" db stop >/dev/null 2>&1
	[ -n "$base" ] && ABLAB_DATA=$tmp/data-base "$base" db stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. tests/bench/sim.sh

# r SECTION KEY VALUE UNIT [COMMAND]: one figure
r() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$rec"; }
say() { echo "bench: $*" >&2; }
ms() { date +%s%3N; }
psql_q() { psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -c "$1"; }
jget() { python3 -c 'import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# board time of a campaign: sum of boot_ms + run_ms of its ok boots
board_ms() { psql_q "SELECT coalesce(sum(boot_ms + run_ms), 0) FROM boots WHERE campaign_id = $1 AND status = 'ok'"; }
ok_boots() { psql_q "SELECT count(*) FROM boots WHERE campaign_id = $1 AND status = 'ok'"; }
calc() { python3 -c "print(round($1, ${2:-1}))"; }

"$ablab" db start >/dev/null 2>&1 || { echo "bench: cannot start the private database" >&2; exit 1; }
want() { [[ " $BENCH " == *" $1 "* ]]; }
# BENCH_BASE=DIR: an older tree's ablab (DIR/ablab, e.g. `git archive main | tar -x`
# and `make ablab` there) measured next to this one in the same run, in a database
# of its own (its schema may be older): P4 and the console bytes have before/after,
# and P1 on qemu-sam9x75 too when DIR/build/bench/campaign_bench is built
base=
if [ -n "${BENCH_BASE:-}" ]; then
	base=$BENCH_BASE/ablab
	if [ -x "$base" ] && ABLAB_DATA=$tmp/data-base "$base" db start >/dev/null 2>&1; then
		say "before/after: $base (git $(git -C "$BENCH_BASE" describe --always 2>/dev/null || echo "$BENCH_BASE"))"
	else
		say "BENCH_BASE: $base is not built or its database does not start; no before figures"
		base=
	fi
fi

# ---- parser ------------------------------------------------------------------
if want parse; then
	say "parser: parse_log over 64 MiB of console logs"
	c="build/bench/parse_bench tests/fixtures/qemu-sam9x75-control-console.log 64"
	j=$(nice $c)
	r parse boots_MB_s "$(jget "$j" boots_mb_s)" MB/s "$c"
	r parse dense_MB_s "$(jget "$j" dense_mb_s)" MB/s "$c"
	r parse dense_lines_s "$(jget "$j" dense_lines_s)" lines/s "$c"
fi

# ---- P1 + P3: one board, agent overhead per boot -----------------------------
# campaign_bench runs campaign_run() (what `ablab ab` runs) and reports the
# agent's own CPU time and peak RSS.  Overhead = wall - sum(boot_ms + run_ms).
p1_campaign() { # LABEL BOOTS BOARD_ARG...
	local label=$1 boots=$2 j cid wall bms n c
	shift 2
	c="build/bench/campaign_bench --boots $boots --batches 2 --results \$tmp/res $*"
	j=$("$cb" --boots "$boots" --batches 2 --results "$tmp/res" "$@" 2>"$tmp/$label.err")
	if [ -z "$j" ] || [ "$(jget "$j" status)" != 0 ]; then
		say "$label: campaign failed: $(tail -n 3 "$tmp/$label.err")"
		r p1 "${label}_failed" 1 "" "$c"
		return 1
	fi
	cid=$(jget "$j" campaign); wall=$(jget "$j" wall_ms)
	bms=$(board_ms "$cid"); n=$(ok_boots "$cid")
	r p1 "${label}_boots" "$n" boots "$c"
	r p1 "${label}_board_ms_per_boot" "$(calc "$bms / $n")" ms "$c"
	r p1 "${label}_wall_ms_per_boot" "$(calc "$wall / $n")" ms "$c"
	r p1 "${label}_overhead_ms_per_boot" "$(calc "($wall - $bms) / $n")" ms "$c"
	r p3 "${label}_agent_cpu_ms_per_boot" \
		"$(calc "($(jget "$j" agent_user_ms) + $(jget "$j" agent_sys_ms)) / $n" 2)" ms "$c"
	r p3 "${label}_agent_cpu_pct_of_core" \
		"$(calc "100 * ($(jget "$j" agent_user_ms) + $(jget "$j" agent_sys_ms)) / $wall" 2)" % "$c"
	r p3 "${label}_agent_peak_rss_MB" "$(calc "$(jget "$j" agent_maxrss_kb) / 1024" 1)" MB "$c"
	echo "$cid"
}

if want p1; then
	say "P1: 20 boots on the simulator (U-Boot + TFTP, command power)"
	sim_board bsim-1 "$tmp/sim1" uboot && sims+=("$tmp/sim1")
	p1_campaign sim 10 "$tmp/sim1/board.json:$tmp/sim1/k/control:$tmp/sim1/k/patched" >/dev/null
	# the same through the CLI: process start, report included
	t0=$(ms)
	"$ablab" ab --board "$tmp/sim1/board.json" --control "$tmp/sim1/k/control" \
		--patched "$tmp/sim1/k/patched" --boots 10 --batches 2 --results "$tmp/res" \
		--format text >/dev/null 2>"$tmp/sim-cli.err"
	t1=$(ms)
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	r p1 sim_cli_overhead_ms_per_boot "$(calc "($t1 - $t0 - $(board_ms "$cid")) / $(ok_boots "$cid")")" ms \
		"ablab ab --board SIM/board.json --control .. --patched .. --boots 10 --batches 2 --format text"
	# the agent's default off time (power.off_ms, 1000) is what made the
	# simulator show "prompt after 1.0 s": measured next to off_ms 0
	SIM_OFF_MS=1000 sim_board bsim-off "$tmp/simoff" uboot && sims+=("$tmp/simoff")
	t0=$(ms)
	"$ablab" ab --board "$tmp/simoff/board.json" --control "$tmp/simoff/k/control" \
		--patched "$tmp/simoff/k/patched" --boots 2 --undecidable-ok --batches 2 --results "$tmp/res" \
		--format json >/dev/null 2>"$tmp/simoff.err"
	t1=$(ms)
	r p1 sim_off_ms_1000_wall_ms_per_boot "$(calc "($t1 - $t0) / 4")" ms \
		"ablab ab on the simulator with power.off_ms 1000 (the default), 2+2 boots"

	# BENCH_BASE: the older tree's campaign_bench (make build/bench/campaign_bench
	# there) on the same board, in its own database, just before this one
	bcb=${BENCH_BASE:+$BENCH_BASE/build/bench/campaign_bench}
	if [ -n "$base" ] && [ -x "$bcb" ]; then
		say "P1: 4 boots on qemu-sam9x75 (before: $bcb)"
		(ABLAB_DATA=$tmp/data-base cb=$bcb; p1_campaign before_qemu_sam9x75 2 qemu-sam9x75 >/dev/null)
		r p1 before_qemu_sam9x75_loadavg_1min "$(cut -d' ' -f1 /proc/loadavg)" "" "/proc/loadavg after the campaign"
	elif [ -n "$base" ]; then
		say "BENCH_BASE: no $bcb (make build/bench/campaign_bench there): no P1 before figure"
	fi
	say "P1: 4 boots on qemu-sam9x75"
	qboard=0	# LAVA overheads below subtract this board time
	if p1_campaign qemu_sam9x75 2 qemu-sam9x75 >/dev/null; then
		qcid=$(psql_q "SELECT max(id) FROM campaigns")
		qboard=$(calc "$(board_ms "$qcid") / $(ok_boots "$qcid")")
	fi
	r p1 qemu_sam9x75_loadavg_1min "$(cut -d' ' -f1 /proc/loadavg)" "" "/proc/loadavg after the campaign"

	# LAVA: the same boot + module run (2 batches) of the same kernels
	# (BENCH_LAVA=0: not, e.g. for a quick before/after of ablab alone)
	if [ "${BENCH_LAVA:-1}" != 0 ]; then
	say "P1: LAVA: lava-run standalone"
	ljob=jobs/dma-from-device.json
	# lava-run, and the device-type templates of lava-server to render the device
	if ! command -v lava-run >/dev/null || [ ! -d /usr/share/lava-server/device-types ]; then
		say "installing lava-dispatcher lava-server (apt-get)"
		[ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends lava-dispatcher lava-server >"$tmp/apt.log" 2>&1 ||
			say "cannot install LAVA (not root, or apt-get failed: $tmp/apt.log)"
	fi
	if command -v lava-run >/dev/null && "$ablab" lava export "$ljob" --boards qemu-sam9x75 \
		--boots 2 --batches 2 --out "$tmp/lx" >"$tmp/lx.out" 2>"$tmp/lx.err"; then
		f1=$(head -n1 "$tmp/lx.out")
		/usr/bin/python3 -c "
import os, sys, jinja2, yaml
d = os.path.abspath(sys.argv[1])
ctx = yaml.safe_load(open(sys.argv[2])).get('context') or {}
env = jinja2.Environment(loader=jinja2.FileSystemLoader([os.path.dirname(d), '/usr/share/lava-server/device-types']), trim_blocks=True, autoescape=False)
sys.stdout.write(env.get_template(os.path.basename(d)).render(**ctx))" \
			jobs/lava/devices/qemu-sam9x75.jinja2 "$f1" >"$tmp/lava-device.yaml"
		tot=0; n=0
		while read -r f; do
			n=$((n + 1))
			t0=$(ms)
			lava-run --job-id "$n" --output-dir "$tmp/lava-out-$n" --device "$tmp/lava-device.yaml" \
				"$f" >"$tmp/lava-run-$n.log" 2>&1 || say "lava-run job $n failed (log $tmp/lava-run-$n.log)"
			tot=$((tot + $(ms) - t0))
		done <"$tmp/lx.out"
		c="ablab lava export $ljob --boards qemu-sam9x75 --boots 2 --batches 2; lava-run --device DEV.yaml JOB.yaml (each of 4)"
		r p1 lava_run_wall_ms_per_boot "$(calc "$tot / $n")" ms "$c"
		r p1 lava_run_overhead_ms_per_boot "$(calc "$tot / $n - $qboard")" ms "$c"

		say "P1: LAVA: ablab lava run --local (lava-run per boot, results stored)"
		t0=$(ms)
		"$ablab" lava run "$ljob" --local --boards qemu-sam9x75 --boots 2 --undecidable-ok --batches 2 \
			--results "$tmp/res" --format none >/dev/null 2>"$tmp/ll.err" ||
			say "lava run --local failed: $(tail -n 2 "$tmp/ll.err")"
		t1=$(ms)
		c="ablab lava run $ljob --local --boards qemu-sam9x75 --boots 2 --batches 2"
		r p1 lava_local_wall_ms_per_boot "$(calc "($t1 - $t0) / 4")" ms "$c"
		r p1 lava_local_overhead_ms_per_boot "$(calc "($t1 - $t0) / 4 - $qboard")" ms "$c"
	else
		say "P1: no lava-run or lava export failed: $(tail -n 2 "$tmp/lx.err" 2>/dev/null)"
	fi

	say "P1: LAVA: through a local lava-server + lava-worker (jobs/lava/local-server.sh)"
	exec 8>/run/lock/ablab-lava-test.lock
	if flock -w 600 8; then
		pg_was_online=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" && $4 == "online"' | wc -l)
		lava_pg_restore() {
			if [ "$pg_was_online" = 0 ]; then
				v=$(pg_lsclusters -h | awk '$2 == "main" { print $1 }' | head -n1)
				[ -n "$v" ] && pg_ctlcluster "$v" main stop
			fi
		}
		lava_state=$tmp/lava
		t0=$(ms)
		if bash jobs/lava/local-server.sh start "$lava_state" >"$tmp/lava-start.log" 2>&1; then
			r p1 lava_server_start_s "$(calc "($(ms) - $t0) / 1000")" s "bash jobs/lava/local-server.sh start DIR"
			url=http://127.0.0.1:${LAVA_PORT:-8000}
			t0=$(ms)
			"$ablab" lava run "$ljob" --server "$url" --token-file "$lava_state/token" \
				--boards qemu-sam9x75 --boots 2 --undecidable-ok --batches 2 --results "$tmp/res" --format none \
				>/dev/null 2>"$tmp/ls.err" || say "lava run --server failed: $(tail -n 2 "$tmp/ls.err")"
			t1=$(ms)
			c="ablab lava run $ljob --server $url --token-file T --boards qemu-sam9x75 --boots 2 --batches 2"
			r p1 lava_server_wall_ms_per_boot "$(calc "($t1 - $t0) / 4")" ms "$c"
			r p1 lava_server_overhead_ms_per_boot "$(calc "($t1 - $t0) / 4 - $qboard")" ms "$c"
		else
			say "lava-server did not start: $(tail -n 3 "$tmp/lava-start.log")"
		fi
		bash jobs/lava/local-server.sh stop "$lava_state" >/dev/null 2>&1
		lava_pg_restore
		lava_state=
		flock -u 8
	else
		say "another run holds the local LAVA instance for 10 min; server figures skipped"
	fi
	exec 8>&-
	fi
fi

# ---- console bytes read per boot (issue 16) ------------------------------------
# What the agent reads from the console per boot: the size of each ok boot's
# transcript (everything received).  The simulator at pty speed and paced at
# 115200 baud (`--fault slow --baud 115200`), and qemu-sam9x75; with
# BENCH_BASE the older ablab on the same boards, before this one.
if want bytes; then
	psql_d() { psql -X -A -t -q "host=$1/pg dbname=ablab user=ablab" -c "$2"; }
	# bytes_campaign BOOTS LABEL BIN DATA BOARD [KERNEL ARGS]: a BOOTS+BOOTS campaign of 2
	# batches; sets cid, n (its ok boots), wall (ms) and ovh_total (wall - their boot_ms + run_ms)
	bytes_campaign() {
		local boots=$1 label=$2 bin=$3 data=$4 t0 ok=
		shift 4
		# 1+1 cannot decide: said so to a binary that refuses it (BENCH_BASE may predate that)
		"$bin" ab --help 2>/dev/null | grep -q -- --undecidable-ok && ok=--undecidable-ok
		t0=$(ms)
		ABLAB_DATA=$data "$bin" ab --board "$@" --boots "$boots" $ok --batches 2 --results "$tmp/res-$label" \
			--format json >/dev/null 2>"$tmp/bytes$boots-$label.err" ||
			{ say "$label: $boots+$boots campaign failed: $(tail -n 2 "$tmp/bytes$boots-$label.err")"; return 1; }
		wall=$(($(ms) - t0))
		cid=$(psql_d "$data" "SELECT max(id) FROM campaigns")
		n=$(psql_d "$data" "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
		ovh_total=$((wall - $(psql_d "$data" "SELECT coalesce(sum(boot_ms + run_ms), 0) FROM boots WHERE campaign_id = $cid AND status = 'ok'")))
	}
	bytes_run() { # LABEL BIN DATA BOARD [KERNEL ARGS]: 1+1 boots, 2 batches
		local label=$1 bin=$2 data=$3 cid n wall ovh_total
		shift 3
		bytes_campaign 1 "$label" "$bin" "$data" "$@" || return 1
		local c="ablab ab --board $1 --boots 1 --batches 2 (transcript bytes per ok boot)" logs ovh
		logs=$(psql_d "$data" "SELECT log_path FROM boots WHERE campaign_id = $cid AND status = 'ok'")
		ovh=$(calc "$ovh_total / $n")
		r bytes "${label}_console_bytes_per_boot" "$(echo "$logs" |
			python3 -c 'import os, sys; p = [l.strip() for l in sys.stdin if l.strip()]; print(round(sum(os.path.getsize(x) for x in p) / len(p)))')" B "$c"
		r bytes "${label}_wall_ms_per_boot" "$(calc "$wall / $n")" ms "$c"
		r bytes "${label}_overhead_ms_per_boot" "$ovh" ms "$c"
		[ -n "${baud:-}" ] || return 0
		# on a paced line the target is 50 ms + the result lines' own bytes
		# (the `dmabench: v1` lines as the kernel log holds them, its time
		# stamps included); what else crossed the line outside boot_ms and
		# run_ms: the prologue's exchange and the post-run dmesg's framing
		local split
		split=$(echo "$logs" | python3 -c '
import re, sys
res = out = 0
p = [l.strip() for l in sys.stdin if l.strip()]
for f in p:
    d = open(f, "rb").read()
    # the sync marker: ABLAB_S_<id>_1 (before), <8 hex id>S1 (after)
    a = re.search(rb"(ABLAB_S_[0-9a-f]+_1|[0-9a-f]{8}S1)\r?\n", d).start()
    a = d.find(b"lab# {", a)           # the prologue: the first command after the sync
    i = d.rfind(b"lab# {", 0, d.find(b"insmod", a))  # the benchmark command
    j = d.find(b"lab# {", i + 1)       # the post-run dmesg: its own exchange (before),
    if j < 0:                          # or after the insmod exchange <id>Mn marker (after)
        j = i + re.search(rb"[0-9a-f]{8}M[0-9]+ [0-9]+", d[i:]).start()
    res += sum(len(l) + 1 for l in d[j:].split(b"\n") if b"dmabench: v1 " in l)
    out += (i - a) + (len(d) - j)
print(round(res / len(p)), round(out / len(p)))')
		local rb=${split% *} ob=${split#* } bpm
		bpm=$(calc "$baud / 10000" 3)
		r bytes "${label}_result_bytes_per_boot" "$rb" B "$c"
		r bytes "${label}_other_bytes_per_boot" "$((ob - rb))" B "$c (the prologue exchange, the post-run dmesg's command, markers and prompt)"
		r bytes "${label}_result_ms_per_boot" "$(calc "$rb / $bpm")" ms "$c ($rb B at $bpm B/ms)"
		r bytes "${label}_beyond_result_ms_per_boot" "$(calc "$ovh - $rb / $bpm")" ms "$c (overhead minus the result lines' line time)"
		r bytes "${label}_other_ms_per_boot" "$(calc "($ob - $rb) / $bpm")" ms "$c"
		# what one boot more costs: a 3+3 campaign against this 1+1 one.  The 1+1
		# figure above carries half the campaign's own start and end (process,
		# PostgreSQL connection, plan, report: the same for 2 boots or 200)
		local n1=$n ovh1=$ovh_total fixed marg
		bytes_campaign 3 "$label" "$bin" "$data" "$@" || return 1
		marg=$(calc "($ovh_total - $ovh1) / ($n - $n1)")
		fixed=$(calc "$ovh1 - $marg * $n1")
		local c3="ablab ab --board $1 --boots 3 and --boots 1, --batches 2: (overhead of 3+3 - overhead of 1+1) / 4"
		r bytes "${label}_per_boot_overhead_ms" "$marg" ms "$c3"
		r bytes "${label}_per_boot_beyond_result_ms" "$(calc "$marg - $rb / $bpm")" ms "$c3, minus the result lines' line time"
		r bytes "${label}_per_campaign_overhead_ms" "$fixed" ms "$c3: the 1+1 overhead less 2 boots' share"
	}
	sim_board bsim-bytes "$tmp/simb" uboot && sims+=("$tmp/simb")
	SIM_ARGS="--fault slow --baud 115200" sim_board bsim-115200 "$tmp/simb115" uboot && sims+=("$tmp/simb115")
	for who in before after; do
		if [ $who = before ]; then bin=$base data=$tmp/data-base; else bin=$ablab data=$ABLAB_DATA; fi
		[ -n "$bin" ] || continue
		say "console bytes per boot ($who): simulator, simulator at 115200 baud, qemu-sam9x75"
		bytes_run "${who}_sim" "$bin" "$data" "$tmp/simb/board.json" --control "$tmp/simb/k/control" \
			--patched "$tmp/simb/k/patched"
		baud=115200 bytes_run "${who}_sim_115200" "$bin" "$data" "$tmp/simb115/board.json" \
			--control "$tmp/simb115/k/control" --patched "$tmp/simb115/k/patched"
		bytes_run "${who}_qemu_sam9x75" "$bin" "$data" qemu-sam9x75
	done
fi

# ---- P2 + P3: parallel boards ------------------------------------------------
if want p2; then
	declare -A alone alone_cpu one
	# per board of a campaign: the sum of its boots' boot_ms + run_ms
	board_sum() { psql_q "SELECT coalesce(max(t), 0) FROM (SELECT sum(b.boot_ms + b.run_ms) t FROM boots b WHERE b.campaign_id = $1 AND b.status = 'ok' GROUP BY b.board_id) x"; }
	for b in qemu-sam9x75 qemu-arm11 qemu-pi400; do
		say "P2: $b alone (1+1 boots)"
		j=$("$cb" --boots 1 --batches 2 --results "$tmp/res" "$b" 2>"$tmp/p2-$b.err")
		if [ -n "$j" ] && [ "$(jget "$j" status)" = 0 ]; then
			alone[$b]=$(jget "$j" wall_ms)
			alone_cpu[$b]=$(jget "$j" children_cpu_ms)
			c="build/bench/campaign_bench --boots 1 --batches 2 $b"
			r p2 "alone_${b}_wall_ms" "${alone[$b]}" ms "$c"
			r p2 "alone_${b}_board_ms" "$(board_sum "$(jget "$j" campaign)")" ms "$c"
			r p2 "alone_${b}_qemu_cpu_ms" "${alone_cpu[$b]}" ms "$c"
		else
			say "$b failed: $(tail -n 2 "$tmp/p2-$b.err")"
		fi
	done
	for set in "qemu-sam9x75 qemu-arm11" "qemu-sam9x75 qemu-arm11 qemu-pi400"; do
		n=$(echo $set | wc -w)
		say "P2: $n boards in one campaign: $set"
		j=$("$cb" --boots 1 --batches 2 --results "$tmp/res" $set 2>"$tmp/p2-$n.err")
		slow=0 cpu=0
		for b in $set; do
			[ -n "${alone[$b]:-}" ] && slow=$(python3 -c "print(max($slow, ${alone[$b]}))")
			[ -n "${alone_cpu[$b]:-}" ] && cpu=$(python3 -c "print($cpu + ${alone_cpu[$b]})")
		done
		if [ -n "$j" ] && [ "$(jget "$j" status)" = 0 ] && [ "$slow" != 0 ]; then
			c="build/bench/campaign_bench --boots 1 --batches 2 $set"
			w=$(jget "$j" wall_ms)
			r p2 "qemu_${n}_boards_wall_ms" "$w" ms "$c"
			r p2 "qemu_${n}_boards_vs_slowest_alone" "$(calc "$w / $slow" 2)" x "$c"
			# QEMU under TCG is CPU-bound: the boards' own CPU time over the cores
			# available is a floor no scheduler can beat
			r p2 "qemu_${n}_boards_cpu_floor_ms" "$(calc "max($slow, $cpu / $(nproc))" 0)" ms \
				"max(slowest alone, sum of the boards' QEMU CPU time alone / $(nproc) cores)"
			r p2 "qemu_${n}_boards_vs_slowest_board_same_run" "$(calc "$w / $(board_sum "$(jget "$j" campaign)")" 2)" x \
				"$c: wall / max over boards of sum(boot_ms + run_ms) in this campaign"
			r p3 "qemu_${n}_boards_agent_cpu_pct_of_core" \
				"$(calc "100 * ($(jget "$j" agent_user_ms) + $(jget "$j" agent_sys_ms)) / $w" 2)" % "$c"
			r p3 "qemu_${n}_boards_agent_peak_rss_MB" "$(calc "$(jget "$j" agent_maxrss_kb) / 1024")" MB "$c"
		else
			say "$n boards failed: $(tail -n 2 "$tmp/p2-$n.err")"
		fi
	done
	# simulators: "fast" (output at pty speed: the whole campaign is CPU
	# work of agent, simulators and PostgreSQL) and "slow" (1 byte/ms, a
	# 9600-baud console: the boards' own time dominates, as on real boards)
	for kind in fast slow; do
		for n in 1 10 50; do
			say "P2: $n $kind simulators"
			args=()
			boots=5
			sargs=
			[ $kind = slow ] && { boots=1; sargs="--fault slow --klog-bytes 1024"; }
			for i in $(seq 1 "$n"); do
				d=$tmp/ps$kind$n-$i
				SIM_BAUD=$([ $kind = slow ] && echo 9600 || echo 115200) SIM_ARGS=$sargs \
					sim_board "bs$kind$n-$i" "$d" uboot && sims+=("$d")
				args+=("$d/board.json:$d/k/control:$d/k/patched")
			done
			j=$("$cb" --boots $boots --batches 2 --results "$tmp/res" "${args[@]}" 2>"$tmp/p2s-$kind$n.err")
			c="build/bench/campaign_bench --boots $boots --batches 2 SIM1 .. SIM$n ($kind)"
			if [ -n "$j" ] && [ "$(jget "$j" status)" = 0 ]; then
				w=$(jget "$j" wall_ms)
				[ "$n" = 1 ] && one[$kind]=$w
				r p2 "sim_${kind}_${n}_wall_ms" "$w" ms "$c"
				[ -n "${one[$kind]:-}" ] &&
					r p2 "sim_${kind}_${n}_vs_one_alone" "$(calc "$w / ${one[$kind]}" 2)" x "$c"
				r p2 "sim_${kind}_${n}_boots_per_s" "$(calc "$(jget "$j" boots) * 1000 / $w")" boots/s "$c"
				r p3 "sim_${kind}_${n}_agent_cpu_ms_per_boot" \
					"$(calc "($(jget "$j" agent_user_ms) + $(jget "$j" agent_sys_ms)) / $(jget "$j" boots)" 2)" ms "$c"
				r p3 "sim_${kind}_${n}_agent_peak_rss_MB" "$(calc "$(jget "$j" agent_maxrss_kb) / 1024")" MB "$c"
			else
				say "$n $kind simulators failed: $(grep -m3 'failed' "$tmp/p2s-$kind$n.err")"
				r p2 "sim_${kind}_${n}_failed_boards" "$(grep -c 'stopped early' "$tmp/p2s-$kind$n.err")" boards "$c"
			fi
			for i in $(seq 1 "$n"); do sim_stop "$tmp/ps$kind$n-$i"; done
		done
	done
fi

# ---- P4: ingest rate ------------------------------------------------------------
if want p4; then
	say "P4: ablab ingest of 4 logs x 125,000 samples"
	python3 - "$tmp/ingest" <<'EOF'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
scen = [('null', 0), ('small-dirty-256B', 256), ('large-dirty-1MiB', 1048576), ('large-clean-1MiB', 1048576)]
for f in range(4):
    with open(f'{d}/boot{f}.log', 'w') as o:
        o.write('Linux version 6.1.0-bench (bench@lab) #1\n')
        o.write('dmabench: v1 start clock_res_ns=41 timing=auto batches=25000 scenarios=4\n')
        for b in range(1, 25001):
            for s, size in scen:
                m = 70000 + (b * 7 + f) % 997
                o.write(f'dmabench: v1 result scenario={s} batch={b} size={size} reps=100 dir=from '
                        f'op=map_unmap state=dirty timing=iter mean_ns={m} min_ns={m - 50} max_ns={m + 900} '
                        f'ns_per_KiB={m * 1024 // size if size else 0}\n')
            o.write(f'dmabench: v1 preserve scenario=preserve-409600B batch={b} size=409600 lost={f}\n')
        o.write('dmabench: v1 done status=0 results=125000\n')
EOF
	if [ -n "$base" ]; then	# the same logs, the older ablab, its own database
		t0=$(ms)
		ABLAB_DATA=$tmp/data-base "$base" ingest "$tmp"/ingest/boot*.log --board bench-ingest \
			--cpu ARM926EJ-S --family legacy --variant control >/dev/null 2>"$tmp/ingest-base.err" ||
			say "ingest (before) failed: $(tail -n 2 "$tmp/ingest-base.err")"
		t1=$(ms)
		r p4 before_ingest_samples_per_s "$(calc "500000 * 1000 / ($t1 - $t0)" 0)" samples/s \
			"BENCH_BASE/ablab ingest boot{0..3}.log (the same 4 x 125,000 samples, before)"
	fi
	t0=$(ms)
	"$ablab" ingest "$tmp"/ingest/boot*.log --board bench-ingest --cpu ARM926EJ-S --family legacy \
		--variant control >/dev/null 2>"$tmp/ingest.err" || say "ingest failed: $(tail -n 2 "$tmp/ingest.err")"
	t1=$(ms)
	n=$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id JOIN boards o ON o.id = b.board_id WHERE o.name = 'bench-ingest'")
	c="ablab ingest boot{0..3}.log --board bench-ingest --variant control (4 x 125,000 samples)"
	r p4 ingest_samples "$n" samples "$c"
	r p4 ingest_samples_per_s "$(calc "$n * 1000 / ($t1 - $t0)" 0)" samples/s "$c"
	# the parse part of it, for the split
	pj=$("$pb" "$tmp/ingest/boot0.log" 16)
	r p4 ingest_parse_MB_s "$(jget "$pj" boots_mb_s)" MB/s "parse_bench on one ingest log"
	# where the server's time goes: one boot's 125,000 rows COPYed into
	# copies of samples with more and more of its constraints (rolled back)
	bid=$(psql_q "SELECT min(b.id) FROM boots b JOIN boards o ON o.id = b.board_id WHERE o.name = 'bench-ingest'")
	psql_q "\copy (SELECT * FROM samples WHERE boot_id = $bid) TO '$tmp/rows.tsv'"
	for v in "heap:" "pk:, PRIMARY KEY (boot_id, scenario, batch)" \
		 "pk_fk:, PRIMARY KEY (boot_id, scenario, batch), FOREIGN KEY (boot_id) REFERENCES boots(id)" \
		 "all:INCLUDING INDEXES, FOREIGN KEY (boot_id) REFERENCES boots(id)"; do
		name=${v%%:*}
		t=$(printf 'BEGIN;\nCREATE TABLE bench_copy (LIKE samples %s);\n\\timing on\n\\copy bench_copy FROM %s\n\\timing off\nROLLBACK;\n' \
			"${v#*:}" "'$tmp/rows.tsv'" | psql -X -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" 2>&1 |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
		[ -n "$t" ] && r p4 "copy_125k_${name}_rows_per_s" "$(calc "125000 * 1000 / $t" 0)" rows/s \
			"psql \\copy of one boot's 125,000 samples into (LIKE samples ${v#*:})"
	done
	# P5 wants a database of generated campaigns only
	psql_q "DELETE FROM samples WHERE boot_id IN (SELECT b.id FROM boots b JOIN boards o ON o.id = b.board_id WHERE o.name = 'bench-ingest')" >/dev/null
fi

# ---- P5: report / query on 1M samples --------------------------------------------
if want p5; then
	say "P5: generating 10,000 campaigns, 40,000 boots, 1,000,000 samples (SQL generate_series)"
	t0=$(ms)
	psql -X -q -v ON_ERROR_STOP=1 "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -f tests/bench/gen1m.sql >/dev/null
	t1=$(ms)
	ns=$(psql_q "SELECT count(*) FROM samples")
	r p5 db_samples "$ns" samples "SQL generate_series (tests/bench/run.sh)"
	r p5 db_generate_s "$(calc "($t1 - $t0) / 1000")" s "SQL generate_series (tests/bench/run.sh)"
	mid=$(psql_q "SELECT id FROM campaigns WHERE job->>'job' = 'gen-job' ORDER BY id OFFSET 5000 LIMIT 1")
	# median of 5 runs of an ablab command, output discarded
	lat() { # KEY COMMAND...: median of LAT_N (5) runs
		local key=$1 i t0 ts=()
		shift
		for i in $(seq 1 "${LAT_N:-5}"); do
			t0=$(date +%s%N)
			"$ablab" "$@" >/dev/null 2>"$tmp/lat.err" || { say "ablab $*: $(tail -n 1 "$tmp/lat.err")"; return; }
			ts+=($(( ($(date +%s%N) - t0) / 1000 )))
		done
		r p5 "$key" "$(printf '%s\n' "${ts[@]}" | sort -n | sed -n "$(( (${#ts[@]} + 1) / 2 ))p" | awk '{ printf "%.1f", $1 / 1000 }')" ms "ablab $*"
	}
	lat report_latest_ms report
	lat report_mid_ms report "$mid"
	lat report_mid_email_ms report "$mid" --format email
	lat query_campaign_ms query --campaign "$mid"
	lat query_board_scenario_1d_ms query --board gen-pi400 --scenario large-dirty-1MiB --since 1d
	lat query_board_30d_csv_ms query --board gen-pi400 --since 30d --format csv
	lat campaigns_ms campaigns --limit 20
	lat query_scenario_1d_ms query --scenario large-dirty-1MiB --since 1d
	night=$(psql_q "SELECT id FROM campaigns WHERE trigger = 'nightly' ORDER BY id OFFSET 1250 LIMIT 1")
	lat compare_previous_ms compare "$night" --previous
	# every nightly campaign of the job (2,500) analysed: the median of 5 runs like the
	# others (one run was enough when it took 11 s; at 100 ms one run is noise)
	lat trend_2500_nights_ms trend gen-job --scenario large-dirty-1MiB
	rows=$("$ablab" query --board gen-pi400 --since 30d --format csv 2>/dev/null | wc -l)
	r p5 query_board_30d_csv_rows "$rows" rows "ablab query --board gen-pi400 --since 30d --format csv | wc -l"
	# the process alone: connect + migrations check, no query
	lat db_status_ms db status
fi

# ---- P6: kernels ------------------------------------------------------------------
if want p6; then
	say "P6: warm no-op make kernels"
	t0=$(ms)
	make -s kernels >"$tmp/kernels.log" 2>&1 || say "make kernels failed: $(tail -n 2 "$tmp/kernels.log")"
	r p6 make_kernels_noop_s "$(calc "($(ms) - $t0) / 1000" 2)" s "make kernels (all cached)"
	# patched after control, in a scratch cache: the real control tree
	# hard-linked (not written: its key matches), sources and ccache shared,
	# one extra patch so that the patched key is new
	cache=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
	b=qemu-sam9x75
	if [ -f "$cache/build/$b/control/.ablab-tree-key" ]; then
		say "P6: $b patched after control (scratch cache)"
		sc=$tmp/kcache
		mkdir -p "$sc/build/$b" "$tmp/patches"
		ln -s "$cache/src" "$sc/src"
		ln -s "$cache/ccache" "$sc/ccache"
		cp -a "$cache/busybox" "$cache/hashes" "$sc/" 2>/dev/null
		cp -al "$cache/build/$b/control" "$sc/build/$b/control"
		cp jobs/dma-from-device/patches/*.patch "$tmp/patches/"
		printf 'bench: a comment in the patch series, to give it a new key\n' >>"$tmp/patches/$(ls "$tmp/patches" | tail -n1)"
		t0=$(ms)
		if ABLAB_CACHE=$sc PATCHES_DIR=$tmp/patches nice bash boards/kernel/build.sh "$b" patched \
			>"$tmp/p6.log" 2>&1; then
			r p6 "${b}_patched_incremental_s" "$(calc "($(ms) - $t0) / 1000")" s \
				"ABLAB_CACHE=scratch PATCHES_DIR=copy+1 bash boards/kernel/build.sh $b patched"
		else
			say "P6: build failed: $(tail -n 3 "$tmp/p6.log")"
		fi
		rm -rf "$sc" &
	fi
	# BENCH_COLD=1: a cold build of one board (both variants) in an empty
	# cache, ccache off: 5-10 min of every core, so not by default
	if [ -n "${BENCH_COLD:-}" ]; then
		say "P6: cold build of $b (empty cache, no ccache)"
		mkdir -p "$tmp/cold"
		t0=$(ms)
		if ABLAB_CACHE=$tmp/cold CCACHE_DISABLE=1 nice bash boards/kernel/build.sh "$b" control \
			>"$tmp/cold.log" 2>&1; then
			r p6 "${b}_control_cold_s" "$(calc "($(ms) - $t0) / 1000")" s \
				"ABLAB_CACHE=empty CCACHE_DISABLE=1 bash boards/kernel/build.sh $b control"
			t0=$(ms)
			ABLAB_CACHE=$tmp/cold CCACHE_DISABLE=1 nice bash boards/kernel/build.sh "$b" patched \
				>>"$tmp/cold.log" 2>&1 &&
				r p6 "${b}_patched_after_cold_control_s" "$(calc "($(ms) - $t0) / 1000")" s \
					"ABLAB_CACHE=same CCACHE_DISABLE=1 bash boards/kernel/build.sh $b patched"
		else
			say "P6: cold build failed: $(tail -n 3 "$tmp/cold.log")"
		fi
	fi
	# what build.sh recorded for every build in the cache (manifest built.seconds)
	for m in "$cache"/kernels/*/*-*/manifest.json; do
		python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["board"], m["variant"], m["built"]["seconds"])' "$m"
	done 2>/dev/null | sort | awk '
		{ k = $1 "_" $2; n[k]++; if (!(k in mx) || $3 > mx[k]) mx[k] = $3; if (!(k in mn) || $3 < mn[k]) mn[k] = $3 }
		END { for (k in n) printf "%s\t%d\t%s\t%s\n", k, n[k], mn[k], mx[k] }' | sort |
	while IFS=$'\t' read -r k cnt lo hi; do
		r p6 "recorded_${k}_builds" "$cnt" builds "manifest.json built.seconds in the kernel cache"
		r p6 "recorded_${k}_min_s" "$lo" s "manifest.json built.seconds in the kernel cache"
		r p6 "recorded_${k}_max_s" "$hi" s "manifest.json built.seconds in the kernel cache"
	done
fi

# ---- results ----------------------------------------------------------------------
python3 - "$rec" "$out" <<'EOF'
import collections, json, os, platform, subprocess, sys, time
rec, out = sys.argv[1], sys.argv[2]
def sh(c):
    try:
        return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
    except Exception:
        return ''
machine = {
    'host': platform.node(), 'kernel': platform.release(),
    'cpu': sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
    'cores': os.cpu_count(), 'mem_gib': round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30, 1),
    'os': sh('. /etc/os-release; echo $PRETTY_NAME'), 'loadavg_at_end': os.getloadavg(),
    'postgresql': sh('psql --version'), 'qemu': sh('qemu-system-arm --version | head -n1'),
    'lava': sh("dpkg-query -W -f='${Version}' lava-dispatcher 2>/dev/null"),
    'git': sh('git describe --always --dirty'), 'date': time.strftime('%Y-%m-%dT%H:%M:%S%z'),
}
targets = {
    'sim_overhead_ms_per_boot': ('<=', 50), 'qemu_sam9x75_overhead_ms_per_boot': ('<=', 50),
    'sim_cli_overhead_ms_per_boot': ('<=', 50), 'before_qemu_sam9x75_overhead_ms_per_boot': ('<=', 50),
    'qemu_2_boards_vs_slowest_alone': ('<=', 1.1), 'qemu_3_boards_vs_slowest_alone': ('<=', 1.1),
    'qemu_2_boards_vs_slowest_board_same_run': ('<=', 1.1), 'qemu_3_boards_vs_slowest_board_same_run': ('<=', 1.1),
    'sim_slow_10_vs_one_alone': ('<=', 1.1), 'sim_slow_50_vs_one_alone': ('<=', 1.1),
    'sim_fast_1_agent_peak_rss_MB': ('<=', 16), 'sim_fast_50_agent_peak_rss_MB': ('<=', 16),
    'sim_slow_50_agent_peak_rss_MB': ('<=', 16),
    'qemu_sam9x75_agent_cpu_pct_of_core': ('<=', 1.0), 'qemu_sam9x75_agent_peak_rss_MB': ('<=', 16),
    'sim_agent_peak_rss_MB': ('<=', 16),
    'ingest_samples_per_s': ('>=', 200000), 'after_sim_115200_per_boot_beyond_result_ms': ('<=', 50),
    'after_qemu_sam9x75_overhead_ms_per_boot': ('<=', 50),
    'report_latest_ms': ('<=', 100), 'report_mid_ms': ('<=', 100), 'report_mid_email_ms': ('<=', 100),
    'query_campaign_ms': ('<=', 100), 'query_board_scenario_1d_ms': ('<=', 100),
    'query_board_30d_csv_ms': ('<=', 100), 'campaigns_ms': ('<=', 100), 'compare_previous_ms': ('<=', 100),
    'trend_2500_nights_ms': ('<=', 100), 'query_scenario_1d_ms': ('<=', 100),
    'make_kernels_noop_s': ('<', 2), 'qemu-sam9x75_patched_incremental_s': ('<=', 15),
    'boots_MB_s': ('>=', 100), 'dense_MB_s': ('>=', 100),
}
sec = collections.OrderedDict()
for line in open(rec):
    s, k, v, u, c = (line.rstrip('\n').split('\t') + [''] * 5)[:5]
    try:
        v = float(v)
    except ValueError:
        pass
    sec.setdefault(s, []).append({'name': k, 'value': v, 'unit': u, 'command': c})
# ratios of LAVA to ablab, from P1
p1 = {x['name']: x['value'] for x in sec.get('p1', [])}
for lk in ('lava_run', 'lava_local', 'lava_server'):
    for base in ('qemu_sam9x75',):
        if f'{lk}_overhead_ms_per_boot' in p1 and p1.get(f'{base}_overhead_ms_per_boot', 0) > 0:
            sec['p1'].append({'name': f'{lk}_overhead_vs_ablab', 'unit': 'x', 'command': 'ratio',
                              'value': round(p1[f'{lk}_overhead_ms_per_boot'] / p1[f'{base}_overhead_ms_per_boot'], 1)})
        if f'{lk}_wall_ms_per_boot' in p1 and p1.get(f'{base}_wall_ms_per_boot', 0) > 0:
            sec['p1'].append({'name': f'{lk}_wall_vs_ablab', 'unit': 'x', 'command': 'ratio',
                              'value': round(p1[f'{lk}_wall_ms_per_boot'] / p1[f'{base}_wall_ms_per_boot'], 2)})
print(f"\n{'figure':<52} {'value':>12} {'unit':<10} target")
for s, rows in sec.items():
    for x in rows:
        t = targets.get(x['name'])
        mark = ''
        if t and isinstance(x['value'], float):
            good = x['value'] <= t[1] if t[0] in ('<=', '<') else x['value'] >= t[1]
            mark = f"{t[0]} {t[1]:g} {'met' if good else 'MISSED'}"
            x['target'] = f'{t[0]} {t[1]:g}'
            x['met'] = good
        v = f"{x['value']:.2f}".rstrip('0').rstrip('.') if isinstance(x['value'], float) else x['value']
        print(f"{s + ' ' + x['name']:<52} {v:>12} {x['unit']:<10} {mark}")
    with open(f'{out}/{s}.json', 'w') as f:
        json.dump({'section': s, 'machine': machine, 'figures': rows}, f, indent=1)
        f.write('\n')
print(f"\nmachine: {machine['cpu']}, {machine['cores']} cores, {machine['mem_gib']} GiB, {machine['os']}, "
      f"load {machine['loadavg_at_end'][0]:.2f}; JSON in {out}/")
EOF
