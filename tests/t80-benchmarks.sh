# Other benchmarks: a "regex" benchmark defined in the job file (a shell
# command run on the target, its output matched by a POSIX ERE), validated
# with file:line:col errors and run in a real 1+1 campaign on qemu-sam9x75
# whose command prints known values, checked in the stored samples.
"$ablab" db start >/dev/null 2>&1 || true
jt=$tmp/jobs-t80
mkdir -p "$jt"
cache=$kcache
kdir=$cache/kernels/qemu-sam9x75

# rjob NAME BENCHMARK-JSON: a job over the prebuilt qemu-sam9x75 kernels
rjob() {
	cat >"$jt/$1.json" <<JOB
{
  "boards": ["qemu-sam9x75"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kdir/control")" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$(readlink -f "$kdir/patched")" } }
  },
  "benchmark": $2,
  "boots": 1,
  "batches": 3
}
JOB
}
err_has() {
	local out rc
	out=$("$ablab" run "$1" --dry-run 2>&1 >/dev/null); rc=$?
	echo "   $out" | head -n 3
	[ "$rc" = 1 ] && echo "$out" | grep -Eq -- "$2"
}
cmd='for i in 1 2 3; do echo \"lat small 353 ns\"; echo \"lat big 1.5 us\"; done; echo \"latency 7 ns\"'
re='^lat ([a-z]+) ([0-9.]+) (ns|us|ms|s)$'
grp='{ "scenario": 1, "value": 2, "unit": 3 }'

# On the board simulator (seconds): a list's first failure is the
# command's status (set -e), a value glued to more of its token is
# rejected, and the campaign records the batches the command ran.
sw=$tmp/t80-sim
mkdir -p "$sw/tftp" "$sw/k"
sim_kernels "$sw/k" sim-t80
sed -e "s|@W@|$sw|g" -e "s|@BS@|$top/build/boardsim|g" >"$sw/board.json" <<'JSON'
{
  "name": "sim-t80", "cpu": "ARM926EJ-S", "family": "legacy",
  "console": { "type": "tty", "device": "@W@/console" },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"] },
  "boot": { "method": "uboot", "tftp_root": "@W@/tftp", "server_ip": "192.0.2.1",
            "autoboot": "Hit any key to stop autoboot", "interrupt": " ", "prompt": "=> ",
            "commands": ["tftpboot {kernel_addr} {kernel}", "bootz {kernel_addr}"],
            "addrs": { "kernel_addr": "0x22000000" } },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 5, "bootloader": 3, "kernel": 5, "command": 5 },
  "retries": 0
}
JSON
"$top/build/boardsim" run --ctl "$sw/ctl" --pty-link "$sw/console" --tftp-root "$sw/tftp" \
	--tick-ms 10 --autoboot 10 --daemon --pid-file "$sw/pid" 2>"$sw/sim.err" ||
	bad "cannot start the simulator: $(cat "$sw/sim.err")"
# simab NAME COMMAND REGEX GROUPS: a 1+1 regex campaign on the simulator
simab() {
	"$ablab" ab --board "$sw/board.json" --control "$sw/k/control" --patched "$sw/k/patched" \
		--boots 1 --undecidable-ok --batches 5 --benchmark regex --command "$2" --regex "$3" --groups "$4" \
		--results "$sw/results" >"$sw/$1.out" 2>"$sw/$1.err"
}
echo "== regex benchmark on the simulator: set -e, whole tokens, the batches that ran"
simab batches 'echo lat small 353 ns; echo lat big 1500 ns; echo lat small 354 ns; echo lat big 1501 ns' \
	'^lat ([a-z]+) ([0-9]+) (ns|us)$' 1,2,3; rc=$?
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "ab --benchmark regex: exit 0, 2 batches per scenario stored" test \
	"$rc/$(psql_q "SELECT count(*) || '/' || max(s.batch) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = "0/8/2"
check "the campaign records the 2 batches that ran, not --batches 5" test \
	"$(psql_q "SELECT batches FROM campaigns WHERE id = $cid")" = 2
check "the report says 2 batches" grep -q ': 2 batches per scenario per boot' "$sw/batches.out"
simab list 'false; echo lat small 353 ns; echo lat big 1500 ns' '^lat ([a-z]+) ([0-9]+) (ns|us)$' 1,2,3
rc=$?
grep -m1 'attempt 1 failed' "$sw/list.err" | cut -c1-200 | sed 's/^/   /'
cid=$(psql_q "SELECT max(id) FROM campaigns")
n=$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")
check "cmd; more: the first command's failure fails the boot (set -e), nothing stored" bash -c \
	"[ $rc/$n = 1/0 ] && grep -q 'benchmark command exited with status 1 (it runs under set -e: the first failing command ends it; no output)' '$sw/list.err'"
