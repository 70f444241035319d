# lane: alone
# Job files: validation with file:line:col errors, `ablab run` (dry run and a
# real 1+1 campaign on qemu-sam9x75), and `ablab nightly` with two nightly
# jobs over two nights, the second with a planted regression (a patch that
# adds udelay(50) to the patched kernel's map path) that must give exit 3.
"$ablab" db start >/dev/null 2>&1 || true
jt=$tmp/jobs-t60
mkdir -p "$jt"
cache=$kcache
kdir=$cache/kernels/qemu-sam9x75

echo "== job validation"
check "the shipped job validates (dry run, qemu-sam9x75)" \
	"$ablab" run jobs/dma-from-device.json --boards qemu-sam9x75 --dry-run
# err_has FILE PATTERN: ablab run --dry-run FILE fails with exit 1 and a
# one-line "file:line:col: ..." error matching PATTERN
err_has() {
	local out rc
	out=$("$ablab" run "$1" --dry-run 2>&1 >/dev/null); rc=$?
	echo "   $out" | head -n 3
	[ "$rc" = 1 ] && echo "$out" | grep -Eq -- "$2"
}
mk() { sed "$2" jobs/dma-from-device.json >"$jt/$1.json"; }
mk typo 's/"batches": 5/"batchs": 5/'
check "misspelt key: line:col and did-you-mean" err_has "$jt/typo.json" \
	"typo.json:[0-9]+:3: batchs: unknown key; did you mean \"batches\""
mk type 's/"boots": 6/"boots": "6"/'
check "wrong type: names the key and the type" err_has "$jt/type.json" \
	"type.json:[0-9]+:3: boots: must be an integer"
mk range 's/"boots": 6/"boots": 0/'
check "out of range" err_has "$jt/range.json" "boots: out of range; must be 1..1000"
mk nopatch 's#"patches": "dma-from-device/patches"#"patches": "no-such-dir"#'
line=$(grep -n '"patches"' "$jt/nopatch.json" | head -n1 | cut -d: -f1)
check "missing patch directory: nested key located at its own line ($line)" err_has \
	"$jt/nopatch.json" "nopatch.json:$line:[0-9]+: variants.patched.patches: .*no-such-dir is not a directory"
mk srctype 's/"type": "recipe" }$/"type": "tarball" }/'
check "unsupported source type says what to use" err_has "$jt/srctype.json" \
	"variants.control.source.type: source type \"tarball\" is not supported yet"
mk gitsrc 's/"type": "recipe" }$/"type": "git" }/'
check "a git source without its tree names the field" err_has "$jt/gitsrc.json" \
	"variants.control.source.tree: required for source type \"git\""
mk order 's/"order": "abab"/"order": "abc"/'
check "bad order" err_has "$jt/order.json" "order: \"abc\" is not one of abab, abba, random"
mk thr 's/"change_pct": 5/"change_pct": "5%"/'
check "bad threshold" err_has "$jt/thr.json" "threshold.change_pct: must be a number"
printf '{ "boards": ["qemu-sam9x75"], }\n' >"$jt/syntax.json"
check "JSON syntax error: line:col" err_has "$jt/syntax.json" "syntax.json:1:[0-9]+: invalid JSON"
out=$("$ablab" run jobs/dma-from-device.json --boards qemu-sam9x75,nope --dry-run 2>&1); rc=$?
check "--boards with a board not in the job: usage error naming it" \
	bash -c "[ $rc = 2 ] && echo '$out' | grep -q '\"nope\" is not a board of job dma-from-device'"
cat >"$jt/missing.json" <<EOF
{ "boards": ["qemu-sam9x75", "qemu-nosuch"],
  "variants": { "control": { "source": { "type": "recipe" } },
                "patched": { "source": { "type": "recipe" }, "patches": "$top/jobs/dma-from-device/patches" } },
  "benchmark": { "name": "dmabench" } }
EOF
check "a board without a board file: clear error naming it" err_has "$jt/missing.json" \
	"boards: board \"qemu-nosuch\": .*qemu-nosuch.json does not exist"

