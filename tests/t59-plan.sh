# lane: side
# `ablab plan` (issue 29 item 4) on the board simulator, whose noise model is known
# (tests/boardsim.md: a boot mean varies by 1 % between boots, a batch by 0.5 % within
# a boot) and whose patched kernel makes 1 MiB dirty 2 % slower (--effect).  Without a
# calibration the plan (and `run`'s, before its first boot) says to run `ablab
# calibrate`; after one (6+6 boots) it plans 2 % at power 0.95, close to what the known
# model needs; `ab` with the planned boots prints the plan before its first boot, and
# the campaign's boots and wall time are compared with the plan's; the planted change
# is found.  A second board four times as noisy answers after the first, with more
# boots, and sets the job's duration.  The refusal of a design that cannot decide names the same smallest design
# as the plan's "decides" column (one computation: plan_decidable()).
bs=$top/build/boardsim
dd=$tmp/plan59
"$ablab" db start >/dev/null 2>&1
sim_kernels "$dd/k" sim-plan
sim_uboot_board sim-plan "$dd"
cat >"$dd/job.json" <<JOB
{
  "name": "plan-sim",
  "boards": ["$dd/board.json"],
  "variants": {
    "control": { "source": { "type": "prebuilt", "dir": "$dd/k/control" } },
    "patched": { "source": { "type": "prebuilt", "dir": "$dd/k/patched" } }
  },
  "benchmark": { "name": "dmabench" },
  "boots": 6,
  "batches": 4
}
JOB
q='--effect 2% --power 0.95 --scenario large-dirty-1MiB --batches 4'

out=$("$ablab" plan "$dd/board.json" $q 2>&1); rc=$?
check "plan without a calibration: exit 1" test "$rc" = 1
check "plan without a calibration: says to calibrate" grep -q 'no calibration for board sim-plan: run ablab calibrate sim-plan' <<<"$out"
out=$("$ablab" run "$dd/job.json" --dry-run 2>&1)
check "run (dry): no calibration for the board, said before any boot" grep -q '^no calibration for board sim-plan: run ablab calibrate sim-plan' <<<"$out"

# a second board, four times as noisy between boots (2 %), calibrated with the first
dn=$tmp/plan59n
sim_uboot_board sim-noisy "$dn"
if ! "$bs" run --ctl "$dd/ctl" --pty-link "$dd/console" --tftp-root "$dd/tftp" \
	--record "$dd/record" --tick-ms 5 --autoboot 10 --seed 59 \
	--effect large-dirty-1MiB=0.02 --daemon --pid-file "$dd/pid" 2>"$dd/sim.err" ||
	! "$bs" run --ctl "$dn/ctl" --pty-link "$dn/console" --tftp-root "$dn/tftp" \
	--tick-ms 5 --autoboot 10 --seed 60 --between 0.02 --daemon --pid-file "$dn/pid" 2>"$dn/sim.err"; then
	bad "t59: cannot start the simulators: $(cat "$dd/sim.err" "$dn/sim.err")"
else
	"$ablab" calibrate "$dd/board.json" "$dn/board.json" --kernel "$dd/k/control" --boots 6 --batches 4 \
		--results "$dd/res" >"$dd/cal.out" 2>"$dd/cal.err"; rc=$?
	check "calibrate 6+6 on both boards at once: exit 0" test "$rc" = 0
	"$bs" ctl "$dn/ctl" quit >/dev/null 2>&1
	"$ablab" plan "$dn/board.json" "$dd/board.json" $q | tee "$dd/plan2.txt"
	"$ablab" plan "$dn/board.json" "$dd/board.json" $q --format json >"$dd/plan2.json"
	check "plan of two boards: the quieter answers first with fewer boots, the job takes the noisier's time" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
