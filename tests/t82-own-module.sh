# SPDX-License-Identifier: GPL-2.0-only
# timeout: 600
# lane: alone
# Your own module on prebuilt kernels, no job file: the seed's
# dma_from_device_benchmark.c, taken at test time from the mailing-list thread
# it was posted in ($ABLAB_SEEDS, default ../shared/seeds: the seeds' code is
# not copied into this repository; without the thread the part is skipped), built
# against qemu-sam9x75's control and patched trees, run with
# `ablab ab --module control=FILE --module patched=FILE --parser seed` on the
# prebuilt kernels (1+1 boots; the .ko is not in their initramfs, so it goes
# over the console), then the same module with the wrong parser: one attempt,
# not retried, the board not blamed.  Before any boot: NAME.ko from each
# kernel directory, and a .ko built for the other variant's kernel refused.
"$ablab" db start >/dev/null 2>&1 || true
cache=$kcache
kd=$cache/kernels/qemu-sam9x75
tree=$cache/build/qemu-sam9x75
w=$tmp/t82
mkdir -p "$w"
if [ ! -f "$kd/control/manifest.json" ] || [ ! -f "$kd/patched/manifest.json" ] ||
	[ ! -f "$tree/control/out/Module.symvers" ] || [ ! -f "$tree/patched/out/Module.symvers" ]; then
	skip "qemu-sam9x75 kernels or their trees missing in $cache (make kernels)"
	return 0 2>/dev/null || exit 0
fi
seeds=${ABLAB_SEEDS:-$top/../shared/seeds}
src=$w/seed-source.c
for f in "$seeds"/*.txt; do
	[ -f "$f" ] || continue
	awk '/^----- dma_from_device_benchmark.c -----$/ { on = 1; next } on { print } on && /^MODULE_DESCRIPTION/ { exit }' "$f" >"$src"
	grep -q '^MODULE_LICENSE' "$src" && break
	: >"$src"
done
if [ ! -s "$src" ]; then
	skip "the seed module's source: no thread in $seeds holds dma_from_device_benchmark.c (set ABLAB_SEEDS)"
	return 0 2>/dev/null || exit 0
fi
kc=$(readlink -f "$kd/control")
kp=$(readlink -f "$kd/patched")
mod=dma_from_device_benchmark

echo "== the seed module, built against each variant's tree"
for v in control patched; do
	mkdir -p "$w/$v"
	cp "$src" "$w/$v/$mod.c"
	echo "obj-m := $mod.o" >"$w/$v/Kbuild"
	make -s -C "$tree/$v" O="$tree/$v/out" ARCH=arm CROSS_COMPILE=arm-linux-gnueabi- \
		LOCALVERSION="-ablab-$v" M="$w/$v" modules >"$w/$v/build.log" 2>&1
	rel=$(sed -E 's/.*"release": *"([^"]+)".*/\1/' <(tr -d '\n' <"$kd/$v/manifest.json"))
	check "$v: $mod.ko built for $rel" grep -aq "vermagic=$rel " "$w/$v/$mod.ko"
	printf -v "rel_$v" %s "$rel"
done

echo "== before any boot: the module files are checked"
c0=$(psql_q "SELECT count(*) FROM campaigns")
out=$("$ablab" ab --board qemu-sam9x75 --control "$kc" --patched "$kp" --module "$mod" \
	--parser seed --boots 1 --undecidable-ok --results "$w/results" 2>&1); rc=$?
echo "   $out" | head -n 2
check "--module NAME: NAME.ko missing in the kernel directory, named with the fix" bash -c \
	"[ $rc = 1 ] && grep -q 'qemu-sam9x75: control module $kc/$mod.ko: No such file or directory (--module NAME takes NAME.ko from each kernel directory' <<<'$out'"
# kernel directories of our own that hold the module (NAME.ko), the
# patched one holding the control build: refused by its vermagic
for v in control patched; do
	mkdir -p "$w/k-$v"
	cp -a "$kd/$v/." "$w/k-$v/"
done
cp "$w/control/$mod.ko" "$w/k-control/"
cp "$w/control/$mod.ko" "$w/k-patched/"
out=$("$ablab" ab --board qemu-sam9x75 --control "$w/k-control" --patched "$w/k-patched" \
	--module "$mod" --parser seed --boots 1 --undecidable-ok --results "$w/results" 2>&1); rc=$?
echo "   $out" | head -n 2
echo "$out" >"$w/vermagic.err"
check "a .ko built for the other kernel: refused before booting, both releases named" bash -c \
	"[ $rc = 1 ] && grep -qF 'patched module $w/k-patched/$mod.ko was built for kernel $rel_control (its vermagic), but the patched kernel is $rel_patched' '$w/vermagic.err'"
check "no campaign created by either" test "$(psql_q "SELECT count(*) FROM campaigns")" = "$c0"
out=$("$ablab" ab --board qemu-sam9x75 --benchmark module --boots 1 2>&1); rc=$?
check "--benchmark module without --module: usage error naming both forms" bash -c \
	"[ $rc = 2 ] && grep -q 'needs --module NAME (NAME.ko in each kernel directory) or --module control=FILE --module patched=FILE' <<<'$out'"

