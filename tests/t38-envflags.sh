# SPDX-License-Identifier: GPL-2.0-only
# Environment flags (issue 29 item 3): a board whose boots differ in more than the kernel
# under test is flagged with what changed and from which boot in every report format, and
# `ablab nightly` names what changed since the previous night.  The acceptance cases are
# collected by the lab itself: the board simulator's U-Boot says 2024.04 from power-on 3
# and its cpufreq governor is performance from power-on 5 (--uboot-version, --governor), a
# 4+4 campaign records each boot's fingerprint, the reports flag it; the next campaign, as
# the next night, runs on a simulator restarted with the governor powersave, and nightly
# names that.  The other cases
# (kernel-dependent hashes, a DTB change, temperature spreads, boots without a
# fingerprint) then set boots.env with psql UPDATEs in the format
# of docs/DESIGN.md "Environment fingerprint", to reach values the simulator has no knob for.
# timeout: 240
# lane: side
bs=$top/build/boardsim
d38=$tmp/env38
"$ablab" db start >/dev/null 2>&1
sim_kernels "$d38/k" sim-env
sim_uboot_board sim-env "$d38"

# env38 CID SQL-CASE...: every ok boot of CID gets a fingerprint; the arguments are SQL
# expressions over b.seq and b.variant: bootloader version, governor, control dtb, patched
# dtb, start temperature (m°C)
env38() {
	psql_q "UPDATE boots b SET env = jsonb_build_object(
		'bootloader', 'U-Boot ' || ($2) || ' (Jan 10 2023 - 12:00:00 +0000)',
		'cmdline', 'console=ttyS0,115200 rdinit=/init panic=-1',
		'dtb_sha256', CASE WHEN b.variant = 'control' THEN $4 ELSE $5 END,
		'rootfs_sha256', CASE WHEN b.variant = 'control' THEN 'a1a1a1a1a1a1a1a1' ELSE 'b2b2b2b2b2b2b2b2' END,
		'module_sha256', CASE WHEN b.variant = 'control' THEN 'c3c3c3c3c3c3c3c3' ELSE 'd4d4d4d4d4d4d4d4' END,
		'cpufreq', jsonb_build_array(jsonb_build_object('policy', 'policy0', 'governor', $3,
			'cur_khz', 600000 + 100000 * b.seq, 'min_khz', 600000, 'max_khz', 1800000)),
		'thermal_mc_start', jsonb_build_array($6), 'thermal_mc_end', jsonb_build_array(($6) + 3000))
		WHERE b.campaign_id = $1 AND b.status = 'ok'" >/dev/null
}
# reports38 CID TAG: every format of CID's report into $d38/TAG.FORMAT
reports38() {
	local f
	for f in text email json csv html kcidb; do
		"$ablab" report "$1" --format $f >"$d38/$2.$f" 2>"$d38/$2.$f.err" ||
			bad "t38: report $1 --format $f failed: $(head -c 300 "$d38/$2.$f.err")"
	done
}
# noflag38 TAG WHAT: no format of report TAG flags anything
noflag38() {
	check "$2: no format flags an environment change" bash -c "
		test -s '$d38/$1.text' && test -s '$d38/$1.html' && ! grep -qi 'environment changed' '$d38/$1.text' '$d38/$1.email' '$d38/$1.csv' '$d38/$1.html' '$d38/$1.kcidb'" &&
	check "$2: json: environment_changed null for the board and every row" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert all(b['environment_changed'] is None and b['environment_changes'] == [] for b in r['boards']), r['boards']
assert r['rows'] and all(x['environment_changed'] is None for x in r['rows'])
" "$d38/$1.json"
}
sim38() {	# start the simulator
	"$bs" run --ctl "$d38/ctl" --pty-link "$d38/console" --tftp-root "$d38/tftp" \
		--record "$d38/record" --tick-ms 5 --autoboot 10 --seed 38 --daemon \
		--pid-file "$d38/pid" "$@" 2>"$d38/sim.err"
}
ab38() {	# BOOTS: a campaign, its id in $cid
	"$ablab" ab --board "$d38/board.json" --control "$d38/k/control" --patched "$d38/k/patched" \
		--boots "$1" --batches 3 --undecidable-ok --results "$d38/res" >>"$d38/out" 2>>"$d38/err" ||
		bad "t38: ab --boots $1 failed: $(tail -n 3 "$d38/err")"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
}

if ! sim38 --uboot-version 3:2024.04 --governor 5:performance; then
	bad "t38: cannot start the simulator: $(cat "$d38/sim.err")"
