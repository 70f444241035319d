# Board files: every shipped one is valid; broken ones get file:line:col errors.
for f in boards/*.json; do check "valid board $f" "$ablab" check-board "$f"; done
board_err() {	# NAME JSON-TEXT EXPECTED-REGEX: check-board fails with exactly one clear line
	local name=$1 text=$2 re=$3 f=$tmp/$1.json out
	printf '%s\n' "$text" >"$f"
	out=$("$ablab" check-board "$f" 2>&1)
	if [ $? -ne 0 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -Eq "$re"; then ok "board error: $name: $out"
	else bad "board error: $name: got: $out"; fi
}
good=$(cat boards/qemu-sam9x75.json)
board_err typo-key "${good/\"retries\"/\"retires\"}" "^ablab: $tmp/typo-key.json:[0-9]+:[0-9]+: retires: unknown key; did you mean \"retries\"\?$"
board_err wrong-type "${good/\"retries\": 2/\"retries\": \"two\"}" "[0-9]+:[0-9]+: retries: must be an integer"
board_err nested-typo "${good/\"prompt\"/\"promt\"}" "shell.promt: unknown key; did you mean \"prompt\"\?$"
board_err syntax "${good/\"cpu\": /\"cpu\" }" "syntax.json:[0-9]+:[0-9]+: invalid JSON"
board_err trailing "$good }" "trailing.json:$(wc -l <boards/qemu-sam9x75.json):[0-9]+: (trailing characters|invalid JSON)"
board_err range "${good/\"kernel\": 60/\"kernel\": 0}" "timeouts_s.kernel: out of range"
board_err bad-regex "${good/Kernel panic - not syncing/(unclosed}" "invalid regular expression"
board_err power-type "${good/\"type\": \"qemu\"/\"type\": \"pdu\"}" "power.type: unsupported power type"
# board and job names: one rule (issue 27, Low: a 100,000-character name, a leading '-'
# and a JSON \u0000 that cut the name were all taken)
name_rule='is not a board name: 1-63 of letters, digits, \. _ \+ -, not starting with - or \.'
board_err name-long "${good/\"name\": \"qemu-sam9x75\"/\"name\": \"$(printf 'a%.0s' $(seq 100000))\"}" \
	"name: \"a{64}\.\.\.\" $name_rule"
board_err name-dash "${good/\"name\": \"qemu-sam9x75\"/\"name\": \"-rf\"}" "name: \"-rf\" $name_rule"
board_err name-nul "${good/\"name\": \"qemu-sam9x75\"/\"name\": \"sam\\u0000x\"}" "name: \"sam\" $name_rule"
board_err name-64 "${good/\"name\": \"qemu-sam9x75\"/\"name\": \"$(printf 'b%.0s' $(seq 64))\"}" "$name_rule"
printf '%s\n' "$good" >"$tmp/name-63.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["name"]="c"*56+"+1.x_y-"; json.dump(d,open(sys.argv[1],"w"))' "$tmp/name-63.json"
check "a board name of 63 with + . _ - is valid" "$ablab" check-board "$tmp/name-63.json"
python3 -c 'import json,sys; j=json.load(open("jobs/dma-from-device.json")); j["name"]=sys.argv[2]; json.dump(j,open(sys.argv[1],"w"))' "$tmp/job-dash.json" "-rf"
out=$(ABLAB_BOARDS=$top/boards "$ablab" run "$tmp/job-dash.json" --dry-run 2>&1)
fault 27.8 "a job name starting with -: refused by the same rule as a board's" grep -q 'name: "-rf" is not a job name: 1-63 of letters, digits, . _ + -, not starting with - or .' <<<"$out"

# a prebuilt module's file name goes into target shell commands: only [A-Za-z0-9._+-]
# (issue 27, Low), checked before any boot (here by --dry-run)
kj=$tmp/kojob
for v in control patched; do
	mkdir -p "$kj/k/$v"
	printf '{"board":"qemu-sam9x75","variant":"%s","release":"6.1.0-sim-%s"}\n' $v $v >"$kj/k/$v/manifest.json"
	printf 'zImage\0Linux version 6.1.0-sim-%s (b@l) #1\n' $v >"$kj/k/$v/zImage"
	echo i >"$kj/k/$v/initramfs.cpio.gz"
	echo d >"$kj/k/$v/sim.dtb"
done
ko_job() {	# FILE CONTROL-KO PATCHED-KO
	cat >"$1" <<-EOF
	{ "name": "ko-shell", "boards": ["qemu-sam9x75"],
	  "variants": { "control": { "source": { "type": "prebuilt", "dir": "k/control" } },
	                "patched": { "source": { "type": "prebuilt", "dir": "k/patched" } } },
	  "benchmark": { "name": "module", "ko": { "control": "$2", "patched": "$3" } }, "boots": 2 }
	EOF
}
ko_job "$kj/subst.json" 'm$(reboot).ko' m.ko
out=$(ABLAB_BOARDS=$top/boards "$ablab" run "$kj/subst.json" --dry-run 2>&1); rc=$?
fault 27.11 "a .ko named m\$(reboot).ko: refused before any boot (exit $rc)" bash -c \
	"[ $rc = 1 ] && grep -qF 'qemu-sam9x75: module name \"m\$(reboot)\": only letters, digits, . _ + -' <<<'$out'"

# a kernel directory's .dtb file name goes into U-Boot commands ({dtb}): the same rule,
# refused before the database or a board is touched (issue 27, Low)
mkdir -p "$kj/kd"
cp -r "$kj/k/control" "$kj/kd/control"
rm -f "$kj/kd/control/"*.dtb
echo dtb >"$kj/kd/control/x;reboot.dtb"
sim_uboot_board t20-dtb "$kj/board"
out=$(ABLAB_DB="host=$kj/nodb dbname=none" "$ablab" ab --board "$kj/board/board.json" --control "$kj/kd/control" \
	--patched "$kj/k/patched" --boots 1 --undecidable-ok --results "$kj/res" 2>&1); rc=$?
fault 27.13 "a .dtb named x;reboot.dtb: refused before any boot (exit $rc)" bash -c \
	"[ $rc = 1 ] && grep -qF '$kj/kd/control/x;reboot.dtb: device tree file name: only letters, digits, . _ + -' <<<'$out'"

# --params are typed into the target's shell (insmod M PARAMS): the job's rule for the
# command line too (issue 27, Low); a database that is not there keeps even an
# unchecked run from booting anything
out=$(ABLAB_DB="host=$kj/nodb dbname=none" "$ablab" ab --board "$kj/board/board.json" --control "$kj/k/control" \
	--patched "$kj/k/patched" --boots 1 --undecidable-ok --params 'x;reboot' --results "$kj/res" 2>&1); rc=$?
fault 27.21 "ab --params 'x;reboot': refused before anything (exit $rc)" bash -c \
	"[ $rc != 0 ] && grep -qF -- '--params \"x;reboot\": module parameters may only contain letters' <<<'$out'"
out=$(ABLAB_DB="host=$kj/nodb dbname=none" ABLAB_BOARDS=$top/boards "$ablab" lava export "$kj/subst.json" --params 'x;reboot' --out "$kj/lx" 2>&1); rc=$?
fault 27.21 "lava export --params 'x;reboot': refused, no job definition written (exit $rc)" bash -c \
	"[ $rc != 0 ] && grep -qF -- '--params \"x;reboot\": module parameters may only contain letters' <<<'$out' && [ ! -e '$kj/lx' ]"

# a LAVA context key is quoted as its value is (issue 27, Low: "extra: x" and a newline
# in a key became YAML of its own)
cat >"$kj/ctx.json" <<EOF
{ "name": "ctx", "boards": ["qemu-sam9x75"],
  "variants": { "control": { "source": { "type": "prebuilt", "dir": "k/control" } },
                "patched": { "source": { "type": "prebuilt", "dir": "k/patched" } } },
  "benchmark": { "name": "dmabench" }, "boots": 1,
  "lava": { "context": { "qemu-sam9x75": { "extra: injected\\ninjected_top": "x" } } } }
EOF
ABLAB_DB="host=$kj/nodb dbname=none" ABLAB_BOARDS=$top/boards "$ablab" lava export "$kj/ctx.json" --out "$kj/ctx" >"$kj/ctx.out" 2>&1 || tail -n 3 "$kj/ctx.out"
fault 27.22 "lava export: a context key with ': ' and a newline stays one quoted key" python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
c = d["context"]
assert c.get("extra: injected\ninjected_top") == "x" and "extra" not in c and "injected_top" not in d, (c, list(d))
' "$kj/ctx/ctx-qemu-sam9x75-001-control.yaml"

# power.line_names (gpiod): the relay by its line name instead of its offset
pi_lines() { sed "s/\"lines\": \[17\]/$1/" boards/pi400.json; }
pi_lines '"line_names": ["relay0"]' >"$tmp/linenames.json"
check "board: power.line_names instead of power.lines is valid" \
	sh -c '"$1" check-board "$2" && grep -q "\"line_names\": \[\"relay0\"\]" "$2"' _ "$ablab" "$tmp/linenames.json"
board_err line-names-and-lines "$(pi_lines '"lines": [17], "line_names": ["relay0"]')" \
	'power.line_names: give "lines" \(offsets\) or "line_names", not both'
board_err line-names-twice "$(pi_lines '"line_names": ["a", "a"]')" 'power.line_names: line "a" is listed twice'
board_err line-names-empty "$(pi_lines '"line_names": []')" "power.line_names: must not be empty"

# every subcommand answers --help with its usage on stdout and exit 0
# (ablab check-board --help used to look for a board named "--help")
for c in $("$ablab" --help 2>&1 | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p' | sort -u); do
	out=$("$ablab" "$c" --help 2>/dev/null); rc=$?
	check "ablab $c --help: exit 0, usage on stdout" bash -c "[ $rc = 0 ] && grep -Eq '^usage: ablab ($c|\\[)' <<<'$(echo "$out" | head -n 1)'"
done
# the backend registry (agent/backend/backends.c) feeds `ablab --help` and the type errors
bh=$("$ablab" --help)
for b in tty serial tcp qemu gpiod command manual direct uboot; do
	check "ablab --help: backend $b listed with its description" grep -Eq "^  .{12} $b +[A-Za-z]" <<<"$bh"
done
board_err console-type "${good/\"type\": \"tty\"/\"type\": \"usb\"}" "console.type: unsupported console type \"usb\"; one of: tty, serial, tcp"
board_err boot-method "${good/\"method\": \"direct\"/\"method\": \"pxe\"}" "boot.method: unsupported boot method \"pxe\"; one of: direct, uboot, command"
