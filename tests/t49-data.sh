# No duplicated or half-stored data (agent/campaign.c, store.c, spool.c), on
# the board simulator: a campaign spooled through a database outage and then
# resumed from another directory stores each slot once, also after a later
# `spool load`; a second ok boot for a stored slot is refused; tampered
# spool files are refused naming the field, set aside, nothing stored; text
# with tab/backslash round-trips through the spool; a database restart
# mid-campaign ends with the campaign complete and the board's advisory lock
# held again.  Waits are on conditions with deadlines, never fixed sleeps.
bs=$top/build/boardsim
dd=$tmp/data49
"$ablab" db start >/dev/null 2>&1
mkdir -p "$dd/tftp" "$dd/elsewhere"
sim_kernels "$dd/k" sim-data
sed -e "s|@BS@|$bs|g" -e "s|@W@|$dd|g" >"$dd/board.json" <<'JSON'
{
  "name": "sim-data",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "console": { "type": "tty", "device": "@W@/console", "reopen_s": 5 },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"] },
  "boot": {
    "method": "uboot",
    "tftp_root": "@W@/tftp",
    "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot",
    "interrupt": " ",
    "prompt": "=> ",
    "commands": ["setenv autoload no", "dhcp", "tftpboot {kernel_addr} {kernel}",
                 "tftpboot {ramdisk_addr} {ramdisk}", "setenv initrd_size ${filesize}",
                 "tftpboot {dtb_addr} {dtb}", "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init panic=-1"
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 5, "bootloader": 3, "kernel": 3, "command": 20 },
  "retries": 2
}
JSON
last() { psql_q "SELECT coalesce(max(id), 0) FROM campaigns"; }
new_campaign() { [ "$(last)" != "$1" ]; }
has_ok_boots() { [ "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $1 AND status = 'ok'" 2>/dev/null)" -ge "$2" ] 2>/dev/null; }
ok_slots() { psql_q "SELECT count(*) || '/' || count(DISTINCT seq) FROM boots WHERE campaign_id = $1 AND status = 'ok'"; }
# the advisory lock (4242, hashtext(board)) of the board, held by some session
board_locked() { [ "$(psql_q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 4242 AND objsubid = 2 AND granted" 2>/dev/null)" = 1 ]; }
ab() {	# BOOTS RESULTS: a campaign on the simulator, in the background ($pid)
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots "$1" --undecidable-ok --batches 1 --results "$2" --format json >"$dd/ab.out" 2>"$dd/ab.err" &
	pid=$!
}
if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 10 --autoboot 10 --seed 49 --daemon --pid-file "$dd/pid" 2>"$dd/sim.err"; then
	bad "t49: cannot start the simulator: $(cat "$dd/sim.err")"
else
	res=$dd/results
	echo "== outage, spool, resume from another directory, spool load"
	c0=$(last)
	ab 2 "$res"
	wait_for 60 new_campaign "$c0"
	cid=$(last)
	wait_for 60 has_ok_boots "$cid" 1
	"$ablab" db stop >/dev/null
	wait $pid; rc=$?
	fault 10 "outage: some boots spooled" bash -c "ls '$res'/spool/*.json >/dev/null 2>&1"
	fault 27.15 "spool files and transcripts are not for every user (mode 640: $(stat -c %a "$res"/spool/*.json "$res/campaign-$cid"/*.log | sort -u | tr '\n' ' '))" \
		test "$(stat -c %a "$res"/spool/*.json "$res/campaign-$cid"/*.log | sort -u)" = 640
	grep -m1 'final status' "$dd/ab.err"
	fault 27.9 "outage: the final status could not be stored: exit 1 (exit $rc), said so, not \"complete\"" bash -c \
		"[ $rc = 1 ] && grep -q 'campaign $cid: its final status (complete) could not be stored' '$dd/ab.err' && ! grep -q 'campaign $cid complete' '$dd/ab.err'"
	"$ablab" db start >/dev/null
	(cd "$dd/elsewhere" && "$ablab" resume "$cid" --format json >"$dd/resume.out" 2>"$dd/resume.err"); rc=$?
	grep -E 'spool|resum|already' "$dd/resume.err" | head -n 3
	fault 10 "resume (no --results) loads the campaign's own spool and completes (exit $rc)" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
	"$ablab" spool load --results "$res" >/dev/null 2>&1
	fault 10 "resume + spool load: 4 ok boots, each slot once" test "$(ok_slots "$cid")" = 4/4

	echo "== a second ok boot of a stored slot"
	spool=$res/spool
	mkdir -p "$spool"
	# SPOOL_FILE NAME PYTHON: the fixture, edited (d: the dict), as spool/NAME.json
	spool_file() {
		/usr/bin/python3 - "$top/tests/fixtures/spool-boot.json" "$spool/$1.json" "$cid" "$1" "$2" <<-'EOF'
		import json, sys, uuid
		d = json.load(open(sys.argv[1]))
		d["campaign"] = int(sys.argv[3])
		d["uuid"] = str(uuid.uuid4())
		exec(sys.argv[5])
		json.dump(d, open(sys.argv[2], "w"))
		EOF
	}
	spool_file dup 'd["seq"] = 1'
	"$ablab" spool load --results "$res" >"$dd/dup.out" 2>&1; rc=$?
	grep -m1 'already' "$dd/dup.out"
	fault 10 "duplicate slot: refused (exit $rc), clear error, set aside, nothing stored" bash -c \
		"[ $rc = 1 ] && grep -q 'campaign $cid, board sim-data, slot 1 already has an ok boot' '$dd/dup.out' && [ -f '$spool/rejected/dup.json' ] && [ ! -e '$spool/dup.json' ] && [ '$(ok_slots "$cid")' = 4/4 ]"

	echo "== tampered spool files"
	n0=$(psql_q "SELECT count(*) FROM boots")
	spool_file t-batch 'd["seq"] = 7; d["samples"][1]["batch"] = "x"'
	spool_file t-range 'd["seq"] = 8; d["samples"][0]["min_ns"] = 99999'
	spool_file t-status 'd["seq"] = 9; d["status"] = "maybe"'
	spool_file t-long 'd["seq"] = 10; d["samples"][0]["scenario"] = "s" * 64'
	spool_file t-twice 'd["seq"] = 11; d["samples"][1]["batch"] = 1'
	"$ablab" spool load --results "$res" >"$dd/tamper.out" 2>&1; rc=$?
	grep 'refused' "$dd/tamper.out" | sed -n 1,2p
	for c in 't-batch:field "samples\[1\]\.batch" is not an integer' \
		't-range:field "samples\[0\]\.mean_ns" is not within min_ns\.\.max_ns' \
		't-status:field "status" is not ok or failed' \
		't-long:field "samples\[0\]\.scenario" is longer than 63 bytes' \
		't-twice:scenario small-dirty-256B batch 1 appears twice'; do
		f=${c%%:*} re=${c#*:}
		fault 10 "tampered $f: refused naming file and field, moved to spool/rejected" bash -c \
			"grep -q '$spool/$f.json: spool file refused: .*$re.*nothing stored, file moved to $spool/rejected/$f.json' '$dd/tamper.out' && [ -f '$spool/rejected/$f.json' ] && [ ! -e '$spool/$f.json' ]"
	done
	fault 10 "tampered: exit 1, nothing stored" test "$rc/$(psql_q "SELECT count(*) FROM boots")" = "1/$n0"

	echo "== text through the spool: tab, backslash, newline"
	spool_file text 'd["seq"] = 12; d["samples"][0]["scenario"] = d["samples"][1]["scenario"] = "tab\there\\back\nnl"; d["samples"][0]["op"] = "a\\.b\tc"'
	"$ablab" spool load --results "$res" >"$dd/text.out" 2>&1; rc=$?
	fault 10 "tab/backslash/newline in scenario and op: stored as written (exit $rc)" test \
		"$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND b.seq = 12 AND s.scenario = E'tab\\there\\\\back\\nnl'")/$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND b.seq = 12 AND s.op = E'a\\\\.b\\tc'")" = 2/1

	echo "== a batch-timed sample the parser accepts loads from the spool too"
	# (under QEMU a baseline-subtracted batch mean can be negative; the spool
	# loader used to refuse what the parser had accepted: t45's outage lost it)
	spool_file negmean 'd["seq"] = 13; s = d["samples"][0]; s.update(timing="batch", mean_ns=-35.0, min_ns=-1, max_ns=-1, raw_ns=1000, base_ns=1035)'
	"$ablab" spool load --results "$res" >"$dd/negmean.out" 2>&1; rc=$?
	fault 10 "a negative baseline-subtracted batch mean loads as the parser stored it (exit $rc)" test \
		"$rc/$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND b.seq = 13 AND s.mean_ns = -35")" = 0/1 ||
		cat "$dd/negmean.out"

	echo "== a series campaign through an outage: its +1 and +1-2 boots load from the spool"
	# (issue 27 item 1: the spool loader took only control and patched; a series
	# boot was set aside in spool/rejected and its slot booted again)
	for n in 1 2; do
		mkdir -p "$dd/k/s$n"
		printf '{"board":"sim-data","variant":"s%s","release":"6.1.0-sim-s%s"}\n' $n $n >"$dd/k/s$n/manifest.json"
		printf 'zImage\0Linux version 6.1.0-sim-s%s (boardsim@lab) #1\n' $n >"$dd/k/s$n/zImage"
		echo initramfs >"$dd/k/s$n/initramfs.cpio.gz"
		echo dtb >"$dd/k/s$n/sim.dtb"
	done
	cat >"$dd/series.json" <<-JOB
	{
	  "name": "series-outage",
	  "boards": ["$dd/board.json"],
	  "variants": {
	    "control": { "source": { "type": "prebuilt", "dir": "$dd/k/control" } },
	    "+1": { "source": { "type": "prebuilt", "dir": "$dd/k/s1" } },
	    "+1-2": { "source": { "type": "prebuilt", "dir": "$dd/k/s2" } }
	  },
	  "benchmark": { "name": "dmabench" },
	  "boots": 2,
	  "batches": 1
	}
	JOB
	res3=$dd/results3
	c0=$(last)
	"$ablab" run "$dd/series.json" --undecidable-ok --results "$res3" --format json >"$dd/series.out" 2>"$dd/series.err" &
	pid=$!
	wait_for 60 new_campaign "$c0"
	scid=$(last)
	wait_for 60 has_ok_boots "$scid" 1
	"$ablab" db stop >/dev/null
	wait $pid
	fault 27.1 "series outage: boots of +1 or +1-2 spooled" bash -c "grep -lqE '\"variant\": ?\"\+1' '$res3'/spool/*.json"
	"$ablab" db start >/dev/null
	"$ablab" spool load --results "$res3" >"$dd/sload.out" 2>&1; rc=$?
	grep -m2 'refused' "$dd/sload.out"
	fault 27.1 "series outage: spool load stores every variant's boots, none set aside (exit $rc)" test \
		"$rc/$(psql_q "SELECT string_agg(variant || '=' || n, ' ' ORDER BY variant) FROM (SELECT variant, count(DISTINCT seq) n FROM boots WHERE campaign_id = $scid AND status = 'ok' GROUP BY variant) x")/$(ls "$res3/spool/rejected" 2>/dev/null | wc -l)" = "0/+1=2 +1-2=2 control=2/0"
	spool=$res3/spool
	cid=$scid spool_file notvar 'd["seq"] = 9; d["variant"] = "+1-2-3"'
	spool_file abplus 'd["seq"] = 9; d["variant"] = "+1"'
	"$ablab" spool load --results "$res3" >"$dd/sload2.out" 2>&1; rc=$?
	grep 'refused' "$dd/sload2.out"
	fault 27.1 "a variant not the campaign's (+1-2-3 in the series, +1 in an A/B campaign): refused naming the campaign's variants" bash -c \
		"[ $rc = 1 ] && grep -q 'notvar.json: spool file refused: field \"variant\" +1-2-3 is not a variant of campaign $scid (control, +1, +1-2)' '$dd/sload2.out' && grep -q 'abplus.json: spool file refused: field \"variant\" +1 is not a variant of campaign $cid (control, patched)' '$dd/sload2.out' && [ -f '$spool/rejected/abplus.json' ]"

	echo "== database restart mid-campaign"
	c0=$(last)
	ab 3 "$dd/results2"
	wait_for 60 new_campaign "$c0"
	cid=$(last)
	wait_for 60 has_ok_boots "$cid" 1
	"$ablab" db stop >/dev/null
	"$ablab" db start >/dev/null
	fault 10 "after the restart the board's advisory lock is held again" wait_for 60 board_locked
	wait $pid; rc=$?
	grep -E 'spool|stopp|could not' "$dd/ab.err" | head -n 3
	fault 10 "DB restart: campaign exit 0 and status complete (exit $rc)" test \
		"$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete
	echo "== a full disk (a small tmpfs): refused below the floor; transcripts and spool writes checked"
	# (issue 27 item 4: a full results/ ended "complete" with exit 0, transcripts cut
	# silently, and a boot the spool could not take was lost with no word of why)
	full=$dd/full
	mkdir -p "$full"
	if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=1m,mode=0755 ablab-t49 "$full" 2>"$dd/mount.err"; then
		skip "t49: a small tmpfs needs root: $(cat "$dd/mount.err" 2>/dev/null)"
	else
		trap 'umount "$full" 2>/dev/null; cleanup' EXIT
		c0=$(last)
		ab 1 "$full/results"
		wait $pid; rc=$?
		grep -m1 'MiB free' "$dd/ab.err"
		fault 27.4 "below the free-space floor: refused (exit $rc) naming the floor, no campaign made" bash -c \
			"[ $rc != 0 ] && grep -q '$full/results: [0-9]* MiB free, below the 64 MiB a campaign needs' '$dd/ab.err' && [ $(last) = $c0 ]"
		# the disk fills: every block taken, then a campaign allowed below the floor
		mkdir -p "$full/results"
		dd if=/dev/zero of="$full/filler" bs=64k 2>/dev/null
		c0=$(last)
		ABLAB_MIN_FREE_MB=0 ab 1 "$full/results"
		wait $pid; rc=$?
		cid=$(last)
		grep -m2 'transcript incomplete' "$dd/ab.err"
		fault 27.4 "transcripts that could not be written: exit 1, each boot names its transcript as incomplete (exit $rc)" bash -c \
			"[ $rc = 1 ] && [ \$(grep -c 'transcript incomplete: No space left on device (ENOSPC)' '$dd/ab.err') -ge 2 ] && grep -q 'sim-data: 2 transcript(s) incomplete' '$dd/ab.err'"
		fault 27.4 "  ... and the stored boots say so in their error (data stored, ok)" test \
			"$(psql_q "SELECT count(*) FILTER (WHERE status = 'ok' AND error LIKE '%transcript incomplete: No space left on device (ENOSPC)%') || '/' || count(*) FROM boots WHERE campaign_id = $cid")" = 2/2
		# ... and its report says so, in every format (a line per boot in text)
		for f in text email json csv html; do "$ablab" report "$cid" --format $f >"$dd/full.$f" 2>&1; done
		grep -m1 'transcript incomplete' "$dd/full.text"
		fault 27.4 "  ... and the text report names each boot: boot N (variant, board): transcript incomplete: No space left on device ($(grep -c 'transcript incomplete' "$dd/full.text") lines)" \
			test "$(grep -cE '^  boot [0-9]+ \((control|patched), sim-data\): transcript incomplete: No space left on device \(ENOSPC\)' "$dd/full.text")" = 2
		fault 27.4 "  ... and the JSON report lists them (boards[].transcripts_incomplete)" python3 -c '
import json, re, sys
b = json.load(open(sys.argv[1]))["boards"][0]["transcripts_incomplete"]
sys.exit(not (len(b) == 2 and all(re.match(r"boot \d+ \((control|patched), sim-data\): transcript incomplete: No space left on device", x) for x in b)))' "$dd/full.json"
		check "  ... and the email, CSV (board_notes) and HTML reports name them" bash -c \
			"grep -q 'transcript incomplete: No space' '$dd/full.email' && grep -q 'transcript incomplete: No space' '$dd/full.html' && head -n 1 '$dd/full.csv' | grep -q ',board_notes\$' && sed -n 2p '$dd/full.csv' | grep -q 'transcript incomplete: No space'"
		# the database goes away as well: the spool cannot take the boot
		c0=$(last)
		ABLAB_MIN_FREE_MB=0 ab 3 "$full/results"
		wait_for 60 new_campaign "$c0"
		cid=$(last)
		wait_for 60 has_ok_boots "$cid" 1
		"$ablab" db stop >/dev/null
		wait $pid; rc=$?
		"$ablab" db start >/dev/null
		grep -m1 'boot lost' "$dd/ab.err"
		fault 27.4 "database down and disk full: the failed spool write names the errno and says boot lost (exit $rc)" bash -c \
			"[ $rc != 0 ] && grep -q 'results database unreachable and the spool write to $full/results/spool failed: No space left on device (ENOSPC): boot lost' '$dd/ab.err'"
		umount "$full"
		trap cleanup EXIT
	fi
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi
