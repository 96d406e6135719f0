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


def test_many_idle_connections_the_server_dropped_do_not_make_a_request_wait_them_out() -> None:
    """After a restart every idle pooled connection is dead. The pool tried them one at a
    time with a growing backoff (1 s, 2 s, 4 s…): with six of them a request ran past the
    pool's 10 s timeout and failed. The first failed check now drops them all."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    import threading

    from django.db import connections

    def query() -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_sleep(0.2)")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=query) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    connection.close()
    assert connection.pool.get_stats()["pool_available"] >= 6
    _drop_every_other_backend()

    connection.close_if_unusable_or_obsolete()
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_healthz_reports_the_database(client) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    response = client.get("/healthz")
    assert response.json()["database"] == "ok"


def test_healthz_answers_ok_as_a_fresh_processs_first_request(client) -> None:
    """Django opens the pool on the first query: /healthz alone said 503 until another
    request came, so a load balancer waiting for 200 never sent the new process traffic."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    connection.close()
    connection.close_pool()  # as a new process starts: no pool yet, and not open once made
    assert connection.pool.closed

    response = client.get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json()["database"] == "ok"


def test_the_warm_up_leaves_no_connection_for_forked_workers_to_share() -> None:
    """Under gunicorn's --preload the warm-up runs in the parent, before it forks the web
    workers. A pooled connection it left open was inherited by both: two processes on one
    socket, and a benchmark's burst hung on it (503s, then nothing)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    from lifeassistant import warmup

    connection.close()
    warmup.warm_up()  # the skill catalog's step reads the skills

    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as admin:
        others = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchone()
    assert others == (0,)
