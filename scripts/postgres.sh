#!/usr/bin/env bash
# A throwaway local PostgreSQL for trying the lab on a server database:
#   scripts/postgres.sh start   start it (or say it is running) and print the URL for --database
#   scripts/postgres.sh url     print the URL of the running server
#   scripts/postgres.sh stop    stop it and remove its folder and data
# It listens on a unix socket in its folder only (no TCP port), that only its
# user (and root) may open, and lets the postgres role in without a password.
# Its folder is $OUTBOXLAB_PG_DIR, else ${TMPDIR:-/tmp}/outboxlab-postgres.
# As root it runs the server as the postgres user (PostgreSQL refuses root).
set -euo pipefail

dir=${OUTBOXLAB_PG_DIR:-${TMPDIR:-/tmp}/outboxlab-postgres}
data=$dir/data

die() { echo "postgres.sh: $*" >&2; exit 1; }

# The folder of initdb and pg_ctl: $OUTBOXLAB_PG_BIN when set, else PATH (through a symlink to the install
# folder) first, then Debian's /usr/lib/postgresql/N/bin, newest first.
find_bin() {
	local p
	if [ -n "${OUTBOXLAB_PG_BIN:-}" ]; then
		[ -x "$OUTBOXLAB_PG_BIN/initdb" ] || die "no initdb in OUTBOXLAB_PG_BIN=$OUTBOXLAB_PG_BIN"
		echo "$OUTBOXLAB_PG_BIN"
		return
	fi
	if p=$(command -v initdb 2>/dev/null); then
		p=$(dirname "$(readlink -f "$p")")
		[ -x "$p/pg_ctl" ] && { echo "$p"; return; }
	fi
	p=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$p" ] && [ -x "$p/initdb" ] && { echo "$p"; return; }
	die "no PostgreSQL server found (initdb, pg_ctl); Debian: apt-get install postgresql"
}

# as_server runs a server program as the user the server runs as.
as_server() {
	if [ "$(id -u)" = 0 ]; then
		(cd "$dir" && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

url() { echo "postgres:///postgres?host=$dir&user=postgres"; }

running() { [ -f "$data/postmaster.pid" ] && as_server "$bin/pg_ctl" status -D "$data" >/dev/null 2>&1; }

say_url() {
	echo "run a scenario on it with --database (or export OUTBOXLAB_DATABASE_URL=...):"
	url
}

start() {
	if running; then
		echo "PostgreSQL is already running in $dir"
		say_url
		return
	fi
	local t0=$SECONDS
	if [ ! -f "$data/PG_VERSION" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		chmod 700 "$dir"
		[ "$(id -u)" = 0 ] && chown postgres: "$dir"
		# --no-sync only skips initdb's own fsyncs; the server keeps fsync on.
		as_server "$bin/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync \
			>"$dir/initdb.log" 2>&1 || { tail -n 5 "$dir/initdb.log" >&2; die "initdb failed"; }
	fi
	as_server "$bin/pg_ctl" start -D "$data" -w -t 60 -s -l "$dir/postgres.log" \
		-o "-k '$dir' -c listen_addresses='' -c unix_socket_permissions=0700" ||
		{ tail -n 5 "$dir/postgres.log" >&2; die "pg_ctl start failed"; }
	echo "PostgreSQL $("$bin/pg_ctl" --version | awk '{print $3}') started in $dir ($((SECONDS - t0))s)"
	say_url
	echo "stop and remove it with: make postgres-stop"
}

stop() {
	if [ ! -d "$dir" ]; then
		echo "no PostgreSQL in $dir"
		return
	fi
	if running; then
		as_server "$bin/pg_ctl" stop -D "$data" -m fast -w -s
	fi
	rm -rf "$dir"
	echo "stopped and removed $dir"
}

bin=$(find_bin)
case ${1:-} in
start) start ;;
stop) stop ;;
url) running || die "not running; start it with: make postgres"; url ;;
*) die "usage: scripts/postgres.sh start|stop|url" ;;
esac
