"""With the cache's Redis down, signing in and posting a message still work (docs/operations.md, PostgreSQL, Redis and the broker)."""

from __future__ import annotations

import logging
import socket
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def cache_down() -> Any:
    """CACHE_URL pointing at a closed port, as the settings would build it."""
    from django.test import override_settings

    from lifeassistant.env import env_cache

    with override_settings(CACHES={"default": env_cache("NO_SUCH_VARIABLE", f"redis://127.0.0.1:{closed_port()}/0")}):
        yield


@pytest.mark.usefixtures("cache_down")
def test_api_sign_in_works_and_the_fault_is_logged(user: Any, caplog: Any) -> None:
    with caplog.at_level(logging.WARNING, logger="lifeassistant.cache"):
        response = APIClient().post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")

    assert response.status_code == 200
    assert "token" in response.json()
    assert "cache unavailable, LoginRateThrottle allowed a request without it" in caplog.text


@pytest.mark.usefixtures("cache_down")
def test_web_sign_in_works(user: Any) -> None:
    client = Client()
    response = client.post("/login/", {"username": "ana", "password": "pass-ana-123"})
    assert response.status_code == 302
    assert client.get("/").status_code == 200


@pytest.mark.usefixtures("cache_down")
def test_posting_a_message_works_and_the_reply_is_answered(api: Any, shipped_skills: None, send: Any) -> None:
    conversation = api.post("/api/v1/conversations/", {"title": "x"}, format="json").json()

    first = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    second = send(api, conversation["id"], {"content": "e isso?"})

    assert (first.status_code, second.status_code) == (202, 202)
    reply = api.get(f"/api/v1/messages/{second.json()['assistant_message']['id']}/").json()
    assert reply["status"] == "done"


@pytest.mark.usefixtures("cache_down")
def test_the_health_check_reports_the_cache_down() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "degraded", "database": "ok", "cache": "unavailable", "broker": "eager"}


def test_the_health_check_reports_all_well() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "eager"}


def test_the_health_check_reports_a_broker_that_is_down(settings: Any) -> None:
    from lifeassistant.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = False
    original = app.conf.broker_url
    app.conf.broker_url = f"redis://127.0.0.1:{closed_port()}/0"
    try:
        body = Client().get("/healthz").json()
    finally:
        app.conf.broker_url = original
    assert (body["status"], body["broker"]) == ("degraded", "unavailable")
