# The results database on a real PostgreSQL (private cluster).
check "db start creates and starts the private cluster" "$ablab" db start
check "db status says running" bash -c "'$ablab' db status | grep -q '^running'"
count_unit build/asan/test_store boards/qemu-sam9x75.json

# `ablab query` rounds mean/min/max in the client (store_round1): its text must be this
# server's round(x::numeric, 1) for every float8, ties, huge and tiny values included
psql -X -A -t -q "host=$ABLAB_DATA/pg dbname=ablab user=ablab" -F "$(printf '\t')" -c "
SELECT x::text, round(x::numeric, 1)::text FROM (
 SELECT unnest(ARRAY[0, '-0', 0.05, -0.05, 0.25, 2.5, 9.95, 99999999999999.95, 1e15, 1e16,
   123456789012345.6, 1.7976931348623157e308, 5e-324, '-1e300', 'NaN', 'Infinity']::float8[]) AS x
 UNION ALL SELECT (random() * 10 ^ (random() * 18 - 4))::float8 FROM generate_series(1, 100000)
 UNION ALL SELECT -(random() * 10 ^ (random() * 18 - 4))::float8 FROM generate_series(1, 20000)
 UNION ALL SELECT (round((random() * 1e6)::numeric, 1) + 0.05)::float8 FROM generate_series(1, 50000)
 UNION ALL SELECT (round((random() * 1e12)::numeric, 0) + 0.05 * (random() * 20)::int)::float8
   FROM generate_series(1, 50000)
 UNION ALL SELECT (random() * 2 ^ 53)::bigint::float8 / 10 FROM generate_series(1, 30000)) v" \
	>"$tmp/round1.tsv"
check "query's client-side rounding: 250,016 random and edge float8 values, PostgreSQL's own round(x::numeric, 1)" \
	build/asan/test_round "$tmp/round1.tsv"
