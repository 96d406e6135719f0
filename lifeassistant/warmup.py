"""What the first requests of a process would load, loaded before it serves them.

A language model file, a model map, a broker transport: each is loaded once per process,
and loaded by a request it holds the GIL for tens of milliseconds while every other
request of the process waits (after a deploy, the first burst of messages). The ASGI
entry point runs these steps at import: under gunicorn's ``--preload`` that is the parent,
so the workers it forks share what was loaded. Apps register their steps in ``ready()``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

logger = logging.getLogger(__name__)

_steps: list[Callable[[], object]] = []


def register(step: Callable[[], object]) -> None:
    if step not in _steps:
        _steps.append(step)


def load_urlconf() -> None:
    """Import the URLconf and every view module it names: Django does it on a process's
    first request (~0.2 s of CPU here), holding the GIL while the rest of the burst waits."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - the property imports the modules


def warm_up() -> None:
    """Run every registered step; a failing step is logged, and loads on first use instead."""
    for step in _steps:
        try:
            step()
        except Exception:
            logger.warning("warm-up step %s failed; it loads on first use", getattr(step, "__name__", step), exc_info=True)
