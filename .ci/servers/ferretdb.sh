#!/usr/bin/env bash
# FerretDB v1 (MongoDB wire protocol, SQLite backend) on 127.0.0.1, built with Go from the module proxy.
#   ferretdb.sh start | stop   (state under $GOV_CI_STATE, binary cached under $GOV_CI_CACHE)
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
version=v1.24.2
cache="${GOV_CI_CACHE:-$HOME/.cache/gov-ci}"
state="${GOV_CI_STATE:-/tmp/gov-ci-servers}/ferretdb"
port="${GOV_FERRETDB_PORT:-27017}"
binary="$cache/ferretdb-$version/ferretdb"

fetch() {
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
  # The version file is generated from git in FerretDB's own build; the module zip has none.
  echo "$version" >"$work/build/version/version.txt"
  mkdir -p "$(dirname "$binary")"
  (cd "$work" && GOTOOLCHAIN=local GOFLAGS=-modcacherw go build -trimpath -o "$binary.tmp" ./cmd/ferretdb)
  mv "$binary.tmp" "$binary"
  rm -rf "$work"
}

start() {
  fetch
  rm -rf "$state" && mkdir -p "$state/data"
  nohup "$binary" --handler=sqlite --sqlite-url="file:$state/data/?_pragma=synchronous(normal)" --state-dir="$state" \
    --listen-addr="127.0.0.1:$port" --debug-addr="127.0.0.1:0" --telemetry=disable --log-level=warn \
    >"$state/server.log" 2>&1 &
  echo $! >"$state/pid"
  wait_listening "ferretdb $version" "$port" "$state/pid" 30 "$state/server.log"
}

stop() {
  stop_pidfile "$state/pid"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  fetch) fetch ;;
  *) echo "usage: $0 start|stop|fetch" >&2; exit 2 ;;
esac
