"""Spend one request of a rate budget in Redis in a single atomic step.

DRF's ``SimpleRateThrottle`` keeps the times of recent requests as one cached list: it
reads the list, decides, and writes the list back. Requests arriving together all read
the same list, all pass, and the last write wins, so a burst of parallel requests went
through a budget whole (20 parallel sign-in attempts against ``5/minute``: up to 20
allowed), and each decision cost two round trips and a pickled list that grows with the
rate. Here the list is a sorted set of request times and one Lua script trims it, counts
it and adds the new request only if it fits: one round trip, and Redis runs the script
alone, so parallel requests are counted one by one.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCacheClient

# KEYS[1]: the budget's sorted set. ARGV: now (seconds), window (seconds), limit, member.
# Entries as old as the window or older are dropped first, as DRF does. Scores come back
# as strings: a Lua number returned to Redis would be cut to an integer.
_SPEND = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
  return {1, ''}
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {0, oldest[2]}
"""

_script: Any = None  # redis-py's Script: EVALSHA, loading the script where a server lacks it


@dataclass(frozen=True)
class Spent:
    """The outcome of one attempt: ``allowed`` and, when refused, the time of the oldest
    request in the window (the budget frees a request when it ages out)."""

    allowed: bool
    oldest: float | None


def redis_of(backend: Any) -> redis.Redis | None:
    """The Redis client behind a Django cache backend (or ``django.core.cache.cache``, a
    proxy that ``isinstance`` cannot see through); None for any other backend."""
    client = getattr(backend, "_cache", None)  # RedisCache's client; LocMemCache's dict
    if isinstance(client, RedisCacheClient):
        redis_client: redis.Redis = client.get_client(write=True)
        return redis_client
    return None


def spend(client: redis.Redis, key: str, *, now: float, window: float, limit: int) -> Spent:
    """Add a request at ``now`` to the budget ``key`` if fewer than ``limit`` fell in the
    last ``window`` seconds."""
    global _script
    if _script is None:
        _script = client.register_script(_SPEND)
    # A unique member: two requests in the same microsecond are still two.
    allowed, oldest = _script(keys=[key], args=[repr(now), repr(float(window)), limit, uuid.uuid4().hex], client=client)
    return Spent(bool(allowed), None if allowed else float(oldest))


def seconds_until_free(spent: Spent, *, now: float, window: float) -> float:
    """How long a refused request waits until the oldest one in the window ages out."""
    if spent.oldest is None:
        return 0.0
    return max(0.0, window - (now - spent.oldest))
