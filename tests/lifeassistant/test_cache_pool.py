"""The Redis cache keeps its connections across requests (issue 17)."""

from __future__ import annotations

from lifeassistant.cache import SharedPoolRedisCache
from lifeassistant.env import env_cache


def test_each_request_s_cache_object_draws_on_one_pool_per_process(monkeypatch) -> None:
    # Django builds a cache object per thread or async context, so under ASGI one per
    # request; with the stock backend each opened a pool of its own (a TCP connect each).
    monkeypatch.setenv("CACHE_URL", "redis://127.0.0.1:6379/15")
    config = env_cache("CACHE_URL", "locmem://")
    first, second = (SharedPoolRedisCache(config["LOCATION"], config) for _ in range(2))
    assert first._cache._get_connection_pool(False) is second._cache._get_connection_pool(True)


def test_different_servers_keep_different_pools() -> None:
    one = SharedPoolRedisCache("redis://127.0.0.1:6379/15", {})
    other = SharedPoolRedisCache("redis://127.0.0.1:6379/14", {})
    assert one._cache._get_connection_pool(False) is not other._cache._get_connection_pool(False)