# the same from a job file: "ko" per variant, {board} replaced, checked by --dry-run
for v in control patched; do
	mkdir -p "$w/mods/qemu-sam9x75/$v"
	cp "$w/$v/$mod.ko" "$w/mods/qemu-sam9x75/$v/"
done
kjob() {
	cat >"$w/$1.json" <<JOB
{
  "boards": ["qemu-sam9x75"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$kc" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$kp" } }
  },
  "benchmark": { "name": "module", "parser": "seed",
                 "ko": { "control": "mods/{board}/$2/$mod.ko", "patched": "mods/{board}/$3/$mod.ko" } },
  "boots": 1
}
JOB
}
kjob ko control patched
out=$("$ablab" run "$w/ko.json" --dry-run 2>&1); rc=$?
echo "$out" | grep module | sed 's/^/   /'
check "job file \"ko\" with {board}: --dry-run checks both files" bash -c "[ $rc = 0 ] &&
	grep -qF 'control  module $w/mods/qemu-sam9x75/control/$mod.ko (built for $rel_control)' <<<\"\$1\" &&
	grep -qF 'patched  module $w/mods/qemu-sam9x75/patched/$mod.ko (built for $rel_patched)' <<<\"\$1\"" _ "$out"
kjob koswap patched control
out=$("$ablab" run "$w/koswap.json" --dry-run 2>&1); rc=$?
check "job file \"ko\" swapped: --dry-run refuses the control file by its vermagic" bash -c "[ $rc = 1 ] &&
	grep -qF 'control module $w/mods/qemu-sam9x75/patched/$mod.ko was built for kernel $rel_patched' <<<\"\$1\"" _ "$out"

echo "== ablab ab --module control=FILE --module patched=FILE --parser seed (1+1 boots, QEMU)"
"$ablab" ab --board qemu-sam9x75 --control "$kc" --patched "$kp" \
	--module "control=$w/control/$mod.ko" --module "patched=$w/patched/$mod.ko" --parser seed \
	--boots 1 --undecidable-ok --batches 3 --results "$w/results" >"$w/report.txt" 2>"$w/run.err"; rc=$?
tail -n 4 "$w/run.err" | sed 's/^/   /'
check "exit 0" test "$rc" = 0
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "the .ko went over the console to each boot (not in the prebuilt initramfs)" test \
	"$(grep -c "qemu-sam9x75: $w/.*/$mod.ko (.* bytes, sha256 .*) copied to the target over the console" "$w/run.err")" = 2
check "loaded from /tmp/ablab without batches= (the seed format has none)" bash -c \
	"grep -q 'insmod /tmp/ablab/$mod.ko 2>&1' $w/results/campaign-$cid/*-control-a1.log && ! grep -q 'insmod .*batches=' $w/results/campaign-$cid/*.log"
got=$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT b.variant || ':' || s.scenario || ':' || count(*) || ':' || max(s.batch) || ':' || min(s.fmt) AS x FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok' GROUP BY b.variant, s.scenario) y")
echo "   samples: $got"
check "the seed's three scenarios, one batch per boot, seed format" test "$got" = \
	"control:large-clean-1MiB:1:1:0 control:large-dirty-1MiB:1:1:0 control:small-dirty-256B:1:1:0 patched:large-clean-1MiB:1:1:0 patched:large-dirty-1MiB:1:1:0 patched:small-dirty-256B:1:1:0"
check "the campaign records the batches that ran (1), not --batches 3" test \
	"$(psql_q "SELECT batches FROM campaigns WHERE id = $cid")" = 1
check "ran 1 batch, said so" grep -q 'the benchmark ran 1 batch per scenario, not the 3 asked for' "$w/run.err"
check "campaign stores the module, its parser and both files" test \
	"$(psql_q "SELECT (run->>'benchmark') || ' ' || (run->>'module') || ' ' || (run->>'parser') || ' ' || (run->'ko'->>'patched') FROM campaigns WHERE id = $cid")" = \
	"module $mod seed $w/patched/$mod.ko"
sed -n '1,12p' "$w/report.txt" | sed 's/^/   /'
check "the report has the seed scenarios" bash -c \
	"grep -q '256 B dirty\|small-dirty-256B' '$w/report.txt' && grep -q '1 MiB clean\|large-clean-1MiB' '$w/report.txt'"

echo "== the same module with the wrong parser: fails once, not retried, board not blamed"
"$ablab" ab --board qemu-sam9x75 --control "$kc" --patched "$kp" \
	--module "control=$w/control/$mod.ko" --module "patched=$w/patched/$mod.ko" \
	--boots 1 --undecidable-ok --results "$w/results" >/dev/null 2>"$w/wrong.err"; rc=$?
grep -m1 'attempt 1 failed' "$w/wrong.err" | cut -c1-220 | sed 's/^/   /'
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "exit 1, the reason names the parser expected and the format seen" bash -c \
	"[ $rc = 1 ] && grep -q 'benchmark output rejected: expected dmabench v1 lines, saw seed-format lines (3 of 3 samples): use --parser seed' '$w/wrong.err'"
check "one attempt, not retried" test "$(psql_q "SELECT count(*) || '/' || max(attempt) FROM boots WHERE campaign_id = $cid")" = "1/1"
check "the board is not declared unhealthy" bash -c "! grep -q 'unhealthy' '$w/wrong.err'"
