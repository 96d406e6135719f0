"""The Redis cache keeps its connections across requests (docs/performance.md)."""

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


def test_every_cache_call_of_a_process_goes_through_one_client_per_pool() -> None:
    # The stock backend built a redis.Redis (and its table of response callbacks) per call.
    first, second = (SharedPoolRedisCache("redis://127.0.0.1:6379/15", {}) for _ in range(2))
    other = SharedPoolRedisCache("redis://127.0.0.1:6379/14", {})
    client = first._cache.get_client(write=True)
    assert first._cache.get_client() is client
    assert second._cache.get_client("any-key") is client
    assert other._cache.get_client() is not client
    assert client.connection_pool is first._cache._get_connection_pool(True)
