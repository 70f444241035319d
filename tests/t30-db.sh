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

# The private cluster's authentication (issue 27, Low: initdb --auth=trust with trust host
# lines): the socket by peer (this user as ablab or ablab_read, pg_ident.conf's map), TCP
# (off unless turned on by hand: turned on here, on a free port) by password, and no role
# has one: a TCP connection without a password is refused.
pg=$ABLAB_DATA/pg
fault 27.26 "private cluster: pg_hba.conf has no trust line ($(grep -v '^#' "$pg/pg_hba.conf" | tr '\n' '|'))" \
	bash -c "! grep -v '^#' '$pg/pg_hba.conf' | grep -qw trust"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
"$ablab" db stop >/dev/null
if as_pg env PGDATA="$pg" "$pgbin/pg_ctl" -w -t 60 -l "$pg/tcp.log" \
	-o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=." start >/dev/null; then
	out=$(PGPASSWORD= psql -X -A -t -q -w "host=127.0.0.1 port=$port dbname=ablab user=ablab" -c 'SELECT 1' 2>&1); rc=$?
	fault 27.26 "private cluster over TCP: a connection as ablab without a password is refused (exit $rc: $(echo "$out" | head -n 1 | cut -c1-100))" \
		bash -c "[ $rc != 0 ] && grep -q 'password' <<<'$out'"
	out=$(psql -X -A -t -q -w "host=127.0.0.1 port=$port dbname=ablab user=ablab_read" -c 'SELECT 1' 2>&1); rc=$?
	fault 27.26 "private cluster over TCP: ... and as ablab_read (exit $rc)" test "$rc" != 0
	check "private cluster: the socket still lets this user in as ablab and ablab_read (peer)" bash -c \
		"[ \"\$(psql -X -A -t -q 'host=$pg port=$port dbname=ablab user=ablab' -c 'SELECT 1')\" = 1 ] && [ \"\$(psql -X -A -t -q 'host=$pg port=$port dbname=ablab user=ablab_read' -c 'SELECT 2')\" = 2 ]"
	as_pg env PGDATA="$pg" "$pgbin/pg_ctl" -w -m fast stop >/dev/null
else
	bad "private cluster: cannot start it with TCP on port $port: $(tail -n 3 "$pg/tcp.log")"
fi
check "db start after it: running again" "$ablab" db start
