"""GET /livez and GET /readyz: what an orchestrator asks before sending traffic."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stop_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """New connections fail as they do when the server is down; the open one is closed."""

    def refused(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("connection refused (the database is stopped)")

    connection.close()  # an in-memory SQLite test database stays open: its cursors fail instead
    monkeypatch.setattr(connection, "get_new_connection", refused)
    monkeypatch.setattr(connection, "cursor", refused)
    pool = getattr(connection, "pool", None)
    if pool is not None:
        monkeypatch.setattr(pool, "connection", refused)


def test_livez_answers_while_the_process_does() -> None:
    response = Client().get("/livez")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_answers_200_when_everything_answers() -> None:
    response = Client().get("/readyz")

    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["database"] == "ok"


def test_readyz_answers_503_naming_the_database_while_it_is_stopped_and_200_once_it_is_back(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as stopped:
        stop_the_database(stopped)
        down = Client().get("/readyz")

    back = Client().get("/readyz")

    assert down.status_code == 503
    assert down.json()["failed"] == ["database"]
    assert down.json()["database"] == "unavailable"
    assert back.status_code == 200


def test_readyz_names_the_event_log_when_its_redis_is_down(settings: Any) -> None:
    from lifeassistant.event_log import _log_for

    settings.EVENTS_REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    _log_for.cache_clear()
    try:
        response = Client().get("/readyz")
    finally:
        _log_for.cache_clear()

    assert response.status_code == 503
    assert response.json()["failed"] == ["event_log"]


def test_healthz_stays() -> None:
    assert Client().get("/healthz").status_code == 200
