#!/usr/bin/env bash
# The concurrency benchmark against a real stack on this machine: the paced model
# (bench/paced_model.py: 0.5 s to the first chunk, 50 chunks a second, 300 chunks), a
# PostgreSQL database, a Redis server of its own (so its connection counter is this
# stack's alone), and the Procfile's `web` and `worker` lines exactly as production runs
# them. Starts them, runs `python -m bench.concurrency` for each --people N, then stops them.
#
#   bash bench/concurrency.sh --people 20 --people 100 [--json out.json] [--timeout 120]
#   bash bench/concurrency.sh --embedded --people 20   # no broker: replies in the web process
#   bash bench/concurrency.sh --open-streams 1000      # one web process holding 1,000 open streams
#
# --embedded runs the embedded defaults: no broker, no Redis, the in-process event log, a
# SQLite database, and the Procfile's `web` line alone with WEB_CONCURRENCY=1 (the
# in-process log is one process's). --open-streams N starts no worker and one web process
# (WEB_CONCURRENCY=1), and runs bench/open_streams.py instead of the driver: N replies stay
# pending, their N event streams open, and it prints the web worker's memory and the Redis
# connections held with them. Other arguments go to the driver (bench/concurrency.py).
# BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/lifeassistant_concurrency,
# created when missing) and BENCH_REDIS_URL (default: a redis-server started on a free port,
# without persistence) choose the services; PACED_MODEL_ARGS is passed to the model, e.g.
# "--first-chunk-delay 1 --chunks 100". WEB_CONCURRENCY and WORKER_CONCURRENCY, when set,
# reach the Procfile's lines; WORKER_PROCESSES (default 1) is how many copies of the worker
# line run, WORKER_CONCURRENCY (default 200 / WORKER_PROCESSES) replies each.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
RUN=$(mktemp -d)
. bench/procfile.sh
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

EMBEDDED=0
OPEN_STREAMS=0
PEOPLE=()
DRIVER=()
while [ $# -gt 0 ]; do
  case "$1" in
    --embedded) EMBEDDED=1 ;;
    --open-streams) OPEN_STREAMS=$2; shift ;;
    --people) PEOPLE+=("$2"); DRIVER+=("$1" "$2"); shift ;;
    *) DRIVER+=("$1") ;;
  esac
  shift
done
[ ${#PEOPLE[@]} -gt 0 ] || { PEOPLE=(20); DRIVER+=(--people 20); }
MOST=$(printf '%s\n' "${PEOPLE[@]}" | sort -n | tail -1)

cleanup() {
  stop_pidfiles "$RUN/web.pid" "$RUN"/worker.*.pid "$RUN/model.pid" "$RUN/redis.pid"
  wait 2>/dev/null || true
  rm -rf "$RUN"
}
trap cleanup EXIT

# shellcheck disable=SC2086 # PACED_MODEL_ARGS is a list of arguments
"$PY" -m bench.paced_model --port 0 --port-file "$RUN/model.port" ${PACED_MODEL_ARGS:-} >"$RUN/model.log" 2>&1 &
echo $! >"$RUN/model.pid"
for _ in $(seq 1 50); do [ -s "$RUN/model.port" ] && break; sleep 0.1; done
MODEL="http://127.0.0.1:$(cat "$RUN/model.port")"

export LLM_MODEL=openai/paced LLM_API_BASE="$MODEL/v1" LLM_API_KEY=bench
export DEBUG=false SECRET_KEY=bench-only-not-secret ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false SECURE_COOKIES=false
export MESSAGE_RATE=1000000/minute LOG_LEVEL=WARNING
unset CELERY_BROKER_URL CACHE_URL EVENTS_REDIS_URL

REDIS=""
if [ "$EMBEDDED" = 1 ]; then
  # The embedded defaults are a development setup: DEBUG on (with DEBUG off a process-local
  # cache is refused at start, lifeassistant.E001).
  export DATABASE_URL="sqlite:///$RUN/embedded.sqlite3" WEB_CONCURRENCY=1 DEBUG=true
else
  export DATABASE_URL=${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/lifeassistant_concurrency}
  # The worker line runs WORKER_PROCESSES times (a Procfile process type scaled to N), its share
  # of the replies each. One, as deployed: two on this 2-core machine were no better within the
  # runs' spread at 100 people and worse at 200 (docs/performance.md, thirteenth pass).
  WORKER_PROCESSES=${WORKER_PROCESSES:-1}
  export WORKER_CONCURRENCY=${WORKER_CONCURRENCY:-$((200 / WORKER_PROCESSES))}
  REDIS=${BENCH_REDIS_URL:-}
  if [ -z "$REDIS" ]; then
    REDIS_PORT=$(free_port)
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$RUN" --maxclients 10000 \
      >"$RUN/redis.log" 2>&1 &
    echo $! >"$RUN/redis.pid"
    REDIS="redis://127.0.0.1:$REDIS_PORT"
    for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
  fi
  REDIS=${REDIS%/}
  case "$REDIS" in redis://*/[0-9]*) BASE=${REDIS%/*} ;; *) BASE=$REDIS ;; esac
  export CELERY_BROKER_URL="$BASE/0" CACHE_URL="$BASE/1"
  case "$DATABASE_URL" in
    postgres*) createdb -h 127.0.0.1 -U postgres "${DATABASE_URL##*/}" 2>/dev/null || true ;;
  esac
fi

"$PY" manage.py migrate -v0
case "$DATABASE_URL" in postgres*) "$PY" manage.py dbshell -- -qc ANALYZE ;; esac
"$PY" manage.py bootstrap >/dev/null
# One person per user, each with an API token (signed in beforehand, not during the burst).
"$PY" manage.py shell --no-imports -c "
from django.contrib.auth import get_user_model
from chat.api_tokens import issue_token
User = get_user_model()
for n in range($MOST):
    user, created = User.objects.get_or_create(username=f'bench-person-{n}')
    if created:
        user.set_unusable_password()
        user.save()
    print(issue_token(user, client='bench')[1])
