# SPDX-License-Identifier: GPL-2.0-only
# Boot phases (issue 29 item 1): every attempt stores when each phase ended, in ms after
# power on; the per-board medians in `ablab report --format json`, `ablab boards --phases`,
# /metrics and the web board page equal percentile_cont over the stored values.  On the
# board simulator (U-Boot with TFTP from a real directory: a fake board, the agent real)
# and on qemu-pi400 (real U-Boot, real TFTP from QEMU's server).
# timeout: 400
bs=$top/build/boardsim
order="ARRAY['first_byte','bootloader','loaded','banner','prompt','bench_start','bench_end','off']"
# phases_in_order CID: the ok boots of campaign CID whose phases are not all present and in
# order (first_byte <= bootloader <= ... <= off), as "seq:phases"
phases_in_order() {
	psql_q "SELECT string_agg(seq || ':' || coalesce(phases::text, 'null'), ' ') FROM boots b
		WHERE campaign_id = $1 AND status = 'ok' AND NOT coalesce((SELECT bool_and(
		  (phases->>(a[i]))::bigint <= (phases->>(a[i + 1]))::bigint AND (phases->>(a[i]))::bigint >= 0)
		  FROM (SELECT $order AS a) x, generate_series(1, 7) i), false)"
}
# medians_match CID BOARD JSONFILE PATH: the medians under PATH (python: o -> the board's
# phases object) equal percentile_cont over the campaign's stored phases, rounded to 0.1
medians_match() {
	local want
	want=$(psql_q "SELECT json_object_agg(k, m) FROM (SELECT k, round(percentile_cont(0.5)
		WITHIN GROUP (ORDER BY (phases->>k)::float8)::numeric, 1) AS m FROM boots b
		JOIN boards o ON o.id = b.board_id, unnest($order) k WHERE campaign_id = $1
		AND o.name = '$2' AND status = 'ok' AND phases ? k GROUP BY k) x")
	python3 - "$want" "$3" "$4" <<'PY'
import json, sys
want, got = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
o = eval(sys.argv[3], {'o': got})['median_ms']
bad = {k: (v, o.get(k)) for k, v in want.items() if o.get(k) is None or abs(o[k] - v) > 0.05}
print('  medians', {k: o[k] for k in want})
sys.exit(1 if bad or len(want) != 8 else 0)
PY
}

"$ablab" db start >/dev/null 2>&1
if [ ! -x "$bs" ]; then
	bad "phases: $bs is not built (make build/boardsim)"
