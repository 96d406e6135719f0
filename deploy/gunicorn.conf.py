"""gunicorn's configuration for production: ``gunicorn -c deploy/gunicorn.conf.py lifeassistant.asgi:application``.

The serving options (ASGI workers, preload, bind) stay on the command line or in
``GUNICORN_CMD_ARGS``; this file holds the hooks that metrics and traces need when the
app runs in several worker processes:

- the Prometheus multiprocess directory (``PROMETHEUS_MULTIPROC_DIR``) is wiped as the
  server starts, so values of a previous run are not summed with this one's;
- a worker that exits is marked dead, so it stops counting in the live gauges;
- the tracing SDK (an exporter thread) starts in each worker after the fork, not in the
  parent that loaded the app (``--preload``);
- what the parent loaded is frozen out of the garbage collector's sight before the fork.
"""

import os

# How long an idle client connection stays open (the uvicorn worker's keep-alive). gunicorn's
# default, 2 s, is shorter than what clients and proxies keep an idle connection for (httpx
# 5 s, nginx's upstream keepalive and cloud load balancers 60 s): a request sent on one the
# server has just closed fails ("server disconnected", a 502 behind a proxy), which a
# 200-person burst met once a run (docs/performance.md, seventh pass). The server must be
# the side that waits longer. WEB_KEEPALIVE_SECONDS changes it; `--keep-alive` still wins.
keepalive = int(os.environ.get("WEB_KEEPALIVE_SECONDS", "75"))

# Set before the app is loaded (this file is read first): the app starts no tracing SDK in
# the parent; each worker starts its own in post_fork (lifeassistant.observability.tracing).
os.environ["LIFEASSISTANT_TRACING_AFTER_FORK"] = "1"


def on_starting(server):  # noqa: ANN001 - gunicorn's hook signature
    from lifeassistant.observability.metrics import wipe_multiprocess_directory

    wipe_multiprocess_directory()


def when_ready(server):  # noqa: ANN001
    """The app is loaded (``--preload``) and the workers not yet forked: freeze what it holds.

    What the parent loaded lives as long as the workers: out of the garbage collector's sight,
    a worker's full collection no longer walks its ~150,000 objects (one of 72 ms, holding the
    GIL, in 400 message POSTs), nor writes to the pages it shares with the parent (the pattern
    the gc documentation gives for fork; the Celery worker does the same, lifeassistant/celery.py).
    docs/performance.md, eighth pass.
    """
    import gc

    gc.collect()
    gc.freeze()


def post_fork(server, worker):  # noqa: ANN001
    from lifeassistant.observability import tracing

    tracing.start_sdk()


def child_exit(server, worker):  # noqa: ANN001
    from lifeassistant.observability.metrics import mark_process_dead

    mark_process_dead(worker.pid)