" | grep -E '^[0-9a-f]{40}$' >"$RUN/tokens.txt"

if [ "$OPEN_STREAMS" -gt 0 ]; then
  export WEB_CONCURRENCY=1  # every stream on the one process measured
elif [ "$EMBEDDED" = 0 ]; then
  # WORKER_PROCESSES copies of the worker line (a Procfile process type scaled to N), each
  # with its share of the replies in flight and a node name of its own.
  for n in $(seq 1 "$WORKER_PROCESSES"); do
    WORKER_NAME="worker-$n" procfile_start worker "$RUN/worker.$n.log"
    echo $! >"$RUN/worker.$n.pid"
  done
fi
export PORT
PORT=$(free_port)
procfile_start web "$RUN/web.log"
echo $! >"$RUN/web.pid"
for _ in $(seq 1 100); do
  "$PY" - "$PORT" <<'PY' 2>/dev/null && break
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/schema/", timeout=2)
PY
  sleep 0.3
done

if [ "$OPEN_STREAMS" -gt 0 ]; then
  echo "Procfile web line alone ($(procfile_command web)), WEB_CONCURRENCY=1, no worker: replies stay pending"
  "$PY" -m bench.open_streams --url "http://127.0.0.1:$PORT" --tokens "$RUN/tokens.txt" --web-pid "$(cat "$RUN/web.pid")" \
    --redis-url "$BASE/1" --streams "$OPEN_STREAMS" || { echo "--- web log"; tail -20 "$RUN/web.log"; exit 1; }
  exit 0
fi
if [ "$EMBEDDED" = 1 ]; then
  echo "embedded defaults: no broker, replies in threads of the one web process, SQLite, in-process event log"
  WORKER_PIDS=(--worker-pid "$(cat "$RUN/web.pid")") SERVICES=()
else
  echo "Procfile stack: web ($(procfile_command web)), worker ($(procfile_command worker)), PostgreSQL, Redis"
  WORKER_PIDS=()
  for file in "$RUN"/worker.*.pid; do WORKER_PIDS+=(--worker-pid "$(cat "$file")"); done
  SERVICES=(--database-url "$DATABASE_URL" --redis-url "$BASE/0")
fi
"$PY" -m bench.concurrency --url "http://127.0.0.1:$PORT" --tokens "$RUN/tokens.txt" --model-url "$MODEL" \
  --web-pid "$(cat "$RUN/web.pid")" "${WORKER_PIDS[@]}" "${SERVICES[@]}" "${DRIVER[@]}" || FAILED=1
# A figure off its goal is only printed; a driver or a stack process that died fails the run.
for file in "$RUN/web.pid" "$RUN"/worker.*.pid "$RUN/model.pid"; do
  if [ -f "$file" ] && ! kill -0 "$(cat "$file")" 2>/dev/null; then
    echo "the $(basename "$file" .pid) process died during the run"; FAILED=1
  fi
done
if [ "${FAILED:-0}" = 1 ]; then
  echo "--- web log"; tail -20 "$RUN/web.log"
  for file in "$RUN"/worker.*.log; do [ -f "$file" ] && { echo "--- $(basename "$file")"; tail -20 "$file"; }; done
  exit 1
fi