else
	ab38 4
	c1=$cid
	"$bs" ctl "$d38/ctl" quit >/dev/null 2>&1
	wait_for 10 bash -c "! kill -0 \$(cat '$d38/pid') 2>/dev/null"
	sim38 --uboot-version 2024.04 --governor powersave || bad "t38: cannot restart the simulator: $(cat "$d38/sim.err")"
	ab38 2
	c2=$cid
	# a series campaign (three kernels, rounds of one boot each): its own table, same flag
	for n in 1 2; do
		mkdir -p "$d38/k/s$n"
		printf '{"board":"sim-env","variant":"s%s","release":"6.1.0-sim-s%s"}\n' $n $n >"$d38/k/s$n/manifest.json"
		printf 'zImage\0Linux version 6.1.0-sim-s%s (boardsim@lab) #1\n' $n >"$d38/k/s$n/zImage"
		echo initramfs >"$d38/k/s$n/initramfs.cpio.gz"
		echo dtb >"$d38/k/s$n/sim.dtb"
	done
	cat >"$d38/series.json" <<-EOF
	{ "name": "env-series", "boards": ["$d38/board.json"],
	  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$d38/k/control" } },
	                "+1": { "source": { "type": "prebuilt", "dir": "$d38/k/s1" } },
	                "+1-2": { "source": { "type": "prebuilt", "dir": "$d38/k/s2" } } },
	  "benchmark": { "name": "dmabench" }, "boots": 2, "batches": 3 }
	EOF
	"$ablab" run "$d38/series.json" --undecidable-ok --results "$d38/res" >>"$d38/out" 2>>"$d38/err" ||
		bad "t38: the series campaign failed: $(tail -n 3 "$d38/err")"
	c3=$(psql_q "SELECT max(id) FROM campaigns")
	"$bs" ctl "$d38/ctl" quit >/dev/null 2>&1
	check "three campaigns on the simulator: 4+4 boots (slots 1-8), 2+2, a series of 2+2+2" test \
		"$(psql_q "SELECT string_agg(seq::text, ',' ORDER BY seq) FROM boots WHERE campaign_id = $c1 AND status = 'ok'")/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $c2 AND status = 'ok'")/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $c3 AND status = 'ok'")" = "1,2,3,4,5,6,7,8/4/6"

	echo "== U-Boot 2023.01 -> 2024.04 from boot 3, governor ondemand -> performance from boot 5"
	psql_q "SELECT seq, env->>'bootloader', env->'cpufreq'->0->>'governor' FROM boots WHERE campaign_id = $c1 AND status = 'ok' ORDER BY seq" | sed 's/^/   recorded: /'
	reports38 "$c1" accept
	want='environment changed between boots: U-Boot 2023.01 -> 2024.04 from boot 3; cpufreq governor ondemand -> performance from boot 5'
	grep -h 'environment changed' "$d38/accept.text" | sed 's/^/   text: /'
	check "text: a line under the table names both changes and their first boots" \
		grep -qF "  sim-env: $want (its rows above compare boots that differ in more than the kernel)" "$d38/accept.text"
	check "text: the line comes right after the table's rows" python3 -c "
import sys
t = open(sys.argv[1]).read().split('\\n')
rows = [i for i, l in enumerate(t) if l.startswith('  Cortex-A72, v7, ')]
env = [i for i, l in enumerate(t) if 'environment changed' in l]
assert len(rows) >= 4 and env == [rows[-1] + 2], (rows, env)
" "$d38/accept.text"
	tr '\n' ' ' <"$d38/accept.email" | grep -o '\* sim-env: environment changed[^*]*kernel)\.' | sed 's/^/   email: /'
	check "email: a footnote names both changes and their first boots" bash -c \
		"tr '\n' ' ' <'$d38/accept.email' | grep -qF '* sim-env: $want (its rows compare boots'"
	check "json: the board's changes (what, values, first boot) and every row flagged" python3 - "$d38/accept.json" "$want" <<'EOF'