else
	w=$tmp/phases-sim
	sim_uboot_board t36-sim "$w"
	sim_kernels "$w/k" t36-sim
	for v in control patched; do echo ko >"$w/k/$v/dmabench.ko"; done
	sed -i 's|"shell": { "prompt": "lab# " }|"shell": { "prompt": "lab# ", "module_path": "/lib/modules/dmabench.ko" }|' "$w/board.json"
	# its output paced as on a 115,200-baud line (fault "slow"): every phase takes
	# measurable ms, a TFTP transfer too
	"$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" --record "$w/record" \
		--tick-ms 20 --seed 36 --fault slow --baud 115200 --klog-bytes 2048 --daemon \
		--pid-file "$w/pid" 2>"$w/sim.err" ||
		bad "phases: cannot start the simulator: $(cat "$w/sim.err")"
	out=$("$ablab" ab --board "$w/board.json" --control "$w/k/control" --patched "$w/k/patched" \
		--boots 2 --undecidable-ok --batches 2 --results "$w/results" 2>&1)
	check "sim: a 2+2-boot campaign completes" test "$?" = 0 -a -n "$(echo "$out" | grep -F 't36-sim: 4 ok boot(s), 0 failed')" ||
		echo "$out" | tail -n 5
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "sim: every ok boot has all 8 phases in order, from power on" \
		test "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")/$(phases_in_order "$cid")" = 4/
	size=0
	for f in zImage initramfs.cpio.gz sim.dtb; do size=$((size + $(stat -c %s "$w/k/control/$f"))); done
	psize=0
	for f in zImage initramfs.cpio.gz sim.dtb; do psize=$((psize + $(stat -c %s "$w/k/patched/$f"))); done
	check "sim: load_bytes is the size of the 3 TFTP'd files (control $size, patched $psize), load_ms > 0" \
		test "$(psql_q "SELECT string_agg(variant || '=' || (phases->>'load_bytes') || ',' || ((phases->>'load_ms')::int > 0)::text, ' ' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = \
		"control=$size,true patched=$psize,true control=$size,true patched=$psize,true"
	check "sim: loaded (the boot command typed) ends after the last transfer: loaded >= bootloader + load_ms" \
		test "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok' AND (phases->>'loaded')::int >= (phases->>'bootloader')::int + (phases->>'load_ms')::int")" = 4
	"$ablab" report "$cid" --format json >"$w/report.json"
	check "sim: report JSON boards[0].phases medians equal percentile_cont of the stored phases" \
		medians_match "$cid" t36-sim "$w/report.json" "o['boards'][0]['phases']"
	check "sim: report JSON phases: 4 boots, boots per hour from the wall time between boots" \
		python3 -c "import json,sys; p=json.load(open('$w/report.json'))['boards'][0]['phases']; sys.exit(not (p['boots'] == 4 and p['boots_per_hour'] > 0 and p['boots_per_hour_from'] == 'wall' and p['load_bytes'] > 0 and p['load_kib_s'] > 0))"
	"$ablab" boards --phases --since 1d --format json >"$w/boards.json"
	check "sim: ablab boards --phases --format json: the same medians" \
		medians_match "$cid" t36-sim "$w/boards.json" "[b for b in o if b['board'] == 't36-sim'][0]"
	"$ablab" boards --phases >"$w/boards.txt"
	banner=$(printf %.0f "$(psql_q "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'banner')::float8) FROM boots WHERE campaign_id = $cid AND status = 'ok'")")
	check "sim: ablab boards --phases (text): a header with the phases and a line for t36-sim with 4 boots and the banner median $banner" \
		bash -c "grep -q 'board.*boots.*first_byte.*bootloader.*loaded.*banner.*prompt.*bench_start.*bench_end.*off' '$w/boards.txt' && grep -Eq '^t36-sim +4 .* $banner ' '$w/boards.txt'"
	sed 's/^/  /' "$w/boards.txt"
	check "sim: ablab boards --since without --phases is refused" bash -c "! '$ablab' boards --since 1d 2>/dev/null"
	check "sim: ablab boards --phases --since yesterday: refused naming the forms" \
		bash -c "'$ablab' boards --phases --since yesterday 2>&1 | grep -q 'not a date (YYYY-MM-DD.*or an age (30d'"

	# the served views: /metrics and the board page
	"$ablab" serve --listen 127.0.0.1:0 --results "$w/results" >"$w/serve.out" 2>"$w/serve.err" &
	spid=$!
	if wait_for 60 grep -q '^ablab: serving http://127.0.0.1:[0-9]*/' "$w/serve.err"; then
		url=http://127.0.0.1:$(sed -n 's|^ablab: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$w/serve.err")
		curl -s -o "$w/metrics" "$url/metrics"
		want=$(psql_q "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'prompt')::float8)::numeric, 1) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
		check "sim: /metrics ablab_boot_phase_ms{board=\"t36-sim\",phase=\"prompt\"} is the median $want" \
			grep -qx "ablab_boot_phase_ms{board=\"t36-sim\",phase=\"prompt\"} $want" "$w/metrics"
		check "sim: /metrics has 8 phase lines and boots per hour for t36-sim" \
			test "$(grep -c '^ablab_boot_phase_ms{board="t36-sim"' "$w/metrics")/$(grep -Ec '^ablab_boots_per_hour\{board="t36-sim"\} [0-9.]+$' "$w/metrics")" = 8/1
		curl -s -o "$w/board.html" "$url/board/t36-sim"
		check "sim: the board page has the phase table with the banner median" \
			bash -c "grep -q '<h2>boot phases' '$w/board.html' && grep -q '<th>banner</th>' '$w/board.html' && grep -q '<td>$(psql_q "SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY (phases->>'banner')::float8)::numeric, 1) FROM boots WHERE campaign_id = $cid AND status = 'ok'")</td>' '$w/board.html'"
	else
		bad "sim: ablab serve did not start: $(cat "$w/serve.err")"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null

	# a failed attempt keeps the phases it reached: the kernel hangs after "Starting kernel"
	# (fault kernel-hang; no prompt within timeouts_s.kernel 3 s), stored with first_byte,
	# bootloader, loaded and off, no banner and no prompt
	"$bs" ctl "$w/ctl" arm kernel-hang >/dev/null
	"$ablab" ab --board "$w/board.json" --control "$w/k/control" --patched "$w/k/patched" \
		--boots 1 --undecidable-ok --batches 1 --results "$w/results" >/dev/null 2>&1
	fc=$(psql_q "SELECT max(id) FROM campaigns")
	check "sim: a failed attempt (kernel hang) keeps its phases: first_byte, bootloader, loaded, off; no banner, no prompt" \
		test "$(psql_q "SELECT (phases ?& ARRAY['first_byte','bootloader','loaded','off'])::text || ',' || (phases ?| ARRAY['banner','prompt'])::text FROM boots WHERE campaign_id = $fc AND status = 'failed' ORDER BY id LIMIT 1")" = "true,false" ||
		psql_q "SELECT status, phases, error FROM boots WHERE campaign_id = $fc ORDER BY id"
	"$bs" ctl "$w/ctl" quit >/dev/null
