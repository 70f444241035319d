# Unit tests of the agent's pure parts, under ASan/UBSan.
for t in build/asan/test_parse build/asan/test_stats; do count_unit "$t"; done