import json, sys
r, want = json.load(open(sys.argv[1])), sys.argv[2]
b = r['boards'][0]
assert b['environment_changed'] == want, b['environment_changed']
ch = [(c['key'], c['from'], c['to'], c['from_boot']) for c in b['environment_changes']]
assert [c[0] for c in ch] == ['bootloader', 'cpufreq.policy0.governor'], ch
assert ch[0][1].startswith('U-Boot 2023.01 (') and ch[0][2].startswith('U-Boot 2024.04 (') and ch[0][3] == 3, ch
assert ch[1][1:] == ('ondemand', 'performance', 5), ch
assert b['environment_boots'] == 8 and b['environment_boots_unrecorded'] == 0, b
assert len(r['rows']) >= 4 and all(x['environment_changed'] == want for x in r['rows']), r['rows'][0]
print('   json: boards[0].environment_changes =', ch)
EOF
	nrows=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rows']))" "$d38/accept.json")
	grep -o '<p class="env-changed">[^<]*' "$d38/accept.html" | sed 's/^/   html: /'
	check "html: a warning under the table with both changes, and each of the $nrows rows marked" test \
		"$(sed 's/&gt;/>/g' "$d38/accept.html" | grep -cF "<p class=\"env-changed\">&#9888; sim-env: $want (its rows")/$(grep -c '<tr class="env-changed">' "$d38/accept.html")" = "1/$nrows"
	check "csv: every row's board_notes names the change" python3 -c "
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(x['board_notes'].startswith(sys.argv[2]) for x in rows), rows[0]['board_notes']
" "$d38/accept.csv" "$want"

	check "kcidb: every test's environment.misc names the change" python3 -c "
