#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# jobs/lava/local-server.sh start|stop|status|wipe STATE_DIR
#
# A complete LAVA instance on 127.0.0.1 for tests and trials, from Debian's
# packages (lava-server, lava-dispatcher; installed if missing):
#   PostgreSQL  the system cluster (pg_ctlcluster; ablab's private clusters
#               listen on their own socket directories only and are not
#               touched)
#   gunicorn    lava-server's web UI and REST API on 127.0.0.1:$LAVA_PORT
#   lava-publisher  the event stream (so nothing waits on polling)
#   lava-scheduler  with --event-url
#   lava-worker     with --ws-url and --ping-interval 2
# plus an admin user with an API token (STATE_DIR/token), the device type
# "qemu" and one device per device dictionary in jobs/lava/devices/
# (device name BOARD-01, tagged BOARD, on worker "ablab-worker").
# No systemd needed: the daemons run in the background with their pids and
# logs in STATE_DIR.  `stop` ends exactly those pids.
#
# LAVA_OWN_DB=1 start: the instance gets a database of its own, recreated
# empty for this start (no jobs, users or tokens of earlier runs; job ids
# from 1; the job outputs under /var/lib/lava-server/default/media/job-output
# removed with it).  It is cloned from ablab_lava_template, a migrated empty
# lava-server database the first such start makes, so this costs seconds.
# `wipe` stops the daemons and removes everything this script made (both
# databases, its settings file, device dictionaries and job outputs), so
# the next start is the one of a fresh machine (`make check FRESH=1`).
#
# Environment: LAVA_PORT (default 8000), LAVA_EVENT_PORT (5500),
# LAVA_WS_PORT (8001), LAVA_OWN_DB (see above).
set -euo pipefail

ACTION=${1:-}
STATE=${2:-}
[[ $ACTION =~ ^(start|stop|status|wipe)$ && -n $STATE ]] ||
	{ echo "usage: $0 start|stop|status|wipe STATE_DIR" >&2; exit 2; }
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PORT=${LAVA_PORT:-8000}
PUB=${LAVA_EVENT_PORT:-5500}		# zmq event stream (scheduler)
WS=${LAVA_WS_PORT:-8001}		# lava-publisher's websocket (worker)
URL=http://127.0.0.1:$PORT
PY=/usr/bin/python3	# LAVA's modules are Debian's; a pyenv python may come first in PATH
mkdir -p "$STATE"
STATE=$(cd "$STATE" && pwd)
# the daemons run as lavaserver/postgres, who may not enter the caller's
# directory (a 0700 checkout): work from / with absolute paths only
cd /
T0=$EPOCHREALTIME
say() { awk -v a="$T0" -v b="$EPOCHREALTIME" -v m="$*" 'BEGIN { printf "[%5.1fs] lava: %s\n", b - a, m }'; }
die() { echo "local-server.sh: error: $*" >&2; exit 1; }

# wait_for DESCRIPTION SECONDS CMD...: until CMD succeeds, or fail with its log
wait_for() {
	local what=$1 secs=$2 end
	shift 2
	end=$((SECONDS + secs))
	until "$@" >/dev/null 2>&1; do
		[[ $SECONDS -lt $end ]] || die "$what not ready after ${secs}s (logs in $STATE)"
		sleep 0.2
	done
}

