"""Throttles on a shared Redis cache: a burst of parallel requests spends the budget one by one."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.test import RequestFactory
from rest_framework.request import Request
from rest_framework.test import APIClient

from chat.throttling import LoginClientThrottle, LoginRateThrottle, LoginUsernameThrottle, MessageRateThrottle, forget_sign_ins, sign_in_failed

REDIS_URL = os.environ.get("CI_REDIS_URL", "redis://127.0.0.1:6379/14")

pytestmark = pytest.mark.worker  # needs Redis, like the worker's tests


@pytest.fixture
def redis_cache(settings: Any) -> Iterator[None]:
    settings.CACHES = {
        "default": {
            "BACKEND": "lifeassistant.cache.SharedPoolRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "throttle-window-test",
        }
    }
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "login": "5/minute", "login_username_ip": "4/hour", "login_username": "3/hour"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    cache.clear()
    yield
    cache.clear()


def sign_in_request(address: str = "10.0.0.9", username: str = "ana") -> Request:
    return Request(RequestFactory().post("/login/", {"username": username, "password": "x"}, REMOTE_ADDR=address))


def burst(throttle_class: type, count: int, *, request: Any = None, view: Any = None, **sign_in: str) -> list[bool]:
    """``count`` threads spending the same budget at the same instant."""
    start = threading.Barrier(count)
    outcomes: list[bool] = []

    def attempt() -> None:
        throttle = throttle_class()
        prepared = request or sign_in_request(**sign_in)
        start.wait()
        outcomes.append(throttle.allow_request(prepared, view))

    threads = [threading.Thread(target=attempt) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


@pytest.mark.usefixtures("redis_cache")
def test_a_parallel_burst_of_sign_ins_gets_only_the_budget():
    # DRF's read-then-write list let up to all 20 through a 5/minute budget.
    assert sum(burst(LoginRateThrottle, 20)) == 5
    assert sum(burst(LoginClientThrottle, 12, address="10.0.0.10")) == 4
    sign_in_failed(sign_in_request(address="10.0.0.10"), "ana")  # the address failed: the username's budget applies
    assert sum(burst(LoginUsernameThrottle, 12, address="10.0.0.10")) == 3


@pytest.mark.usefixtures("redis_cache")
def test_a_parallel_burst_of_messages_gets_only_the_budget(monkeypatch):
    monkeypatch.setattr(MessageRateThrottle, "THROTTLE_RATES", {"messages": "4/minute"})
    user = SimpleNamespace(is_authenticated=True, pk=7)
    view = SimpleNamespace(throttle_scope="messages")
    assert sum(burst(MessageRateThrottle, 16, request=SimpleNamespace(user=user), view=view)) == 4


@pytest.mark.usefixtures("redis_cache")
def test_a_refused_attempt_waits_until_the_oldest_ages_out(monkeypatch):
    now = [1_000.0]
    monkeypatch.setattr(LoginRateThrottle, "timer", lambda self: now[0])
    for second in range(5):
        now[0] = 1_000.0 + second
        assert LoginRateThrottle().allow_request(sign_in_request(), None)
    now[0] = 1_010.0
    refused = LoginRateThrottle()
    assert not refused.allow_request(sign_in_request(), None)
    assert refused.wait() == pytest.approx(50.0)  # the first attempt, at 1000, leaves the minute at 1060
    now[0] = 1_060.0  # as old as the window: gone, as in DRF
    assert LoginRateThrottle().allow_request(sign_in_request(), None)
    assert not LoginRateThrottle().allow_request(sign_in_request(), None)
    assert LoginRateThrottle().allow_request(sign_in_request(address="10.0.0.11"), None)  # another address


@pytest.mark.usefixtures("redis_cache")
def test_a_successful_sign_in_clears_the_address_s_budget_at_that_username():
    assert sum(burst(LoginClientThrottle, 5)) == 4
    sign_in_failed(sign_in_request(), "ana")
    assert sum(burst(LoginUsernameThrottle, 4)) == 3
    forget_sign_ins(sign_in_request(), "ANA")  # case-folded, like the budgets' keys
    assert LoginClientThrottle().allow_request(sign_in_request(), None)
    assert LoginUsernameThrottle().allow_request(sign_in_request(), None)  # no failure left here


@pytest.mark.django_db
@pytest.mark.usefixtures("redis_cache")
def test_the_token_endpoint_answers_429_with_retry_after(user):
    client = APIClient(headers={"Accept-Language": "en"})
    statuses = [
        client.post("/api/v1/auth/token/", {"username": "ana", "password": "wrong"}, format="json").status_code
        for _ in range(4)
    ]
    assert statuses == [401] * 4  # the address's 4 an hour at that username
    response = client.post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")
    assert response.status_code == 429
    assert 3_000 < int(response["Retry-After"]) <= 3_600
