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


def test_debts_then_despair_then_lost_sleep_combine_and_a_new_subject_replaces_them(
    scripted_llm: Any, api: Any, conversation: dict[str, Any], send: Any, shipped_skills: None, consented: None
) -> None:
    turns = [
        "Minhas dívidas do cartão passaram de 20 mil",
        "estou desesperada",
        "e por causa disso não consigo dormir",
        "Mudando de assunto: corri 5 km hoje",
    ]
    replies = []
    for text in turns:
        scripted_llm.reply_text("Entendi.")
        response = send(api, conversation["id"], {"content": text})
        assert response.status_code == 202, response.content
        replies.append(api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json())

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
