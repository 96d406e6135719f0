"""Database helpers: conflicts that a second attempt resolves (a serialization failure or a
deadlock), handing a thread's connections back, and one row read by its key."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import OperationalError, connections
from django.db.models import QuerySet

logger = logging.getLogger(__name__)

T = TypeVar("T")

# PostgreSQL's serialization_failure and deadlock_detected.
CONFLICT_SQLSTATES = frozenset({"40001", "40P01"})


def is_conflict(exc: BaseException) -> bool:
    return isinstance(exc, OperationalError) and getattr(exc.__cause__, "sqlstate", None) in CONFLICT_SQLSTATES


def one_row(queryset: QuerySet[Any, T]) -> T | None:
    """The row a queryset filtered by a key picks, or None. ``first()`` orders by the
    model's ordering, which a key makes moot and which Django compiles on every call: a
    third of the CPU of such a read, on the reply path's hottest reads."""
    return next(iter(queryset.order_by()[:1]), None)


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


def release_connections() -> None:
    """Hand this thread's database connections back to the pool, as Django does between
    requests: the next query takes one the pool has checked, so a connection PostgreSQL
    dropped meanwhile is not used, and hundreds of threads waiting on something else (a
    model, an event stream) share a pool of ten. A connection inside an atomic block
    belongs to an enclosing transaction (a test's, a caller's): it stays with its owner."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def close_connections_and_pools() -> None:
    """Close this process's database connections and their pools, as a process about to
    fork must (gunicorn's ``--preload`` warm-up): a child inheriting them would share the
    parent's sockets with its siblings, two processes on one connection, and a pool's
    threads do not survive the fork. The next query opens a new pool."""
    for connection in connections.all(initialized_only=True):
        if connection.in_atomic_block:
            continue  # a caller's transaction (a test's) stays with its owner
        connection.close()
        close_pool = getattr(connection, "close_pool", None)  # PostgreSQL's, when pooled
        if close_pool is not None:
            close_pool()
