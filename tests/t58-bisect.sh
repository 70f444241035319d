# lane: alone
# `ablab bisect` on qemu-sam9x75 over a real kernel history (issue 15 items 3, 4): the
# pristine linux-source-6.1 tree as one commit (tests/linux-git-base.sh: made once per
# tarball in the cache, minutes), then this test's own commits in a cheap
# `git clone --shared --bare` of it under $tmp (fixed dates and names: the same commit
# ids on every run, so every commit's kernel is cached by build.sh after the first run):
#   p0 Documentation        p1 lib/string.c comment   p2 Documentation
#   p3 drivers/amba/bus.c that does not build          p4 its fix
#   p5 udelay(20) in the ARM DMA map path (arch/arm/mm/dma-mapping.c, every map of
#      the ARM926's non-coherent DMA)                   p6 Documentation (bad)
# The bisect must name p5 within ceil(log2 7) + 1 = 4 build+campaign steps (the check of
# bad against good included), skip p3 with the compiler's error in its log, and go on
# after a SIGTERM in the middle of a step without running a finished step again; good..p2
# must end "no change between good and bad".
# Cold (kernel cache empty): the base repository, one full kernel build and 5 incremental
# ones; warm: 4 campaigns.
kc=$kcache
t58_base=$(bash "$top/tests/linux-git-base.sh" 2>"$tmp/base.err"); rc=$?
cat "$tmp/base.err"
if [ $rc != 0 ]; then
	bad "t58: no base repository: $(tail -n1 "$tmp/base.err")"
