"""The tool loop end to end: the real API, the eager Celery task, litellm over HTTP to a scripted model."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from chat.models import Message, PendingAction, ToolCall
from lifeassistant.models import Expense, MetricEntry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills: 'gastei ... reais' activates finance and its tools."""


@pytest.fixture
def conversation(api: APIClient) -> int:
    return api.post("/api/v1/conversations/", {"title": "Dia a dia"}, format="json").json()["id"]


# The user of these conversations browses in Brazilian Portuguese.
BRAZILIAN = {"Accept-Language": "pt-BR,pt;q=0.9"}


@pytest.fixture
def say(api: APIClient, conversation: int, django_capture_on_commit_callbacks: Any) -> Any:
    """Send a message as the user and return the reply as the client sees it after polling."""

    def _say(text: str, client: APIClient = api, conversation_id: int = conversation) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                f"/api/v1/conversations/{conversation_id}/messages/", {"content": text}, format="json", headers=BRAZILIAN
            )
        assert response.status_code == 202, response.content
        reply_id = response.json()["assistant_message"]["id"]
        return client.get(f"/api/v1/messages/{reply_id}/", headers=BRAZILIAN).json()

    return _say


def test_it_asks_before_recording_an_expense_and_records_it_once_after_sim(scripted_llm: Any, say: Any, user: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Quer que eu registre a despesa de R$ 50,00 no mercado?")

    asked = say("Gastei 50 reais no mercado")

    assert asked["status"] == "done"
    assert asked["content"] == "Quer que eu registre a despesa de R$ 50,00 no mercado?"
    assert not Expense.objects.exists()
    [proposal] = asked["pending_actions"]
    assert proposal["tool"] == "create_expense"
    assert proposal["status"] == "pending"
    assert proposal["summary"] == "Registrar despesa de R$ 50,00 (mercado)"
    told = json.loads(scripted_llm.requests[1]["messages"][-1]["content"])
    assert told["status"] == "pending_confirmation"

    scripted_llm.reply_text("Pronto, registrei R$ 50,00 em mercado.")
    done = say("sim")

    assert done["content"] == "Pronto, registrei R$ 50,00 em mercado."
    [expense] = Expense.objects.all()
    assert expense.owner == user
    assert expense.amount == Decimal("50.00")
    assert expense.description == "mercado"
    assert PendingAction.objects.get().status == "executed"
    # The model saw the user's "sim" and then the executed call, before answering.
    last_request = scripted_llm.requests[-1]["messages"]
    assert last_request[-3]["content"] == "sim"
    assert last_request[-2]["tool_calls"][0]["function"]["name"] == "create_expense"
    assert json.loads(last_request[-1]["content"])["expense"]["amount"]["formatted"] == "R$ 50,00"

    scripted_llm.reply_text("De nada!")
    say("sim")
    assert Expense.objects.count() == 1


def test_a_no_rejects_the_proposal_and_nothing_is_written(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": "50,00", "description": "mercado"})
    scripted_llm.reply_text("Registro R$ 50,00?")
    say("Gastei 50 reais no mercado")

    scripted_llm.reply_text("Tudo bem, não registrei.")
    say("não")

    assert not Expense.objects.exists()
    assert PendingAction.objects.get().status == "rejected"


def test_replies_carry_token_usage_and_the_stored_tool_calls(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_tool_call("get_pending_bills", {}, prompt_tokens=100, completion_tokens=7)
    scripted_llm.reply_text("Você não tem contas pendentes.", prompt_tokens=150, completion_tokens=9)

    reply = say("Tenho alguma conta para pagar?")

    assert reply["usage"]["prompt_tokens"] == 250
    assert reply["usage"]["completion_tokens"] == 16
    [call] = reply["tool_calls"]
    assert call["tool"] == "get_pending_bills"
    assert call["ok"] is True
    assert call["result"]["count"] == 0


def test_the_model_gets_a_tool_error_back_and_can_recover(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": -5, "description": "mercado"})
    scripted_llm.reply_tool_call("create_expense", {"amount": 5, "description": "mercado"})
    scripted_llm.reply_text("Posso registrar R$ 5,00?")

    reply = say("Gastei 5 reais no mercado")

    assert reply["status"] == "done"
    fed_back = json.loads(scripted_llm.requests[1]["messages"][-1]["content"])
    assert "positive" in fed_back["error"]
    assert [c["ok"] for c in reply["tool_calls"]] == [False, True]
    assert len(reply["pending_actions"]) == 1


def test_at_the_iteration_cap_the_model_answers_without_tools(scripted_llm: Any, say: Any, settings: Any) -> None:
    settings.TOOL_LOOP_MAX_ITERATIONS = 3
    for _ in range(3):
        scripted_llm.reply_tool_call("get_finance_summary", {})
    scripted_llm.reply_text("Suas finanças estão em dia.")

    reply = say("Como estão minhas finanças?")

    assert reply["status"] == "done"
    assert reply["content"] == "Suas finanças estão em dia."
    assert len(scripted_llm.requests) == 4
    assert "tools" not in scripted_llm.requests[3]  # the last call cannot ask for more
    assert ToolCall.objects.count() == 3


def test_a_model_that_asks_for_a_tool_not_offered_gets_an_error_and_nothing_runs(
    scripted_llm: Any, say: Any
) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Não consigo registrar aqui.")

    reply = say("Oi, tudo bem?")  # a general turn: no finance tools offered

    assert "create_expense" not in reply["tools_offered"]
    assert reply["status"] == "done"
    assert reply["pending_actions"] == []
    fed_back = json.loads(scripted_llm.requests[1]["messages"][-1]["content"])
    assert "'create_expense' is not available in this turn" in fed_back["error"]


def test_a_provider_outage_fails_the_reply_clearly_and_keeps_the_users_message(
    scripted_llm: Any, say: Any, settings: Any, conversation: int
) -> None:
    settings.LLM_MAX_RETRIES = 2
    scripted_llm.reply_error(503, times=3)

    reply = say("Gastei 50 reais no mercado")

    assert reply["status"] == "failed"
    # The user reads a sentence and the client a code; the provider's error class stays in
    # the row for the logs and the admin.
    assert reply["error_code"] == "model_unavailable"
    assert reply["error"] == "O assistente está indisponível no momento. Tente de novo em instantes."  # asked in pt-BR
    assert "ServiceUnavailableError" in Message.objects.get(pk=reply["id"]).error
    assert len(scripted_llm.requests) == 3  # the first try and two retries
    assert Message.objects.filter(role="user", content="Gastei 50 reais no mercado").exists()


def test_a_transient_error_is_retried_and_the_reply_succeeds(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_error(500)
    scripted_llm.reply_text("Oi! Como posso ajudar?")

    reply = say("Oi")

    assert reply["status"] == "done"
    assert reply["content"] == "Oi! Como posso ajudar?"


def test_the_history_is_replayed_with_tool_calls_before_their_results(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_tool_call("get_finance_summary", {}, call_id="call_sum")
    scripted_llm.reply_text("Você gastou R$ 0,00 este mês.")
    say("Quanto gastei este mês?")
    scripted_llm.reply_text("De nada.")

    say("Obrigada")

    roles = [(m["role"], m.get("tool_call_id")) for m in scripted_llm.requests[-1]["messages"]]
    assert roles == [
        ("system", None),
        ("user", None),
        ("assistant", None),
        ("tool", "call_sum"),
        ("assistant", None),
        ("user", None),
    ]
    assert scripted_llm.requests[-1]["messages"][2]["tool_calls"][0]["id"] == "call_sum"


def test_a_tool_cannot_touch_another_users_rows_through_its_arguments(
    scripted_llm: Any, say: Any, other_user: Any, user: Any
) -> None:
    theirs = MetricEntry.objects.create(owner=other_user, type="weight", value=80, unit="kg", recorded_at="2025-01-01T10:00Z")
    scripted_llm.reply_tool_call("delete_metric", {"metric_id": theirs.pk})
    scripted_llm.reply_tool_call("get_tracking_history", {"type": "weight"})
    scripted_llm.reply_text("Não encontrei esse registro.")

    reply = say("Apaga meu registro de peso")

    first, second = reply["tool_calls"]
    assert first["ok"] is False
    assert first["error"] == f"No metric with id {theirs.pk} was found."
    assert second["result"]["entries"] == []
    assert reply["pending_actions"] == []
    assert MetricEntry.objects.filter(pk=theirs.pk).exists()
