# A series campaign through LAVA (issue 15 item 5): one LAVA job per boot of every
# variant, labelled as the local boots are (`ablab lava export` files and metadata,
# `ablab lava run` through the stand-in server of t74, tests/lava_fake_server.py mode
# bench: no lava-server, no kernels, seconds), stored with the variants' labels and
# positions, resumable as any LAVA campaign (the run JSON keeps the variants).
# timeout: 300
"$ablab" db start >/dev/null 2>&1
ls76=$tmp/lava-series
mkdir -p "$ls76"
echo "t76-token" >"$ls76/token"
chmod 600 "$ls76/token"
for n in 0 1 2; do
	mkdir -p "$ls76/k/s$n"
	printf '{"board":"qemu-sam9x75","variant":"s%s","release":"6.1.0-t76-s%s"}\n' $n $n \
		>"$ls76/k/s$n/manifest.json"
	printf 'zImage %s\n' $n >"$ls76/k/s$n/zImage"
	echo initramfs >"$ls76/k/s$n/initramfs.cpio.gz"
done
cat >"$ls76/job.json" <<EOF2
{ "name": "t76", "boards": ["qemu-sam9x75"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$ls76/k/s0" } },
                "+1": { "source": { "type": "prebuilt", "dir": "$ls76/k/s1" } },
                "+1-2": { "source": { "type": "prebuilt", "dir": "$ls76/k/s2" } } },
  "benchmark": { "name": "dmabench" } }
EOF2
"$ablab" lava export "$ls76/job.json" --boots 2 --batches 2 --out "$ls76/export" >"$ls76/export.out" 2>&1; rc=$?
check "export: exit 0, one LAVA job per boot of every variant (2 rounds of 3)" bash -c "[ $rc = 0 ] && [ \$(ls '$ls76/export'/*.yaml | wc -l) = 6 ]"
check "export: files named by label, in the Williams order (ABC BCA)" test "$(ls "$ls76/export" | tr '\n' ' ')" = "t76-qemu-sam9x75-001-control.yaml t76-qemu-sam9x75-002-+1.yaml t76-qemu-sam9x75-003-+1-2.yaml t76-qemu-sam9x75-004-+1.yaml t76-qemu-sam9x75-005-+1-2.yaml t76-qemu-sam9x75-006-control.yaml "
check "export: metadata carries the label (a YAML string) and the position" bash -c "grep -q '^  ablab.variant: \"+1-2\"$' '$ls76/export/t76-qemu-sam9x75-003-+1-2.yaml' && grep -q '^  ablab.variant_position: 2$' '$ls76/export/t76-qemu-sam9x75-003-+1-2.yaml' && grep -q '^  ablab.variant: control$' '$ls76/export/t76-qemu-sam9x75-001-control.yaml'"
check "export: each job deploys its own variant's kernel" bash -c "grep -q 'ablab.release: \"6.1.0-t76-s1\"' '$ls76/export/t76-qemu-sam9x75-002-+1.yaml' && grep -q '$ls76/k/s2/zImage' '$ls76/export/t76-qemu-sam9x75-003-+1-2.yaml'"
rm -f "$ls76/lava.port"
: >"$ls76/lava.rec"
FAKE_LAVA_JOB=701 /usr/bin/python3 tests/lava_fake_server.py bench "$ls76/lava.port" \
	"$ls76/lava.rec" 2>"$ls76/lava.err" &
spid=$!
end=$((SECONDS + 10))
until [ -s "$ls76/lava.port" ] || [ $SECONDS -ge $end ]; do sleep 0.05; done
if [ ! -s "$ls76/lava.port" ]; then
	bad "fake LAVA server did not start: $(cat "$ls76/lava.err")"
else
	url=http://127.0.0.1:$(cat "$ls76/lava.port")
	"$ablab" lava run "$ls76/job.json" --server "$url" --token-file "$ls76/token" --boots 2 --undecidable-ok \
		--batches 2 --results "$ls76/results" --format text >"$ls76/run.out" 2>"$ls76/run.err"; rc=$?
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "lava run: exit 0, complete, 6 LAVA jobs submitted" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")/$(grep -c '^submitted' "$ls76/lava.rec")" = 0/complete/6
	check "lava run: every boot stored with its label and its own LAVA job" test \
		"$(psql_q "SELECT string_agg(variant || '#' || lava_job_id, ' ' ORDER BY seq) FROM boots WHERE campaign_id = $cid AND status = 'ok' AND lava_server = '$url'")" = \
		"control#701 +1#702 +1-2#703 +1#704 +1-2#705 control#706"
	check "lava run: the variants' positions stored" test "$(psql_q "SELECT string_agg(position || ':' || label, ' ' ORDER BY position) FROM campaign_variants WHERE campaign_id = $cid")" = "0:control 1:+1 2:+1-2"
	check "lava run: the run JSON keeps the variants (for ablab resume)" test "$(psql_q "SELECT run->'variants' FROM campaigns WHERE id = $cid")" = '["control", "+1", "+1-2"]'
	check "lava run: the report is the series table" grep -q '^  +1-2 vs +1 ' "$ls76/run.out"
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
fi
