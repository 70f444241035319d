# The module passes the kernel's checkpatch.pl --strict (from the same
# linux-source tree the kernels are built from, extracted by make kernels),
# and the patch series applies to that tree in order.  The emulated boards'
# built kernels keep the code paths their recipes exist for: every
# KEEP_SYMBOLS of boards/kernel/BOARD.conf is in the artefact's System.map.
cache=$kcache
ksrc=$(ls -d "$cache"/src/*/ 2>/dev/null | head -n 1)
if [ -z "$ksrc" ] || [ ! -x "$ksrc/scripts/checkpatch.pl" ]; then
	skip "no extracted kernel source in $cache/src (make kernels)"
else
	out=$(perl "$ksrc/scripts/checkpatch.pl" --strict --no-tree -f kmod/dmabench.c 2>&1)
	echo "$out" | tail -n 3
	check "checkpatch --strict: dmabench.c has no errors, warnings or checks" \
		grep -q 'total: 0 errors, 0 warnings, 0 checks' <<<"$out"
	for p in jobs/dma-from-device/patches/*.patch; do
		out=$(perl "$ksrc/scripts/checkpatch.pl" --no-tree "$top/$p" 2>&1)
		check "checkpatch: $(basename "$p") has no errors" grep -q 'total: 0 errors' <<<"$out"
	done
	w=$tmp/patchcheck
	mkdir -p "$w"
	cp -a "$ksrc/arch/arm/mm" "$w/mm"
	(cd "$w" && mkdir -p arch/arm && mv mm arch/arm/)
	ok=1
	for p in jobs/dma-from-device/patches/*.patch; do
		patch -d "$w" -p1 --dry-run -s <"$p" >/dev/null 2>&1 || ok=0
		patch -d "$w" -p1 -s <"$p" >/dev/null 2>&1 || ok=0
	done
	check "the patch series applies to linux-source-6.1 in order" test $ok = 1
	check "patch 2 makes arm926 flush FROM_DEVICE buffers at map (no bcs to inv_range)" \
		bash -c "! sed -n '/ENTRY(arm926_dma_map_area)/,/ENDPROC/p' '$w/arch/arm/mm/proc-arm926.S' | grep -q 'bcs.*inv_range'"
fi

for conf in boards/kernel/*.conf; do
	b=$(basename "$conf" .conf)
	syms=$(bash -c '. "$1" >/dev/null 2>&1; echo $KEEP_SYMBOLS' _ "$conf")
	check "$b: the recipe names the symbols its kernel must keep" test -n "$syms"
	for v in control patched; do
		map=$cache/kernels/$b/$v/System.map
		if [ ! -f "$cache/kernels/$b/$v/manifest.json" ]; then
			skip "$b/$v: no kernel in $cache/kernels/$b/$v (make kernels)"
			continue
		fi
		missing=$(for s in $syms; do grep -q " $s\$" "$map" 2>/dev/null || echo "$s"; done)
		check "$b/$v: System.map has the recipe's KEEP_SYMBOLS${missing:+ (missing: $(echo $missing))}" \
			test -z "$missing"
	done
done
