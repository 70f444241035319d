# lane: alone
# timeout: 600
# The emulated boards count instructions exactly (issue 26 item 1 and 4):
# QEMU -icount shift=0 makes qemu-sam9x75's boot means repeat within 0.05 %,
# so an A/A calibration says "same" on every timing row with a between-boot CV
# of at most 0.05 %, and an A/B campaign of the demo's kernels in a design that
# can decide (one board, 3 rows: 5+5) decides every timing row: the patched
# map of 256 B is a few instructions shorter ("different"), the 1 MiB rows are
# the same within +-1 % (or "different" inside the margin).  The board file's
# QEMU command line carries -icount.
k=$kcache/kernels/qemu-sam9x75
params=$(jq -r .benchmark.params "$top/jobs/dma-from-device.json")
if ! need_kernels qemu-sam9x75; then
	:
else
	"$ablab" db start >/dev/null 2>&1
	dd=$tmp/t41
	mkdir -p "$dd"
	"$ablab" calibrate qemu-sam9x75 --boots 3 --batches 3 --params "$params" --results "$dd/res" >"$dd/cal.out" 2>"$dd/cal.err" &
	cpid=$!
	# the board file's icount_shift reaches QEMU's command line
	seen=0
	for _ in $(seq 1 600); do
		if pgrep -af 'qemu-system-arm' | grep -q -- '-icount shift=0,sleep=off,align=off'; then seen=1; break; fi
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$cpid"; rc=$?
	out=$(cat "$dd/cal.out")
	echo "$out" | tail -n 6
	check "exact A/A: QEMU ran with -icount shift=0,sleep=off,align=off (icount_shift 0)" test "$seen" = 1
	check "exact A/A: calibrate exit 0 ($(tail -n 1 "$dd/cal.err"))" test "$rc" = 0
	# every timing row: "same", and the boot means' CV at most 0.05 %
	rows=$(echo "$out" | grep -E '^  qemu-sam9x75 +(small|large)-')
	check "exact A/A: three timing rows" test "$(echo "$rows" | wc -l)" = 3
	check "exact A/A: every timing row same" bash -c '! grep -Ev " same " <<<"$1"' _ "$rows"
	check "exact A/A: between-boot CV (cv means) <= 0.05 % on every timing row" \
		python3 -c '
import sys
for l in sys.argv[1].splitlines():
    cv = float(l.split()[3].rstrip("%"))
    assert cv <= 0.05, l
' "$rows"
	out=$("$ablab" ab --board qemu-sam9x75 --boots 5 --batches 3 --params "$params" --results "$dd/res" 2>"$dd/ab.err"); rc=$?
	echo "$out" | grep -E 'ARM926'
	check "exact A/B: exit 0 ($(tail -n 1 "$dd/ab.err"))" test "$rc" = 0
	check "exact A/B: 256 B dirty different" grep -Eq '256 B dirty .* different$' <<<"$out"
	check "exact A/B: 1 MiB dirty decided" grep -Eq '1 MiB dirty .* (different|same within ±1%)$' <<<"$out"
	check "exact A/B: 1 MiB clean decided" grep -Eq '1 MiB clean .* (different|same within ±1%)$' <<<"$out"
	check "exact A/B: no timing row undecided" bash -c '! grep -Eq "(dirty|clean) .* undecided" <<<"$1"' _ "$out"
	check "exact A/B: the report says what an emulated figure is" grep -q 'exact instruction counting' <<<"$out"
	cid=$(psql_q "SELECT max(id) FROM campaigns")
	check "exact A/B: every boot's 256 B dirty mean repeats within 0.05 % per kernel" \
		test "$(psql_q "SELECT count(*) FROM (SELECT b.variant, (max(m.mean) - min(m.mean)) / avg(m.mean) AS spread FROM boot_means m JOIN boots b ON b.id = m.boot_id WHERE b.campaign_id = $cid AND m.scenario = 'small-dirty-256B' GROUP BY b.variant) x WHERE spread <= 0.0005")" = 2
fi
