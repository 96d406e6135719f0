"""Concurrent requests on PostgreSQL: one Idempotency-Key never writes twice; a delete waits for a message being stored."""

from __future__ import annotations

import threading
import time
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


def test_a_message_stored_while_its_conversation_is_deleted_goes_with_it(user):
    """A POST holds the conversation's lock while it stores a turn; a DELETE arriving then
    waits, and deletes the new message with the rest (it used to gather the rows first and
    fail at commit on the new message's foreign key: a 500)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    from django.db import transaction

    from chat.models import lock_conversation
    from chat.services import delete_conversation

    conversation = Conversation.objects.create(owner=user)
    Message.objects.create(conversation=conversation, role="user", content="antes")
    locked = threading.Event()
    errors: list[BaseException] = []

    def post() -> None:
        try:
            with transaction.atomic():
                lock_conversation(conversation.pk)
                locked.set()
                time.sleep(1.0)  # the DELETE reaches the lock meanwhile, and waits
                Message.objects.create(conversation_id=conversation.pk, role="user", content="durante")
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    def delete() -> None:
        try:
            locked.wait(timeout=10)
            delete_conversation(Conversation.objects.get(pk=conversation.pk))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post), threading.Thread(target=delete)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert errors == []
    assert not Conversation.objects.filter(pk=conversation.pk).exists()
    assert not Message.objects.filter(conversation_id=conversation.pk).exists()


def test_concurrent_preference_patches_keep_the_bound_on_flags(user):
    """Six PATCHes at once, each adding ten new flags: the bound of 50 is checked under
    the profile's lock, so at most 50 land (each PATCH read the flags before any lock,
    so all passed, and a profile past the bound refused every later change). Six, not
    more: with the test's own connection they stay within the pool's ten."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    from chat.api_tokens import issue_token
    from rest_framework.test import APIClient

    from chat.api.user import MAX_PREFERENCES
    from lifeassistant.models import Profile

    _, token = issue_token(user)
    barrier = threading.Barrier(6)
    statuses: list[int] = []

    def patch(batch: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait()
            body = {"preferences": {f"k{batch}_{n}": True for n in range(10)}}
            statuses.append(client.patch("/api/v1/me/", body, format="json").status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=patch, args=(batch,)) for batch in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    flags = Profile.for_user(user).preferences
    assert sorted(statuses) == [200] * 5 + [400]
    assert len(flags) == MAX_PREFERENCES


def test_a_message_sent_while_a_paste_is_stored_is_offered_the_pasted_document(user, shipped_skills, settings, monkeypatch):
    """The follow-up's lock waits for the paste's transaction; the conversation row it then
    reads says the conversation holds documents. (Asked as an EXISTS in the locking
    statement, it did not: that saw the documents as they were when the statement began.)"""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    import chat.services as services
    from chat.answering import model_system_prompt
    from chat.services import submit_message
    from documents.services import attach_documents
    from tests.documents.test_message_documents import big_message

    settings.LLM_MAX_INPUT_TOKENS = 16_000  # the paste crosses the 10% threshold
    monkeypatch.setattr(services, "dispatch_reply", lambda message: None)
    conversation = Conversation.objects.create(owner=user)
    attached = threading.Event()

    def attach_then_linger(message: Any, items: Any) -> Any:
        documents = attach_documents(message, items)
        if items:
            attached.set()
            time.sleep(1.0)  # the follow-up reaches the lock meanwhile
        return documents

    monkeypatch.setattr(services, "attach_documents", attach_then_linger)
    out: dict[str, Any] = {}

    def send(name: str, content: str, wait: bool) -> None:
        try:
            row = Conversation.objects.get(pk=conversation.pk)
            if wait:
                attached.wait(10)
            out[name] = submit_message(user=user, conversation=row, content=content)
        except Exception as exc:  # surfaced by the assertion below
            out[f"{name} failed"] = exc
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=send, args=("paste", big_message(), False)),
        threading.Thread(target=send, args=("follow-up", "Gastei 30 reais de uber", True)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert set(out) == {"paste", "follow-up"}, out
    follow_up = Message.objects.get(pk=out["follow-up"].assistant_message.pk)
    assert "read_document" in follow_up.tools_offered
    assert "## AVAILABLE_DOCUMENTS" in model_system_prompt(follow_up)
