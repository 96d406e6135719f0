"""Accept, reject and list pending actions through the API."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from chat.actions import propose
from chat.models import Conversation, Message, PendingAction
from lifeassistant.tools import ToolContext
from lifeassistant.models import Expense

pytestmark = pytest.mark.django_db


@pytest.fixture
def action(user: Any) -> PendingAction:
    conversation = Conversation.objects.create(owner=user)
    said = Message.objects.create(conversation=conversation, role="user", content="Gastei 50 reais no mercado")
    reply = Message.objects.create(conversation=conversation, role="assistant", reply_to=said, content="Registro?")
    outcome = propose(
        message=reply, context=ToolContext(user, conversation, reply), call_id="call_1", name="create_expense",
        arguments=json.dumps({"amount": 50, "description": "mercado"}),
    )
    return PendingAction.objects.get(pk=outcome.result["action_id"])


def test_the_reply_shows_its_pending_action(api: APIClient, action: PendingAction) -> None:
    body = api.get(f"/api/v1/messages/{action.message_id}/").json()

    assert body["pending_actions"] == [
        {
            "id": action.pk,
            "tool": "create_expense",
            "arguments": {"amount": 50, "description": "mercado"},
            "summary": "Record an expense of R$50.00 (mercado)",
            "status": "pending",
            "expires_at": body["pending_actions"][0]["expires_at"],
        }
    ]


def test_accepting_runs_the_action_once(api: APIClient, action: PendingAction, user: Any) -> None:
    response = api.post(f"/api/v1/actions/{action.pk}/accept/")
    second = api.post(f"/api/v1/actions/{action.pk}/accept/", headers={"Accept-Language": "en"})
    in_portuguese = api.post(f"/api/v1/actions/{action.pk}/accept/", headers={"Accept-Language": "pt-BR"})

    assert response.status_code == 200
    assert response.json()["status"] == "executed"
    assert response.json()["result"]["expense"]["amount"]["formatted"] == "R$ 50,00"
    assert second.status_code == 409
    assert second.json() == {"detail": "This action was already executed."}
    assert in_portuguese.json() == {"detail": "Esta ação já foi executada."}
    assert Expense.objects.filter(owner=user).count() == 1


def test_rejecting_means_it_never_runs(api: APIClient, action: PendingAction) -> None:
    response = api.post(f"/api/v1/actions/{action.pk}/reject/")
    accepted = api.post(f"/api/v1/actions/{action.pk}/accept/")

    assert response.json()["status"] == "rejected"
    assert accepted.status_code == 409
    assert not Expense.objects.exists()


def test_an_expired_action_cannot_be_accepted(api: APIClient, action: PendingAction) -> None:
    PendingAction.objects.filter(pk=action.pk).update(expires_at=timezone.now() - timedelta(minutes=1))

    response = api.post(f"/api/v1/actions/{action.pk}/accept/")

    assert response.status_code == 409
    assert response.json() == {"detail": "This action expired"}
    assert not Expense.objects.exists()
    assert api.get(f"/api/v1/messages/{action.message_id}/").json()["pending_actions"][0]["status"] == "expired"


def test_someone_elses_action_is_not_found(other_api: APIClient, action: PendingAction) -> None:
    assert other_api.post(f"/api/v1/actions/{action.pk}/accept/").status_code == 404
    assert other_api.post(f"/api/v1/actions/{action.pk}/reject/").status_code == 404
    assert other_api.get(f"/api/v1/conversations/{action.conversation_id}/actions/").status_code == 404
    assert not Expense.objects.exists()


def test_a_conversations_actions_can_be_filtered_by_status(api: APIClient, action: PendingAction) -> None:
    url = f"/api/v1/conversations/{action.conversation_id}/actions/"

    assert [a["id"] for a in api.get(url, {"status": "pending"}).json()] == [action.pk]
    api.post(f"/api/v1/actions/{action.pk}/reject/")
    assert api.get(url, {"status": "pending"}).json() == []
    assert api.get(url, {"status": "rejected"}).json()[0]["summary"] == "Record an expense of R$50.00 (mercado)"
    assert api.get(url, {"status": "maybe"}).status_code == 400