import json, sys
t = json.load(open(sys.argv[1]))['tests']
assert t and all(x['environment']['misc']['environment_changed'] == sys.argv[2] for x in t), t[0]
" "$d38/accept.kcidb" "$want"

	# the web campaign page: its table's rows carry the flag
	"$ablab" serve --listen 127.0.0.1:0 --results "$d38/res" >"$d38/serve.out" 2>"$d38/serve.err" &
	spid=$!
	if wait_for 60 grep -q '^ablab: serving http://127.0.0.1:[0-9]*/' "$d38/serve.err"; then
		port=$(sed -n 's|^ablab: serving http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d38/serve.err")
		curl -s "http://127.0.0.1:$port/campaign/$c1" >"$d38/web.html"
		check "web: the campaign page's $nrows rows each say what changed" test \
			"$(sed 's/&gt;/>/g' "$d38/web.html" | grep -cF "<small class=\"env-changed\">&#9888; $want</small>")" = "$nrows"
	else
		bad "t38: serve did not start: $(tail -n 3 "$d38/serve.err")"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null

	echo "== nightly: what changed since the previous night besides the kernel"
	# last night: campaign 1 (it ends on U-Boot 2024.04, performance); tonight: campaign 2,
	# the simulator restarted with the governor powersave (the same U-Boot and kernels)
	mkdir -p "$d38/jobs/series"
	cp jobs/dma-from-device/patches/*.patch "$d38/jobs/series/"
	cat >"$d38/jobs/envjob.json" <<-EOF
	{ "name": "envjob", "boards": ["qemu-sam9x75"],
	  "variants": { "control": { "source": { "type": "recipe" } },
	                "patched": { "source": { "type": "recipe" }, "patches": "series" } },
	  "benchmark": { "name": "dmabench" }, "boots": 4, "batches": 3, "nightly": true }
	EOF
	psql_q "UPDATE campaigns SET trigger = 'nightly', status = 'complete', job = '{\"job\": \"envjob\"}', created = '2026-03-01 03:00' WHERE id = $c1;
		UPDATE campaigns SET trigger = 'nightly', status = 'complete', job = '{\"job\": \"envjob\"}', created = '2026-03-02 03:00' WHERE id = $c2" >/dev/null
	"$ablab" nightly --recompare --jobs "$d38/jobs" --reports "$d38/rep" --date 2026-03-02 \
		>"$d38/night.out" 2>"$d38/night.err"
	echo "   nightly exit $?"
	grep -h 'since the previous night' "$d38/night.err" | sed 's/^/   /'
	nwant="sim-env: environment changed since the previous night (campaign $c1 boot 8 -> campaign $c2 boot 1): cpufreq governor performance -> powersave"
	check "nightly: its output names the governor change since the previous night, one line" test \
		"$(grep -cF "$nwant" "$d38/night.err")/$(grep -c 'since the previous night' "$d38/night.err")" = 1/1
	check "nightly: the dated report (compare.txt, compare.json) too; the kernel's DTB not named" python3 - \
		"$d38/rep/2026-03-02/envjob" "$nwant" <<'EOF'
import json, sys
d, want = sys.argv[1], sys.argv[2]
t = open(d + '/compare.txt').read()
assert '  ' + want + '\n' in t and 'DTB' not in t and 'U-Boot' not in t, t
assert json.load(open(d + '/compare.json'))['environment_changes'] == [want]
EOF
	check "nightly: tonight's own report has nothing to flag (its boots are alike)" bash -c \
		"test -s '$d38/rep/2026-03-02/envjob/report.txt' && ! grep -q 'environment changed' '$d38/rep/2026-03-02/envjob/report.txt'"

	echo "== a series campaign: U-Boot from boot 4; each kernel its own DTB (not a change)"
	psql_q "UPDATE boots b SET env = jsonb_build_object('bootloader', CASE WHEN b.seq >= 4 THEN 'U-Boot 2024.04' ELSE 'U-Boot 2023.01' END,
		'dtb_sha256', md5(b.variant)) WHERE b.campaign_id = $c3 AND b.status = 'ok'" >/dev/null
	reports38 "$c3" series
	check "series: text, email and json flag U-Boot 2023.01 -> 2024.04 from boot 4, nothing else" bash -c "
		grep -qF '  sim-env: environment changed between boots: U-Boot 2023.01 -> 2024.04 from boot 4 (its rows' '$d38/series.text' &&
		tr '\n' ' ' <'$d38/series.email' | grep -qF '* sim-env: environment changed between boots: U-Boot 2023.01 -> 2024.04 from boot 4 (its' &&
		grep -qF '\"environment_changed\": \"environment changed between boots: U-Boot 2023.01 -> 2024.04 from boot 4\"' '$d38/series.json'"

	echo "== kernel-dependent keys differ only between the variants: not a change"
	env38 "$c1" "'2024.04'" "'performance'" "'0c0c0c0c0c0c0c0c0c0c'" "'9f9f9f9f9f9f9f9f9f9f'" "45000"
	reports38 "$c1" kernel
	noflag38 kernel "DTB, rootfs and module hashes of control and patched differ"
	echo "== ... but the patched DTB changing from boot 6 is"
	env38 "$c1" "'2024.04'" "'performance'" "'0c0c0c0c0c0c0c0c0c0c'" \
		"CASE WHEN b.seq >= 6 THEN '7e7e7e7e7e7e7e7e7e7e' ELSE '9f9f9f9f9f9f9f9f9f9f' END" "45000"
	reports38 "$c1" dtb
	check "text: DTB sha256 (patched) 9f9f9f9f9f9f -> 7e7e7e7e7e7e from boot 6" grep -qF \
		"environment changed between boots: DTB sha256 (patched) 9f9f9f9f9f9f -> 7e7e7e7e7e7e from boot 6 (" "$d38/dtb.text"

	echo "== a temperature spread: boot 7 starts 12 °C hotter"
	env38 "$c1" "'2024.04'" "'performance'" "'0c0c0c0c0c0c0c0c0c0c'" "'9f9f9f9f9f9f9f9f9f9f'" \
		"CASE WHEN b.seq = 7 THEN 57000 ELSE 45000 END"
	reports38 "$c1" temp
	grep -h 'environment changed' "$d38/temp.text" | sed 's/^/   text: /'
	check "text: the spread at benchmark start and end, with the hottest boot and the limit" grep -qF \
		"environment changed between boots: thermal zone 0 at benchmark start 45.0-57.0 °C across boots (coolest boot 1, hottest boot 7: a spread of 12.0 °C, above 10.0 °C); thermal zone 0 at benchmark end 48.0-60.0 °C" "$d38/temp.text"
	check "json, html: the spread flagged" bash -c "
		grep -q '\"hottest_boot\": 7' '$d38/temp.json' && grep -q 'class=\"env-changed\">&#9888; sim-env: environment changed between boots: thermal zone 0' '$d38/temp.html'"
	echo "== ... a spread of 9 °C is not"
	env38 "$c1" "'2024.04'" "'performance'" "'0c0c0c0c0c0c0c0c0c0c'" "'9f9f9f9f9f9f9f9f9f9f'" \
		"CASE WHEN b.seq = 7 THEN 54000 ELSE 45000 END"
	reports38 "$c1" warm
	noflag38 warm "a 9 °C spread (limit 10 °C)"

	echo "== boots without a fingerprint (older, LAVA, ingested) are skipped"
	env38 "$c1" "CASE WHEN b.seq >= 3 THEN '2024.04' ELSE '2023.01' END" "'ondemand'" \
		"'0c0c0c0c0c0c0c0c0c0c'" "'9f9f9f9f9f9f9f9f9f9f'" "45000"
	psql_q "UPDATE boots SET env = NULL WHERE campaign_id = $c1 AND seq < 3" >/dev/null
	reports38 "$c1" some
	noflag38 some "boots 1-2 without a fingerprint, 3-8 alike"
	check "json: 6 boots compared, 2 without a fingerprint" python3 -c "
import json, sys
b = json.load(open(sys.argv[1]))['boards'][0]
assert (b['environment_boots'], b['environment_boots_unrecorded']) == (6, 2), b
" "$d38/some.json"
	psql_q "UPDATE boots SET env = NULL WHERE campaign_id = $c1" >/dev/null
	reports38 "$c1" none
	noflag38 none "no boot with a fingerprint"

fi
