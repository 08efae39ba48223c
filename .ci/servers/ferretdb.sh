#!/usr/bin/env bash
# FerretDB v1 (MongoDB wire protocol) on 127.0.0.1, built with Go from the module proxy, on a private
# PostgreSQL (Debian's package) reached over a Unix socket in the state folder.
#   ferretdb.sh start | stop | fetch   (state under $GOV_CI_STATE, binary cached under $GOV_CI_CACHE)
# GOV_FERRETDB_BACKEND=sqlite runs it on SQLite files instead (no PostgreSQL needed): FerretDB's SQLite
# backend finds a document by `_id` with a scan, so it slows as collections grow.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
version=v1.24.2
cache="${GOV_CI_CACHE:-$HOME/.cache/gov-ci}"
state="${GOV_CI_STATE:-/tmp/gov-ci-servers}/ferretdb"
port="${GOV_FERRETDB_PORT:-27017}"
backend="${GOV_FERRETDB_BACKEND:-postgresql}"
# Built with one patch (ferretdb-id-index.patch): an equality filter on `_id` uses the `_id` index.
patch_file="$(dirname "$0")/ferretdb-id-index.patch"
binary="$cache/ferretdb-$version-id-index/ferretdb"

fetch() {
  [ "$backend" = postgresql ] && postgres_bin >/dev/null
  [ -x "$binary" ] && return
  echo "ferretdb: building $version with Go from the module proxy" >&2
  # `go install pkg@version` asks the proxy for the module's version list, which it refuses for this
  # module; downloading the exact version and building inside it uses the module's own go.sum.
  local src
  src="$(GOFLAGS=-modcacherw go mod download -json "github.com/FerretDB/FerretDB@$version" |
    sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  local work
  work="$(mktemp -d)"
  cp -r "$src/." "$work"
  chmod -R u+w "$work"
  patch -s -d "$work" -p1 <"$patch_file"
  # The version file is generated from git in FerretDB's own build; the module zip has none.
  echo "$version" >"$work/build/version/version.txt"
  mkdir -p "$(dirname "$binary")"
  (cd "$work" && GOTOOLCHAIN=local GOFLAGS=-modcacherw go build -trimpath -o "$binary.tmp" ./cmd/ferretdb)
  mv "$binary.tmp" "$binary"
  rm -rf "$work"
}

# The newest installed PostgreSQL's bin folder, installing Debian's package when there is none.
postgres_bin() {
  if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    echo "ferretdb: installing PostgreSQL (Debian's package)" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)"
}

# PostgreSQL refuses to run as root: as root it runs as Debian's `postgres` user.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# PostgreSQL's own folder is under /tmp, where the postgres user can reach it whatever the state
# folder's parents allow; the state folder records where.
start_postgres() {
  local bin pg
  bin="$(postgres_bin)"
  pg="$(mktemp -d /tmp/gov-ci-postgres.XXXXXX)"
  echo "$pg" >"$state/pg-dir"
  mkdir -p "$pg/socket"
  [ "$(id -u)" = 0 ] && chown -R postgres "$pg"
  as_postgres "$bin/initdb" -D "$pg/data" -U postgres -A trust --no-sync >"$state/initdb.log" 2>&1
  # A throwaway test server: durability traded for speed (a crash loses the whole state folder anyway).
  as_postgres "$bin/pg_ctl" -D "$pg/data" -l "$pg/postgres.log" -w -t 60 start -o \
    "-c listen_addresses='' -c unix_socket_directories='$pg/socket' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=500 -c shared_buffers=256MB" \
    >/dev/null
  as_postgres "$bin/createdb" -h "$pg/socket" -U postgres ferretdb
}

start() {
  fetch
  stop
  rm -rf "$state" && mkdir -p "$state"
  local storage
  # FerretDB v1 deadlocks for good when more commands arrive at once than its PostgreSQL pool has
  # connections (every connection idle, no command answered), so its pool is sized above what the
  # topology's processes send at once.
  if [ "$backend" = postgresql ]; then
    start_postgres
    storage=(--handler=postgresql "--postgresql-url=postgres://postgres@/ferretdb?host=$(cat "$state/pg-dir")/socket&pool_max_conns=400")
  else
    mkdir -p "$state/data"
    storage=(--handler=sqlite "--sqlite-url=file:$state/data/?_pragma=synchronous(normal)")
  fi
  nohup "$binary" "${storage[@]}" --state-dir="$state" \
    --listen-addr="127.0.0.1:$port" --debug-addr="127.0.0.1:0" --telemetry=disable --log-level=warn \
    >"$state/server.log" 2>&1 &
  echo $! >"$state/pid"
  wait_listening "ferretdb $version ($backend)" "$port" "$state/pid" 30 "$state/server.log"
}

stop() {
  stop_pidfile "$state/pid"
  [ -f "$state/pg-dir" ] || return 0
  local pg
  pg="$(cat "$state/pg-dir")"
  if [ -f "$pg/data/postmaster.pid" ]; then
    as_postgres "$(postgres_bin)/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$pg" "$state/pg-dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  fetch) fetch ;;
  *) echo "usage: $0 start|stop|fetch" >&2; exit 2 ;;
esac
