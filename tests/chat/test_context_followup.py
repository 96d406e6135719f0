"""Follow-ups resolve through the light context: an offer, then "sim, registra isso"."""

from __future__ import annotations

from typing import Any

import pytest

from chat.models import Message
from lifeassistant.models import Expense

pytestmark = pytest.mark.django_db


def retrieve(api: Any, conversation_id: int) -> Any:
    return api.post(f"/api/v1/conversations/{conversation_id}/context/", {"action": "retrieve"}, format="json").json()["context"]


def test_sim_registra_isso_after_an_expense_offer_records_that_expense(scripted_llm, api, conversation, send, shipped_skills):
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Quer que eu registre a despesa de R$ 50,00?")
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    offered = retrieve(api, conversation["id"])
    assert offered == {
        "last_intent": "create_expense",
        "last_task_id": None,
        "pending_fields": ["confirmation"],
        "last_user_message": "Gastei 50 reais no mercado",
    }

    scripted_llm.reply_text("Registrado!")
    send(api, conversation["id"], {"content": "sim, registra isso"})
    [expense] = Expense.objects.all()
    assert expense.description == "mercado"
    prompt = Message.objects.filter(role="assistant").latest("id").system_prompt
    assert "## Recent context" in prompt and '- last_intent: "create_expense"' in prompt
    assert retrieve(api, conversation["id"])["last_task_id"] == str(expense.pk)

    scripted_llm.reply_text("De nada!")
    send(api, conversation["id"], {"content": "obrigado"})
    assert "## Recent context" not in Message.objects.filter(role="assistant").latest("id").system_prompt


def test_a_message_that_refers_back_reads_the_light_context_once(api, conversation, send, shipped_skills, monkeypatch):
    """The tool offer and the prompt section share one read (two cache round trips, a get
    and a touch, per read: four before)."""
    import chat.light_context_store as store

    api.post(
        f"/api/v1/conversations/{conversation['id']}/context/",
        {"action": "store", "last_intent": "create_expense", "last_task_id": "7", "pending_fields": [],
         "last_user_message": "Gastei 50 reais"},
        format="json",
    )
    reads = []
    real = store.cache

    class Counting:
        def __getattr__(self, name: str) -> Any:
            return getattr(real, name)

        def get(self, key: str, *args: Any, **kwargs: Any) -> Any:
            reads.append(key)
            return real.get(key, *args, **kwargs)

    monkeypatch.setattr(store, "cache", Counting())
    send(api, conversation["id"], {"content": "muda isso para 60 reais"})
    reply = Message.objects.filter(role="assistant").latest("id")
    assert "conversation_context" in reply.tools_offered
    assert '- last_task_id: "7"' in reply.system_prompt
    assert len(reads) == 1
