"""Concurrent requests on PostgreSQL: one Idempotency-Key never writes twice."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections

from chat.models import Conversation, Message
from chat.services import request_fingerprint, submit_message_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_concurrent_requests_with_one_key_write_one_pair_of_messages(user, shipped_skills):
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    conversation = Conversation.objects.create(owner=user)
    body = {"content": "Gastei 50 reais no mercado"}
    fingerprint = request_fingerprint(conversation_id=conversation.pk, body=body)
    barrier = threading.Barrier(2)
    results: list[Any] = []

    def submit() -> None:
        try:
            barrier.wait()
            results.append(
                submit_message_once(
                    user=user,
                    conversation=conversation,
                    content=body["content"],
                    key="same-key",
                    fingerprint=fingerprint,
                    render=lambda s: {"user_message": s.user_message.pk},
                )
            )
        except Exception as exc:  # surfaced by the assertion below
            results.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert all(isinstance(result, tuple) for result in results), results
    bodies = [body for body, _ in results]
    assert bodies[0] == bodies[1]
    assert sorted(created for _, created in results) == [False, True]
    assert Message.objects.filter(role="user").count() == 1
