# The first hour with your own board (issue 13), on the board simulator
# (tests/boardsim.c: a U-Boot board behind a pty with `command` power):
#  - true reasons: a timeout names the board, the stage, the deadline and the
#    last console line; an interrupted attempt is stored as
#    "interrupted (signal N)"; `ablab attempts` lists every attempt; the
#    report of a failed campaign says why and which attempt was not retried;
#  - stale campaigns: an agent killed with SIGKILL leaves its campaign
#    "stale" (campaigns, report), `ablab resume` completes it, and the
#    resumed attempt writes a transcript file of its own;
#  - truthful CLI: `check` without a kernel names --kernel DIR, `boards`
#    lists boards used by path, the emulated wording is the board's own.
# timeout: 300
bs=$top/build/boardsim
fh=$tmp/first
mkdir -p "$fh/k"
"$ablab" db start >/dev/null 2>&1
sim_kernels "$fh/k" sim-first

# first_board DIR [retries]: DIR/sim-first.json, the simulator in DIR
first_board() {
	sed -e "s|@BS@|$bs|g" -e "s|@W@|$1|g" -e "s|@R@|${2:-1}|g" >"$1/sim-first.json" <<'JSON'
{
  "name": "sim-first",
  "description": "boardsim: a simulated U-Boot board behind a pty. No caches at all.",
  "cpu": "ARM926EJ-S",
  "family": "legacy",
  "emulated": true,
  "console": { "type": "tty", "device": "@W@/console" },
  "power": { "type": "command", "on": ["@BS@", "ctl", "@W@/ctl", "on"],
             "off": ["@BS@", "ctl", "@W@/ctl", "off"] },
  "boot": {
    "method": "uboot",
    "tftp_root": "@W@/tftp",
    "server_ip": "192.0.2.1",
    "autoboot": "Hit any key to stop autoboot",
    "interrupt": " ",
    "prompt": "=> ",
    "commands": ["tftpboot {kernel_addr} {kernel}", "tftpboot {ramdisk_addr} {ramdisk}",
                 "setenv initrd_size ${filesize}", "tftpboot {dtb_addr} {dtb}",
                 "setenv bootargs {bootargs}",
                 "bootz {kernel_addr} {ramdisk_addr}:${initrd_size} {dtb_addr}"],
    "addrs": { "kernel_addr": "0x22000000", "ramdisk_addr": "0x24000000", "dtb_addr": "0x21000000" },
    "append": "console=ttyS0,115200 rdinit=/init"
  },
  "shell": { "prompt": "lab# " },
  "timeouts_s": { "power": 10, "bootloader": 30, "kernel": 2, "command": 2 },
  "retries": @R@
}
JSON
}

# sim_start DIR [boardsim options]
sim_start() {
	local w=$1; shift
	rm -rf "$w"
	mkdir -p "$w/tftp"
	"$bs" run --ctl "$w/ctl" --pty-link "$w/console" --tftp-root "$w/tftp" \
		--record "$w/record" --tick-ms 10 --autoboot 10 --daemon --pid-file "$w/pid" "$@" 2>"$w/sim.err"
}
sim_quit() { "$bs" ctl "$1/ctl" quit >/dev/null 2>&1; }
ab() {	# DIR BOOTS [ablab ab options]: a campaign on the simulator in DIR
	local w=$1 n=$2; shift 2
	"$ablab" ab --board "$w/sim-first.json" --control "$fh/k/control" \
		--patched "$fh/k/patched" --boots "$n" --undecidable-ok --batches 2 --results "$w/results" "$@"
}
# ab_bg DIR BOOTS: the same in the background, $! the agent itself
ab_bg() {
	"$ablab" ab --board "$1/sim-first.json" --control "$fh/k/control" \
		--patched "$fh/k/patched" --boots "$2" --undecidable-ok --batches 2 --results "$1/results" \
		>"$1/out" 2>&1 &
}
last_cid() { psql_q "SELECT max(id) FROM campaigns"; }
errors() { psql_q "SELECT error FROM boots WHERE campaign_id = $1 AND status = 'failed' ORDER BY seq, attempt"; }

