# Fault matrix on the board simulator (tests/boardsim.c: a fake board, the
# agent code it drives is real): every fault ends with the campaign complete
# or stopped with a clear reason, and every stored value equals the value the
# board emitted (its --record), so no boot is lost, duplicated or wrong.
bs=$top/build/boardsim
fw=$tmp/faults
"$ablab" db start >/dev/null 2>&1
mkdir -p "$fw/k"
sim_kernels "$fw/k" sim-faults

# fault_case NAME FAULTSPEC EXPECT_RC EXPECT_OK EXPECT_FAILED ERROR_REGEX [board-file sed]
fault_case() {
	local name=$1 spec=$2 want_rc=$3 want_ok=$4 want_failed=$5 re=$6 w=$fw/$1 out rc cid
	mkdir -p "$w/tftp"
	sed -e "s|@BS@|$bs|g" -e "s|@W@|$w|g" >"$w/board.json" <<'JSON'
{
  "name": "sim-faults",
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
    "append": "console=ttyS0,115200 rdinit=/init panic=-1",
    "fail_patterns": ["Kernel panic - not syncing", "Internal error: Oops", "Unable to handle kernel"]
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 5, "bootloader": 3, "kernel": 3, "command": 20 },
  "retries": 2
}
JSON
	# --autoboot 10: a 100 ms countdown (a real U-Boot's bootdelay is 1-3 s).  With the
	# default 3 ticks (30 ms) a busy machine once let it run out before the agent's key
	# arrived: the simulator then booted its own kernel to "lab# " and a clean boot
	# counted as a failed attempt
	if ! "$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
		--record "$w/record" --tick-ms 10 --autoboot 10 --seed 46 --daemon --pid-file "$w/pid" $spec \
		2>"$w/sim.err"; then
		bad "fault $name: cannot start the simulator: $(cat "$w/sim.err")"
		return
	fi
	out=$("$ablab" ab --board "$w/board.json" --control "$fw/k/control" --patched "$fw/k/patched" \
		--boots 1 --undecidable-ok --batches 2 --results "$w/results" 2>&1); rc=$?
	"$bs" ctl "$w/ctl" quit >/dev/null 2>&1
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	local got="$rc/$(psql_q "SELECT count(*) FILTER (WHERE status = 'ok') || '/' || count(*) FILTER (WHERE status = 'failed') FROM boots WHERE campaign_id = $cid")"
	if [ "$got" = "$want_rc/$want_ok/$want_failed" ]; then
		ok "fault $name: exit/ok boots/failed attempts = $got"
	else
		bad "fault $name: exit/ok/failed = $got, want $want_rc/$want_ok/$want_failed"
		echo "$out" | grep -E 'failed|error|stopped' | head -n 5
	fi
	if [ -n "$re" ]; then
		check "fault $name: reason recorded ($re)" test "$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'failed' AND error ~ '$re'")" -ge 1 ||
			psql_q "SELECT '  recorded: ' || error FROM boots WHERE campaign_id = $cid AND status = 'failed'"
	fi
	# every stored sample equals what the board emitted in that boot
	psql_q "SELECT b.variant, s.scenario, s.batch, coalesce(s.mean_ns::bigint, s.lost_bytes)
		FROM boots b JOIN samples s ON s.boot_id = b.id
		WHERE b.campaign_id = $cid AND b.status = 'ok'" | tr '|' ' ' | sort >"$w/stored"
	awk '$3 == "kernel" { v[$2] = substr($4, 9) }
	     $3 == "power" || $3 == "fault" { bad[$2] = bad[$2] }
	     $3 == "dmabench:" && ($5 == "result" || $5 == "preserve") {
		delete f
		for (i = 6; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		print $2, v[$2], f["scenario"], f["batch"], ($5 == "result" ? f["mean_ns"] : f["lost"])
	     }' "$w/record" >"$w/emitted.all"
	# keep only boots the agent stored: the boots whose run finished (a done line)
	awk '$3 == "dmabench:" && $5 == "done" { print $2 }' "$w/record" | sort -u >"$w/done_boots"
	# boots that finished cleanly: a done line and no fault fired in them
	awk '$3 == "fault" { f[$2] = 1 } $3 == "dmabench:" && $5 == "done" && $6 == "status=0" { d[$2] = 1 }
	     END { for (b in d) if (!(b in f)) print b }' "$w/record" | sort -u >"$w/clean_boots"
	grep -wFf "$w/done_boots" "$w/emitted.all" 2>/dev/null | cut -d' ' -f2- | sort >"$w/emitted"
	if [ "$want_ok" != 0 ]; then
		check "fault $name: $(wc -l <"$w/stored") stored values equal the emitted ones" \
			test -s "$w/stored" -a -z "$(comm -23 "$w/stored" "$w/emitted")"
	fi
	# the matrix line: outcome, boots stored, retries, lost, duplicated, wrong
	local stored_boots retries lost dup wrong outcome
	stored_boots=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	retries=$(psql_q "SELECT count(*) FROM boots WHERE campaign_id = $cid AND attempt > 1")
	dup=$(psql_q "SELECT count(*) - count(DISTINCT seq) FROM boots WHERE campaign_id = $cid AND status = 'ok'")
	# lost: a boot that finished cleanly on the board (no fault fired) whose values
	# are not all stored (each boot's values are random, so they identify it)
	lost=$(awk 'FNR == NR { s[$0] = 1; next }
		    FILENAME ~ /clean_boots$/ { c[$1] = 1; next }
		    ($1 in c) { k = $2 " " $3 " " $4 " " $5; if (!(k in s)) miss[$1] = 1 }
		    END { n = 0; for (b in miss) n++; print n }' \
		"$w/stored" "$w/clean_boots" "$w/emitted.all")
	wrong=$(comm -23 "$w/stored" "$w/emitted" | grep -c .)
	outcome=$(psql_q "SELECT status FROM campaigns WHERE id = $cid")
	printf 'MATRIX %-13s outcome=%-8s boots=%s retries=%s lost=%s duplicated=%s wrong=%s\n' \
		"$name" "$outcome" "$stored_boots" "$retries" "$lost" "$dup" "$wrong"
	check "fault $name: lost 0, duplicated 0, wrong 0" test "$lost/$dup/$wrong" = 0/0/0
	check "fault $name: no sample with a corrupted value stored" test "$(psql_q "SELECT count(*) FROM samples s JOIN boots b ON b.id = s.boot_id WHERE b.campaign_id = $cid AND s.kind = 'result' AND (s.mean_ns IS NULL OR s.mean_ns <= 0 AND s.op <> 'null')")" = 0
}

# faults on the first power-on only: the retry of the same slot succeeds
fault_case uboot-hang "--fault 1:uboot-hang" 0 2 1 "U-Boot"
fault_case kernel-hang "--fault 1:kernel-hang" 0 2 1 "prompt"
fault_case panic-boot "--fault 1:panic-boot" 0 2 1 "Kernel panic"
fault_case panic-run "--fault 1:panic-run" 0 2 1 "Kernel panic|Oops"
fault_case oops "--fault 1:oops" 0 2 1 "Oops"
fault_case reset "--fault 1:reset" 0 2 1 "U-Boot|reset|console|prompt"
fault_case corrupt "--fault 1:corrupt" 0 2 1 "malformed"
# noise the agent must read through, on every power-on
fault_case bug "--fault bug" 0 2 0 ""
fault_case warn "--fault warn" 0 2 0 ""
fault_case garbage "--fault garbage" 0 2 0 ""
fault_case nul "--fault nul" 0 2 0 ""
fault_case ansi "--fault ansi" 0 2 0 ""
fault_case crlf "--fault crlf" 0 2 0 ""
fault_case cr "--fault cr" 0 2 0 ""
fault_case split "--fault split" 0 2 0 ""
# the kernel ring is emptied before the run (agent/bench/bench.c): the dmesg after it reads
# the benchmark's lines (twice here: the split line made it read again), not the boot
# log a second time; so each boot's transcript holds the boot log once
cid=$(psql_q "SELECT max(id) FROM campaigns")
n_init=$(psql_q "SELECT log_path FROM boots WHERE campaign_id = $cid AND status = 'ok'" |
	while read -r f; do grep -c 'Run /init as init process' "$f"; done | sort -u | tr '\n' ' ')
check "split: each boot's transcript has the boot log once, the post-run dmesg only the benchmark ($n_init)" \
	test "$n_init" = "1 "
fault_case burst "--fault burst" 0 2 0 ""
fault_case vanish "--fault vanish" 0 2 0 ""
# deterministic failures: no pointless retries, a clear reason, exit 1
fault_case modfail "--fault modfail" 1 0 1 "module failed to load.*ENOMEM"
# a board that never boots: retries exhausted, board unhealthy, campaign failed
fault_case always-hangs "--fault uboot-hang" 1 0 3 "U-Boot"
