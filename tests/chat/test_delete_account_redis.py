"""Deleting an account on a real Redis (cache and event log): no key of theirs is left."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from django.core.cache import cache

from chat.models import Message
from lifeassistant.event_log import _log_for

REDIS_URL = os.environ.get("CI_REDIS_URL", "redis://127.0.0.1:6379/14")
PREFIX = "delete-account-test"
LONG_ANSWER = "Uma resposta longa o bastante para o HTML dela ficar no cache. " * 8

pytestmark = [pytest.mark.worker, pytest.mark.django_db]  # needs Redis, like the worker's tests


@pytest.fixture
def redis_everywhere(settings: Any) -> Iterator[redis.Redis]:
    """The cache and the event log on this test's Redis database, emptied before and after."""
    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    settings.CACHES = {
        "default": {"BACKEND": "lifeassistant.cache.SharedPoolRedisCache", "LOCATION": REDIS_URL, "KEY_PREFIX": PREFIX}
    }
    settings.EVENTS_REDIS_URL = REDIS_URL
    _log_for.cache_clear()
    yield client
    client.flushdb()
    _log_for.cache_clear()


def test_no_redis_key_of_theirs_is_left(
    redis_everywhere: redis.Redis, api: Any, user: Any, send: Any, conversation: dict[str, Any],
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from lifeassistant import offline_model

    monkeypatch.setattr(offline_model, "offline_reply", lambda *args, **kwargs: LONG_ANSWER, raising=False)
    send(api, conversation["id"], {"content": "Oi, pode me ajudar a organizar a semana?"})
    reply = Message.objects.filter(role="assistant").get()
    api.get(f"/api/v1/conversations/{conversation['id']}/messages/")  # caches the ended replies' HTML
    before = {key.decode() for key in redis_everywhere.keys("*")}
    assert any(f"reply-events:{reply.pk}" in key for key in before), before
    assert any("ctxlight" in key for key in before), before
    assert any("throttle_messages" in key for key in before), before
    assert any("reply-html" in key for key in before), before

    with django_capture_on_commit_callbacks(execute=True):
        assert api.delete("/api/v1/me/", {"password": "pass-ana-123"}, format="json").status_code == 204

    left = {key.decode() for key in redis_everywhere.keys("*")}
    # Only what is nobody's: the skill catalog's version.
    assert all("catalog" in key for key in left), left
    assert cache.get(f"throttle_messages_{user.pk}") is None
