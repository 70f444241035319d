# Unit tests of the agent's pure parts, under ASan/UBSan.
for t in build/asan/test_parse build/asan/test_stats build/asan/test_seqtest build/asan/test_changepoint build/asan/test_bench build/asan/test_timing build/asan/test_telnet build/asan/test_template build/asan/test_jsonfile; do count_unit "$t"; done
