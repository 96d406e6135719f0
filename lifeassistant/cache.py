"""The shared cache may be down: what counts as a cache fault, and how callers survive one.

Throttle counters, the light context and the catalog version live in the default cache
(Redis in production). None of them is worth failing a request for: callers catch
``CACHE_ERRORS``, log, and go on as if the cache were empty (fail open). The health
check reports the fault.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

import redis
from django.core.cache import cache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

from .observability.metrics import record_cache_fault

logger = logging.getLogger("lifeassistant.cache")

# Connection refused, timeouts and protocol errors from the Redis client; OSError for
# socket faults surfacing outside redis-py's own exceptions.
CACHE_ERRORS: tuple[type[BaseException], ...] = (RedisError, OSError)


def log_cache_fault(what: str, exc: BaseException) -> None:
    """One warning per fault, naming what went on without the cache."""
    logger.warning("cache unavailable, %s without it: %s: %s", what, type(exc).__name__, exc)
    record_cache_fault()


def cache_status() -> str:
    """"ok" when the default cache answers a round trip, else "unavailable"."""
    try:
        cache.set("health:ping", "1", 10)
        ok = cache.get("health:ping") == "1"
    except CACHE_ERRORS as exc:
        log_cache_fault("health check", exc)
        return "unavailable"
    return "ok" if ok else "unavailable"


_POOLS: dict[tuple[str, str], redis.ConnectionPool] = {}
_CLIENTS: dict[redis.ConnectionPool, redis.Redis] = {}
_POOLS_LOCK = threading.Lock()


class SharedPoolRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, drawing connections from one pool per process and server,
    through one ``redis.Redis`` per pool."""

    # Set by RedisCacheClient.__init__; django-stubs leave its private attributes out.
    _servers: list[str]
    _pool_class: type[redis.ConnectionPool]
    _pool_options: dict[str, Any]
    _client: type[redis.Redis]

    def _get_connection_pool(self, write: bool) -> Any:
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        key = (self._servers[index], repr(sorted(self._pool_options.items())))
        with _POOLS_LOCK:
            pool = _POOLS.get(key)
            if pool is None:  # redis-py resets a pool inherited across a fork (gunicorn --preload)
                pool = _POOLS[key] = self._pool_class.from_url(self._servers[index], **self._pool_options)
        return pool

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # The stock client builds a new redis.Redis for every cache call, and redis-py fills
        # a table of ~170 response callbacks in each: 6 per message POST, ~7% of its CPU.
        # A client holds no connection of its own (the pool does) and is thread-safe.
        pool = self._get_connection_pool(write)
        client = _CLIENTS.get(pool)
        if client is None:
            with _POOLS_LOCK:
                client = _CLIENTS.setdefault(pool, self._client(connection_pool=pool))
        return client


class SharedPoolRedisCache(RedisCache):
    """The Redis cache backend (``CACHE_URL=redis://…``) with connections kept across requests.

    Django keeps one cache object per thread or async context, and under ASGI every request
    is a new one: the stock backend opened a new pool, so a TCP connect and a health check,
    for each request.
    """

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedPoolRedisCacheClient
