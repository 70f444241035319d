# The environment fingerprint's collection (issue 29 item 3; agent/bench/bench-env.c,
# agent/runner-env.c, docs/DESIGN.md "Environment fingerprint"): a campaign on the board
# simulator whose U-Boot changes at power-on 3, its cpufreq governor at power-on 5 and its
# temperature at power-on 4 stores each boot's boot loader line, /proc/cmdline, governor
# and temperatures at the benchmark's start and end in boots.env, changing where the
# simulator changed them (its record says which power-on each boot was), with the sha256
# of the initramfs and DTB the lab deployed; a board's shell.governor is written, read
# back and recorded, and on a target without cpufreq it gives one warning and the campaign
# goes on; a bad governor name is refused at board load naming file and field.  Then a
# real kernel on qemu-sam9x75 (busybox ash runs the same shell text): its cmdline, no
# cpufreq or thermal keys (QEMU's versatilepb has neither), no boot loader.  The console
# bytes the fingerprint adds per boot (typed, echoed, printed) are measured from both
# transcripts and printed.
# timeout: 300
bs=$top/build/boardsim
dd=$tmp/env37
"$ablab" db start >/dev/null 2>&1
sim_kernels "$dd/k" sim-env
sim_uboot_board sim-env "$dd"

# env_bytes LOG: the bytes the fingerprint's shell text costs in one transcript: typed
# (= echoed) and its output lines
env_bytes() {
	python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1], 'rb').read()
m = re.search(rb'dmesg -n 1;(_e\(\)\{.*?_e @c /proc/cmdline)', t)
start = len(m.group(1)) + 1 if m else 0              # ";" + the text
end = len(b';_e @T $_z') if b'dmesg;_e @T $_z' in t else 0
outl = sum(len(x) for x in re.findall(rb'(?m)^@[cftT](?: [^\r\n]*)?\r?\n', t))
typed = start + end
print(f'typed {typed} (start {start} + end {end}), echoed {typed}, output {outl}, total {2 * typed + outl} bytes, '
      f'{(typed + outl) * 10 / 115.2:.1f} ms of line time at 115200 baud (typing and echo overlap)')
EOF
}

if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 5 --autoboot 10 --seed 37 \
	--uboot-version 3:2024.04 --governor 5:performance --temp 4:52000 \
	--daemon --pid-file "$dd/pid" 2>"$dd/sim.err"; then
	bad "t37: cannot start the simulator: $(cat "$dd/sim.err")"
else
	echo "== a campaign whose U-Boot, governor and temperature change between boots"
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots 3 --batches 1 --undecidable-ok --results "$dd/res" >"$dd/out" 2>"$dd/err"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "campaign: exit 0, 3+3 ok boots" test "$rc/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = 0/6 ||
		tail -n 20 "$dd/err"
	# every attempt is a power-on: the n-th stored attempt (by id) is power-on n
	psql_q "SELECT id, seq, status, env FROM boots WHERE campaign_id = $cid ORDER BY id" >"$dd/envs"
	grep -E '^boot [0-9]+ (power_on=|env )' "$dd/record" >"$dd/rec.env"
	check "boots.env per power-on: U-Boot 2023.01 then 2024.04 from 3, ondemand then performance from 5, 45.0 then 52.0 C from 4 (+1.5 at the end), cmdline, sha256 of initramfs and DTB" \
		python3 - "$dd/envs" "$dd/rec.env" "$(sha256sum <"$dd/k/control/initramfs.cpio.gz" | cut -c1-64)" \
		"$(sha256sum <"$dd/k/control/sim.dtb" | cut -c1-64)" <<'EOF'
import json, sys
rows = [l.split('|', 3) for l in open(sys.argv[1]).read().splitlines() if l]
rec = [int(l.split()[2][9:]) for l in open(sys.argv[2]) if ' power_on=' in l]
assert len(rows) == 6 and rec == [1, 2, 3, 4, 5, 6], (len(rows), rec)
for n, (bid, seq, status, env) in enumerate(rows, 1):
    e = json.loads(env)
    uboot = '2024.04' if n >= 3 else '2023.01'
    gov = 'performance' if n >= 5 else 'ondemand'
    t0 = 52000 if n >= 4 else 45000
    assert e['bootloader'] == f'U-Boot {uboot} (Jan 09 2023 - 12:00:00 +0000)', (n, e)
    assert e['cmdline'] == 'console=ttyS0,115200 rdinit=/init panic=-1', (n, e)
    assert e['cpufreq'] == [{'policy': 'policy0', 'governor': gov, 'cur_khz': 800000 if gov == 'performance' else 600000,
                             'max_khz': 800000, 'min_khz': 200000}], (n, e)
    assert e['thermal_mc_start'] == [t0] and e['thermal_mc_end'] == [t0 + 1500], (n, e)
    assert e['rootfs_sha256'] == sys.argv[3] and e['dtb_sha256'] == sys.argv[4], (n, e)
    assert 'governor_pinned' not in e and 'module_sha256' not in e, (n, e)
print(rows[0][3])
EOF
	echo "sim boot 1 env: $(sed -n 1p "$dd/envs" | cut -d'|' -f4)"
	echo "sim console bytes: $(env_bytes "$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid ORDER BY id LIMIT 1")")"

	echo "== shell.governor pins the governor, read back"
	sed 's|"shell": { "prompt": "lab# " }|"shell": { "prompt": "lab# ", "governor": "powersave" }|' \
		"$dd/board.json" >"$dd/pin.json"
	"$ablab" ab --board "$dd/pin.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots 1 --batches 1 --undecidable-ok --results "$dd/res" >"$dd/out2" 2>"$dd/err2"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "pinned: exit 0, both boots record governor_pinned powersave and the policy read back powersave" test \
		"$rc/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok' AND env->>'governor_pinned' = 'powersave' AND env->'cpufreq'->0->>'governor' = 'powersave' AND env->'cpufreq'->0->>'cur_khz' = '200000'")" = 0/2 ||
		tail -n 5 "$dd/err2"
	check "pinned: the simulator saw the write at each boot" test "$(grep -c 'governor powersave' "$dd/record")" = 2
	check "pinned: no warning" bash -c "! grep -q 'not pinned' '$dd/err2'"
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi

