# The unit tests, under ASan/UBSan: every tests/test_*.c (meson.build's unit_tests,
# which refuses a test_*.c it does not list), each binary run here and nowhere else
# without arguments; t30 (test_store, test_round) and t94 (test_series) run three of
# them again on data they make (a database, a table, a fetched mailbox).
for src in tests/test_*.c; do
	count_unit "build/asan/$(basename "$src" .c)"
done

# meson.build lists every source (a new .c file does not make ninja reconfigure, so
# meson setup's own check of the lists sees it only on the next reconfiguration)
unlisted=
for f in agent/*.c agent/*/*.c; do
	grep -q "'$(basename "$f")'" "$(dirname "$f")/meson.build" || unlisted="$unlisted $f"
done
for f in tests/test_*.c; do
	grep -q "'$(basename "$f" .c)'" meson.build || unlisted="$unlisted $f"
done
check "every agent/ source is in its folder's meson.build, every tests/test_*.c in unit_tests${unlisted:+ (not:$unlisted)}" \
	test -z "$unlisted"

# The layers of agent/ (agent/LAYERS, tests/layers.py on build/asan's objects): no two
# files call each other, no file calls a higher layer; tests/layers-allow.txt lists
# the violations still allowed, and a line there that no longer occurs fails too.
out=$(python3 tests/layers.py --allow tests/layers-allow.txt build/asan 2>&1); rc=$?
echo "$out" | grep -v '^layers: [0-9]' | head -n 40
check "layers: $(echo "$out" | tail -n 1 | sed 's/^layers: //')" test "$rc" = 0
# ... and it fails on a planted upward call and a planted pair that call each other,
# naming the files and the symbols: two layers of a tiny tree, built here
lt=$tmp/layers
mkdir -p "$lt/src/low" "$lt/src/high" "$lt/obj/low" "$lt/obj/high"
printf '0 low/\n1 high/\n' >"$lt/src/LAYERS"
printf 'int high_entry(void);\nint low_ok(void) { return 1; }\n' >"$lt/src/low/a.c"
printf 'int low_ok(void);\nint high_entry(void) { return low_ok(); }\n' >"$lt/src/high/b.c"
build_layers() { cc -c -o "$lt/obj/low/a.o" "$lt/src/low/a.c" && cc -c -o "$lt/obj/high/b.o" "$lt/src/high/b.c"; }
layers_t() { python3 tests/layers.py --layers "$lt/src/LAYERS" --objdir "$lt/obj" "$@"; }
build_layers
check "layers: a tree that keeps its layers passes" layers_t
printf 'int high_entry(void);\nint low_ok(void) { return high_entry(); }\n' >"$lt/src/low/a.c"
build_layers
out=$(layers_t 2>&1); rc=$?
check "layers: a planted upward call fails, naming the file, the callee and the symbol ($(grep '^layers: not allowed: upward' <<<"$out"))" \
	test "$rc" = 1 -a "$(grep -cxF 'layers: not allowed: upward low/a.c -> high/b.c: layer 0 calls layer 1: high_entry' <<<"$out")" = 1
check "layers: ... and the two files that now call each other" \
	grep -qxF 'layers: not allowed: mutual high/b.c <-> low/a.c: high/b.c calls low_ok; low/a.c calls high_entry' <<<"$out"
printf 'mutual high/b.c <-> low/a.c\nupward low/a.c -> high/b.c\n' >"$lt/allow"
check "layers: both on the allow-list: passes" layers_t --allow "$lt/allow"
printf 'int low_ok(void) { return 1; }\n' >"$lt/src/low/a.c"
build_layers
out=$(layers_t --allow "$lt/allow" 2>&1); rc=$?
check "layers: allowed lines that no longer occur fail, saying to remove them" \
	test "$rc" = 1 -a "$(grep -c '^layers: allowed but no longer occurs (remove it from .*/allow): ' <<<"$out")" = 2

# One style: the C sources as clang-format writes them (.clang-format, 100 columns);
# `make format` rewrites them in place
check "agent/ and tests/ C sources follow .clang-format (else: make format)" make -s format-check
