# SPDX-License-Identifier: GPL-2.0-only
# Kernels from other builders (issue 30 item 2): the project's own qemu-sam9x75 kernels
# copied into TuxMake's output layout (metadata.json with build.target_arch and
# source.kernelrelease, zImage, dtbs/versatile-pb.dtb, modules.tar.xz with
# lib/modules/RELEASE/extra/dmabench.ko, config, System.map; no manifest.json, no
# initramfs: the board's own userland is borrowed) boot as --control/--patched of a 1+1
# campaign; each boot runs the release of its metadata.json, and loads the module of its
# modules.tar.xz (laid over the borrowed control userland: with control's module the
# patched kernel's insmod fails, "invalid module format").  Refused, naming what is
# wrong: a directory without the DTB, one built for arm64, one whose build failed, one
# without the image.
# timeout: 600
d=$tmp/t97
mkdir -p "$d/cache"
real_cache=$kcache
ctl=$real_cache/kernels/qemu-sam9x75
if [ ! -f "$ctl/control/manifest.json" ] || [ ! -f "$ctl/patched/manifest.json" ]; then
	skip "t97: kernels missing in $ctl (make kernels)"
	return 0
fi
# the kernels read through a cache of the test's own (the derived directories go there)
ln -s "$real_cache/kernels" "$d/cache/kernels"
export ABLAB_CACHE=$d/cache
# tuxdir VARIANT OUT: the variant's kernel in TuxMake's layout
tuxdir() {
	local rel
	rel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["release"])' "$ctl/$1/manifest.json")
	mkdir -p "$2/dtbs" "$2/m/lib/modules/$rel/extra"
	cp "$ctl/$1/zImage" "$ctl/$1/System.map" "$2/"
	cp "$ctl/$1/config" "$2/config"
	cp "$ctl/$1/versatile-pb.dtb" "$2/dtbs/"
	cp "$ctl/$1/dmabench.ko" "$2/m/lib/modules/$rel/extra/"
	tar -C "$2/m" -cJf "$2/modules.tar.xz" lib
	rm -rf "$2/m"
	python3 - "$2/metadata.json" "$rel" <<'PY'
import json, sys
json.dump({"build": {"target_arch": "arm", "toolchain": "gcc-12", "kconfig": "allnoconfig",
                     "targets": ["config", "kernel", "dtbs", "modules"]},
           "results": {"status": "PASS", "artifacts": {"kernel": ["zImage"], "dtbs": ["dtbs.tar.xz"],
                       "modules": ["modules.tar.xz"], "config": ["config"]}},
           "source": {"kernelrelease": sys.argv[2], "kernelversion": sys.argv[2].split("-")[0]},
           "compiler": {"name": "gcc", "version": "12"}}, open(sys.argv[1], "w"), indent=1)
PY
}
tuxdir control "$d/tux-control"
tuxdir patched "$d/tux-patched"
check "t97: the TuxMake directories have no manifest.json" test ! -e "$d/tux-control/manifest.json"

"$ablab" db start >/dev/null || bad "t97: db start"
out=$("$ablab" ab --board qemu-sam9x75 --control "$d/tux-control" --patched "$d/tux-patched" \
	--boots 1 --batches 1 --undecidable-ok --results "$d/results" --format json 2>"$d/ab.err"); rc=$?
tail -n 5 "$d/ab.err"
check "t97: a 1+1 campaign of TuxMake-layout kernels on qemu-sam9x75 exits 0" test "$rc" = 0
cid=$(psql_q "SELECT max(id) FROM campaigns")
for v in control patched; do
	rel=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["source"]["kernelrelease"])' "$d/tux-$v/metadata.json")
	check "t97: the $v boot ran the release of its metadata.json ($rel)" \
		test "$(psql_q "SELECT uname_r FROM boots WHERE campaign_id = $cid AND variant = '$v' AND status = 'ok'")" = "$rel"
