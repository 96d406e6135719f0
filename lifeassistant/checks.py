"""System checks for deployments that run several processes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning


def shared_cache_with_a_broker(**_: Any) -> list[Warning]:
    """With a broker, replies run in other processes than the web's; a process-local cache
    then keeps what must be shared per process: the skill catalog's version (a skill
    edited in the admin reaches no other process until it restarts), throttles and the
    light context."""
    backend = settings.CACHES["default"]["BACKEND"]
    if settings.CELERY_TASK_ALWAYS_EAGER or "RedisCache" in backend:
        return []
    return [
        Warning(
            "CELERY_BROKER_URL is set but the cache is process-local: skill edits, throttles and the "
            "light context are not shared between the web workers and the Celery worker.",
            hint="Set CACHE_URL=redis://... (docs/operations.md: a production-like local setup).",
            id="lifeassistant.W001",
        )
    ]


def shared_cache_in_production(**_: Any) -> list[Error]:
    """With DEBUG off, a process-local cache is refused: each web worker would keep its own
    sign-in and message budgets (a guesser spreads over them), and the local cache's
    entries can be evicted, throttle counters included."""
    if settings.DEBUG or "RedisCache" in settings.CACHES["default"]["BACKEND"]:
        return []
    return [
        Error(
            "DEBUG is false but the cache is process-local: sign-in and message throttles would be "
            "per process and their counters evictable.",
            hint="Set CACHE_URL=redis://... (docs/operations.md: a production-like local setup).",
            id="lifeassistant.E001",
        )
    ]
