# The results database on a real PostgreSQL (private cluster).
check "db start creates and starts the private cluster" "$ablab" db start
check "db status says running" bash -c "'$ablab' db status | grep -q '^running'"
count_unit build/asan/test_store boards/qemu-sam9x75.json

