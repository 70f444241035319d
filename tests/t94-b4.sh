# Series from b4 (issue 17 item 3), no board: the project's own two-patch series
# (jobs/dma-from-device/patches) mailed as a thread into a local mbox; a job whose patched
# variant names it ("patches": {"mbox", "msgid"}) resolves through `b4 am` to the same
# patch files, byte for byte, and so to the same kernels (`ablab run --dry-run`) as the
# patch directory; a bad mailbox or message-id is an error naming the job file and field;
# `ablab report --format email --reply` writes a reply to the series' first message.
# timeout: 120
d=$tmp/t94
mkdir -p "$d/jobs" "$d/cache"
if ! command -v b4 >/dev/null; then
	skip "t94: b4 is not installed (make deps)"
	return 0
fi
# the recipe kernels already built, read through a cache of the test's own (series/ goes there)
real_cache=$kcache
[ -d "$real_cache/kernels" ] && ln -s "$real_cache/kernels" "$d/cache/kernels"
export ABLAB_CACHE=$d/cache
# mkmbox OUT PATCH...: one mail per format-patch file, patch 2.. replying to patch 1
mkmbox() {
	python3 - "$@" <<'EOF'
import mailbox, re, sys
out, files = sys.argv[1], sys.argv[2:]
mb = mailbox.mbox(out, create=True)
first = "<20260910083600.1-1-ablab@localhost>"
for i, f in enumerate(files, 1):
    raw = open(f, "rb").read()
    head, _, body = raw.partition(b"\n\n")
    head = re.sub(rb"\n[ \t]+", b" ", head)	# one line per header, as lore serves them
    lines = head.split(b"\n")[1:]		# no "From <sha>" line: it is the mbox's separator
    lines.append(b"Message-Id: <20260910083600.1-%d-ablab@localhost>" % i)
    if i > 1:
        lines += [b"In-Reply-To: " + first.encode(), b"References: " + first.encode()]
    mb.add(mailbox.mboxMessage(b"\n".join(lines) + b"\n\n" + body))
mb.flush()
EOF
}
mkmbox "$d/jobs/series.mbox" jobs/dma-from-device/patches/*.patch
# job VARIANT-PATCHES-JSON OUT: the project's job with that patched "patches"
job() {
	python3 -c 'import json, sys
j = json.load(open("jobs/dma-from-device.json"))
j["variants"]["patched"]["patches"] = json.loads(sys.argv[1])
json.dump(j, open(sys.argv[2], "w"), indent=1)' "$1" "$2"
}
cp -r jobs/dma-from-device "$d/jobs/"
job '"dma-from-device/patches"' "$d/jobs/dir.json"
job '{"mbox": "series.mbox", "msgid": "<20260910083600.1-2-ablab@localhost>"}' "$d/jobs/mbox.json"
job '{"mbox": "series.mbox"}' "$d/jobs/first.json"

"$ablab" run "$d/jobs/dir.json" --dry-run >"$d/dir.out" 2>&1
rc_dir=$?
"$ablab" run "$d/jobs/mbox.json" --dry-run >"$d/mbox.out" 2>&1
rc_mbox=$?
check "t94: dry runs of the directory and the mbox job succeed ($rc_dir, $rc_mbox)" \
	test "$rc_dir$rc_mbox" = 00 || cat "$d/dir.out" "$d/mbox.out"
# a kernel line: "  BOARD VARIANT cached: DIR/VARIANT-KEY" or "would build (why)"
check "t94: the mbox series resolves to the patch directory's kernels, board by board" \
	diff <(grep -E '^  [^ ]+ +(control|patched) ' "$d/dir.out") \
	<(grep -E '^  [^ ]+ +(control|patched) ' "$d/mbox.out")
check "t94: 3 boards x 2 kernels listed" test "$(grep -cE '^  [^ ]+ +(control|patched) ' "$d/mbox.out")" = 6
check "t94: the dry run names the series: message-id, version, mailbox, both subjects" python3 -c '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^  series <20260910083600\.1-1-ablab@localhost> v1 from (\S+): 2 patches in (\S+)\n"
              r"    \[PATCH 1/2\] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents\n"
              r"    \[PATCH 2/2\] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends\n", t, re.M)
assert m and m.group(1).endswith("/series.mbox"), t
' "$d/mbox.out"
sdir=$(ls -d "$d"/cache/series/*/ 2>/dev/null | head -n 1)
check "t94: b4's patches are the originals byte for byte (names too)" \
	diff -r "${sdir:-/nonexistent}" jobs/dma-from-device/patches