if [ ! -f "$kdir/control/manifest.json" ] || [ ! -f "$kdir/patched/manifest.json" ]; then
	skip "kernels missing in $kdir (make kernels)"
else
	echo "== ablab run"
	out=$("$ablab" run jobs/dma-from-device.json --boards qemu-sam9x75 --dry-run 2>&1)
	echo "$out" | sed 's/^/   /'
	check "dry run: both kernels cached" test "$(echo "$out" | grep -c 'qemu-sam9x75 .* cached: ')" = 2
	c0=$(psql_q "SELECT count(*) FROM campaigns")
	check "dry run created no campaign" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$c0"
	t0=$(date +%s)
	"$ablab" run jobs/dma-from-device.json --boards qemu-sam9x75 --boots 1 --undecidable-ok --batches 2 \
		--results "$tmp/results" --format json >"$tmp/t60-run.json" 2>"$tmp/t60-run.err"; rc=$?
	tail -n 3 "$tmp/t60-run.err"
	echo "   ablab run 1+1 boots: $(($(date +%s) - t0)) s"
	check "ablab run: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "campaign: trigger cli, job name and file stored, complete" test \
		"$(psql_q "SELECT trigger || ' ' || (job->>'job') || ' ' || status || ' ' || (job->'benchmark'->>'params') FROM campaigns WHERE id = $cid")" \
		= "cli dma-from-device complete $(jq -r .benchmark.params jobs/dma-from-device.json)"
	check "overrides applied: 1+1 ok boots, 2 batches each" test \
		"$(psql_q "SELECT count(*) || '/' || min(n) FROM (SELECT b.id, count(DISTINCT s.batch) AS n FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok' GROUP BY b.id) x")" = "2/2"
	check "report printed as json" grep -q "\"campaign\": $cid" "$tmp/t60-run.json"

	echo "== ablab nightly: two nightly jobs, two nights, a planted regression"
	nj=$tmp/nightly-jobs
	mkdir -p "$nj/series"
	cp jobs/dma-from-device/patches/*.patch "$nj/series/"
	# job A builds its patched kernel from $nj/series; job B uses the
	# shipped series; job C is not nightly and must not run
	cat >"$nj/a-dma.json" <<-EOF
	{ "name": "a-dma", "boards": ["qemu-sam9x75"],
	  "variants": { "control": { "source": { "type": "recipe" } },
	                "patched": { "source": { "type": "recipe" }, "patches": "series" } },
	  "benchmark": { "name": "dmabench", "params": "scenarios=small-dirty-256B:256:dirty:from:map_unmap:50" },
	  "boots": 5, "batches": 2, "nightly": true,
	  "threshold": { "change_pct": 500, "alpha": 0.05 } }
	EOF
	# (fixed directories: another job's build re-points kernels/BOARD/patched)
	kc=$(readlink -f "$kdir/control") kp=$(readlink -f "$kdir/patched")
	cat >"$nj/b-dma.json" <<-EOF
	{ "name": "b-dma", "boards": ["qemu-sam9x75"],
	  "variants": { "control": { "source": { "type": "prebuilt", "dir": "$kc" } },
	                "patched": { "source": { "type": "prebuilt", "dir": "$kp" } } },
	  "benchmark": { "name": "dmabench", "params": "scenarios=small-dirty-256B:256:dirty:from:map_unmap:50" },
	  "boots": 5, "batches": 2, "nightly": true,
	  "threshold": { "change_pct": 500 } }
	EOF
	sed 's/"a-dma"/"c-manual"/; s/"nightly": true/"nightly": false/' "$nj/a-dma.json" >"$nj/c-manual.json"
	out=$("$ablab" nightly --jobs "$nj" --dry-run 2>&1); rc=$?
	echo "$out" | sed 's/^/   /'
	check "nightly --dry-run: exit 0, the two nightly jobs, not the manual one" bash -c \
		"[ $rc = 0 ] && echo '$out' | grep -q '^job a-dma' && echo '$out' | grep -q '^job b-dma' && ! echo '$out' | grep -q c-manual"
	check "nightly --dry-run: kernels cached, prebuilt" bash -c \
		"echo '$out' | grep -q 'patched  cached' && echo '$out' | grep -q 'patched  prebuilt'"
	rep=$tmp/reports
	n0=$(psql_q "SELECT count(*) FROM campaigns WHERE trigger = 'nightly'")
	"$ablab" nightly --jobs "$nj" --reports "$rep" --results "$tmp/results" --date 2026-01-01 \
		>"$tmp/n1.out" 2>"$tmp/n1.err"; rc=$?
	grep -E 'nightly|campaign [0-9]+ (complete|stopped)' "$tmp/n1.err" | sed 's/^/   /'
	check "night 1: exit 0 (nothing to compare yet)" test "$rc" = 0
	check "night 1: two nightly campaigns, complete" test \
		"$(psql_q "SELECT string_agg(job->>'job', ',' ORDER BY id) FROM campaigns WHERE trigger = 'nightly' AND status = 'complete' AND id > (SELECT max(id) FROM campaigns) - 2")" = "a-dma,b-dma"
	for j in a-dma b-dma; do
		check "night 1: $rep/2026-01-01/$j has email, text and json reports" bash -c \
			"[ -s '$rep/2026-01-01/$j/email.txt' ] && [ -s '$rep/2026-01-01/$j/report.txt' ] && grep -q '\"campaign\"' '$rep/2026-01-01/$j/report.json'"
	done
	check "night 1: no manual job campaign" test \
		"$(psql_q "SELECT count(*) FROM campaigns WHERE job->>'job' = 'c-manual'")" = 0
	# the planted regression: 50 us of delay in every streaming map to the
	# device, written against the pristine source + the series; the patch
	# names this run, so every run builds it as the first one did (and its
	# kernel is removed again below)
	pristine=$(dirname "$(ls "$cache"/src/*/.ablab-extracted 2>/dev/null | head -n1)")
	if [ ! -f "$pristine/arch/arm/mm/dma-mapping.c" ]; then
		bad "no pristine kernel source under $cache/src to write the delay patch against"
	else
		rm -rf "$tmp/dp"
		mkdir -p "$tmp/dp/a" "$tmp/dp/b/arch/arm/mm"
		for f in $(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' "$nj"/series/*.patch | sort -u) \
			arch/arm/mm/dma-mapping.c; do
			mkdir -p "$tmp/dp/a/$(dirname "$f")"
			cp "$pristine/$f" "$tmp/dp/a/$f"
		done
		for p in "$nj"/series/*.patch; do patch -s -p1 -d "$tmp/dp/a" <"$p"; done
		src=$tmp/dp/a/arch/arm/mm/dma-mapping.c
		awk '/^#include <linux\/module.h>/ { print; print "#include <linux/delay.h>"; next }
		     /^static void __dma_page_cpu_to_dev\(/ { f = 1 }
		     f && /dma_cache_maint_page\(/ { print; print "\tudelay(50);\t/* ablab test: planted regression, run " run " */"; f = 0; next }
		     { print }' run="$(basename "$tmp")" "$src" >"$tmp/dp/b/arch/arm/mm/dma-mapping.c"
		(cd "$tmp/dp" && diff -u a/arch/arm/mm/dma-mapping.c b/arch/arm/mm/dma-mapping.c) \
			>"$nj/series/0099-test-planted-udelay-in-map.patch"
		check "delay patch written" grep -q 'udelay(50)' "$nj/series/0099-test-planted-udelay-in-map.patch"
		out=$("$ablab" nightly --jobs "$nj" --only a-dma --dry-run 2>&1)
		check "dry run after the series changed: a-dma patched would build, control cached" bash -c \
			"echo '$out' | grep -q 'patched  would build (patch series differs at 0099-test-planted' && echo '$out' | grep -q 'control  cached'"
		t0=$(date +%s)
		"$ablab" nightly --jobs "$nj" --reports "$rep" --results "$tmp/results" --date 2026-01-02 \
			>"$tmp/n2.out" 2>"$tmp/n2.err"; rc=$?
		echo "   night 2 (with the patched kernel rebuild): $(($(date +%s) - t0)) s"
		grep -E "small-dirty|change|nightly:|  \\|" "$tmp/n2.err" | sed "s/^/   /"
		check "night 2: exit 3 (significant change beyond the threshold)" test "$rc" = 3
		check "night 2: a-dma patched small-dirty-256B flagged in compare.json" bash -c \
			"grep -A12 '\"variant\": \"patched\"' '$rep/2026-01-02/a-dma/compare.json' | grep -q '\"change\": true'"
		check "night 2: a-dma control not flagged" bash -c \
			"! grep -B3 -A12 '\"variant\": \"control\"' '$rep/2026-01-02/a-dma/compare.json' | grep -q '\"change\": true'"
		check "night 2: b-dma (unchanged kernels) has no change" \
			grep -q '"changes": 0' "$rep/2026-01-02/b-dma/compare.json"
		check "night 2 ran the rebuilt kernel (the patch is in its manifest)" test \
			"$(psql_q "SELECT count(*) FROM boots b JOIN kernels k ON k.id = b.kernel_id JOIN campaigns c ON c.id = b.campaign_id WHERE c.job->>'job' = 'a-dma' AND b.variant = 'patched' AND k.manifest::text LIKE '%0099-test-planted%'")" -ge 1
	fi
	# the lab's published kernels back to the shipped series (cached: no
	# build); the planted kernel of this run is not kept in the cache
	planted=$(readlink -f "$kdir/patched")
	bash boards/kernel/build.sh qemu-sam9x75 >/dev/null 2>&1
	case $planted in "$(readlink -f "$kdir/patched")" | "$kc" | "$kp") ;; *) rm -rf "$planted" ;; esac
	echo "== unhealthy board skipped"
	# a real board whose UART is not plugged in: the one pre-flight over the backends'
	# checks (boot_preflight: console_ops.preflight) says so before the night uses it
	cat >"$nj/gone-uart.json" <<-EOF
	{ "name": "gone-uart", "cpu": "test", "family": "v7",
	  "console": { "type": "serial", "device": "/dev/ttyABLAB-gone0" },
	  "power": { "type": "command", "on": ["true"], "off": ["true"] },
	  "boot": { "method": "command", "deploy": ["true"] }, "shell": { "prompt": "lab# " } }
	EOF
	sed 's|"qemu-sam9x75"\]|"qemu-sam9x75", "qemu-gone", "'"$nj"'/gone-uart.json"]|' "$nj/b-dma.json" >"$nj/b-dma.json.new"
	mv "$nj/b-dma.json.new" "$nj/b-dma.json"
	out=$("$ablab" nightly --jobs "$nj" --only b-dma --dry-run 2>&1); rc=$?
	check "a board without a board file is skipped with the reason, exit 1" bash -c \
		"[ $rc = 1 ] && echo '$out' | grep -q 'b-dma: skipping board qemu-gone: no board file'"
	check "a board whose console device is absent is skipped with the reason" bash -c \
		"echo '$out' | grep -q 'b-dma: skipping board $nj/gone-uart.json: $nj/gone-uart.json: console.device /dev/ttyABLAB-gone0 is not present (is the adapter plugged in'"
	# a board whose last health check failed is skipped with that check's error; a
	# later ok check brings it back (nightly reads the row through store_health_last)
	psql_q "INSERT INTO health (board, checked, ok, error) VALUES ('qemu-sam9x75', now() - interval '2 hours', false, 'older failure'), ('qemu-sam9x75', now() - interval '1 hour', false, 'no prompt in 60 s')" >/dev/null
	out=$("$ablab" nightly --jobs "$nj" --only b-dma --dry-run 2>&1)
	check "a board whose last health check failed is skipped with its newest error" bash -c \
		"echo '$out' | grep -q 'skipping board qemu-sam9x75: its last health check (.*) failed: no prompt in 60 s'"
	psql_q "INSERT INTO health (board, checked, ok) VALUES ('qemu-sam9x75', now(), true)" >/dev/null
	out=$("$ablab" nightly --jobs "$nj" --only b-dma --dry-run 2>&1)
	check "after an ok health check the board is no longer skipped" bash -c \
		"! echo '$out' | grep -q 'skipping board qemu-sam9x75'"
fi
