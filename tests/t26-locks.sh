# lane: side
# Board locks held by another user (issue 27 item 3), as root and as the user nobody,
# with `ablab power` holding the lock (its power command waits on a FIFO the test
# writes): a lock another uid holds is refused naming the holder's pid, uid and command,
# never called stale nor to be removed (the advice let two agents switch one board's
# power at once); only a lock file no process holds is called stale.
lt=$tmp/locks26
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }
no_remove() { ! grep -qiE 'remove|stale' <<<"$1"; }
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
	skip "t26: needs root, the user nobody and setpriv"
else
	mkdir -p "$lt/root" "$lt/nb" "$lt/nbdir"
	chown nobody "$lt/nb" "$lt/nbdir"
	mkfifo -m 666 "$lt/release"
	cat >"$lt/hold.json" <<-JSON
	{ "name": "hold26", "cpu": "test", "family": "v7",
	  "console": { "type": "tty", "device": "/dev/null" },
	  "power": { "type": "command", "on": ["sh", "-c", "echo on >\"\$0\"; read x <\"\$1\"", "$lt/nb/on", "$lt/release"],
	             "off": ["true"], "off_ms": 0 },
	  "boot": { "method": "command", "deploy": ["true"] },
	  "shell": { "prompt": "lab# " },
	  "timeouts_s": { "power": 120 } }
	JSON
	chmod 644 "$lt/hold.json"

	echo "== root holds the lock, nobody asks"
	rm -f "$lt/nb/on"
	ABLAB_LOCK_DIR=$lt/root "$ablab" power "$lt/hold.json" on >"$lt/holdA.out" 2>&1 &
	holder=$!
	if ! wait_for 30 test -s "$lt/nb/on"; then
		bad "t26: the holder did not switch the power on: $(cat "$lt/holdA.out")"
	fi
	out=$(ABLAB_LOCK_DIR=$lt/root as_nobody "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	echo "$out" | head -n 2
	fault 27.3 "nobody, root's lock held: refused (exit $rc) naming pid $holder (uid 0, ablab power)" \
		grep -q "hold26: board is in use by pid $holder (uid 0, ablab power) (lock $lt/root/hold26.lock)" <<<"$out"
	fault 27.3 "  ... and says neither remove nor stale" no_remove "$out"
	echo x >"$lt/release"
	wait $holder

	echo "== nobody holds the lock, root asks"
	rm -f "$lt/nb/on"
	ABLAB_LOCK_DIR=$lt/nbdir setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$ablab" power "$lt/hold.json" on >"$lt/holdB.out" 2>&1 &
	holder=$!
	if ! wait_for 30 test -s "$lt/nb/on"; then
		bad "t26: nobody's holder did not switch the power on: $(cat "$lt/holdB.out")"
	fi
	out=$(ABLAB_LOCK_DIR=$lt/nbdir "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	echo "$out" | head -n 2
	fault 27.3 "root, nobody's lock held: refused (exit $rc) naming pid $holder (uid $(id -u nobody), ablab power) and host" \
		grep -q "hold26: board is in use by pid $holder (uid $(id -u nobody), ablab power) on $(hostname) (lock $lt/nbdir/hold26.lock)" <<<"$out"
	fault 27.3 "  ... and says neither remove nor stale" no_remove "$out"
	echo x >"$lt/release"
	wait $holder

	echo "== nobody's lock file, not held: stale"
	out=$(ABLAB_LOCK_DIR=$lt/nbdir "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	echo "$out" | head -n 1
	check "an unheld lock of another uid: refused (exit $rc) as stale, no process holds it" \
		grep -q "hold26: lock $lt/nbdir/hold26.lock belongs to uid $(id -u nobody), who can block the board with it, and no process holds it (stale)" <<<"$out"
	out=$(ABLAB_LOCK_DIR=$lt/root as_nobody "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	check "an unheld lock nobody cannot open: refused (exit $rc), stale, owner named" \
		grep -q "hold26: cannot open lock $lt/root/hold26.lock (owner uid 0, mode 0600): Permission denied; no process holds it: it is stale" <<<"$out"

	echo "== a group-shared lock directory (jobs/systemd/ablab.tmpfiles): the lab group shares it"
	mkdir -p "$lt/shared"
	chgrp "$(id -g nobody)" "$lt/shared"
	chmod 2770 "$lt/shared"
	rm -f "$lt/nb/on"
	ABLAB_LOCK_DIR=$lt/shared "$ablab" power "$lt/hold.json" on >"$lt/holdC.out" 2>&1 &
	holder=$!
	wait_for 30 test -s "$lt/nb/on"
	out=$(ABLAB_LOCK_DIR=$lt/shared setpriv --reuid=nobody --regid="$(id -g nobody)" --init-groups "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	check "a lab group member meets root's held lock: in use by pid $holder (exit $rc)" \
		grep -q "hold26: board is in use by pid $holder (uid 0, ablab power)" <<<"$out"
	echo x >"$lt/release"
	wait $holder
	out=$(ABLAB_LOCK_DIR=$lt/shared setpriv --reuid=nobody --regid="$(id -g nobody)" --init-groups "$ablab" power "$lt/hold.json" off 2>&1); rc=$?
	check "  ... and takes the lock once root's run has ended (exit $rc)" test "$rc" = 0 || echo "$out"
fi