done
check "t97: the stored kernel manifest names its TuxMake directory" \
	test "$(psql_q "SELECT count(*) FROM boots b JOIN kernels k ON k.id = b.kernel_id WHERE b.campaign_id = $cid AND k.manifest->'tuxmake'->>'dir' LIKE '%/tux-%'")" = 2
check "t97: samples stored for both boots" \
	test "$(psql_q "SELECT count(DISTINCT b.id) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = 2

# refused, each naming what is missing or wrong
cp -r "$d/tux-control" "$d/nodtb" && rm -r "$d/nodtb/dtbs"
out=$("$ablab" ab --board qemu-sam9x75 --control "$d/nodtb" --patched "$d/tux-patched" --boots 1 --batches 1 --undecidable-ok --results "$d/results" 2>&1); rc=$?
check "t97: no DTB: refused (exit $rc), naming dtbs/versatile-pb.dtb" bash -c \
	"[ $rc != 0 ] && grep -q 'nodtb has no dtbs/versatile-pb.dtb' <<<\"\$1\"" _ "$out" || echo "$out" | tail -3
cp -r "$d/tux-control" "$d/arm64" && sed -i 's/"target_arch": "arm"/"target_arch": "arm64"/' "$d/arm64/metadata.json"
out=$("$ablab" ab --board qemu-sam9x75 --control "$d/arm64" --patched "$d/tux-patched" --boots 1 --batches 1 --undecidable-ok --results "$d/results" 2>&1); rc=$?
check "t97: built for arm64: refused (exit $rc), naming both architectures" bash -c \
	"[ $rc != 0 ] && grep -q 'arm64 was built for arm64 (build.target_arch), but board qemu-sam9x75 needs arm' <<<\"\$1\"" _ "$out" || echo "$out" | tail -3
cp -r "$d/tux-control" "$d/failed" && sed -i 's/"status": "PASS"/"status": "FAIL"/' "$d/failed/metadata.json"
out=$("$ablab" ab --board qemu-sam9x75 --control "$d/failed" --patched "$d/tux-patched" --boots 1 --batches 1 --undecidable-ok --results "$d/results" 2>&1); rc=$?
check "t97: a failed build: refused (exit $rc)" bash -c \
	"[ $rc != 0 ] && grep -q 'results.status is FAIL' <<<\"\$1\"" _ "$out" || echo "$out" | tail -3
cp -r "$d/tux-control" "$d/noimage" && rm "$d/noimage/zImage"
out=$("$ablab" ab --board qemu-sam9x75 --control "$d/noimage" --patched "$d/tux-patched" --boots 1 --batches 1 --undecidable-ok --results "$d/results" 2>&1); rc=$?
check "t97: no image: refused (exit $rc), naming zImage" bash -c \
	"[ $rc != 0 ] && grep -q 'noimage has no zImage' <<<\"\$1\"" _ "$out" || echo "$out" | tail -3
check "t97: the refusals started no campaign" test "$(psql_q "SELECT max(id) FROM campaigns")" = "$cid"

# job variants: source type "prebuilt" whose dir is a TuxMake directory
cat >"$d/job.json" <<JOB
{
  "boards": ["qemu-sam9x75"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$d/tux-control" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$d/tux-patched" } }
  },
  "benchmark": { "name": "dmabench" },
  "boots": 1,
  "batches": 1
}
JOB
out=$("$ablab" run "$d/job.json" --dry-run 2>&1); rc=$?
check "t97: a job whose prebuilt variants are TuxMake directories: dry run exit $rc, both named prebuilt by TuxMake" bash -c \
	"[ $rc = 0 ] && [ \$(grep -c 'prebuilt by TuxMake' <<<\"\$1\") = 2 ]" _ "$out" || echo "$out" | tail -5
out=$("$ablab" run "$d/job.json" --undecidable-ok --results "$d/results" 2>&1); rc=$?
check "t97: ... and its 1+1 campaign runs (exit $rc)" test "$rc" = 0 || echo "$out" | tail -5
