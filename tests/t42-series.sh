# lane: alone
# The project's own two-patch series, patch by patch (issue 15, acceptance 1): the job
# jobs/dma-from-device-series.json ("series": "prefixes") on the three emulated boards,
# one round (control, +1, +1-2 on each board, real kernels and the real module).  The
# +1 kernel is built by build.sh as a patched kernel of patch 1 alone (incrementally,
# cached by its patch; +1-2 is the cached patched kernel), and build.sh's patched link
# is left alone.  The report has the per-patch increments; `query --format json`
# shows every variant.
# timeout: 1500
kc=$kcache/kernels
for b in qemu-sam9x75 qemu-arm11 qemu-pi400; do
	need_kernels $b || return 0
done
"$ablab" db start >/dev/null
links() { for b in qemu-sam9x75 qemu-arm11 qemu-pi400; do readlink "$kc/$b/patched"; done; }
links >"$tmp/links.before"
t0=$SECONDS
JOBS=${JOBS:-2} "$ablab" run jobs/dma-from-device-series.json --boots 1 --undecidable-ok --batches 2 \
	--results "$tmp/results" --format text >"$tmp/series.out" 2>"$tmp/series.err"; rc=$?
echo "   series campaign: exit $rc after $((SECONDS - t0)) s (kernel builds included)"
grep -E 'qemu-[a-z0-9]+/patched: (cached|done)|campaign [0-9]+ (complete|stopped)' "$tmp/series.err" | sed 's/^/   /'
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "series campaign on the three boards: exit 0, complete" test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
check "build.sh's patched link is where it was" cmp -s "$tmp/links.before" <(links)
check "one round: every board booted control, +1 and +1-2 once" test "$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT o.name || ':' || string_agg(b.variant, ',' ORDER BY b.variant) AS x FROM boots b JOIN boards o ON o.id = b.board_id WHERE b.campaign_id = $cid AND b.status = 'ok' GROUP BY o.name) y")" = "qemu-arm11:+1,+1-2,control qemu-pi400:+1,+1-2,control qemu-sam9x75:+1,+1-2,control"
# builds are reproducible: a patch that touches no code of a board's CPU gives the
# control's image again (patch 1 changes the v7 path, patch 2 the legacy ones), and the engine says so
imgs=$(psql_q "SELECT string_agg(o.name || ':' || n, ' ' ORDER BY o.name) FROM (SELECT b.board_id, count(DISTINCT k.image_sha256) n FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $cid AND b.status = 'ok' GROUP BY b.board_id) x JOIN boards o ON o.id = x.board_id")
echo "   distinct kernel images per board: $imgs"
check "+1-2 is another image than control on every board" test "$(psql_q "SELECT count(*) FROM boots c JOIN kernels kc ON kc.id = c.kernel_id JOIN boots p ON p.campaign_id = c.campaign_id AND p.board_id = c.board_id JOIN kernels kp ON kp.id = p.kernel_id WHERE c.campaign_id = $cid AND c.variant = 'control' AND p.variant = '+1-2' AND c.status = 'ok' AND p.status = 'ok' AND kc.image_sha256 <> kp.image_sha256")" = 3
check "a board with two variants of one image is warned about" bash -c "for b in \$(tr ' ' '\n' <<<'$imgs' | sed -n 's/:[12]$//p'); do grep -q \"\$b: warning: .* kernels are the same image\" '$tmp/series.err' || exit 1; done"
m1=$(ls -d "$kc"/qemu-sam9x75/patched-* | while read -r d; do grep -q '"0001-' "$d/manifest.json" && ! grep -q '"0002-' "$d/manifest.json" && echo "$d"; done | head -n 1)
check "the +1 kernel is a cached build of patch 1 alone ($m1)" test -n "$m1"
sed -n '/^ARM926EJ-S/,/^$/p' "$tmp/series.out"
grep '^On ' "$tmp/series.out"
check "report: each board's 3 timing rows with each patch's increment" bash -c "[ \$(grep -c '^  +1-2 vs +1 ' '$tmp/series.out') = 9 ] && [ \$(grep -c '^  +1 vs control ' '$tmp/series.out') = 9 ] && [ \$(grep -c '^  +1-2 vs control ' '$tmp/series.out') = 9 ]"
check "report: a table per board (3 board headings)" test "$(grep -Ec '^(ARM926EJ-S|ARM11 MPCore|Cortex-A15).* on qemu-' "$tmp/series.out")" = 3
check "report: patches named" bash -c "tr '\n' ' ' <'$tmp/series.out' | grep -q '+1 adds 0001-ARM-dma-mapping-preserve-DMA_FROM_DEVICE-buffer-contents.patch; +1-2 adds 0002-'"
"$ablab" report "$cid" --format email >"$tmp/series.mail"
check "email: 72 columns at most" test "$(awk 'length > 72' "$tmp/series.mail" | wc -l)" = 0
"$ablab" query --campaign "$cid" --format json >"$tmp/series.q.json"
check "query --format json shows every variant with its position" python3 -c "
import json, sys
q = json.load(open(sys.argv[1]))
got = sorted({(x['board'], x['variant'], x['position']) for x in q})
want = sorted((b, v, p) for b in ('qemu-sam9x75', 'qemu-arm11', 'qemu-pi400') for v, p in (('control', 0), ('+1', 1), ('+1-2', 2)))
assert got == want, got
" "$tmp/series.q.json"