else
	repo=$tmp/linux.git
	git clone -q --bare --shared "$t58_base" "$repo"
	export GIT_AUTHOR_NAME=ablab GIT_AUTHOR_EMAIL=ablab@localhost GIT_COMMITTER_NAME=ablab \
		GIT_COMMITTER_EMAIL=ablab@localhost GIT_AUTHOR_DATE='2026-01-02T00:00:00Z' \
		GIT_COMMITTER_DATE='2026-01-02T00:00:00Z'
	# commit MESSAGE PATH SED-PROGRAM: a commit on HEAD editing PATH with sed, no checkout
	commit() {
		local blob tree c
		git --git-dir="$repo" cat-file blob "HEAD:$2" | sed "$3" >"$tmp/blob"
		blob=$(git --git-dir="$repo" hash-object -w "$tmp/blob")
		GIT_INDEX_FILE=$tmp/idx git --git-dir="$repo" read-tree HEAD
		GIT_INDEX_FILE=$tmp/idx git --git-dir="$repo" update-index --cacheinfo "100644,$blob,$2"
		tree=$(GIT_INDEX_FILE=$tmp/idx git --git-dir="$repo" write-tree)
		c=$(git --git-dir="$repo" commit-tree -p HEAD -m "$1" "$tree")
		git --git-dir="$repo" update-ref HEAD "$c"
		echo "$c"
	}
	good=$(git --git-dir="$repo" rev-parse HEAD)
	p[0]=$(commit "Documentation: a line for the ablab test history" README '$a ablab test history.')
	p[1]=$(commit "lib/string: a comment" lib/string.c '$a /* ablab test history */')
	p[2]=$(commit "Documentation: another line" README '$a ablab test history, again.')
	p[3]=$(commit "amba: a change that does not build" drivers/amba/bus.c \
		'$a int ablab_broken(void) { return ablab_undefined_symbol; }')
	p[4]=$(commit "amba: fix the build" drivers/amba/bus.c '/ablab_broken/d')
	p[5]=$(commit "ARM: dma-mapping: wait 20 us in every map for the device" \
		arch/arm/mm/dma-mapping.c \
		's|^#include <linux/dma-direct.h>$|#include <linux/delay.h>\n&|; /^static void __dma_page_cpu_to_dev/,/^}/s|^\tdma_cache_maint_page(page, off, size, dir, dmac_map_area);$|\tudelay(20);\n&|')
	p[6]=$(commit "Documentation: a last line" README '$a ablab test history, the end.')
	check "the planted delay is in p5's dma-mapping.c" bash -c "git --git-dir='$repo' show '${p[5]}' | grep -q '^+.udelay(20);'"
	"$ablab" db start >/dev/null
	res=$tmp/results
	# one timing row (256 B dirty maps, the seed's first scenario): the sequential
	# design decides on it alone; QEMU's timings vary by a few % between boots
	params='scenarios=small-dirty-256B:256:dirty:from:map_unmap:2000 preserve=0'
	# alpha 0.01: a false "different" in one of the test's few campaigns is rare
	opts=(--board qemu-sam9x75 --scenario small-dirty-256B --budget 8 --first 4 --margin 10
	      --alpha 0.01 --batches 2 --params "$params" --results "$res")

	echo "== good..bad: the bisect, interrupted by SIGTERM in its third step"
	t0=$SECONDS
	"$ablab" bisect --tree "$repo" --good "$good" --bad "${p[6]}" "${opts[@]}" \
		>"$tmp/b1.out" 2>"$tmp/b1.err" &
	pid=$!
	step3_boots() { [ "$(psql_q "SELECT count(*) FROM boots b JOIN campaigns c ON c.id = b.campaign_id WHERE c.job->>'step' = '3' AND b.status = 'ok'")" -ge 2 ]; }
	if wait_poll=0.5 wait_for 3000 step3_boots; then
		bid=$(psql_q "SELECT max(id) FROM bisects")
		s3=$(psql_q "SELECT id FROM campaigns WHERE job->>'bisect' = '$bid' AND job->>'step' = '3'")
		finished() { psql_q "SELECT string_agg(c.id || ':' || (SELECT count(*) FROM boots b WHERE b.campaign_id = c.id), ',' ORDER BY c.id) FROM campaigns c WHERE c.job->>'bisect' = '$bid' AND c.id < $s3"; }
		before=$(finished)
		kill -TERM $pid
	fi
	wait $pid; rc=$?
	grep -E 'bisect [0-9]+:|interrupted' "$tmp/b1.err" | tail -n 12
	check "SIGTERM in a step: exit 130" test "$rc" = 130
	bid=$(psql_q "SELECT max(id) FROM bisects")
	check "the bisect is marked interrupted" test "$(psql_q "SELECT status FROM bisects WHERE id = $bid")" = interrupted
	check "the message says how to continue" grep -q "bisect $bid interrupted; continue it with \`ablab bisect --resume $bid\`" "$tmp/b1.err"
	check "the interrupted step's campaign is marked interrupted" test "$(psql_q "SELECT status FROM campaigns WHERE job->>'bisect' = '$bid' AND job->>'step' = '3'")" = interrupted
	no_qemu() { ! pgrep -f "qemu-system-arm.*$kc/kernels/qemu-sam9x75/git-" >/dev/null; }
	check "the board was left off: no QEMU left" no_qemu
	"$ablab" resume "$s3" --results "$res" >"$tmp/b2.out" 2>"$tmp/b2.err"; rc=$?
	grep -E 'bisect [0-9]+:' "$tmp/b2.err" | tail -n 8
	cat "$tmp/b2.out"
	echo "t58: bisect of 7 commits (with one interruption): $((SECONDS - t0)) s"
	check "ablab resume of its campaign continues the bisect: exit 0" test "$rc" = 0 || {
		psql_q "SELECT b.seq, b.variant, b.status, b.error, s.scenario, s.timing, count(s.*) FROM boots b LEFT JOIN samples s ON s.boot_id = b.id WHERE b.campaign_id = $s3 GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1"
		"$ablab" report "$s3" | head -n 30; }
	check "resume: continued after the 2 finished steps" grep -q "bisect $bid: continuing after 2 stored steps (the unfinished one goes on)" "$tmp/b2.err"
	check "resume: the interrupted campaign is resumed, not run again" grep -q "step 3: resuming its campaign $s3" "$tmp/b2.err"
	check "the finished steps' campaigns are as they were (campaign:boots $before)" test "$(finished)" = "$before"
	check "one campaign per step that built: 3 in all" test "$(psql_q "SELECT count(*) FROM campaigns WHERE job->>'bisect' = '$bid'")" = 3
	check "bisect found p5 (${p[5]:0:12})" test "$(psql_q "SELECT status || ' ' || first_changed FROM bisects WHERE id = $bid")" = "found ${p[5]}"
	nsteps=$(psql_q "SELECT count(*) FROM bisect_steps WHERE bisect_id = $bid")
	check "within ceil(log2 7) + 1 = 4 build+campaign steps: $nsteps" test "$nsteps" -le 4
	check "p3 skipped: it does not build" test "$(psql_q "SELECT verdict FROM bisect_steps WHERE bisect_id = $bid AND commit = '${p[3]}'")" = build-failed
	check "p3's step names the compiler's error" test -n "$(psql_q "SELECT 1 FROM bisect_steps WHERE bisect_id = $bid AND commit = '${p[3]}' AND note LIKE '%error:%ablab_undefined_symbol%'")"
	log=$(psql_q "SELECT log_path FROM bisect_steps WHERE bisect_id = $bid AND commit = '${p[3]}'")
	check "p3's build log has the compiler's error" grep -q "drivers/amba/bus.c:.*error: .ablab_undefined_symbol. undeclared" "$log"
	check "p4 (after the fix, before the delay) is the same as good" test "$(psql_q "SELECT verdict FROM bisect_steps WHERE bisect_id = $bid AND commit = '${p[4]}'")" = same
	"$ablab" report --bisect "$bid" >"$tmp/rep.txt"; rc=$?
	cat "$tmp/rep.txt"
	check "report --bisect: exit 0, names the first changed commit" bash -c "[ $rc = 0 ] && grep -q '^first changed commit: ${p[5]:0:12} \"ARM: dma-mapping: wait 20 us' '$tmp/rep.txt'"
	check "report --bisect: its effect, a slower 256 B map with its CI" grep -Eq '^its effect against good: small-dirty-256B \+[0-9.]+% \([0-9]+% CI \+[0-9.]+% \.\. \+[0-9.]+%\), campaign [0-9]+' "$tmp/rep.txt"
	check "report --bisect: the skipped commit with its error" grep -q "skip: no build" "$tmp/rep.txt"
	check "the step kernels are cached by commit" test -f "$(ls -d "$kc"/kernels/qemu-sam9x75/git-"${p[5]:0:12}"-*/ | head -n1)/manifest.json"
	check "the kernel of p5 names its commit in its release" grep -q "\"release\": \".*-ablab-g${p[5]:0:12}\"" "$kc"/kernels/qemu-sam9x75/git-"${p[5]:0:12}"-*/manifest.json

	echo "== a job with git sources"
	python3 - "$tmp/gitjob.json" "$repo" "$good" "${p[5]}" <<'PY'
