"""Database conflicts that a second attempt resolves: a serialization failure or a deadlock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import OperationalError

logger = logging.getLogger(__name__)

T = TypeVar("T")

# PostgreSQL's serialization_failure and deadlock_detected.
CONFLICT_SQLSTATES = frozenset({"40001", "40P01"})


def is_conflict(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and getattr(exc.__cause__, "sqlstate", None) in CONFLICT_SQLSTATES


def retry_once_on_conflict(work: Callable[[], T]) -> T:
    """Run ``work`` (which opens its own transaction); once more if the database aborted it
    for a serialization failure or a deadlock. Any other error, or a second conflict, raises."""
    try:
        return work()
    except OperationalError as exc:
        if not is_conflict(exc):
            raise
        logger.warning("transaction aborted (%s), retrying once", getattr(exc.__cause__, "sqlstate", "?"))
        return work()
