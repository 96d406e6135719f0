"""The offline model acts on everyday requests as a model would: through the real API,
the tool loop, the stream and the confirmation, in pt-BR, English and Spanish.

No key is set in tests, so ``LLM_MODEL`` is the offline provider (a litellm custom
provider): these replies take every path a real model's take.
"""

from __future__ import annotations

from datetime import date, datetime, timezone as dt_timezone
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from chat.models import PendingAction, ToolCall
from lifeassistant.models import Expense, KnowledgeItem, MetricEntry, Profile
from tests.chat.api.test_streaming import get_events

pytestmark = pytest.mark.django_db

BRAZILIAN = {"Accept-Language": "pt-BR,pt;q=0.9"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
SPANISH = {"Accept-Language": "es-ES,es;q=0.9"}


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills, so an expense brings finance and its tools."""


@pytest.fixture
def conversation(api: APIClient) -> int:
    return api.post("/api/v1/conversations/", {}, format="json").json()["id"]


@pytest.fixture
def say(api: APIClient, conversation: int, django_capture_on_commit_callbacks: Any) -> Any:
    """Send a message and return the reply as the client reads it once done."""

    def _say(text: str, headers: dict[str, str] = BRAZILIAN) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": text}, format="json", headers=headers)
        assert response.status_code == 202, response.content
        reply = api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/", headers=headers).json()
        assert reply["status"] == "done", reply
        return reply

    return _say


def test_an_expense_is_proposed_with_a_card_and_recorded_after_sim(say: Any, user: Any) -> None:
    asked = say("Gastei 50 reais no mercado")

    assert asked["content"].startswith("Demonstração offline")
    assert "Registrar despesa de R$ 50,00 (mercado)" in asked["content"]
    [proposal] = asked["pending_actions"]
    assert (proposal["tool"], proposal["status"]) == ("create_expense", "pending")
    assert proposal["summary"] == "Registrar despesa de R$ 50,00 (mercado)"
    assert not Expense.objects.exists()

    done = say("sim")

    [expense] = Expense.objects.all()
    assert (expense.owner, expense.amount, expense.description) == (user, Decimal("50.00"), "mercado")
    assert PendingAction.objects.get().status == "executed"
    assert "R$ 50,00" in done["content"] and "Demonstração offline" in done["content"]


def test_the_proposal_streams_its_tool_events_and_text(say: Any, user: Any) -> None:
    asked = say("Gastei 50 reais no mercado")

    status, events = get_events(user, f"/api/v1/messages/{asked['id']}/events/")

    assert status == 200
    assert [(e["event"], e["data"]["name"]) for e in events if e["event"].startswith("tool_")] == [
        ("tool_started", "create_expense"),
        ("tool_finished", "create_expense"),
    ]
    assert "".join(e["data"]["text"] for e in events if e["event"] == "delta") == asked["content"]
    assert events[-1]["event"] == "done"


def test_the_months_spending_is_answered_from_the_summary_tool(say: Any, user: Any) -> None:
    today = timezone.localdate(timezone=Profile.for_user(user).zone)  # "este mês" is the user's month
    Expense.objects.create(owner=user, amount=Decimal("80.00"), description="mercado", category="groceries", spent_on=today)

    reply = say("quanto gastei este mês?")

    assert ToolCall.objects.get().tool == "get_finance_summary"
    assert "Este mês você gastou R$ 80,00, em 1 despesa." in reply["content"]
    assert reply["pending_actions"] == []


def test_this_month_is_the_users_month_while_the_server_is_already_in_the_next(
    say: Any, user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1 December, 01:03 UTC: still 30 November, 22:03, in São Paulo.
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 12, 1, 1, 3, tzinfo=dt_timezone.utc))
    profile = Profile.for_user(user)
    profile.timezone = "America/Sao_Paulo"
    profile.save()
    Expense.objects.create(owner=user, amount=Decimal("80.00"), description="mercado", category="groceries", spent_on=date(2026, 11, 30))

    reply = say("quanto gastei este mês?")

    assert "Este mês você gastou R$ 80,00, em 1 despesa." in reply["content"]


def test_a_weight_and_hours_of_sleep_are_proposed_as_metrics(say: Any, consented: None) -> None:
    weight = say("pesei 72 kg hoje")
    sleep = say("dormi 7 horas essa noite")

    assert [action["tool"] for action in weight["pending_actions"] + sleep["pending_actions"]] == ["record_metric"] * 2
    assert not MetricEntry.objects.exists()
    say("sim")
    assert MetricEntry.objects.get().type == "sleep"


def test_a_lasting_fact_is_remembered_at_once(say: Any, user: Any) -> None:
    reply = say("sou enfermeira")

    assert KnowledgeItem.objects.get(owner=user).content == "Sou enfermeira"
    assert "Sou enfermeira" in reply["content"]
    assert reply["pending_actions"] == []


def test_it_speaks_english(say: Any) -> None:
    asked = say("I spent $40 on gas", ENGLISH)

    assert asked["content"].startswith("Offline demonstration")
    assert [action["tool"] for action in asked["pending_actions"]] == ["create_expense"]
    assert "gas" in asked["pending_actions"][0]["summary"]


def test_it_speaks_spanish(say: Any, user: Any) -> None:
    asked = say("gasté 30 euros en el súper", SPANISH)
    remembered = say("soy enfermera y trabajo en un hospital", SPANISH)

    assert asked["content"].startswith("Demostración sin conexión")
    assert "(súper)" in asked["pending_actions"][0]["summary"]
    assert KnowledgeItem.objects.get(owner=user).content == "Soy enfermera y trabajo en un hospital"
    assert "Lo recordaré" in remembered["content"]


def test_anything_else_gets_the_pipelines_decisions_as_before(say: Any) -> None:
    reply = say("Oi, tudo bem?")

    assert reply["content"].startswith("Nenhum modelo de linguagem está configurado")
    assert ToolCall.objects.count() == 0