import json, sys
j = {"name": "gitjob", "boards": ["qemu-sam9x75"], "benchmark": {"name": "dmabench"},
     "variants": {"control": {"source": {"type": "git", "tree": sys.argv[2], "ref": sys.argv[3]}},
                  "patched": {"source": {"type": "git", "tree": sys.argv[2], "ref": sys.argv[4]}}},
     "nightly": True, "bisect": True}
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
	out=$("$ablab" run "$tmp/gitjob.json" --dry-run 2>&1); rc=$?
	echo "$out"
	check "git job --dry-run: both commits' kernels cached by commit" bash -c "[ $rc = 0 ] && grep -Eq 'control +cached: .*/git-${good:0:12}-' <<<'$out' && grep -Eq 'patched +cached: .*/git-${p[5]:0:12}-' <<<'$out'"
	sed 's/"ref": "[0-9a-f]*"/"ref": "no-such-branch"/' "$tmp/gitjob.json" >"$tmp/gitjob2.json"
	out=$("$ablab" run "$tmp/gitjob2.json" --dry-run 2>&1); rc=$?
	check "git job, unknown ref: exit 1, naming it" bash -c "[ $rc = 1 ] && grep -q '\"no-such-branch\" is not a commit of this git tree' <<<'$out'"
	python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); del j["variants"]["patched"]["source"]["ref"]; j["nightly"] = False; json.dump(j, open(sys.argv[2], "w"), indent=1)' "$tmp/gitjob.json" "$tmp/gitjob3.json"
	out=$("$ablab" run "$tmp/gitjob3.json" --dry-run 2>&1); rc=$?
	echo "$out"
	check "git job without a ref: the field named" grep -q 'gitjob3.json:.*variants.patched.source.ref: required for source type "git"' <<<"$out"
	check "\"bisect\" without \"nightly\": the field named" grep -q 'gitjob3.json:.*bisect: bisects a change between two nights: set "nightly": true too' <<<"$out"

	echo "== good..p2 (before the delay): no change"
	# 4+4 boots a campaign, not 8+8: the path to "no change" is the same (one
	# campaign "same", or two undecided), in half the boots of the alone lane
	"$ablab" bisect --tree "$repo" --good "$good" --bad "${p[2]}" "${opts[@]}" --budget 4 --undecidable-ok \
		>"$tmp/n.out" 2>"$tmp/n.err"; rc=$?
	grep -E 'bisect [0-9]+:' "$tmp/n.err" | tail -n 4
	nid=$(psql_q "SELECT max(id) FROM bisects")
	# bad is the same as good, or undecided in two campaigns: QEMU's timings vary by tens of %
	check "no change: exit 0, one or two campaigns (a second when the first is undecided)" \
		bash -c "[ $rc = 0 ] && [ $(psql_q "SELECT count(*) FROM campaigns WHERE job->>'bisect' = '$nid'") -le 2 ]"
	check "no change: it says so" grep -q "no change between good ${good:0:12} and bad ${p[2]:0:12}" "$tmp/n.out"
	check "no change: stored as such" test "$(psql_q "SELECT status FROM bisects WHERE id = $nid")" = no-change

	echo "== ablab nightly with \"bisect\": true: a change between two nights' commits is bisected"
	jd=$tmp/njobs
	mkdir -p "$jd"
	git --git-dir="$repo" update-ref refs/heads/night "${p[4]}"
	python3 - "$jd/nb.json" "$repo" "$good" "$params" <<'PY'
