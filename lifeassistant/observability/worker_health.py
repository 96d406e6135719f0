"""The Celery worker's readiness file: written when the worker is ready to take tasks,
removed when it shuts down. An orchestrator's probe tests that it exists
(``test -f $WORKER_READY_FILE``); ``celery -A lifeassistant inspect ping`` asks the
worker itself."""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)


def mark_ready() -> None:
    path = settings.WORKER_READY_FILE
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("ready\n", encoding="utf-8")


def mark_not_ready() -> None:
    path = settings.WORKER_READY_FILE
    if path:
        Path(path).unlink(missing_ok=True)
