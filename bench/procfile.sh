# Sourced by the benchmark scripts: start a process type of the repository's Procfile
# exactly as written (through a shell, as Procfile runners do, so ${VAR:-default} expands
# from the environment), with the virtualenv's commands first on PATH.
#
#   procfile_start web "$RUN/web.log"    # then $! is the process (the shell execs it)

procfile_command() {
  local line
  line=$(sed -n "s/^$1:[[:space:]]*//p" Procfile)
  if [ -z "$line" ]; then echo "Procfile: no '$1:' line" >&2; return 1; fi
  printf '%s\n' "$line"
}

procfile_start() {
  local command
  command=$(procfile_command "$1") || return 1
  PATH="$(cd "$(dirname "$PY")" && pwd):$PATH" bash -c "exec $command" >"$2" 2>&1 &
}

# Stop the processes whose pids the files hold: TERM (gunicorn and Celery shut down
# gracefully), then KILL whatever still runs after 15 s (a Celery worker waits for the
# replies it holds). Used by the scripts' exit traps.
stop_pidfiles() {
  local file pid pids=()
  for file in "$@"; do
    [ -s "$file" ] || continue
    pid=$(cat "$file")
    kill "$pid" 2>/dev/null && pids+=("$pid")
  done
  for _ in $(seq 1 150); do
    local alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
}