# --- 1. a kernel that hangs after "Starting kernel ...": slot 3 fails, is
# retried once, fails again: the board's part stops there
w=$fh/hang
if sim_start "$w" --fault 3:kernel-hang --fault 4:kernel-hang; then
	first_board "$w" 1
	ab "$w" 2 >"$w/out" 2>&1; rc=$?
	cid=$(last_cid)
	check "kernel hang twice in slot 3: campaign $cid failed (exit $rc)" \
		test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 1/failed
	re='^sim-first: kernel boot: no shell prompt "lab# " \(shell.prompt\) within 2 s \(timeouts_s.kernel\); last output [0-9.]+ s ago: "Starting kernel \.\.\."$'
	got=$(errors "$cid")
	check "kernel hang: the reason names board, stage, deadline and the last line ($(echo "$got" | head -n 1))" \
		test "$(grep -cE "$re" <<<"$got")" = 2
	out=$("$ablab" attempts "$cid" 2>&1)
	echo "$out" | sed 's/^/  | /'
	check "ablab attempts: a header with 4 attempts, 2 ok, 2 failed, 1 not retried" \
		grep -q "^campaign $cid (failed): 4 attempts, 2 ok, 2 failed (1 not retried)$" <<<"$out"
	check "ablab attempts: slot 3 attempt 1 failed, retried" \
		grep -qE '^sim-first +3 control +1 failed +sim-first: kernel boot: no shell prompt .* \(retried\)$' <<<"$out"
	check "ablab attempts: slot 3 attempt 2 failed, not retried" \
		grep -qE '^sim-first +3 control +2 failed +sim-first: kernel boot: .*"Starting kernel \.\.\." \(not retried\)$' <<<"$out"
	check "ablab attempts: the ok slots are listed too" \
		test "$(grep -cE '^sim-first +[12] (control|patched) +1 ok' <<<"$out")" = 2
	check "ablab attempts --failed --format json: 2 attempts, one not retried" \
		test "$("$ablab" attempts "$cid" --failed --format json | python3 -c '
import json, sys
a = json.load(sys.stdin)["attempts"]
print(len(a), sum(not x["retried"] for x in a), all(x["transcript"].endswith(".log") for x in a))')" = "2 1 True"
	rep=$("$ablab" report "$cid" 2>&1)
	check "report: says the board stopped after an attempt that was not retried, and why" \
		grep -q '^  sim-first: stopped after a failed attempt that was not retried: slot 3 (control) attempt 2: sim-first: kernel boot: no shell prompt' <<<"$rep" ||
		echo "$rep" | head -n 5
	email=$("$ablab" report "$cid" --format email 2>&1 | tr '\n' ' ' | tr -s ' ')
	check "report method: 2 failed attempts, 1 not retried, and why" \
		grep -q 'sim-first had 2 failed boot attempts (not in the table), 1 not retried, so its part stopped there (slot 3 (control) attempt 2: sim-first: kernel boot' <<<"$email" ||
		echo "$email" | grep -o 'Method.*' | head -c 600
	check "report method: never \"2 failed boot attempts were retried\"" \
		test "$(grep -c '2 failed boot attempts were retried' <<<"$email")" = 0
	check "report method: the emulated wording is the board's own description" \
		grep -q 'sim-first is emulated (boardsim: a simulated U-Boot board behind a pty): not hardware costs' <<<"$email"
	check "report method: no QEMU for a board that is not QEMU" \
		test "$(grep -c 'QEMU' <<<"$email")" = 0
	sim_quit "$w"
else
	bad "hang: cannot start the simulator: $(cat "$w/sim.err")"
fi

# --- 2. the console goes silent during the benchmark (a panic, no
# fail_patterns): the command timeout quotes the last line
w=$fh/silent
if sim_start "$w" --fault 1:panic-run; then
	first_board "$w" 0
	ab "$w" 1 >"$w/out" 2>&1; rc=$?
	cid=$(last_cid)
	got=$(errors "$cid")
	check "silent console: the reason names board, stage, deadline and quotes the panic line ($got)" \
		grep -qE '^sim-first: benchmark: target command timed out after 2 s \(timeouts_s.command\); last output [0-9.]+ s ago: ".*Kernel panic - not syncing: Fatal exception.*"$' <<<"$got"
	sim_quit "$w"
