# End to end: A/B campaign on qemu-sam9x75 (real kernels, real module, QEMU pty),
# then the clear-error cases, each leaving nothing half-written.
ctl=$kcache/kernels/qemu-sam9x75
if ! need_kernels qemu-sam9x75; then
	:
else
	"$ablab" db start >/dev/null
	ncamp0=$(psql_q "SELECT coalesce(max(id), 0) FROM campaigns")
	ls -d "$TMPDIR"/ablab.* 2>/dev/null | sort >"$tmp/rundirs.before"
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 2 --results "$tmp/results" \
		--format json 2>"$tmp/e2e.err"); rc=$?
	tail -n 8 "$tmp/e2e.err"
	check "1+1 campaign exits 0" test "$rc" = 0
	# the campaign's run directory (QMP socket, QEMU log) goes with it
	check "no \$TMPDIR/ablab.* run directory left behind" test -z \
		"$(ls -d "$TMPDIR"/ablab.* 2>/dev/null | sort | comm -13 "$tmp/rundirs.before" -)"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "one new campaign, status complete" test "$(psql_q "SELECT count(*) || status FROM campaigns WHERE id > $ncamp0 GROUP BY status")" = "1complete"
	check "2 boots ok, one per variant" test "$(psql_q "SELECT string_agg(variant, ',' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")" = "control,patched"
	for v in control patched; do
		rel=$(sed -E 's/.*"release": *"([^"]+)".*/\1/' <(tr -d '\n' <"$ctl/$v/manifest.json"))
		check "$v boot ran its own kernel ($rel)" test "$(psql_q "SELECT uname_r FROM boots WHERE campaign_id = $cid AND variant = '$v'")" = "$rel"
		check "$v kernel recorded with /proc/version" test "$(psql_q "SELECT count(*) FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $cid AND b.variant = '$v' AND k.release = '$rel' AND b.proc_version LIKE 'Linux version $rel %'")" = 1
	done
	nscen=$(psql_q "SELECT count(DISTINCT scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")
	check "5 scenarios (3 seed + null + preserve): got $nscen" test "$nscen" = 5
	check "every boot has 2 batches x 5 scenarios" test "$(psql_q "SELECT string_agg(n::text, ',') FROM (SELECT count(*) AS n FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid GROUP BY b.id) x")" = "10,10"
	check "seed scenarios present" test "$(psql_q "SELECT count(DISTINCT scenario) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND scenario IN ('small-dirty-256B','large-dirty-1MiB','large-clean-1MiB')")" = 3
	check "preservation check stored (lost bytes, QEMU has no cache: 0)" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND kind = 'preserve' AND lost_bytes = 0")" = 4
	check "timings without a baseline are positive" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND kind = 'result' AND coalesce(base_ns, 0) = 0 AND mean_ns <= 0")" = 0
	# batch timing subtracts a memset-only baseline: mean = (raw - base) / reps, kept with its parts
	check "baseline-subtracted means are consistent with raw_ns and base_ns" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND timing = 'batch' AND base_ns > 0 AND (raw_ns <= 0 OR abs(mean_ns * reps - (raw_ns - base_ns)) >= reps)")" = 0
	logs=$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid")
	for l in $logs; do check "transcript $l has the boot and the shell" grep -q 'lab# ' "$l"; done
	check "report json has both variants per row" grep -q '"n_patched": 1' <<<"$out"
	check "ablab report prints the table" bash -c "'$ablab' report $cid | grep -q 'large-dirty\|1 MiB dirty'"

	echo "== timing modes pinned per board at the campaign's first boot"
	check "the first boot's timing modes are pinned" grep -q 'qemu-sam9x75: timing modes pinned for this campaign: .*null:' "$tmp/e2e.err"
	check "the second boot loaded dmabench with pin_timing=" grep -q 'insmod .*pin_timing=.*null:' "$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid AND seq = 2")"
	check "every scenario has one timing mode across the campaign" test "$(psql_q "SELECT count(*) FROM (SELECT scenario FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND kind = 'result' GROUP BY scenario HAVING count(DISTINCT timing) > 1) x")" = 0
	# the module obeys a pin against its own choice: the other mode than auto chose above
	auto=$(psql_q "SELECT string_agg(DISTINCT timing, ',') FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND scenario = 'large-dirty-1MiB'")
	other=batch; [ "$auto" = batch ] && other=iter
	"$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 1 --params "pin_timing=large-dirty-1MiB:$other" --results "$tmp/results" >/dev/null 2>"$tmp/pin.err"; rc=$?
	pc=$(psql_q "SELECT max(id) FROM campaigns")
	check "pin_timing=large-dirty-1MiB:$other (auto chose $auto): campaign ok" test "$rc" = 0
	check "pin_timing=large-dirty-1MiB:$other: both boots timed it so" test "$(psql_q "SELECT string_agg(DISTINCT timing, ',') FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $pc AND scenario = 'large-dirty-1MiB'")/$(psql_q "SELECT count(DISTINCT b.id) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $pc AND scenario = 'large-dirty-1MiB'")" = "$other/2"
	check "pin_timing: every other scenario has one mode in both boots" test "$(psql_q "SELECT count(*) FROM (SELECT scenario FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $pc AND kind = 'result' GROUP BY scenario HAVING count(DISTINCT timing) > 1) x")" = 0
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 1 --params 'pin_timing=no-such:iter' --results "$tmp/results" 2>&1); rc=$?
	check "pin_timing naming no scenario: exit 1" test "$rc" = 1
	check "pin_timing naming no scenario: the module refuses to load, saying so" grep -q 'module failed to load.*pin_timing' <<<"$out"

	echo "== clear errors, nothing half-written"
	before=$(psql_q "SELECT count(*) FROM boots")
	c0=$(psql_q "SELECT count(*) FROM campaigns")
	out=$("$ablab" ab --board qemu-sam9x75 --boots 5 --control "$tmp/nonexistent" 2>&1); rc=$?
	echo "$out"
	check "missing kernel dir: exit 1" test "$rc" = 1
	check "missing kernel dir: one line naming it" test "$(grep -c nonexistent <<<"$out")/$(wc -l <<<"$out")" = 1/1
	check "missing kernel dir: names the option that fixes it" grep -q 'nonexistent: No such file or directory (the directory that holds manifest.json: --control/--patched DIR for ab' <<<"$out"
	check "missing kernel dir: no campaign created" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$c0"
	# the one pre-flight (power_preflight: the qemu backend's check of power.binary)
	sed 's/"qemu-system-arm"/"qemu-system-nope"/' boards/qemu-sam9x75.json >"$tmp/nobin.json"
	out=$("$ablab" ab --board "$tmp/nobin.json" --boots 5 --results "$tmp/results" 2>&1); rc=$?
	echo "$out" | tail -n 3
	check "QEMU not on PATH: exit 1" test "$rc" = 1
	check "QEMU not on PATH: names the file, the binary, the field and the fix" grep -qF "$tmp/nobin.json: qemu-system-nope not found (power.binary; install qemu-system-arm: make deps)" <<<"$out"
	check "QEMU not on PATH: no campaign created" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$c0"
	sed 's/"versatilepb"/"no-such-machine"/' boards/qemu-sam9x75.json >"$tmp/badqemu.json"
	out=$("$ablab" ab --board "$tmp/badqemu.json" --boots 5 --results "$tmp/results" 2>&1); rc=$?
	echo "$out" | tail -n 3
	check "QEMU that fails to start: exit 1" test "$rc" = 1
	check "QEMU that fails to start: error names QEMU's complaint" grep -q 'QEMU exited at start: .*unsupported machine type' <<<"$out"
	check "QEMU failure: not retried, no samples, campaign failed" test "$(psql_q "SELECT count(*) || '/' || (SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = c.id) || '/' || c.status FROM boots b2 JOIN campaigns c ON c.id = b2.campaign_id WHERE c.id = (SELECT max(id) FROM campaigns) GROUP BY c.id, c.status")" = "1/0/failed"
	out=$("$ablab" ab --board qemu-sam9x75 --boots 1 --undecidable-ok --batches 1 --params 'scenarios=bad' --results "$tmp/results" 2>&1); rc=$?
	echo "$out" | tail -n 3
	check "module that fails to load: exit 1" test "$rc" = 1
	check "module that fails to load: clear reason" grep -q 'module failed to load.*EINVAL' <<<"$out"
	check "module failure: no samples stored for it" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = (SELECT max(id) FROM campaigns)")" = 0
fi