fi

# qemu-pi400: real U-Boot, real TFTP (QEMU's built-in server)
if need_kernels qemu-pi400; then
	w=$tmp/phases-pi
	mkdir -p "$w"
	out=$("$ablab" ab --board qemu-pi400 --boots 2 --undecidable-ok --batches 1 --results "$w/results" 2>&1)
	check "pi400: a 2+2-boot campaign completes" test "$?" = 0 || echo "$out" | tail -n 5
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "pi400: every ok boot has all 8 phases in order" \
		test "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")/$(phases_in_order "$cid")" = 4/
	for v in control patched; do
		kd=$(readlink -f "$kcache/kernels/qemu-pi400/$v")
		size=$(($(stat -c %s "$kd/zImage") + $(stat -c %s "$kd/initramfs.cpio.gz")))
		check "pi400: $v boots loaded zImage + initramfs by TFTP: load_bytes = $size, load_ms > 0" \
			test "$(psql_q "SELECT string_agg(DISTINCT (phases->>'load_bytes') || ',' || ((phases->>'load_ms')::int > 0)::text, ' ') FROM boots WHERE campaign_id = $cid AND status = 'ok' AND variant = '$v'")" = "$size,true"
	done
	"$ablab" report "$cid" --format json >"$w/report.json"
	check "pi400: report JSON medians equal percentile_cont of the stored phases" \
		medians_match "$cid" qemu-pi400 "$w/report.json" "o['boards'][0]['phases']"
	check "pi400: report JSON has the load rate and boots per hour" \
		python3 -c "import json,sys; p=json.load(open('$w/report.json'))['boards'][0]['phases']; print('  load', p['load_bytes'], 'B in', p['load_ms'], 'ms:', p['load_kib_s'], 'KiB/s;', p['boots_per_hour'], 'boots/h'); sys.exit(not (p['load_kib_s'] > 0 and p['boots_per_hour'] > 0))"
	"$ablab" boards --phases --since 1d | sed 's/^/  /'
fi