count_unit build/asan/test_series "$d/jobs/series.mbox"	# job_load, and job_json's series record
"$ablab" run "$d/jobs/first.json" --dry-run >"$d/first.out" 2>&1
check "t94: without a msgid the mailbox's first message names the series (same kernels)" \
	diff <(grep -E '^  [^ ]+ +patched ' "$d/dir.out") <(grep -E '^  [^ ]+ +patched ' "$d/first.out")
# a v2 with a cover letter, named by a lore link to patch 2: the reply goes to the cover
python3 - "$d/jobs/v2.mbox" jobs/dma-from-device/patches/*.patch <<'EOF'
import mailbox, re, sys
mb = mailbox.mbox(sys.argv[1], create=True)
mb.add(mailbox.mboxMessage(b"From: ablab <ablab@localhost>\nDate: Thu, 10 Sep 2026 08:35:00 +0000\n"
                           b"Subject: [PATCH v2 0/2] ARM: keep DMA_FROM_DEVICE data\n"
                           b"Message-Id: <cover.v2@localhost>\n\nThe cover letter.\n"))
for i, f in enumerate(sys.argv[2:], 1):
    head, _, body = open(f, "rb").read().partition(b"\n\n")
    head = re.sub(rb"\n[ \t]+", b" ", head).replace(b"[PATCH ", b"[PATCH v2 ")
    lines = head.split(b"\n")[1:] + [b"Message-Id: <p%d.v2@localhost>" % i,
                                     b"In-Reply-To: <cover.v2@localhost>"]
    mb.add(mailbox.mboxMessage(b"\n".join(lines) + b"\n\n" + body))
mb.flush()
EOF
job '{"mbox": "v2.mbox", "msgid": "https://lore.kernel.org/all/p2.v2@localhost/"}' "$d/jobs/v2.json"
out=$("$ablab" run "$d/jobs/v2.json" --dry-run 2>&1)
check "t94: v2 with a cover letter (msgid a lore link to patch 2): the cover's message-id, v2, 2 patches" \
	grep -q '^  series <cover.v2@localhost> v2 from .*v2.mbox: 2 patches in ' <<<"$out" || echo "$out"
check "t94: v2: the subjects keep their [PATCH v2 n/2]" \
	grep -q '^    \[PATCH v2 2/2\] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends$' <<<"$out"

# errors name the job file, the field and what is wrong
job '{"mbox": "series.mbox", "msgid": "nosuch@localhost"}' "$d/jobs/badid.json"
out=$("$ablab" run "$d/jobs/badid.json" --dry-run 2>&1); rc=$?
check "t94: an unknown message-id: exit non-zero, naming file, field and id" bash -c \
	"[ $rc != 0 ] && grep -q 'badid.json:[0-9]*:[0-9]*: variants.patched.patches.msgid: b4 am found no series in .*series.mbox for message-id <nosuch@localhost>' <<<\"\$1\"" _ "$out" ||
	echo "$out"
echo "not a mailbox" >"$d/jobs/notmbox.txt"
job '{"mbox": "notmbox.txt"}' "$d/jobs/notmbox.json"
out=$("$ablab" run "$d/jobs/notmbox.json" --dry-run 2>&1); rc=$?
check "t94: a file that is no mbox: exit non-zero, naming file and field" bash -c \
	"[ $rc != 0 ] && grep -q 'notmbox.json:[0-9]*:[0-9]*: variants.patched.patches.mbox: b4 am found no series in .*notmbox.txt' <<<\"\$1\"" _ "$out" ||
	echo "$out"
job '{"mbox": "missing.mbox"}' "$d/jobs/missing.json"
out=$("$ablab" run "$d/jobs/missing.json" --dry-run 2>&1)
check "t94: a missing mbox names the field and the path" \
	grep -q 'missing.json:[0-9]*:[0-9]*: variants.patched.patches.mbox: .*missing.mbox is not a file' <<<"$out"
job '{"msgid": "x@y"}' "$d/jobs/nombox.json"
out=$("$ablab" run "$d/jobs/nombox.json" --dry-run 2>&1)
check "t94: a msgid without mbox: ablab never fetches, it says to save the thread" \
	grep -q 'nombox.json:[0-9]*:[0-9]*: variants.patched.patches: a series needs "mbox"' <<<"$out"

# the campaign records the series; the method names it; --reply writes the headers
"$ablab" db start >/dev/null || bad "t94: db start"
python3 - "$d/logs" <<'EOF'
import os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
for var, base in (("control", 3530), ("patched", 3700)):
    for i in range(1, 5):
        with open(f"{d}/{var}-{i}.log", "w") as o:
            o.write(f"[    0.000000] Linux version 6.1.0-t94-{var} (ci@build) (gcc) #1 SMP\n")
            o.write("[   41.210021] dmabench: START\n")
            m = base + 7 * i
            o.write(f"[   41.221634] dmabench: small-dirty-256B size=     256 reps=5000 mean_ns={m} "
                    f"min_ns={m - 100} max_ns={m + 300} ns_per_KiB={m * 4}\n")
            o.write("[   85.991820] dmabench: DONE\n")
EOF
"$ablab" ingest "$d"/logs/control-*.log --board t94-board --cpu ARM926EJ-S --family v5 --variant control >"$d/ingest.out" 2>&1
cid=$(psql_q "SELECT max(id) FROM campaigns")
"$ablab" ingest "$d"/logs/patched-*.log --board t94-board --variant patched --campaign "$cid" >>"$d/ingest.out" 2>&1 ||
	cat "$d/ingest.out"
# the series record a run of mbox.json stores (job_json, checked by test_series above)
series='{"msgid": "20260910083600.1-1-ablab@localhost", "subject": "[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "version": 1, "mbox": "series.mbox", "patches": ["[PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", "[PATCH 2/2] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends"]}'
psql_q "UPDATE campaigns SET job = jsonb_build_object('job', 'dma-mbox', 'series', '$series'::jsonb) WHERE id = $cid"
"$ablab" report "$cid" --format email --reply >"$d/reply.txt" 2>"$d/reply.err"
check "t94: --reply: exit 0" test $? = 0 || cat "$d/reply.err"
check "t94: --reply: Subject: Re: [PATCH 1/2] ..., In-Reply-To and References the series' msgid" \
	python3 -c '
import email, sys
m = email.message_from_file(open(sys.argv[1]))
assert m["Subject"] == "Re: [PATCH 1/2] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents", m["Subject"]
assert m["In-Reply-To"] == "<20260910083600.1-1-ablab@localhost>", m["In-Reply-To"]
assert m["References"] == "<20260910083600.1-1-ablab@localhost>", m["References"]
assert "charset=UTF-8" in m["Content-Type"]
assert "Method (ablab campaign" in m.get_payload()
' "$d/reply.txt"
check "t94: the method paragraph names the series, its version and both subjects" \
	bash -c "tr '\n' ' ' <'$d/reply.txt' | sed 's/  */ /g' | grep -q 'series <20260910083600.1-1-ablab@localhost> v1: \[PATCH 1/2\] ARM: dma-mapping: preserve DMA_FROM_DEVICE buffer contents, \[PATCH 2/2\] ARM: dma-mapping: flush FROM_DEVICE buffers on legacy backends'"
psql_q "UPDATE campaigns SET job = job - 'series' WHERE id = $cid"
out=$("$ablab" report "$cid" --format email --reply 2>&1); rc=$?
check "t94: --reply without a series: exit 1, saying why" bash -c \
	"[ $rc = 1 ] && grep -q 'was not run on a series from a mailbox' <<<\"\$1\"" _ "$out"
out=$("$ablab" report "$cid" --format text --reply 2>&1); rc=$?
check "t94: --reply with another format: exit 1" bash -c "[ $rc = 1 ] && grep -q 'use --format email' <<<\"\$1\"" _ "$out"