simab junk 'echo small mean_ns=353; echo big mean_ns=1500abc' '^([a-z]+) mean_ns=([0-9]+)' 1,2
rc=$?
grep -m1 'attempt 1 failed' "$sw/junk.err" | cut -c1-200 | sed 's/^/   /'
check "mean_ns=1500abc with a loose group: rejected, not stored as 1500" bash -c \
	"[ $rc = 1 ] && grep -q 'value \"1500\" in \"big mean_ns=1500abc\" is followed by more of its token \"abc\"' '$sw/junk.err'"
"$top/build/boardsim" ctl "$sw/ctl" quit >/dev/null 2>&1

echo "== regex benchmark: validation"
rjob badre "{ \"name\": \"regex\", \"command\": \"true\",
  \"regex\": \"^lat ([a-z]+\", \"groups\": $grp }"
check "invalid regex: file:line:col and the regcomp reason" err_has "$jt/badre.json" \
	"badre.json:8:[0-9]+: benchmark.regex: invalid POSIX extended regular expression"
rjob badgrp "{ \"name\": \"regex\", \"command\": \"true\",
  \"regex\": \"$re\", \"groups\": { \"scenario\": 1, \"value\": 4 } }"
check "a group the regex does not have" err_has "$jt/badgrp.json" \
	"benchmark.regex: the regex has 3 group\\(s\\)"
rjob nocmd "{ \"name\": \"regex\", \"regex\": \"$re\", \"groups\": $grp }"
check "no command" err_has "$jt/nocmd.json" \
	"nocmd.json:7:[0-9]+: benchmark.command: required for a \"regex\" benchmark"
rjob params "{ \"name\": \"regex\", \"command\": \"true\", \"params\": \"reps=1\",
  \"regex\": \"$re\", \"groups\": $grp }"
check "module parameters on a regex benchmark" err_has "$jt/params.json" \
	"benchmark.params: a \"regex\" benchmark has no module parameters"
rjob dmare "{ \"name\": \"dmabench\", \"regex\": \"$re\" }"
check "regex on dmabench" err_has "$jt/dmare.json" \
	"benchmark.regex: only a \"regex\" benchmark has a regex"
rjob unk "{ \"name\": \"lmbench\" }"
check "unknown benchmark names the known ones" err_has "$jt/unk.json" \
	"benchmark.name: unknown benchmark \"lmbench\"; known: dmabench, regex"

if [ ! -f "$kdir/control/manifest.json" ] || [ ! -f "$kdir/patched/manifest.json" ]; then
	skip "kernels missing in $kdir (make kernels)"
else
	echo "== regex benchmark: a real campaign on qemu-sam9x75"
	rjob lat "{ \"name\": \"regex\", \"command\": \"$cmd\", \"regex\": \"$re\",
  \"groups\": $grp }"
	check "the regex job validates" "$ablab" run "$jt/lat.json" --dry-run
	"$ablab" run "$jt/lat.json" --undecidable-ok --results "$tmp/results" --format json >"$tmp/t80-out.json" \
		2>"$tmp/t80-run.err"; rc=$?
	tail -n 3 "$tmp/t80-run.err" | sed 's/^/   /'
	check "ablab run: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "campaign stores the benchmark definition" test \
		"$(psql_q "SELECT (run->>'benchmark') || ' ' || (run->'groups'->>'unit') FROM campaigns WHERE id = $cid")" = "regex 3"
	got=$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT b.variant || ':' || s.scenario || ':' || count(*) || ':' || min(s.batch) || '-' || max(s.batch) || ':' || min(s.mean_ns) || '-' || max(s.mean_ns) AS x FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok' GROUP BY b.variant, s.scenario) y")
	echo "   samples: $got"
	check "samples: 3 batches per scenario per boot, us converted to ns, non-matching line ignored" \
		test "$got" = "control:big:3:1-3:1500-1500 control:small:3:1-3:353-353 patched:big:3:1-3:1500-1500 patched:small:3:1-3:353-353"
	check "samples are fmt 2 with no dmabench fields" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND (s.fmt <> 2 OR s.size IS NOT NULL OR s.min_ns IS NOT NULL)")" = 0
	"$ablab" report "$cid" >"$tmp/t80-report.txt" 2>&1; head -n 12 "$tmp/t80-report.txt" | sed "s/^/   /"
	check "the report covers both scenarios" bash -c \
		"grep -q small '$tmp/t80-report.txt' && grep -q big '$tmp/t80-report.txt'"

	echo "== regex benchmark: strict (a matching line whose value does not parse)"
	rjob strict "{ \"name\": \"regex\", \"command\": \"echo 'lat small 353 ns'; echo 'lat small 3.5.3 ns'\",
  \"regex\": \"^lat ([a-z]+) ([0-9.]+) (ns|us|ms|s)\$\", \"groups\": $grp }"
	"$ablab" run "$jt/strict.json" --undecidable-ok --results "$tmp/results" --format json >"$tmp/t80-out.json" \
		2>"$tmp/t80-strict.err"; rc=$?
	grep -m1 'attempt 1 failed' "$tmp/t80-strict.err" | cut -c1-200 | sed 's/^/   /'
	check "the boot fails: value named" bash -c "[ $rc != 0 ] && grep -q \
		'benchmark output rejected: value \"3.5.3\" in \"lat small 3.5.3 ns\"' '$tmp/t80-strict.err'"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "no samples stored from the failed boots" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid")" = 0