else
	bad "silent: cannot start the simulator: $(cat "$w/sim.err")"
fi

# a "prompt" seen, then a shell that never answers (here: the prompt matches
# a line of the kernel log, and the kernel panics, silent)
w=$fh/mute
if sim_start "$w" --fault 1:panic-boot; then
	first_board "$w" 0
	sed -i 's/"prompt": "lab# "/"prompt": "Unable to mount root fs"/' "$w/sim-first.json"
	ab "$w" 1 >"$w/out" 2>&1; rc=$?
	got=$(errors "$(last_cid)")
	check "mute shell: the reason names board, stage, deadline and the last line ($got)" \
		grep -qE '^sim-first: shell: no answer to a command within 2 s \(timeouts_s.command\) after the prompt "Unable to mount root fs"; last output: ".+"$' <<<"$got"
	sim_quit "$w"
else
	bad "mute: cannot start the simulator: $(cat "$w/sim.err")"
fi

# --- 3. interrupted attempts are stored as interrupted, whatever wait the
# signal cut short (U-Boot used to say "autoboot line never seen" after 50 ms,
# the benchmark "target I/O: Interrupted system call")
intr_case() {	# PHASE SIGNAL NUMBER FAULT EVENT
	local w=$fh/intr-$1 pid rc
	if ! sim_start "$w" --fault "1:$4"; then
		bad "interrupt during $1: cannot start the simulator: $(cat "$w/sim.err")"
		return
	fi
	first_board "$w" 0
	sed -i 's/"bootloader": 30/"bootloader": 5/' "$w/sim-first.json"
	ab_bg "$w" 1
	pid=$!
	wait_for 30 grep -q "$5" "$w/record" || bad "interrupt during $1: the agent never got there"
	kill -s "$2" $pid
	wait $pid; rc=$?
	cid=$(last_cid)
	got=$(errors "$cid")
	check "SIG$2 during $1: exit $rc (130), stored reason \"$got\" is \"interrupted (signal $3)\"" \
		test "$rc/$got" = "130/interrupted (signal $3)"
	sim_quit "$w"
}
intr_case uboot INT 2 uboot-hang "fault uboot-hang"
intr_case kernel TERM 15 kernel-hang "fault kernel-hang"
intr_case bench HUP 1 panic-run "fault panic-run"

# --- 4. SIGKILL: the campaign is stale, resume completes it with a new
# transcript for the killed slot
w=$fh/kill
if sim_start "$w" --fault 2:kernel-hang; then
	first_board "$w" 1
	sed -i 's/"kernel": 2/"kernel": 60/' "$w/sim-first.json"
	ab_bg "$w" 1
	pid=$!
	wait_for 30 grep -q "fault kernel-hang" "$w/record" || bad "kill: the agent never reached slot 2"
	cid=$(last_cid)
	st=$("$ablab" campaigns --format csv | awk -F, -v c="$cid" '$1 == c { print $5 }')
	check "a live campaign is shown running ($st), not stale" test "$st" = running
	# as from another host on a shared database: other board locks, same campaign
	mkdir -p "$w/otherlocks"
	out=$(ABLAB_LOCK_DIR=$w/otherlocks "$ablab" resume "$cid" 2>&1); rc=$?
	check "resume of a live campaign is refused (exit $rc): $out" \
		grep -q "campaign $cid is still running: a live agent holds it" <<<"$out"
	kill -s KILL $pid
	wait $pid 2>/dev/null
	st=$("$ablab" campaigns --format csv | awk -F, -v c="$cid" '$1 == c { print $5 }')
	check "after SIGKILL: \`ablab campaigns\` shows campaign $cid stale ($st)" test "$st" = stale
	rep=$("$ablab" report "$cid" 2>&1)
	check "after SIGKILL: the report says stale and how to continue" \
		grep -q "^  stale: the campaign is marked running but no agent holds it (its agent died); \`ablab resume $cid\` continues it$" <<<"$rep"
	check "  ... and its header says stale" grep -q "^campaign $cid (cli, stale," <<<"$rep"
	# the board was left on by the killed agent; resume switches it as usual
	out=$("$ablab" resume "$cid" 2>&1); rc=$?
	check "resume of the stale campaign: exit $rc, complete" \
		test "$rc/$(psql_q "SELECT status FROM campaigns WHERE id = $cid")" = 0/complete ||
		echo "$out" | tail -n 5
	check "resume: says the killed attempt left a transcript and no record" \
		grep -q "sim-first \[2/2\]: attempt 1 left a transcript but no record (its agent died); continuing with attempt 2" <<<"$out"
	d=$w/results/campaign-$cid
	check "resume: the resumed attempt has a transcript of its own (a2)" \
		test -s "$d/sim-first-002-patched-a2.log"
	check "resume: the killed attempt's transcript holds one boot, not two" \
		test "$(grep -c "U-Boot SPL" "$d/sim-first-002-patched-a1.log")" = 1
	check "resume: the stored attempt points at the new transcript" \
		test "$(psql_q "SELECT attempt || ' ' || log_path FROM boots WHERE campaign_id = $cid AND seq = 2")" = "2 $d/sim-first-002-patched-a2.log"
	st=$("$ablab" campaigns --format csv | awk -F, -v c="$cid" '$1 == c { print $5 }')
	check "after resume: \`ablab campaigns\` shows complete ($st)" test "$st" = complete
	sim_quit "$w"
