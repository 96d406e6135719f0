"""System checks for deployments that run several processes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Warning


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
            hint="Set CACHE_URL=redis://... (the README's production-like setup under 'Configuration').",
            id="lifeassistant.W001",
        )
    ]
