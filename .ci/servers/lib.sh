# Shared by the server scripts: wait for a started server, stop it by its pid file.

# wait_listening NAME PORT PIDFILE SECONDS LOG...: returns once PORT accepts connections; exits 1 with
# the logs' tails if the process ended or SECONDS passed first.
wait_listening() {
  local name="$1" port="$2" pidfile="$3" seconds="$4"
  shift 4
  local deadline=$((SECONDS + seconds))
  while [ "$SECONDS" -lt "$deadline" ]; do
    if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$name: listening on 127.0.0.1:$port (pid $(cat "$pidfile"))" >&2
      return 0
    fi
    if ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "$name: the server exited; its log follows" >&2
      tail -50 "$@" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
  echo "$name: not listening on $port after $seconds s" >&2
  exit 1
}

# stop_pidfile PIDFILE: SIGTERM, up to 30 s to exit, then SIGKILL.
stop_pidfile() {
  local pidfile="$1"
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}
