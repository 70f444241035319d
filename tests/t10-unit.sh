# Unit tests of the agent's pure parts, under ASan/UBSan.
for t in build/asan/test_parse build/asan/test_stats build/asan/test_seqtest build/asan/test_changepoint build/asan/test_bench build/asan/test_timing build/asan/test_telnet build/asan/test_template build/asan/test_jsonfile build/asan/test_atomic build/asan/test_lava build/asan/test_round build/asan/test_screen build/asan/test_validate build/asan/test_util build/asan/test_cost; do count_unit "$t"; done
# The two builds link the same libraries: the Makefile's PKGS_C and meson.build's
# dependency() list (a library added to one only broke the other's link once: libmicrohttpd)
mk=$(sed -n 's/^PKGS_C *:= *//p' Makefile | tr ' ' '\n' | grep . | sort | tr '\n' ' ')
ms=$(grep -o "dependency('[^']*')" meson.build | sed "s/dependency('\(.*\)')/\1/" | grep -vx threads | sort | tr '\n' ' ')
check "meson.build's dependencies are the Makefile's PKGS_C ($mk)" test "$mk" = "$ms"
# One style: the C sources as clang-format writes them (.clang-format, 100 columns);
# `make format` rewrites them in place
check "agent/ and tests/ C sources follow .clang-format (else: make format)" make -s format-check
