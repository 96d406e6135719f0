"""The PostgreSQL connection pool survives connections the server dropped, and /healthz answers fast."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _drop_every_other_backend() -> None:
    """What a PostgreSQL restart, a failover or an idle timeout does to pooled connections."""
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )


def test_a_pooled_connection_the_server_dropped_is_replaced_not_a_500() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    connection.close()  # back to the pool
    _drop_every_other_backend()

    connection.close_if_unusable_or_obsolete()  # what Django does when a request starts
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_healthz_reports_the_database(client) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    response = client.get("/healthz")
    assert response.json()["database"] == "ok"