fi

echo "== dma_map_benchmark: validation"
rjob dmbp "{ \"name\": \"dma_map_benchmark\", \"params\": \"threads=1 granule=0\" }"
check "granule out of range" err_has "$jt/dmbp.json" \
	"dmbp.json:7:[0-9]+: benchmark.params: \"granule=0\": granule must be 1..1024"
rjob dmbk "{ \"name\": \"dma_map_benchmark\", \"params\": \"reps=100\" }"
check "a dmabench parameter" err_has "$jt/dmbk.json" \
	"benchmark.params: \"reps=100\": expected threads=N, seconds=N, granule=N or dir=bidi\\|to\\|from"

if ! grep -q '"dma_map_benchmark"' "$kdir/control/manifest.json" "$kdir/patched/manifest.json" 2>/dev/null; then
	skip "kernels in $kdir have no dma_map_benchmark (make kernels)"
else
	echo "== dma_map_benchmark: a real campaign on qemu-sam9x75"
	rjob dmb "{ \"name\": \"dma_map_benchmark\", \"params\": \"threads=1 seconds=1 granule=4 dir=from\" }"
	"$ablab" run "$jt/dmb.json" --undecidable-ok --results "$tmp/results" --format text >"$tmp/t80-dmb.txt" \
		2>"$tmp/t80-dmb.err"; rc=$?
	tail -n 3 "$tmp/t80-dmb.err" | sed 's/^/   /'
	sed -n '4,7p' "$tmp/t80-dmb.txt" | sed 's/^/   /'
	check "ablab run: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	got=$(psql_q "SELECT string_agg(x, ' ' ORDER BY x) FROM (SELECT b.variant || ':' || s.scenario || ':' || s.dir || ':' || count(*) || ':' || max(s.batch) AS x FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok' AND s.mean_ns > 0 GROUP BY b.variant, s.scenario, s.dir) y")
	echo "   samples: $got"
	check "samples: map-4 and unmap-4, dir from, 3 batches per boot, positive latencies" \
		test "$got" = "control:map-4:from:3:3 control:unmap-4:from:3:3 patched:map-4:from:3:3 patched:unmap-4:from:3:3"
	check "the report shows both" bash -c "grep -q 'map-4' '$tmp/t80-dmb.txt' && grep -q 'unmap-4' '$tmp/t80-dmb.txt'"
fi

echo "== module: the job's own out-of-tree module, built against each variant's tree"
mkdir -p "$jt/mymod"
cp kmod/dmabench.c "$jt/mymod/mybench.c"
echo 'obj-m := mybench.o' >"$jt/mymod/Kbuild"
# mjob NAME BENCHMARK-JSON: a job over recipe-built qemu-sam9x75 kernels
mjob() {
	cat >"$jt/$1.json" <<JOB
{
  "boards": ["qemu-sam9x75"],
  "variants": {
    "control": { "source": { "type": "recipe" } },
    "patched": { "source": { "type": "recipe" }, "patches": "$top/jobs/dma-from-device/patches" }
  },
  "benchmark": $2,
  "boots": 1,
  "batches": 2
}
JOB
}
mjob modnosrc '{ "name": "module", "src": "nosuch" }'
check "a missing module directory" err_has "$jt/modnosrc.json" \
	"modnosrc.json:7:[0-9]+: benchmark.src: .*nosuch is not a directory"
mkdir -p "$jt/emptymod"
mjob modempty '{ "name": "module", "src": "emptymod" }'
check "no obj-m line" err_has "$jt/modempty.json" \
	"benchmark.src: .*emptymod has no \"obj-m := NAME.o\" line"
mjob modparser '{ "name": "module", "src": "mymod", "parser": "csv" }'
check "unknown parser" err_has "$jt/modparser.json" \
	"benchmark.parser: \"csv\" is not one of dmabench \\(v1 lines\\), seed"
rjob modboth '{ "name": "module", "module": "mybench", "src": "mymod" }'
check "module: src and module both given" err_has "$jt/modboth.json" \
	"benchmark.ko: a \"module\" benchmark needs one of \"src\" .*, \"module\" .* or \"ko\""
rjob modko '{ "name": "module", "ko": { "control": "a.o", "patched": "b.ko" } }'
check "module: a ko that is not a .ko file" err_has "$jt/modko.json" \
	"modko.json:[0-9]+:[0-9]+: benchmark.ko.control: \"a.o\" is not a .ko file"
rjob modname '{ "name": "module", "module": "mybench.ko" }'
check "module: a name with .ko" err_has "$jt/modname.json" \
	"benchmark.module: \"mybench.ko\": a module name"
rjob modpre '{ "name": "module", "src": "mymod" }'
check "prebuilt kernels cannot take the module" err_has "$jt/modpre.json" \
	"benchmark.src: the module is built against each variant's kernel tree"
mjob mod '{ "name": "module", "src": "mymod", "parser": "dmabench", "params": "reps=20" }'
out=$("$ablab" run "$jt/mod.json" --dry-run 2>&1)
echo "$out" | sed 's/^/   /'
# a build of these very module files may be cached from an earlier run
c=$(echo "$out" | sed -n 's/.*control  cached: //p')
check "dry run: a kernel without the module is not taken (would build, or cached with it)" \
	bash -c "echo '$out' | grep -q 'control  would build (benchmark module .*mymod not in this build)' ||
		 { [ -n '$c' ] && grep -q '\"name\": \"mybench\"' '$c/manifest.json'; }"
"$ablab" run "$jt/mod.json" --undecidable-ok --results "$tmp/results" --format json >/dev/null 2>"$tmp/t80-mod.err"; rc=$?
grep -E 'mybench|ok:|complete|failed' "$tmp/t80-mod.err" | tail -n 5 | sed 's/^/   /'
check "ablab run: kernels built with the module, exit 0" test "$rc" = 0
cid=$(psql_q "SELECT max(id) FROM campaigns")
check "the boots loaded mybench.ko, not dmabench.ko" bash -c \
	"grep -q 'insmod /lib/modules/mybench.ko batches=2 reps=20' $tmp/results/campaign-$cid/*.log && ! grep -q 'insmod .*dmabench.ko' $tmp/results/campaign-$cid/*.log"
check "campaign stores the module" test \
	"$(psql_q "SELECT (run->>'benchmark') || ' ' || (run->>'module') || ' ' || (run->>'parser') FROM campaigns WHERE id = $cid")" = "module mybench dmabench"
check "its dmabench-format samples stored (2 ok boots, 2 batches)" test \
	"$(psql_q "SELECT count(DISTINCT b.id) || '/' || max(s.batch) || '/' || min(s.fmt) FROM boots b JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $cid AND b.status = 'ok'")" = "2/2/1"
check "the module is in the kernels' manifest and initramfs list" bash -c \
	"grep -q '\"name\": \"mybench\"' '$(readlink -f "$kdir/control")/manifest.json' && grep -q 'mybench.ko' '$(readlink -f "$kdir/patched")/manifest.json'"
out=$("$ablab" run "$jt/mod.json" --dry-run 2>&1)
echo "$out" | grep cached | sed 's/^/   /'
check "second dry run: both cached" test "$(echo "$out" | grep -c 'qemu-sam9x75 .* cached: ')" = 2
cp "$jt/mod.json" "$jt/mod2.json"
sed -i 's#"mymod"#"mymod2"#' "$jt/mod2.json"
cp -r "$jt/mymod" "$jt/mymod2"
echo '/* changed */' >>"$jt/mymod2/mybench.c"
out=$("$ablab" run "$jt/mod2.json" --dry-run 2>&1)
echo "$out" | grep control | sed 's/^/   /'
check "dry run after a module source changed: would build, naming the file" bash -c \
	"echo '$out' | grep -q 'control  would build (benchmark module source .*mymod2/mybench.c changed)'"
mjob modseed '{ "name": "module", "src": "mymod", "parser": "seed", "params": "reps=20" }'
"$ablab" run "$jt/modseed.json" --undecidable-ok --results "$tmp/results" --format json >/dev/null 2>"$tmp/t80-seed.err"; rc=$?
grep -m1 'attempt 1 failed' "$tmp/t80-seed.err" | cut -c1-160 | sed 's/^/   /'
check "parser seed, module prints v1 lines: rejected once, naming both formats" bash -c "[ $rc != 0 ] && grep -q \
	'benchmark output rejected: expected seed-format lines, saw dmabench v1 lines (.*): use --parser dmabench' '$tmp/t80-seed.err'"
cid=$(psql_q "SELECT max(id) FROM campaigns")
n=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid")
check "a format mismatch is not retried and does not make the board unhealthy" bash -c \
	"[ $n = 1 ] && ! grep -q unhealthy '$tmp/t80-seed.err'"
