"""What the assistant knows about its user reaches the prompt; a stated fact is remembered at once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat.models import Message, PendingAction
from lifeassistant.models import KnowledgeItem, Profile

pytestmark = pytest.mark.django_db


def test_the_users_name_and_job_are_in_the_prompt_without_a_search(
    api: Any, user: Any, conversation: Any, send: Any, shipped_skills: None, scripted_llm: Any
) -> None:
    Profile.objects.filter(pk=Profile.for_user(user).pk).update(display_name="Ana", currency="BRL")
    KnowledgeItem.objects.create(owner=user, content="Trabalha como enfermeira no hospital municipal", area="professional")
    KnowledgeItem.objects.create(owner=user, content="Quer quitar o cartão até dezembro", area="finance", kind="goal")
    scripted_llm.reply_text("Oi, Ana!")

    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})

    system = scripted_llm.requests[0]["messages"][0]["content"]
    section = system[system.index("## About the user"):].split("\n\n")[0].splitlines()
    assert json.loads(section[2])["profile"]["name"] == "Ana"
    shown = [json.loads(line)["content"] for line in section[3:]]
    # finance is active: its goal comes before the (older-area) job.
    assert shown == ["Quer quitar o cartão até dezembro", "Trabalha como enfermeira no hospital municipal"]


def test_another_users_memory_never_reaches_the_prompt(api: Any, conversation: Any, send: Any, other_user: Any, shipped_skills: None) -> None:
    KnowledgeItem.objects.create(owner=other_user, content="Segredo de Bruno")
    send(api, conversation["id"], {"content": "oi"})
    assert "Segredo de Bruno" not in Message.objects.get(role="assistant").system_prompt


def test_a_fact_the_user_states_is_remembered_without_asking(
    api: Any, user: Any, conversation: Any, send: Any, shipped_skills: None, scripted_llm: Any
) -> None:
    scripted_llm.reply_tool_call("add_knowledge", {"content": "Trabalha como enfermeira", "area": "professional"})
    scripted_llm.reply_text("Anotado: você é enfermeira.")

    body = send(api, conversation["id"], {"content": "Eu trabalho como enfermeira"}).json()

    reply = api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()
    assert reply["pending_actions"] == []
    assert not PendingAction.objects.exists()
    assert KnowledgeItem.objects.get(owner=user).content == "Trabalha como enfermeira"
    assert json.loads(scripted_llm.requests[1]["messages"][-1]["content"])["status"] == "saved"
    # The next message's prompt already knows it.
    scripted_llm.reply_text("Claro.")
    send(api, conversation["id"], {"content": "e o que mais?"})
    assert "Trabalha como enfermeira" in scripted_llm.requests[2]["messages"][0]["content"]


def test_money_writes_still_wait_for_a_yes(api: Any, conversation: Any, send: Any, shipped_skills: None, scripted_llm: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Registro?")
    body = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()
    reply = api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()
    assert [a["status"] for a in reply["pending_actions"]] == ["pending"]