# Kernels built incrementally along a series (issue 15, item 1): a prefix is built over
# the tree the previous prefix left, not over control again.  build.sh builds control +
# patches 1-3 (patch 3 a comment in lib/sort.c), then control + patches 1-4 (patch 4 a
# comment in lib/bsearch.c): the second build applies only patch 4 in the +1-3 tree and
# recompiles lib/bsearch.c, not the files patches 1-3 touched.  The two kernels are this
# test's own: they are removed from the cache after it (so the next run builds them
# again), and build.sh's patched link is put back.
b=qemu-sam9x75 bt=$kcache/build/qemu-sam9x75
if [ -f "$bt/control/out/lib/sort.o" ] && [ -f "$bt/control/out/lib/bsearch.o" ]; then
	mkdir -p "$tmp/s3" "$tmp/s4" "$tmp/a/lib" "$tmp/b/lib"
	for f in sort bsearch; do
		cp "$bt/control/lib/$f.c" "$tmp/a/lib/$f.c"
		{ cat "$bt/control/lib/$f.c"; echo "/* ablab t42: a series' next patch, in lib/$f.c */"; } >"$tmp/b/lib/$f.c"
	done
	(cd "$tmp" && diff -u a/lib/sort.c b/lib/sort.c) >"$tmp/0003-t42-sort.patch"
	(cd "$tmp" && diff -u a/lib/bsearch.c b/lib/bsearch.c) >"$tmp/0004-t42-bsearch.patch"
	for p in jobs/dma-from-device/patches/*.patch "$tmp/0003-t42-sort.patch"; do ln -s "$(readlink -f "$p")" "$tmp/s3/"; done
	cp -P "$tmp"/s3/* "$tmp/s4/" && ln -s "$tmp/0004-t42-bsearch.patch" "$tmp/s4/"
	# what a run killed before its cleanup left: this test's kernels must be built, not cached
	for d in "$kc/$b"/patched-*; do
		if grep -q '"0003-t42-sort.patch"' "$d/manifest.json" 2>/dev/null; then rm -rf "$d"; fi
	done
	was=$(readlink "$kc/$b/patched")
	PATCHES_DIR=$tmp/s3 JOBS=${JOBS:-2} bash boards/kernel/build.sh $b patched >"$tmp/b3.out" 2>&1; rc3=$?
	t4=$SECONDS
	PATCHES_DIR=$tmp/s4 JOBS=${JOBS:-2} bash boards/kernel/build.sh $b patched >"$tmp/b4.out" 2>&1; rc4=$?
	t4=$((SECONDS - t4))
	cp "$kcache/logs/$b-patched.log" "$tmp/b4.log" 2>/dev/null
	a3=$(readlink -f "$kc/$b/patched")
	ln -sfn "$was" "$kc/$b/patched"
	grep -E 'apply|copy control|done' "$tmp/b3.out" "$tmp/b4.out" | sed 's/^/   /'
	echo "   +1-4 after +1-3: ${t4} s; compiled: $(grep -E '^ +(CC|AS) ' "$tmp/b4.log" | awk '$2 != "[M]" { print $2 }' | tr '\n' ' ')"
	check "control + patches 1-3, then 1-4: both build (exit $rc3, $rc4)" test "$rc3/$rc4" = 0/0
	check "+1-4 applies only patch 4, over the +1-3 tree" grep -q 'apply patches 4-4 of .* over the tree of the first 3 (incremental along the series)' "$tmp/b4.out"
	check "+1-4 recompiles lib/bsearch.c, not the files of patches 1-3" bash -c "grep -Eq '^ +CC +lib/bsearch.o' '$tmp/b4.log' && ! grep -Eq '^ +(CC|AS) +(lib/sort.o|arch/arm/mm/(dma-mapping|proc-arm926|cache-v4wb)\.o)' '$tmp/b4.log'"
	check "build.sh's patched link is back where it was" test "$(readlink "$kc/$b/patched")" = "$was"
	for p in "$tmp"/b3.out "$tmp"/b4.out; do
		d=$(sed -n 's/.*done: .* -> \(.*\)$/\1/p' "$p" | tail -n 1)
		case $d in "$kc/$b/patched-"*) rm -rf "$d" ;; esac
	done
else
	skip "no control objects lib/sort.o and lib/bsearch.o in $bt/control/out (make kernels)"
fi