stop_pids() {
	local f pid
	for f in "$STATE"/*.pid; do
		[[ -e $f ]] || continue
		pid=$(<"$f")
		# each daemon was started with setsid: its pid is its process group
		if kill -0 "$pid" 2>/dev/null; then kill -TERM -- "-$pid" 2>/dev/null || true; fi
		rm -f "$f"
	done
	return 0
}

if [[ $ACTION == stop ]]; then
	stop_pids
	exit 0
fi
if [[ $ACTION == status ]]; then
	curl -fsS "$URL/api/v0.2/system/version/" && echo
	exit $?
fi
JOB_OUTPUT=/var/lib/lava-server/default/media/job-output
# psql as postgres on the system cluster (nothing to do when it is not there)
pg() { runuser -u postgres -- psql -X -Atq "$@"; }
if [[ $ACTION == wipe ]]; then
	stop_pids
	say "wiping the local LAVA instance (databases, settings, devices, job outputs)"
	# the databases live in the system cluster "main": started for the drop
	# when it is down (and stopped again), so a wipe never leaves them behind
	if command -v pg_lsclusters >/dev/null; then
		v=$(pg_lsclusters -h 2>/dev/null | awk '$2 == "main" { print $1 }' | head -n 1)
		if [[ -n $v ]]; then
			was=$(pg_lsclusters -h | awk -v v="$v" '$1 == v && $2 == "main" { print $4 }')
			[[ $was == online ]] || pg_ctlcluster "$v" main start
			for db in lavaserver ablab_lava_template; do
				pg -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" ||
					die "cannot drop the LAVA database $db in PostgreSQL $v/main"
			done
			[[ $was == online ]] || pg_ctlcluster "$v" main stop
		fi
	fi
	rm -f /etc/lava-server/settings.d/50-ablab-local.yaml
	for dict in "$HERE"/devices/*.jinja2; do
		rm -f "/etc/lava-server/dispatcher-config/devices/$(basename "$dict" .jinja2)-01.jinja2"
	done
	for dt in "$HERE"/device-types/*.jinja2; do
		[[ -e $dt ]] && rm -f "/etc/lava-server/dispatcher-config/device-types/$(basename "$dt")"
	done
	rm -rf "${JOB_OUTPUT:?}"/*
	rm -f "$STATE/token"
	exit 0
fi

# ---- packages ----------------------------------------------------------
need=()
for p in lava-server lava-dispatcher lavacli tftpd-hpa postgresql curl; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep 'ok installed' >/dev/null || need+=("$p")
done
if [[ ${#need[@]} -gt 0 ]]; then
	say "installing ${need[*]} (apt-get)"
	[[ $EUID -eq 0 ]] || die "need root to install ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" \
		>"$STATE/apt.log" 2>&1 || { tail -n 20 "$STATE/apt.log" >&2; die "apt-get install failed"; }
fi

# ---- PostgreSQL system cluster + lava-server database -------------------
ver=$(ls /usr/lib/postgresql | sort -n | tail -n1)
if ! pg_lsclusters -h | awk -v v="$ver" '$1 == v && $2 == "main"' | grep . >/dev/null; then
	say "creating PostgreSQL $ver cluster main"
	pg_createcluster "$ver" main >"$STATE/pg.log" 2>&1
fi
if ! pg_lsclusters -h | awk -v v="$ver" '$1 == v && $2 == "main" && $4 == "online"' | grep . >/dev/null; then
	say "starting PostgreSQL $ver/main"
	pg_ctlcluster "$ver" main start >>"$STATE/pg.log" 2>&1 || die "PostgreSQL did not start (see $STATE/pg.log)"
fi
wait_for "PostgreSQL" 30 runuser -u postgres -- psql -Atqc 'SELECT 1'
if [[ ${LAVA_OWN_DB:-} == 1 ]]; then
	stop_pids	# nothing may hold the database while it is replaced
	pg -c "DROP DATABASE IF EXISTS lavaserver WITH (FORCE)" >"$STATE/owndb.log" 2>&1 ||
		{ cat "$STATE/owndb.log" >&2; die "cannot drop the lavaserver database"; }
	if [[ $(pg -c "SELECT count(*) FROM pg_database WHERE datname = 'ablab_lava_template'") == 1 ]]; then
		say "a database of its own: lavaserver recreated empty (from ablab_lava_template)"
		pg -c "CREATE DATABASE lavaserver OWNER lavaserver TEMPLATE ablab_lava_template" \
			>>"$STATE/owndb.log" 2>&1 || { cat "$STATE/owndb.log" >&2; die "cannot recreate the lavaserver database"; }
	fi	# else postinst.py below makes it (and it becomes the template)
	# job ids start again at 1: earlier outputs must not be taken for the new jobs'
	rm -rf "${JOB_OUTPUT:?}"/*
fi
if [[ ! -f /etc/lava-server/settings.d/00-database.yaml ]] ||
	! runuser -u postgres -- psql -Atqc "SELECT 1 FROM pg_database WHERE datname = 'lavaserver'" | grep 1 >/dev/null; then
	say "creating the lava-server database (postinst.py --db)"
	$PY /usr/share/lava-server/postinst.py --config --db >"$STATE/postinst.log" 2>&1 ||
		{ tail -n 20 "$STATE/postinst.log" >&2; die "lava-server database setup failed"; }
else
	runuser -u lavaserver -- lava-server manage migrate --noinput >"$STATE/migrate.log" 2>&1 ||
		{ tail -n 20 "$STATE/migrate.log" >&2; die "lava-server migrate failed"; }
fi
if [[ ${LAVA_OWN_DB:-} == 1 ]] &&
	[[ $(pg -c "SELECT count(*) FROM pg_database WHERE datname = 'ablab_lava_template'") == 0 ]]; then
	# the migrated, still empty database: the template of the next starts
	# (every migration of a lava-server upgrade is applied to the clone above)
	say "keeping the empty migrated database as ablab_lava_template"
	pg -c "CREATE DATABASE ablab_lava_template OWNER lavaserver TEMPLATE lavaserver" \
		>"$STATE/template.log" 2>&1 || { cat "$STATE/template.log" >&2; die "cannot create ablab_lava_template"; }
fi

# jobs left unfinished by an earlier instance (killed worker) would hold
# the devices until they time out: close them, free the devices
runuser -u lavaserver -- lava-server manage shell --command "
from lava_scheduler_app.models import Device, TestJob
n = TestJob.objects.exclude(state=TestJob.STATE_FINISHED).update(
    state=TestJob.STATE_FINISHED, health=TestJob.HEALTH_CANCELED)
Device.objects.exclude(state=Device.STATE_IDLE).update(state=Device.STATE_IDLE)
print(n)" >"$STATE/cleanup.log" 2>&1 || { cat "$STATE/cleanup.log" >&2; die "cannot reset leftover jobs"; }
[[ $(tail -n1 "$STATE/cleanup.log") == 0 ]] || say "cancelled $(tail -n1 "$STATE/cleanup.log") job(s) left by an earlier instance"

# events on: the scheduler and the worker react to them instead of polling
cat >/etc/lava-server/settings.d/50-ablab-local.yaml <<EOF
# written by ablab's jobs/lava/local-server.sh
EVENT_NOTIFICATION: true
EVENT_TOPIC: "org.lavasoftware.ablab"
INTERNAL_EVENT_SOCKET: "ipc:///tmp/lava.events"
EVENT_SOCKET: "tcp://127.0.0.1:$PUB"
ALLOWED_HOSTS: ["127.0.0.1", "localhost"]
DEBUG: false
EOF
chown lavaserver:lavaserver /etc/lava-server/settings.d/50-ablab-local.yaml

manage() { runuser -u lavaserver -- lava-server manage "$@"; }

# ---- daemons -------------------------------------------------------------
stop_pids
# the daemons run as lavaserver and write their own logs here
install -d -o lavaserver -g lavaserver "$STATE/logs"
chmod o+x "$STATE"
# start NAME CMD...: in the background as its own session, pid + log in STATE
start() {
	local name=$1
	shift
	setsid "$@" >"$STATE/$name.log" 2>&1 </dev/null &
	echo $! >"$STATE/$name.pid"
}
start gunicorn runuser -u lavaserver -- gunicorn3 lava_server.wsgi \
	--bind "127.0.0.1:$PORT" --workers 2 --worker-class eventlet --log-level info \
	--pythonpath /usr/lib/python3/dist-packages
start publisher runuser -u lavaserver -- lava-server manage lava-publisher --level DEBUG \
	--log-file "$STATE/logs/publisher.log" --host 127.0.0.1 --port "$WS"
start scheduler runuser -u lavaserver -- lava-server manage lava-scheduler \
	--event-url "tcp://127.0.0.1:$PUB" --level DEBUG --log-file "$STATE/logs/scheduler.log"
wait_for "lava-server REST API ($URL)" 60 curl -fsS "$URL/api/v0.2/system/version/"

# ---- admin, token, worker, device type, devices --------------------------
if ! manage users list 2>/dev/null | grep -w ablab >/dev/null; then
	manage users add ablab --superuser --staff --passwd ablab-local >/dev/null
fi
if [[ ! -s $STATE/token || ${LAVA_OWN_DB:-} == 1 ]]; then
	manage tokens add --user ablab --description ablab-test >"$STATE/token"
fi
chmod 600 "$STATE/token"	# ablab refuses a token file every user can read
manage workers list 2>/dev/null | grep -w ablab-worker >/dev/null ||
	manage workers add ablab-worker >/dev/null
WTOKEN=$(manage workers details ablab-worker 2>/dev/null | awk '/token/ { print $NF }' || true)
manage device-types list 2>/dev/null | grep -w qemu >/dev/null || manage device-types add qemu >/dev/null
for dict in "$HERE"/devices/*.jinja2; do
	board=$(basename "$dict" .jinja2)
	dev=$board-01
	manage devices list -a 2>/dev/null | grep -w "$dev" >/dev/null ||
		manage devices add "$dev" --device-type qemu --worker ablab-worker --tags "$board" >/dev/null
	# the dictionary, with ablab's device-type directory for {% extends %}
	install -D -m 0644 -o lavaserver -g lavaserver "$dict" "/etc/lava-server/dispatcher-config/devices/$dev.jinja2"
	manage devices update --health GOOD "$dev" >/dev/null 2>&1 || true
done
for dt in "$HERE"/device-types/*.jinja2; do
	[[ -e $dt ]] || continue
	install -D -m 0644 "$dt" "/etc/lava-server/dispatcher-config/device-types/$(basename "$dt")"
done

start worker lava-worker --name ablab-worker --url "$URL/" ${WTOKEN:+--token "$WTOKEN"} \
	--ws-url "http://127.0.0.1:$WS/ws/" --ping-interval 2 --level DEBUG \
	--log-file "$STATE/worker-internal.log"
worker_online() { manage workers details ablab-worker 2>/dev/null | grep -E '^state +: Online' >/dev/null; }
wait_for "lava-worker online" 60 worker_online
say "ready: $URL (token in $STATE/token)"
