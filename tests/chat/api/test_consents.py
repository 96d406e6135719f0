"""Consent for sensitive data: /api/v1/me/consents/, and what the assistant offers without it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from chat.actions import NO_CONSENT, accept
from chat.models import Message, PendingAction
from lifeassistant.models import Consent, MetricEntry, Profile

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills: 'pesei 70 kg' activates health and its tools."""


def reply_to(api: APIClient, send: Any, conversation: dict[str, Any], text: str) -> dict[str, Any]:
    body = send(api, conversation["id"], {"content": text}).json()
    return api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()


def answer(api: APIClient, purpose: str, given: bool, **extra: Any) -> Any:
    return api.post("/api/v1/me/consents/", {"purpose": purpose, "given": given, **extra}, format="json")


def test_without_consent_no_health_writing_tool_is_offered_and_the_reply_asks(api, send, conversation):
    reply = reply_to(api, send, conversation, "Pesei 70 kg hoje")

    assert "health" in reply["active_skills"]
    assert "get_tracking_history" in reply["tools_offered"]  # reading what exists is fine
    assert "record_metric" not in reply["tools_offered"]
    assert "update_metric" not in reply["tools_offered"]
    [card] = reply["consent_requests"]
    assert card["purpose"] == "health" and card["version"] == 1
    assert "weight" in card["text"]


def test_with_consent_the_health_writing_tools_are_offered(api, send, conversation):
    assert answer(api, "health", True).status_code == 200

    reply = reply_to(api, send, conversation, "Pesei 70 kg hoje")

    assert "record_metric" in reply["tools_offered"]
    assert reply["consent_requests"] == []


def test_revoking_stops_the_offer_and_a_proposal_made_before(api, send, conversation, user):
    answer(api, "health", True)
    reply_to(api, send, conversation, "Pesei 70 kg hoje")
    proposal = PendingAction.objects.create(
        conversation_id=conversation["id"], message=Message.objects.filter(role="assistant").get(),
        tool_call_id="c1", tool="record_metric", arguments={"type": "weight", "value": 70},
        summary="Registrar peso", expires_at=timezone.now() + timedelta(minutes=10),
    )

    assert answer(api, "health", False).status_code == 200

    assert "record_metric" not in reply_to(api, send, conversation, "Pesei 71 kg hoje")["tools_offered"]
    decided = accept(proposal)
    assert decided.status == PendingAction.Status.FAILED
    assert decided.error == NO_CONSENT
    assert not MetricEntry.objects.exists()


def test_an_answered_request_is_not_asked_again(api, send, conversation):
    first = reply_to(api, send, conversation, "Pesei 70 kg hoje")
    assert first["consent_requests"]

    answer(api, "health", False)

    assert api.get(f"/api/v1/messages/{first['id']}/").json()["consent_requests"] == []
    assert reply_to(api, send, conversation, "Dormi 7 horas")["consent_requests"] == []


def test_the_spiritual_skill_stays_off_without_consent(api, send, conversation, user):
    Profile.objects.filter(pk=Profile.for_user(user).pk).update(preferences={"christian_perspective": True})

    reply = reply_to(api, send, conversation, "Quero orar pela minha família")
    assert "spiritual" not in reply["active_skills"]
    assert [card["purpose"] for card in reply["consent_requests"]] == ["spiritual"]

    answer(api, "spiritual", True)
    assert "spiritual" in reply_to(api, send, conversation, "Quero orar pela minha família")["active_skills"]


def test_no_card_for_the_spiritual_skill_when_its_preference_is_off(api, send, conversation):
    assert reply_to(api, send, conversation, "Quero orar pela minha família")["consent_requests"] == []


def test_the_list_shows_each_purpose_and_the_latest_answer(api, user):
    listing = api.get("/api/v1/me/consents/").json()
    assert [(entry["purpose"], entry["given"]) for entry in listing] == [("health", None), ("spiritual", None)]

    answer(api, "health", True)
    answer(api, "health", False)
    listing = api.get("/api/v1/me/consents/").json()

    assert listing[0]["given"] is False and listing[0]["answered_version"] == 1
    # Every answer stays on record.
    assert list(Consent.objects.filter(owner=user).values_list("given", flat=True)) == [False, True]


def test_revoking_health_consent_can_delete_the_metrics(api, user, other_user):
    MetricEntry.objects.create(owner=user, type="weight", value=Decimal("70"), unit="kg", recorded_at=timezone.now())
    MetricEntry.objects.create(owner=other_user, type="weight", value=Decimal("80"), unit="kg", recorded_at=timezone.now())
    answer(api, "health", True)

    assert answer(api, "health", False, delete_data=True).status_code == 200

    assert list(MetricEntry.objects.values_list("owner", flat=True)) == [other_user.pk]


def test_an_answer_to_an_old_text_is_a_409(api):
    response = answer(api, "health", True, version=0)
    assert response.status_code == 409
    assert response.json()["detail"]
    assert not Consent.objects.exists()


def test_an_unknown_purpose_is_a_400(api):
    assert answer(api, "politics", True).status_code == 400


def test_another_users_answers_are_not_shown(api, other_api):
    answer(other_api, "health", True)
    assert api.get("/api/v1/me/consents/").json()[0]["given"] is None
