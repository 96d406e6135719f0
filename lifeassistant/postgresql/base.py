"""Django's PostgreSQL backend; only its connection pool's health check differs.

After PostgreSQL restarts (or fails over), every idle connection in the pool is dead.
psycopg_pool checks the connection it is about to hand out and, when it is dead, waits
with a growing backoff (1 s, 2 s, 4 s…) before trying the next one: with four or more
idle connections the request waited past the pool's timeout and failed (a 500), though
new connections could be made at once. Here the first failed check also checks every
other idle connection (``ConnectionPool.check``: the dead ones are replaced now), so the
request waits one backoff and then gets a fresh connection.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper

_wrapping = threading.Lock()


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    @property
    def pool(self) -> Any:
        pool = super().pool
        if pool is not None and not getattr(pool, "drains_dead_connections", False):
            with _wrapping:
                if not getattr(pool, "drains_dead_connections", False):
                    drain_on_failed_check(pool)
        return pool


def drain_on_failed_check(pool: Any) -> None:
    """Make ``pool``'s health check, on a dead connection, check all its idle ones too."""
    check = pool._check  # the callback Django gave the pool (CONN_HEALTH_CHECKS)
    if check is not None:

        def check_or_drain(connection: Any) -> None:
            try:
                check(connection)
            except Exception:
                pool.check()  # uses the static check, not this callback: no recursion
                raise

        pool._check = check_or_drain
    pool.drains_dead_connections = True
