"""Races on real PostgreSQL: accept vs "sim", rename vs a message (docs/api.md, Concurrent requests)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone
from rest_framework.test import APIClient

from chat.models import Conversation, Message, PendingAction
from lifeassistant.models import Expense

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROUNDS = 8


@pytest.fixture(autouse=True)
def postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Run ``calls`` in threads released together; each result, or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as exc:  # surfaced by the assertions
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(n, call)) for n, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def client_for(user: Any) -> APIClient:
    client = APIClient(raise_request_exception=False)
    client.force_authenticate(user)
    return client


def proposal(conversation: Conversation, number: int) -> PendingAction:
    """A done reply that proposed recording an expense, as the tool loop leaves it."""
    asked = Message.objects.create(conversation=conversation, role="user", content=f"Gastei {number} reais no mercado")
    reply = Message.objects.create(
        conversation=conversation, role="assistant", reply_to=asked, status="done", content="Registro a despesa?"
    )
    return PendingAction.objects.create(
        conversation=conversation,
        message=reply,
        tool_call_id=f"call_{number}",
        tool="create_expense",
        arguments={"amount": number, "description": f"mercado {number}"},
        summary=f"Record an expense of R$ {number},00 (mercado {number})",
        expires_at=timezone.now() + timedelta(hours=1),
    )


def test_accepting_while_the_user_types_sim_runs_the_action_once_and_loses_nothing(user: Any, shipped_skills: None) -> None:
    conversation = Conversation.objects.create(owner=user, title="Gastos")
    accepter, sender = client_for(user), client_for(user)
    outcomes = []
    for number in range(1, ROUNDS + 1):
        action = proposal(conversation, number)
        accepted, said = at_once(
            lambda: accepter.post(f"/api/v1/actions/{action.pk}/accept/"),
            lambda: sender.post(f"/api/v1/conversations/{conversation.pk}/messages/", {"content": "sim"}, format="json"),
        )
        outcomes.append((accepted.status_code, said.status_code))
        action.refresh_from_db()
        assert action.status == "executed"
        assert Expense.objects.filter(description=f"mercado {number}").count() == 1

    assert all(accept in (200, 409) and say == 202 for accept, say in outcomes), outcomes
    assert Message.objects.filter(conversation=conversation, role="user", content="sim").count() == ROUNDS


def test_rejecting_while_the_user_types_sim_decides_once(user: Any, shipped_skills: None) -> None:
    conversation = Conversation.objects.create(owner=user, title="Gastos")
    rejecter, sender = client_for(user), client_for(user)
    for number in range(1, ROUNDS + 1):
        action = proposal(conversation, number)
        rejected, said = at_once(
            lambda: rejecter.post(f"/api/v1/actions/{action.pk}/reject/"),
            lambda: sender.post(f"/api/v1/conversations/{conversation.pk}/messages/", {"content": "sim"}, format="json"),
        )
        action.refresh_from_db()
        assert (rejected.status_code in (200, 409), said.status_code) == (True, 202)
        ran = Expense.objects.filter(description=f"mercado {number}").count()
        assert (action.status, ran) in {("rejected", 0), ("executed", 1)}
        assert (rejected.status_code == 200) == (action.status == "rejected")


def test_a_rename_racing_a_message_keeps_the_skill_the_message_turned_on(
    user: Any, shipped_skills: None, monkeypatch: Any
) -> None:
    """The rename reads the row, the message commits finance, then the rename writes."""
    from chat.api.views import ConversationViewSet

    conversation = Conversation.objects.create(owner=user, title="Dia a dia")
    renamer, sender = client_for(user), client_for(user)
    read, committed = threading.Event(), threading.Event()
    original = ConversationViewSet.perform_update

    def perform_update_after_the_message(self: Any, serializer: Any) -> None:
        read.set()  # the rename has loaded the conversation (active_skills still [])
        committed.wait(timeout=30)
        original(self, serializer)

    monkeypatch.setattr(ConversationViewSet, "perform_update", perform_update_after_the_message)

    def rename() -> Any:
        return renamer.patch(f"/api/v1/conversations/{conversation.pk}/", {"title": "Finanças"}, format="json")

    def say() -> Any:
        read.wait(timeout=30)
        try:
            return sender.post(
                f"/api/v1/conversations/{conversation.pk}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json"
            )
        finally:
            committed.set()

    renamed, said = at_once(rename, say)

    assert (renamed.status_code, said.status_code) == (200, 202)
    conversation.refresh_from_db()
    assert conversation.title == "Finanças"
    assert conversation.active_skills == ["finance"]
    assert said.json()["assistant_message"]["active_skills"] == ["finance"]