a, b = r["boards"]
assert (a["board"], a["answers"], b["board"], b["answers"]) == ("sim-plan", 1, "sim-noisy", 2), r["boards"]
assert b["boots"] > a["boots"] and r["job_seconds"] == b["seconds"], (a, b, r["job_seconds"])
assert r["question"]["rows"] == 8, r["question"]' "$dd/plan2.json"
	"$ablab" run "$dd/job.json" --dry-run >"$dd/dry.out" 2>&1
	check "run --dry-run after the calibration: the board's plan" grep -q '^plan for sim-plan (A/A calibration: campaign [0-9]* of .*): 6+6 boots of 4 batches, about' "$dd/dry.out"
	"$ablab" plan "$dd/board.json" $q | tee "$dd/plan.txt"
	check "plan: a table row for the board with its calibration" grep -Eq '^sim-plan +campaign [0-9]+ +large-dirty-1MiB +4 +[0-9]+\+[0-9]+ ' "$dd/plan.txt"
	"$ablab" plan "$dd/board.json" $q --format json >"$dd/plan.json"; rc=$?
	check "plan --format json: exit 0" test "$rc" = 0
	read -r n secs spb dec < <(python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["boards"][0]
print(b["boots"], b["seconds"], b["seconds_per_boot"], b["decide_boots"])' "$dd/plan.json")
	# The known model's boots: 2 V (pi/3) (z_{1-0.0125/2} + z_{0.95})^2 / 0.02^2 with
	# V = 0.01^2 + 0.005^2 / 4 (Holm over the 4 calibrated rows): 10.  The calibration
	# estimates the between-boot variance from 12 boot means (its relative sd is about
	# sqrt(2/11) = 43 %), so the plan may be off by that much: a factor 2 either way.
	check "plan: $n+$n boots, near the known noise model's 10+10 (a factor 2)" test "$n" -ge 5 -a "$n" -le 20
	n1=$("$ablab" plan "$dd/board.json" --effect 1% --power 0.95 --scenario large-dirty-1MiB --batches 4 --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["boards"][0]["boots"])')
	check "plan: half the effect needs about 4 times the boots ($n1 against $n)" test "$n1" -ge $((3 * n)) -a "$n1" -le $((5 * n))
	"$ablab" plan "$dd/job.json" $q >"$dd/job.plan" 2>&1
	check "plan JOB: the job's duration" grep -q '^plan-sim: 1 board at once: about' "$dd/job.plan"
	check "plan JOB: the job as written" grep -q '^job plan-sim as written (6 boots of each of 2 kernels, 4 batches): about' "$dd/job.plan"
	out=$("$ablab" plan "$dd/board.json" --margin 2 --format json)
	check "plan --margin: a plan to say same" python3 -c '
import json, sys
r = json.loads(sys.argv[1])
assert r["question"]["answer"] == "same" and r["question"]["margin"] == 0.02, r["question"]
assert r["boards"][0]["boots"] >= 3, r["boards"][0]' "$out"

	# one computation: the refusal names the plan's smallest design that can decide
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" --boots 2 --batches 4 --results "$dd/res" >"$dd/refused" 2>&1; rc=$?
	check "ab --boots 2: refused (exit 2)" test "$rc" = 2
	check "  ... naming --boots $dec, the plan's smallest design that can decide" grep -q -- "the smallest that can: --boots $dec for \"different\"" "$dd/refused"

	# the campaign with the planned boots
	"$ablab" ab --board "$dd/board.json" --control "$dd/k/control" --patched "$dd/k/patched" \
		--boots "$n" --batches 4 --results "$dd/res" --format json >"$dd/ab.json" 2>"$dd/ab.err"; rc=$?
	check "ab $n+$n: exit 0" test "$rc" = 0
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	grep -A1 '^plan for' "$dd/ab.err"
	# on stderr with the progress lines (stdout is the report's: JSON here)
	pl=$(grep -n "^plan for sim-plan (A/A calibration: campaign [0-9]* of .*): $n+$n boots of 4 batches, about" "$dd/ab.err" | cut -d: -f1)
	fb=$(grep -n 'sim-plan \[1/' "$dd/ab.err" | head -n 1 | cut -d: -f1)
	check "ab: the plan is printed before the first boot (stderr line ${pl:-none}, first boot ${fb:-none})" test -n "$pl" -a -n "$fb" -a "${pl:-0}" -lt "${fb:-0}"
	check "ab: the plan's second line: the change it sees and what ±1% needs" grep -Eq '^  sees a change of [0-9.]+% \(.*\); ±1% needs [0-9]+\+[0-9]+ boots' "$dd/ab.err"
	check "ab --format json: stdout is the report's JSON alone" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$dd/ab.json"
	read -r att ok wall < <(psql_q "SELECT count(*), count(*) FILTER (WHERE b.status = 'ok'), round(extract(epoch FROM c.finished - c.created)::numeric, 1) FROM boots b JOIN campaigns c ON c.id = b.campaign_id WHERE c.id = $cid GROUP BY c.finished, c.created" | tr '|' ' ')
	printf 'planned: %s+%s boots, %.1f s (%.3f s a boot); actual: %s attempts (%s ok), %s s\n' "$n" "$n" "$secs" "$spb" "$att" "$ok" "$wall"
	check "actual boots: the planned $((2 * n)), none retried" test "$att/$ok" = "$((2 * n))/$((2 * n))"
	# Wall time: the plan's time per boot is the median start-to-start time of the
	# calibration's boots; the campaign adds its start (kernel checks, the board's lock,
	# the console) and its end (the last power off, the report), and shares this machine
	# with the main lane's tests, which can slow any boot: within -20 % .. +50 %.
	check "actual wall time ${wall} s within -20 %..+50 % of the planned ${secs} s" python3 -c 'import sys; r = float(sys.argv[1]) / float(sys.argv[2]); assert 0.8 <= r <= 1.5, r' "$wall" "$secs"
	# the planted change, at the plan's power 0.95
	check "the planted 2 % on 1 MiB dirty is found at the planned boots" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
w = [x for x in r["rows"] if x["scenario"] == "large-dirty-1MiB"][0]
assert w["verdict"] == "different", w["verdict"]' "$dd/ab.json"
	"$bs" ctl "$dd/ctl" quit >/dev/null 2>&1
fi
"$ablab" plan >"$dd/usage" 2>&1; rc=$?
check "plan without a board: exit 2" test "$rc" = 2
check "plan without a board: its usage" grep -q 'usage: ablab plan JOB' "$dd/usage"
out=$("$ablab" plan sim-plan --effect 2 --margin 1 2>&1); rc=$?
check "plan --effect with --margin: exit 2, one answer at a time" bash -c "[ $rc = 2 ] && grep -q 'plan for one answer at a time' <<<'$out'"
out=$("$ablab" plan sim-plan --effect 80% 2>&1); rc=$?
check "plan --effect 80%: exit 2, a percentage between 0 and 50" bash -c "[ $rc = 2 ] && grep -q 'is not a percentage between 0 and 50' <<<'$out'"
