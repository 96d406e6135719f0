"""``GET /healthz``: whether the database, the cache and the Celery broker answer; and the
orchestrators' probes, ``GET /livez`` (the process answers) and ``GET /readyz`` (it can
serve: 503 naming what failed).

For load balancers and operators; no authentication, no data. 200 while the database
answers (the cache and the broker can fail open or fail a reply, not the site),
with ``"status": "degraded"`` when one of them is down; 503 without the database.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .cache import cache_status
from .event_log import EventLogUnavailable, event_log

logger = logging.getLogger(__name__)


# A request waits up to DATABASE_POOL_TIMEOUT_SECONDS for a pooled connection; the
# health check answers a load balancer sooner.
HEALTH_DATABASE_TIMEOUT_SECONDS = 2.0


def database_status() -> str:
    pool = getattr(connection, "pool", None)  # PostgreSQL's connection pool; None on SQLite
    try:
        if pool is not None:
            # Django opens its pool on the first query; a fresh process's first request
            # may be this one (a load balancer waiting for 200 before sending traffic).
            pool.open()
            with pool.connection(timeout=HEALTH_DATABASE_TIMEOUT_SECONDS) as raw:
                raw.execute("SELECT 1")
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
    except Exception as exc:  # Django's DatabaseError, or psycopg's own from the pool
        logger.warning("health: database unavailable: %s: %s", type(exc).__name__, exc)
        return "unavailable"
    return "ok"


def broker_status() -> str:
    """"eager" when tasks run in-process (no broker), else whether the broker accepts a connection."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    from .celery import app

    try:
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=1, interval_start=0, timeout=2)
    except Exception as exc:  # kombu raises the transport's own errors
        logger.warning("health: broker unavailable: %s: %s", type(exc).__name__, exc)
        return "unavailable"
    return "ok"


@never_cache
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    checks = {"database": database_status(), "cache": cache_status(), "broker": broker_status()}
    healthy = all(value in ("ok", "eager") for value in checks.values())
    body = {"status": "ok" if healthy else "degraded", **checks}
    return JsonResponse(body, status=200 if checks["database"] == "ok" else 503)


@never_cache
@require_GET
def live(request: HttpRequest) -> JsonResponse:
    """The process answers requests: nothing else is checked (a restart would not fix a database)."""
    return JsonResponse({"status": "ok"})


def event_log_status() -> str:
    """Whether the reply event log answers (Redis; the in-process log always does)."""
    log = event_log()
    try:
        log.exists(0)
    except EventLogUnavailable as exc:
        logger.warning("health: event log unavailable: %s", exc)
        return "unavailable"
    return "ok"


@never_cache
@require_GET
def ready(request: HttpRequest) -> JsonResponse:
    """Ready to serve: the database, the cache, the broker and the event log answer.

    503 with ``failed`` naming each that did not, so a load balancer stops sending traffic
    and an operator reads why."""
    checks = {
        "database": database_status(),
        "cache": cache_status(),
        "broker": broker_status(),
        "event_log": event_log_status(),
    }
    failed = [name for name, value in checks.items() if value not in ("ok", "eager")]
    body: dict[str, object] = {"status": "unavailable" if failed else "ok", **checks}
    if failed:
        body["failed"] = failed
    return JsonResponse(body, status=503 if failed else 200)