else
	bad "kill: cannot start the simulator: $(cat "$w/sim.err")"
fi

# --- 5. truthful CLI
w=$fh/cli
mkdir -p "$w/empty"
first_board "$w" 0
sed -i 's|"emulated": true,|"emulated": true, "kernel": { "recipe": "qemu-sam9x75" },|' "$w/sim-first.json"
cp "$w/sim-first.json" "$w/recipe.json"
first_board "$w" 0
out=$(ABLAB_CACHE=$w/cache "$ablab" check "$w/sim-first.json" 2>&1); rc=$?
check "check without a kernel, board without a recipe: exit $rc, names --kernel DIR, no make kernels" \
	test "$rc" = 1 -a "$(grep -c -- '--kernel DIR' <<<"$out")" = 1 -a "$(grep -c 'build it with `make kernels`' <<<"$out")" = 0
check "  ... \"$out\"" grep -q '^ablab: sim-first: no kernel to boot: pass your kernel directory (with manifest.json) with --kernel DIR' <<<"$out"
out=$(ABLAB_CACHE=$w/cache "$ablab" check "$w/recipe.json" 2>&1); rc=$?
check "check without a kernel, board with a recipe: make kernels and --kernel DIR ($out)" \
	grep -q 'no control kernel in .*: build it with `make kernels` (recipe qemu-sam9x75), or pass a kernel directory (with manifest.json) with --kernel DIR' <<<"$out"
out=$("$ablab" check "$w/sim-first.json" --kernel "$w/nokernel" 2>&1); rc=$?
check "check --kernel MISSING: names the option ($out)" \
	grep -q "sim-first: --kernel $w/nokernel: no such directory" <<<"$out"
out=$(ABLAB_CACHE=$w/cache "$ablab" ab --board "$w/sim-first.json" 2>&1); rc=$?
check "ab without kernels, board without a recipe: names --control DIR ($out)" \
	grep -q 'sim-first: no control kernel: pass your kernel directory (with manifest.json) with --control DIR' <<<"$out"
out=$(ABLAB_BOARDS=$w/empty "$ablab" boards 2>&1)
check "boards: a board used by path is listed from the database" \
	grep -q "^  file         $fh/[a-z-]*/sim-first.json (used by path)$" <<<"$out" ||
	echo "$out" | head -n 8
out=$(ABLAB_BOARDS=$w/empty ABLAB_DB="host=$w/nodb" "$ablab" boards 2>/dev/null)
check "boards: none at all names the board directory and ABLAB_BOARDS ($out)" \
	test "$out" = "no board files in $w/empty (the board directory: set ABLAB_BOARDS=DIR for another one) and no board used by path in the database"
