"""The skills architecture's §6.2 (docs/specification.md) through the API: a new topic joins the skills still under inertia.

A scripted model answers; its request log shows what each turn offered it (tools,
prompt, temperature) and that routing itself never called it.
"""

from __future__ import annotations

from typing import Any

import pytest

from skills.models import Skill

pytestmark = pytest.mark.django_db


def tool_names(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request.get("tools", [])}


def replies_to(turns: list[str], scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any) -> list[dict[str, Any]]:
    """Send each turn in order and return the assistant's reply to each, as the API shows it."""
    replies = []
    for text in turns:
        scripted_llm.reply_text("Entendi.")
        response = send(api, conversation["id"], {"content": text})
        assert response.status_code == 202, response.content
        replies.append(api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json())
    return replies


def test_debts_then_despair_then_lost_sleep_combine_and_a_new_subject_replaces_them(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, shipped_skills: None, consented: None
) -> None:
    turns = [
        "Minhas dívidas do cartão passaram de 20 mil",
        "estou desesperada",
        "e por causa disso não consigo dormir",
        "Mudando de assunto: corri 5 km hoje",
    ]
    replies = replies_to(turns, scripted_llm, api, conversation, send)

    assert [(reply["active_skills"], reply["skill_reason"]) for reply in replies] == [
        (["finance"], "trigger"),
        (["counselor", "finance"], "combined"),
        (["counselor", "finance", "health"], "combined"),
        (["health"], "trigger"),
    ]
    # One model call per message: routing called no model.
    assert len(scripted_llm.requests) == len(turns)
    finance_tools = set(Skill.objects.get(name="finance").tools)
    health_tools = set(Skill.objects.get(name="health").tools)
    despair, sleepless, running = scripted_llm.requests[1:]
    assert finance_tools <= tool_names(despair) and not health_tools & tool_names(despair)
    assert "## Skill: Conselheira" in despair["messages"][0]["content"]
    assert finance_tools | health_tools <= tool_names(sleepless)
    assert sleepless["temperature"] == 0.3  # the lowest of counselor 0.7, finance 0.3, health 0.5
    assert not finance_tools & tool_names(running)
    state = api.get(f"/api/v1/conversations/{conversation['id']}/").json()
    assert state["active_skills"] == ["health"]


def test_a_feeling_carried_along_by_bills_lapses_five_messages_after_it_was_said(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, shipped_skills: None, consented: None
) -> None:
    """docs/routing-labelling.md: after about 5 messages without the topic coming back, it no longer holds.

    The feeling joins the bills that follow it, and each of them goes on with "e…"; the count
    of messages since it was said is kept on the conversation between requests.
    """
    turns = [
        "to meio pra baixo hoje",
        "e a conta de luz venceu ontem",
        "e o boleto da internet tambem",
        "e a fatura do cartao chegou alta",
        "e o aluguel vence sexta",
        "e o condominio subiu de novo",
        "e o IPVA ta atrasado",
    ]
    replies = replies_to(turns, scripted_llm, api, conversation, send)

    assert [reply["active_skills"] for reply in replies] == [["counselor"]] + [["counselor", "finance"]] * 5 + [["finance"]]
