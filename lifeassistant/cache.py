"""The shared cache may be down: what counts as a cache fault, and how callers survive one.

Throttle counters, the light context and the catalog version live in the default cache
(Redis in production). None of them is worth failing a request for: callers catch
``CACHE_ERRORS``, log, and go on as if the cache were empty (fail open). The health
check reports the fault.
"""

from __future__ import annotations

import logging

from django.core.cache import cache
from redis.exceptions import RedisError

logger = logging.getLogger("lifeassistant.cache")

# Connection refused, timeouts and protocol errors from the Redis client; OSError for
# socket faults surfacing outside redis-py's own exceptions.
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)


def log_cache_fault(what: str, exc: BaseException) -> None:
    """One warning per fault, naming what went on without the cache."""
    logger.warning("cache unavailable, %s without it: %s: %s", what, type(exc).__name__, exc)


def cache_status() -> str:
    """"ok" when the default cache answers a round trip, else "unavailable"."""
    try:
        cache.set("health:ping", "1", 10)
        ok = cache.get("health:ping") == "1"
    except CACHE_ERRORS as exc:
        log_cache_fault("health check", exc)
        return "unavailable"
    return "ok" if ok else "unavailable"
