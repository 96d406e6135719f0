"""A broker with a process-local cache is flagged: skill edits would not reach the worker."""

from __future__ import annotations

from lifeassistant.checks import shared_cache_with_a_broker

LOCMEM = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
REDIS = {"default": {"BACKEND": "lifeassistant.cache.SharedPoolRedisCache", "LOCATION": "redis://127.0.0.1:6379/1"}}


def test_a_broker_with_a_process_local_cache_warns(settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CACHES = LOCMEM
    assert [warning.id for warning in shared_cache_with_a_broker()] == ["lifeassistant.W001"]


def test_a_shared_cache_or_no_broker_is_fine(settings) -> None:
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CACHES = REDIS
    assert shared_cache_with_a_broker() == []
    settings.CELERY_TASK_ALWAYS_EAGER = True
    settings.CACHES = LOCMEM
    assert shared_cache_with_a_broker() == []


def test_a_process_local_cache_is_refused_with_debug_off(settings) -> None:
    from lifeassistant.checks import shared_cache_in_production

    settings.DEBUG = False
    settings.CACHES = LOCMEM
    assert [error.id for error in shared_cache_in_production()] == ["lifeassistant.E001"]
    settings.CACHES = REDIS
    assert shared_cache_in_production() == []
    settings.DEBUG = True
    settings.CACHES = LOCMEM
    assert shared_cache_in_production() == []