import json, sys
j = {"name": "nb", "boards": ["qemu-sam9x75"],
     "benchmark": {"name": "dmabench", "params": sys.argv[4]},
     "variants": {"control": {"source": {"type": "git", "tree": sys.argv[2], "ref": sys.argv[3]}},
                  "patched": {"source": {"type": "git", "tree": sys.argv[2], "ref": "night"}}},
     "boots": 5, "batches": 2, "nightly": True, "bisect": True,
     "threshold": {"change_pct": 5, "alpha": 0.05}}
json.dump(j, open(sys.argv[1], "w"), indent=1)
PY
	"$ablab" nightly --jobs "$jd" --reports "$tmp/rep" --results "$res" --date 2026-01-01 >/dev/null 2>"$tmp/n1.err"; rc=$?
	check "night 1 (night = p4): exit 0" test "$rc" = 0 || tail -n 5 "$tmp/n1.err"
	git --git-dir="$repo" update-ref refs/heads/night "${p[6]}"
	nb0=$(psql_q "SELECT coalesce(max(id), 0) FROM bisects")
	"$ablab" nightly --jobs "$jd" --reports "$tmp/rep" --results "$res" --date 2026-01-02 >/dev/null 2>"$tmp/n2.err"; rc=$?
	grep -E 'nightly: |bisect [0-9]+:' "$tmp/n2.err" | tail -n 8
	check "night 2 (night = p6): exit 3, the change reported" test "$rc" = 3 ||
		grep -v '^ablab: qemu-sam9x75 \[' "$tmp/n2.err" | tail -n 30
	check "night 2: it says it bisects between the nights' commits" grep -q "nightly: nb: qemu-sam9x75 small-dirty-256B changed between ${p[4]:0:12} and ${p[6]:0:12}: bisecting" "$tmp/n2.err"
	check "night 2: the bisect found p5" test "$(psql_q "SELECT good || ' ' || bad || ' ' || status || ' ' || coalesce(first_changed, '') FROM bisects WHERE id > $nb0")" = "${p[4]} ${p[6]} found ${p[5]}"

	echo "== errors"
	out=$("$ablab" bisect --tree "$repo" --good "${p[6]}" --bad "$good" --board qemu-sam9x75 2>&1); rc=$?
	check "bad before good: exit 1, saying so" bash -c "[ $rc = 1 ] && grep -q 'no commit between good' <<<'$out'"
	out=$("$ablab" bisect --tree "$repo" --good no-such-ref --bad "$good" --board qemu-sam9x75 2>&1); rc=$?
	check "unknown ref: exit 1, naming it" bash -c "[ $rc = 1 ] && grep -q '\"no-such-ref\" is not a commit of this git tree' <<<'$out'"
	out=$("$ablab" bisect --good a --bad b 2>&1); rc=$?
	check "missing --tree: usage error" test "$rc" = 2
fi
