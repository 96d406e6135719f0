"""Every assistant message records its skills, why, its tools, temperature and fixed tokens.

Through the API, as a client would see it: POST a message, read the assistant reply.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from lifeassistant.models import Profile
from skills.domain import BASE_TOOLS
from skills.models import Skill

# The user consented to health data and the spiritual skill: what they compose is under test.
pytestmark = pytest.mark.usefixtures("shipped_skills", "consented")

Send = Callable[[str], dict[str, Any]]



@pytest.fixture
def send(api: APIClient, django_capture_on_commit_callbacks: Any) -> Send:
    """Post messages to one new conversation; return the stored assistant reply of each."""
    conversation = api.post("/api/v1/conversations/", {"title": "ledger"}, format="json").json()

    def _send(content: str) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                f"/api/v1/conversations/{conversation['id']}/messages/", {"content": content}, format="json"
            )
        assert response.status_code == 202, response.content
        reply_id = response.json()["assistant_message"]["id"]
        return api.get(f"/api/v1/messages/{reply_id}/").json()

    return _send


def tools_of(*names: str) -> list[str]:
    return [tool for name in names for tool in Skill.objects.get(name=name).tools]


def test_a_grocery_expense_is_answered_by_finance_with_eight_tools_at_temperature_0_3(send: Send) -> None:
    reply = send("gastei 50 reais no mercado")

    assert reply["active_skills"] == ["finance"]
    assert reply["skill_reason"] == "trigger"
    assert reply["temperature"] == 0.3
    assert reply["tools_offered"] == [*BASE_TOOLS, *tools_of("finance")]
    assert len(reply["tools_offered"]) == 8
    assert 0 < reply["fixed_tokens"] < reply["monolithic_fixed_tokens"]


def test_sleep_lost_over_debts_combines_counselor_finance_and_health_at_the_lowest_temperature(send: Send) -> None:
    # docs/specification.md, skills architecture §5.4: "sono" fires health, "pagar"/"parcelas" finance, and losing sleep
    # because of them is financial stress, which the counselor's compound pattern claims.
    reply = send("Estou perdendo o sono porque não consigo pagar as parcelas")

    assert reply["active_skills"] == ["counselor", "finance", "health"]
    assert reply["temperature"] == min(0.3, Skill.objects.get(name="health").temperature)
    assert reply["tools_offered"] == [*BASE_TOOLS, *tools_of("finance", "health")]
    assert len(reply["tools_offered"]) == 12


def test_small_talk_falls_back_to_general_with_only_the_base_tools(send: Send) -> None:
    reply = send("Oi, tudo bem?")

    assert reply["active_skills"] == ["general"]
    assert reply["skill_reason"] == "fallback"
    assert reply["tools_offered"] == list(BASE_TOOLS)
    assert reply["temperature"] is None


def test_a_spiritual_message_needs_the_users_preference(send: Send, user: Any) -> None:
    before = send("preciso rezar mais")
    Profile.objects.filter(pk=Profile.for_user(user).pk).update(preferences={"christian_perspective": True})
    after = send("preciso rezar mais")

    assert before["active_skills"] == ["general"]
    assert after["active_skills"] == ["spiritual"]
    assert after["skill_reason"] == "trigger"


def test_inertia_keeps_finance_for_the_configured_messages_then_expires(send: Send, settings: Any) -> None:
    settings.SKILL_INERTIA_MESSAGES = 2

    replies = [send(text) for text in ("gastei 50 reais no mercado", "ok", "e agora?", "beleza")]

    assert [(r["active_skills"], r["skill_reason"]) for r in replies] == [
        (["finance"], "trigger"),
        (["finance"], "inertia"),
        (["finance"], "inertia"),
        (["general"], "fallback"),
    ]
    # Inertia keeps the finance tools; the light-context tool joins once a context exists.
    kept = [tool for tool in replies[1]["tools_offered"] if tool != "conversation_context"]
    assert kept == replies[0]["tools_offered"]
    assert "conversation_context" in replies[1]["tools_offered"]


def test_a_new_topic_replaces_the_kept_skill(send: Send) -> None:
    replies = [send(text) for text in ("gastei 50 reais no mercado", "dormi super mal essa noite")]

    assert replies[1]["active_skills"] == ["health"]
    assert replies[1]["skill_reason"] == "trigger"


def test_with_skills_switched_off_the_reply_records_the_monolithic_setup(send: Send, settings: Any) -> None:
    settings.SKILLS_ENABLED = False

    reply = send("gastei 50 reais no mercado")

    assert reply["skill_reason"] == "disabled"
    assert reply["fixed_tokens"] == reply["monolithic_fixed_tokens"]
    assert len(reply["tools_offered"]) > 8
