# Nightly as a service user: the systemd units (verified offline, hardening
# score), no /tmp fallback without HOME, pg_ctl never handed a data directory
# to interpret, a --db / ABLAB_DB password never echoed.
sv=$tmp/service
rm -rf "$sv"
mkdir -p "$sv/units"

# -- the units, with the checkout's paths (verify wants ExecStart to exist)
for u in ablab-nightly.service ablab-nightly.timer; do
	sed "s|/srv/ablab|$top|g" "jobs/systemd/$u" >"$sv/units/$u"
done
if command -v systemd-analyze >/dev/null; then
	fault 11 "systemd units: systemd-analyze verify is clean" \
		test -z "$(systemd-analyze verify "$sv/units/ablab-nightly.service" "$sv/units/ablab-nightly.timer" 2>&1)"
	score=$(systemd-analyze security --offline=yes "$sv/units/ablab-nightly.service" 2>/dev/null |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
	fault 11 "systemd units: security exposure ${score:-?} (systemd-analyze security), at most 3.0" \
		awk -v s="${score:-99}" 'BEGIN { exit !(s <= 3.0) }'
else
	bad "systemd units: systemd-analyze not found (apt-get install systemd: make deps)"
fi
for d in User=ablab StateDirectory=ablab CacheDirectory=ablab NoNewPrivileges=yes \
	ProtectSystem=strict PrivateTmp=yes 'SupplementaryGroups=dialout plugdev' \
	'Environment=ABLAB_DATA=%S/ablab ABLAB_CACHE=%C/ablab' 'ReadWritePaths=-/srv/tftp'; do
	fault 11 "systemd unit: $d" grep -qxF "$d" jobs/systemd/ablab-nightly.service
done

# -- HOME unset, no ABLAB_DATA/ABLAB_CACHE: a clear error, nothing under /tmp.
# As nobody (root has /var/lib/ablab), in a mount namespace whose /tmp is a
# fresh tmpfs, so that anything created there is seen.
cp boards/qemu-sam9x75.json "$sv/board.json"
unshare -m bash -c '
	exec 3<"$1" 4<"$2"
	mount -t tmpfs -o mode=1777 tmpfs /tmp || exit 99
	mkdir /tmp/bin && cat <&3 >/tmp/bin/ablab && cat <&4 >/tmp/bin/board.json &&
		chmod 755 /tmp/bin/ablab && chmod 644 /tmp/bin/board.json || exit 98
	cd /tmp/bin
	noenv="env -u HOME -u ABLAB_DATA -u ABLAB_CACHE -u XDG_DATA_HOME -u XDG_CACHE_HOME -u ABLAB_LOCK_DIR -u ABLAB_DB ABLAB_PG_BINDIR=/nonexistent"
	runuser -u nobody -- $noenv /tmp/bin/ablab db start >/tmp/bin/db.out 2>&1
	echo "db start rc=$?"
	runuser -u nobody -- $noenv /tmp/bin/ablab check /tmp/bin/board.json >/tmp/bin/check.out 2>&1
	echo "check rc=$?"
	sed "s/^/db: /" /tmp/bin/db.out
	sed "s/^/check: /" /tmp/bin/check.out
	echo "tmp: $(ls -A /tmp | tr "\n" " ")"
' _ "$ablab" "$sv/board.json" >"$sv/nohome.out" 2>&1
echo "  rc $?: $(tr '\n' '|' <"$sv/nohome.out" | cut -c1-400)"
fault 11 "HOME unset: db start fails, saying to set HOME or ABLAB_DATA" \
	bash -c "grep -q '^db start rc=[1-9]' '$sv/nohome.out' && grep -q '^db: ablab: data directory (database, locks, health logs): HOME is not set and neither is ABLAB_DATA: set one of them' '$sv/nohome.out'"
fault 11 "HOME unset: the default kernel directory is refused, saying to set HOME or ABLAB_CACHE" \
	bash -c "grep -q '^check rc=[1-9]' '$sv/nohome.out' && grep -q '^check: ablab: cache directory (built kernels): HOME is not set and neither is ABLAB_CACHE' '$sv/nohome.out'"
fault 11 "HOME unset: nothing created under /tmp (no /tmp fallback)" grep -qx 'tmp: bin ' "$sv/nohome.out"

# -- a data directory with spaces and shell metacharacters: db start/stop work,
# and no command hidden in the path runs (pg_ctl's own shell never sees it).
# pg_ctl pastes -D "DIR" into /bin/sh -c, where $(touch Y) would run; run from
# a directory the postgres user can write, where X and Y would land.
odd="$sv/a b;touch X \$(touch Y)"
mkdir -p "$sv/cwd" && chmod 777 "$sv" "$sv/cwd"
odd_ablab() { (cd "$sv/cwd" && ABLAB_DATA=$odd "$ablab" "$@"); }
out=$(odd_ablab db start 2>&1); rc=$?
fault 11 "odd data dir: db start works ($(echo "$out" | tail -n 1 | cut -c1-120))" test "$rc" = 0
fault 11 "odd data dir: db status: running" bash -c 'grep -q "^running: host=" <<<"$0"' "$(odd_ablab db status 2>&1)"
fault 11 "odd data dir: the server's socket is in the data directory" test -S "$odd/pg/.s.PGSQL.5432"
out=$(odd_ablab db stop 2>&1); rc=$?
fault 11 "odd data dir: db stop works ($out)" test "$rc" = 0 -a ! -e "$odd/pg/postmaster.pid"
odd_ablab db stop >/dev/null 2>&1	# stopped whatever failed above
fault 11 "odd data dir: no command of the path ran (no X, no Y)" \
	test -z "$(find "$sv" "$top" -maxdepth 2 \( -name X -o -name Y \) -newer "$sv/units" 2>/dev/null)"

# -- a password in --db / ABLAB_DB is never echoed
pw="host=127.0.0.1 port=1 dbname=x user=u password=secret connect_timeout=3"
out=$("$ablab" --db "$pw" report 1 2>&1)
fault 11 "--db password: the connection error masks it ($(echo "$out" | head -n 1 | cut -c1-110))" \
	bash -c 'grep -q "password=\*\*\*" <<<"$0" && ! grep -q secret <<<"$0"' "$out"
out=$(ABLAB_DB="postgresql://u:secret@127.0.0.1:1/x?connect_timeout=3" "$ablab" report 1 2>&1)
fault 11 "ABLAB_DB URI password: not in the error" bash -c '! grep -q secret <<<"$0" && grep -q "cannot connect" <<<"$0"' "$out"
out=$("$ablab" --db "$pw" db status 2>&1)
fault 11 "db status with --db: the server shown, its password masked ($out)" \
	bash -c 'grep -q "password=\*\*\*.*: not reachable" <<<"$0" && grep -q "host=127.0.0.1" <<<"$0" && ! grep -q secret <<<"$0"' "$out"
out=$("$ablab" --db "password=secret host" report 1 2>&1)
fault 11 "--db that does not parse: not shown (libpq's parse error would quote it)" \
	bash -c '! grep -q secret <<<"$0" && grep -q "not a valid conninfo" <<<"$0"' "$out"
