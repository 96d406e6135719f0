from __future__ import annotations

import pytest

from chat.models import Message

pytestmark = pytest.mark.django_db


def test_a_retry_with_the_same_key_replays_the_first_response_and_writes_nothing(api, conversation, send, shipped_skills):
    first = send(api, conversation["id"], {"content": "Gastei 50 reais"}, **{"Idempotency-Key": "k-1"})
    again = send(api, conversation["id"], {"content": "Gastei 50 reais"}, **{"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 202
    assert again.json() == first.json()
    assert Message.objects.count() == 2


def test_the_same_key_with_another_body_is_422(api, conversation, send, shipped_skills):
    send(api, conversation["id"], {"content": "Gastei 50 reais"}, **{"Idempotency-Key": "k-2"})
    response = send(api, conversation["id"], {"content": "Gastei 60 reais"}, **{"Idempotency-Key": "k-2"})
    assert response.status_code == 422
    assert "Idempotency-Key" in response.json()["detail"]
    assert Message.objects.count() == 2


def test_keys_are_scoped_per_user(api, other_api, conversation, send, shipped_skills):
    other_conversation = other_api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "oi"}, **{"Idempotency-Key": "shared"})
    response = send(other_api, other_conversation["id"], {"content": "oi"}, **{"Idempotency-Key": "shared"})
    assert response.status_code == 202
    assert response.json()["user_message"]["conversation"] == other_conversation["id"]


def test_a_malformed_key_is_rejected(api, conversation, send):
    response = send(api, conversation["id"], {"content": "oi"}, **{"Idempotency-Key": "has spaces"})
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["errors"]
    assert not Message.objects.exists()
