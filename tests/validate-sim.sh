# The "board simulator, real data path" rows of `make validate` (sourced by
# tests/validate-sim-run after tests/lib.sh): SIM_CAMPAIGNS (default 200) full
# campaigns of each design under no change (every effect 0), four at a time on
# four simulated boards, through `ablab ab`, the console, the parser, the
# database and the report; the rate of "different" rows (per row and per
# campaign) with its Monte-Carlo standard error.  Exits 1 (so `make validate`
# fails) when a rate misses its target (alpha, allowing 2 SE) or a campaign failed.
bs=$top/build/boardsim
n=${SIM_CAMPAIGNS:-200}
"$ablab" db start >/dev/null 2>&1
mkdir -p "$tmp/vs"
for i in 1 2 3 4; do
	d=$tmp/vs/b$i
	sim_kernels "$d/k" "vsim$i"
	sim_uboot_board "vsim$i" "$d"
	"$bs" run --ctl "$d/ctl" --pty-link "$d/console" --tftp-root "$d/tftp" --tick-ms 5 --autoboot 10 \
		--seed $((700 + i)) --effect small-dirty-256B=0 --effect large-dirty-1MiB=0 \
		--effect large-clean-1MiB=0 --daemon --pid-file "$d/pid" 2>"$d/sim.err" ||
		{ echo "validate-sim: cannot start simulator $i: $(cat "$d/sim.err")"; exit 1; }
done
t0=$SECONDS
sim_missed=0
for design in fixed sequential; do
	case $design in
	fixed) args="--boots 5" ;;
	sequential) args="--budget 8 --first 4" ;;
	esac
	: >"$tmp/vs/$design.ids"
	done_n=0
	while [ $done_n -lt "$n" ]; do
		for i in 1 2 3 4; do
			d=$tmp/vs/b$i
			"$ablab" ab --board "$d/board.json" --control "$d/k/control" --patched "$d/k/patched" \
				$args --batches 3 --results "$tmp/vs/res" --format json >"$d/out.json" 2>"$d/err" &
		done
		wait
		for i in 1 2 3 4; do
			python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["campaign"])' \
				"$tmp/vs/b$i/out.json" >>"$tmp/vs/$design.ids" 2>/dev/null ||
				{ echo "validate-sim: a $design campaign on vsim$i failed: $(tail -n 1 "$tmp/vs/b$i/err")"; sim_missed=1; }
		done
		done_n=$((done_n + 4))
	done
	ids=$(paste -sd, "$tmp/vs/$design.ids")
	for id in $(cat "$tmp/vs/$design.ids"); do "$ablab" report "$id" --format json; echo; done |
		python3 -c '
import json, sys, math
design, dt = sys.argv[1], sys.argv[2]
text = sys.stdin.read()
dec = json.JSONDecoder()
camps, rows, diff, anyd, boots, i = 0, 0, 0, 0, 0, 0
while True:
    while i < len(text) and text[i] in " \n": i += 1
    if i >= len(text): break
    r, i = dec.raw_decode(text, i)
    fam = [w for w in r["rows"] if w["kind"] == "result" and w["scenario"] != "null"]
    camps += 1; rows += len(fam)
    d = sum(1 for w in fam if w["verdict"] == "different")
    diff += d; anyd += d > 0
    boots += fam[0]["n_control"] + fam[0]["n_patched"] if fam else 0
p = diff / rows if rows else float("nan"); q = anyd / camps if camps else float("nan")
se = lambda x, n: math.sqrt(x * (1 - x) / n) if n else float("nan")
print("| FPR per row, no change (board simulator, real path) | %-22s | %8.4f | %7.4f | %6d | <= 0.05  | %s |" % (design, p, se(p, rows), rows, "met" if p <= 0.05 + 2 * se(p, rows) else "MISSED"))
print("| FWER per campaign, no change (board simulator)       | %-22s | %8.4f | %7.4f | %6d | <= 0.05  | %s |" % (design, q, se(q, camps), camps, "met" if q <= 0.05 + 2 * se(q, camps) else "MISSED"))
print("| mean boots per campaign (board simulator)            | %-22s | %8.2f |       - | %6d |          |        |" % (design, boots / camps if camps else 0, camps))
sys.exit(0 if camps and p <= 0.05 + 2 * se(p, rows) and q <= 0.05 + 2 * se(q, camps) else 1)
' "$design" "$((SECONDS - t0))" || sim_missed=1
done
echo "validate-sim: $((SECONDS - t0)) s for $n campaigns of each design (4 at a time); failed attempts: $(psql_q "SELECT count(*) FROM boots WHERE status = 'failed'")"
psql_q "SELECT error, count(*) FROM boots WHERE status = 'failed' GROUP BY 1 ORDER BY 2 DESC LIMIT 3"
for i in 1 2 3 4; do "$bs" ctl "$tmp/vs/b$i/ctl" quit >/dev/null 2>&1; done
if [ "$sim_missed" != 0 ]; then
	echo "validate-sim: a target was MISSED or a campaign failed"
	exit 1
fi
