#!/usr/bin/env bash
# Run the load benchmark against a real stack on this machine: an instant model, PostgreSQL,
# Redis, and the Procfile's `web` and `worker` lines exactly as production runs them
# (gunicorn with uvicorn workers, a Celery worker; see bench/procfile.sh). Starts them, runs
# `python -m bench.load` with the arguments given and `python -m bench.stored` (bytes per
# reply, in the database and in this run), then stops them.
#
#   bash bench/stack.sh --clients 8 --clients 32 --seconds 20
#
# BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/lifeassistant_bench; created
# when missing), BENCH_BROKER_URL and BENCH_CACHE_URL (default Redis databases 11 and 12) choose
# the services. The database is migrated and gets a `bench` user; its rows stay afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
DATABASE_URL=${BENCH_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/lifeassistant_bench}
BROKER=${BENCH_BROKER_URL:-redis://127.0.0.1:6379/11}
CACHE=${BENCH_CACHE_URL:-redis://127.0.0.1:6379/12}
RUN=$(mktemp -d)
. bench/procfile.sh
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

cleanup() {
  stop_pidfiles "$RUN/web.pid" "$RUN/worker.pid" "$RUN/model.pid"
  wait 2>/dev/null || true
  rm -rf "$RUN"
}
trap cleanup EXIT

"$PY" -m bench.instant_model --port 0 --port-file "$RUN/model.port" >/dev/null & echo $! >"$RUN/model.pid"
for _ in $(seq 1 50); do [ -s "$RUN/model.port" ] && break; sleep 0.1; done

export DATABASE_URL
export CELERY_BROKER_URL="$BROKER" CACHE_URL="$CACHE"
export LLM_MODEL=openai/instant LLM_API_BASE="http://127.0.0.1:$(cat "$RUN/model.port")/v1" LLM_API_KEY=bench
export DEBUG=false SECRET_KEY=bench-only-not-secret ALLOWED_HOSTS=127.0.0.1 SECURE_SSL_REDIRECT=false SECURE_COOKIES=false
export MESSAGE_RATE=1000000/minute LOG_LEVEL=WARNING

case "$DATABASE_URL" in
  postgres*) dbname=${DATABASE_URL##*/}; createdb -h 127.0.0.1 -U postgres "$dbname" 2>/dev/null || true ;;
esac
"$PY" manage.py migrate -v0
case "$DATABASE_URL" in
  # The database keeps its rows from run to run. Fresh planner statistics, as autovacuum
  # keeps them in production: where it is off (as on some development servers), statistics
  # from an emptier table send the history query to the wrong index (~30 ms instead of 0.1).
  postgres*) "$PY" manage.py dbshell -- -qc ANALYZE ;;
esac
"$PY" manage.py bootstrap --demo-user --username bench --password bench-pass-123 >/dev/null

# Metrics as production runs them (METRICS_ENABLED=false to compare): each service its own
# multiprocess directory; the web line's gunicorn config file wipes it and marks dead workers.
mkdir -p "$RUN/metrics-web" "$RUN/metrics-worker"
export PROMETHEUS_MULTIPROC_DIR="$RUN/metrics-worker"
procfile_start worker "$RUN/worker.log"; echo $! >"$RUN/worker.pid"
export PORT PROMETHEUS_MULTIPROC_DIR="$RUN/metrics-web"
PORT=$(free_port)
procfile_start web "$RUN/web.log"; echo $! >"$RUN/web.pid"
for _ in $(seq 1 100); do
  "$PY" - "$PORT" <<'PY' 2>/dev/null && break
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/schema/", timeout=2)
PY
  sleep 0.3
done
# bench.load's warm-up waits for its replies: the worker is up once they are done.

SINCE=$("$PY" -c 'from datetime import datetime, timezone; print(datetime.now(timezone.utc).isoformat())')
"$PY" -m bench.load --url "http://127.0.0.1:$PORT" --username bench --password bench-pass-123 \
  --web-pid "$(cat "$RUN/web.pid")" --worker-pid "$(cat "$RUN/worker.pid")" "$@" || {
  echo "--- web log"; tail -20 "$RUN/web.log"; echo "--- worker log"; tail -20 "$RUN/worker.log"; exit 1; }
"$PY" -m bench.stored --username bench --since "$SINCE"