echo "== a target without cpufreq: one warning, the campaign goes on"
if ! "$bs" run --ctl "$dd/ctl2" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--tick-ms 5 --autoboot 10 --governor none --temp none --daemon 2>"$dd/sim2.err"; then
	bad "t37: cannot start the second simulator: $(cat "$dd/sim2.err")"
else
	sed "s|$dd/ctl\"|$dd/ctl2\"|g" "$dd/pin.json" >"$dd/nocpu.json"
	"$ablab" ab --board "$dd/nocpu.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots 2 --batches 1 --undecidable-ok --results "$dd/res" >"$dd/out3" 2>"$dd/err3"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	grep 'not pinned' "$dd/err3"
	check "no cpufreq: exit 0, 4 ok boots, one warning naming the board, the field and what is missing" test \
		"$rc/$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")/$(grep -c 'sim-env: warning: shell.governor "powersave" not pinned: the target has no cpufreq policy (/sys/devices/system/cpu/cpufreq/policy\*); the campaign goes on' "$dd/err3")" = 0/4/1
	check "no cpufreq, no thermal zone: the keys are absent, not errors (cmdline and bootloader still there)" test \
		"$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND NOT env ? 'cpufreq' AND NOT env ? 'thermal_mc_start' AND NOT env ? 'thermal_mc_end' AND NOT env ? 'governor_pinned' AND env ? 'cmdline' AND env ? 'bootloader'")" = 4
	"$bs" ctl "$dd/ctl2" quit >/dev/null 2>&1
fi

echo "== a governor name that is not one"
sed 's|"governor": "powersave"|"governor": "Perf ormance"|' "$dd/pin.json" >"$dd/badgov.json"
"$ablab" check-board "$dd/badgov.json" >"$dd/bad.out" 2>&1
check "board load: file:line:col shell.governor and the fix" \
	grep -Eq 'badgov.json:[0-9]+:[0-9]+: shell.governor: "Perf ormance" is not a cpufreq governor name \(1-15 of a-z, 0-9, _; e.g. "performance"\)' "$dd/bad.out"

# qemu_env BOARD TAG: a 1+1 campaign on BOARD (output in $dd/outTAG, $dd/errTAG); rc its exit,
# cid its id, env its control boot's fingerprint
qemu_env() {
	"$ablab" ab --board "$1" --boots 1 --batches 1 --undecidable-ok --results "$dd/res$2" \
		>"$dd/out$2" 2>"$dd/err$2"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	env=$(psql_q "SELECT env FROM boots WHERE campaign_id = $cid AND status = 'ok' AND variant = 'control'")
	echo "$1 env: $env"
}

echo "== a real kernel: qemu-sam9x75"
k=$kcache/kernels/qemu-sam9x75
if need_kernels qemu-sam9x75; then
	qemu_env qemu-sam9x75 q
	check "qemu-sam9x75: exit 0, the real /proc/cmdline, initramfs and DTB sha256, no cpufreq/thermal/bootloader keys" \
		python3 -c "
import json, sys
e = json.loads(sys.argv[1])
assert e['cmdline'].startswith('console=ttyAMA0,115200 rdinit=/init panic=-1'), e
assert e['rootfs_sha256'] == sys.argv[2] and e['dtb_sha256'] == sys.argv[3], e
assert not set(e) & {'cpufreq', 'thermal_mc_start', 'thermal_mc_end', 'bootloader', 'governor_pinned'}, e
assert sys.argv[4] == '0', sys.argv[4]
" "$env" "$(sha256sum <"$k/control/initramfs.cpio.gz" | cut -c1-64)" "$(sha256sum <"$k/control/versatile-pb.dtb" | cut -c1-64)" "$rc" ||
		tail -n 5 "$dd/errq"
	log=$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid AND variant = 'control'")
	check "qemu-sam9x75: busybox ash printed no error for the fingerprint's text" bash -c \
		"grep -a '^@' '$log' >/dev/null && ! grep -aE \"can't open|not found|syntax error|write error\" '$log'"
	echo "qemu-sam9x75 console bytes: $(env_bytes "$log")"
fi

echo "== a real U-Boot: qemu-pi400"
k=$kcache/kernels/qemu-pi400
if need_kernels qemu-pi400; then
	qemu_env qemu-pi400 p
	check "qemu-pi400: exit 0, U-Boot's own version line, the cmdline, the initramfs sha256, no DTB of the lab's (U-Boot passes QEMU's)" \
		python3 -c "
import json, re, sys
e = json.loads(sys.argv[1])
assert re.match(r'U-Boot 20[0-9][0-9]\.[0-9][0-9][^ ]* \(', e['bootloader']) and 'SPL' not in e['bootloader'], e
assert e['cmdline'].startswith('console=ttyAMA0,115200 rdinit=/init panic=-1'), e
assert e['rootfs_sha256'] == sys.argv[2] and 'dtb_sha256' not in e, e
assert sys.argv[3] == '0', sys.argv[3]
" "$env" "$(sha256sum <"$k/control/initramfs.cpio.gz" | cut -c1-64)" "$rc" || tail -n 5 "$dd/errp"
fi
