"""Multi-turn conversations through the API with the scripted model: natural confirmations and languages."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from chat.api.serializers import ConversationSerializer
from chat.models import Conversation, PendingAction
from lifeassistant.models import Expense, Profile

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills: 'gastei ... reais' activates finance and its tools."""


@pytest.fixture
def say(api: APIClient, conversation: dict[str, Any], django_capture_on_commit_callbacks: Any) -> Any:
    """Send a message as the user; the reply as the client sees it after polling."""

    def _say(text: str, **headers: str) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(
                f"/api/v1/conversations/{conversation['id']}/messages/", {"content": text}, format="json", headers=headers
            )
        assert response.status_code == 202, response.content
        return api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json()

    return _say


def propose_expense(scripted_llm: Any, say: Any, amount: int = 50, **headers: str) -> dict[str, Any]:
    scripted_llm.reply_tool_call("create_expense", {"amount": amount, "description": "mercado"})
    scripted_llm.reply_text(f"Quer que eu registre R$ {amount},00 no mercado?")
    return say(f"Gastei {amount} reais no mercado", **headers)


@pytest.mark.parametrize("phrase", ["sim, adiciona isso", "pode registrar", "manda ver", "confirma", "yes, add that", "ok, record it", "go ahead"])
def test_a_natural_yes_confirms_the_pending_expense_once(scripted_llm: Any, say: Any, phrase: str) -> None:
    propose_expense(scripted_llm, say)
    scripted_llm.reply_text("Pronto!")
    say(phrase)
    [expense] = Expense.objects.all()
    assert expense.amount == Decimal("50.00")
    assert PendingAction.objects.get().status == "executed"


@pytest.mark.parametrize("phrase", ["não", "cancela", "no, don't"])
def test_a_natural_no_rejects_and_nothing_is_written(scripted_llm: Any, say: Any, phrase: str) -> None:
    propose_expense(scripted_llm, say)
    scripted_llm.reply_text("Tudo bem, não registrei.")
    say(phrase)
    assert not Expense.objects.exists()
    assert PendingAction.objects.get().status == "rejected"
    told = scripted_llm.requests[-1]["messages"]
    assert told[-1]["content"] == phrase  # a no is a plain message for the model; nothing ran


def test_a_yes_with_a_new_request_confirms_and_then_goes_on(scripted_llm: Any, say: Any) -> None:
    propose_expense(scripted_llm, say)
    scripted_llm.reply_tool_call("create_expense", {"amount": 30, "description": "uber"})
    scripted_llm.reply_text("Registrei o mercado. Quer que eu registre R$ 30,00 de uber também?")
    reply = say("sim, e anota também 30 de uber")
    # The model saw the yes, what it ran, and then the new request on its own.
    sent = scripted_llm.requests[-2]["messages"]
    assert sent[-4] == {"role": "user", "content": "sim"}
    assert sent[-3]["tool_calls"][0]["function"]["name"] == "create_expense"
    assert sent[-2]["role"] == "tool"
    assert sent[-1] == {"role": "user", "content": "anota também 30 de uber"}
    # The first expense ran; the new request became a proposal of its own, waiting for a yes.
    assert [e.description for e in Expense.objects.all()] == ["mercado"]
    assert [a["summary"] for a in reply["pending_actions"]] == ["Registrar despesa de R$ 30,00 (uber)"]
    scripted_llm.reply_text("Pronto!")
    say("pode")
    assert sorted(e.description for e in Expense.objects.all()) == ["mercado", "uber"]


def test_a_yes_that_corrects_the_proposal_runs_nothing(scripted_llm: Any, say: Any) -> None:
    propose_expense(scripted_llm, say)
    scripted_llm.reply_text("Certo, R$ 60,00 então?")
    say("sim, mas foram 60 reais")
    assert not Expense.objects.exists()
    assert PendingAction.objects.get().status == "pending"


def test_a_plain_sim_with_nothing_pending_is_just_a_message(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_text("Você quer falar sobre finanças?")
    say("oi")
    scripted_llm.reply_text("Ótimo, vamos lá.")
    reply = say("sim")
    assert reply["content"] == "Ótimo, vamos lá."
    assert reply["tool_calls"] == []
    assert scripted_llm.requests[-1]["messages"][-1] == {"role": "user", "content": "sim"}


def test_a_short_message_keeps_the_conversations_language(scripted_llm: Any, say: Any) -> None:
    # An English conversation: its short messages stay English, whatever the browser says.
    scripted_llm.reply_tool_call("create_expense", {"amount": 12, "description": "lunch"})
    scripted_llm.reply_text("Shall I record it?")
    first = say("I spent twelve dollars on lunch at the office today", **{"Accept-Language": "pt-BR"})
    assert first["pending_actions"][0]["summary"] == "Record an expense of R$12.00 (lunch)"
    scripted_llm.reply_tool_call("create_expense", {"amount": 5, "description": "coffee"})
    scripted_llm.reply_text("Shall I record it?")
    short = say("gastei 5", **{"Accept-Language": "pt-BR"})
    assert short["pending_actions"][0]["summary"] == "Record an expense of R$5.00 (coffee)"


def test_a_first_short_message_follows_the_profile_then_the_browser(api: Any, user: Any, scripted_llm: Any, say: Any) -> None:
    # No conversation language and no profile language: the browser's.
    reply = propose_expense(scripted_llm, say, **{"Accept-Language": "en-GB,en;q=0.9,pt;q=0.5"})
    assert reply["pending_actions"][0]["summary"] == "Record an expense of R$50.00 (mercado)"


def test_portuguese_around_a_paste_beats_an_english_browser(conversation: Any, scripted_llm: Any, say: Any) -> None:
    """The prose left around the pasted data is short, so the vote is pt 0.72: enough against
    a browser's language (a Brazilian on an English system), not against a chosen one."""
    rows = "\n".join(f"2026-11-{n % 28 + 1:02d},Compra {n} no mercado,{n}.50" for n in range(300))
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Registro?")
    reply = say(
        f"Analise meus gastos deste mês e me diga onde posso economizar:\n\ndata,descricao,valor\n{rows}\n\nE estas contas:",
        **{"Accept-Language": "en-US"},
    )
    assert reply["pending_actions"][0]["summary"] == "Registrar despesa de R$ 50,00 (mercado)"
    assert Conversation.objects.get(pk=conversation["id"]).language == "pt"


def test_the_profile_language_beats_the_browser_for_a_short_first_message(api: Any, user: Any, conversation: Any, scripted_llm: Any, say: Any) -> None:
    api.patch("/api/v1/me/", {"language": "pt-BR"}, format="json")
    reply = propose_expense(scripted_llm, say, **{"Accept-Language": "en"})
    assert reply["pending_actions"][0]["summary"] == "Registrar despesa de R$ 50,00 (mercado)"
    assert Profile.objects.get(user=user).language == "pt"


def test_an_english_speaker_gets_english_texts_without_a_profile(scripted_llm: Any, say: Any) -> None:
    reply = say("/help", **{"Accept-Language": "en-US"})
    assert reply["content"].startswith("Commands you can use:")
    scripted_llm.reply_text("Sure")
    offline_free = say("ok", **{"Accept-Language": "en-US"})
    assert offline_free["content"] == "Sure"


def test_spiritual_opt_in_through_the_preferences(api: Any, scripted_llm: Any, say: Any) -> None:
    off = say("/spiritual quero orar pela minha família")
    assert "“Skills you want”" in off["content"] and "christian_perspective" not in off["content"]
    assert off["active_skills"] != ["spiritual"]
    api.patch("/api/v1/me/", {"preferences": {"christian_perspective": True}}, format="json")
    api.post("/api/v1/me/consents/", {"purpose": "spiritual", "given": True}, format="json")
    scripted_llm.reply_text("Vamos orar juntos.")
    on = say("/spiritual quero orar pela minha família")
    assert "spiritual" in on["active_skills"]
    assert on["content"] == "Vamos orar juntos."
    assert "spiritual" in json.dumps(scripted_llm.requests[-1]["messages"][0]["content"])


def _long_conversation(conversation: dict[str, Any], size: int) -> Conversation:
    """``size`` finished messages opened by a money goal, each of ~50 tokens."""
    from chat.models import Message

    row = Conversation.objects.get(pk=conversation["id"])
    Message.objects.bulk_create(
        Message(conversation=row, role="user" if n % 2 == 0 else "assistant", status="done",
                content="Quero organizar minhas finanças este ano" if n == 0 else f"mensagem {n} " + "bla " * 40)
        for n in range(size)
    )
    return row


def test_a_2000_message_conversation_answers_with_a_bounded_prompt(
    api: Any, user: Any, conversation: dict[str, Any], scripted_llm: Any, say: Any, settings: Any
) -> None:
    from chat.models import Conversation, Message, ToolCall
    from lifeassistant.tokens import count_tokens

    settings.LLM_MAX_INPUT_TOKENS = 8_000
    row = _long_conversation(conversation, 2000)
    # A big old tool result, far back, and one in the latest turn.
    old, latest = Message.objects.filter(conversation=row, role="assistant").order_by("id")[1990 // 2], Message.objects.filter(conversation=row, role="assistant").latest("id")
    ToolCall.objects.create(message=old, call_id="old", iteration=1, tool="get_finance_summary", ok=True, result={"rows": "x" * 5000})
    ToolCall.objects.create(message=latest, call_id="new", iteration=1, tool="get_finance_summary", ok=True, result={"rows": "y" * 3000})
    scripted_llm.reply_text("Certo!")

    reply = say("e agora?")

    assert reply["status"] == "done" and reply["content"] == "Certo!"
    sent = scripted_llm.requests[-1]
    tools = sent.get("tools") or []
    window_left = settings.LLM_MAX_INPUT_TOKENS - settings.LLM_MAX_OUTPUT_TOKENS
    assert count_tokens(messages=sent["messages"], tools=tools) <= window_left
    messages = sent["messages"]
    assert messages[0]["role"] == "system" and messages[-1] == {"role": "user", "content": "e agora?"}
    assert messages[-2]["content"].startswith("mensagem 1999 ")  # the newest history is there
    assert not any(m.get("content", "") and "mensagem 3 " in m["content"] for m in messages)  # the oldest is not
    assert "Quero organizar minhas finanças este ano" in messages[1]["content"]  # the opening survives as a note
    # Every tool call travels with its result; the latest result is whole.
    call_ids = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    result_ids = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert call_ids == result_ids == ["new"]
    assert "y" * 3000 in messages[[m.get("tool_call_id") for m in messages].index("new")]["content"]


@pytest.mark.parametrize("earlier", [120, 600])
def test_the_opening_comes_back_as_a_note_whether_or_not_the_scan_reaches_it(
    conversation: dict[str, Any], scripted_llm: Any, say: Any, settings: Any, earlier: int
) -> None:
    """Under HISTORY_SCAN_MESSAGES the scan itself holds the first message; past it, it is read."""
    settings.LLM_MAX_INPUT_TOKENS = 8_000
    _long_conversation(conversation, earlier)
    scripted_llm.reply_text("Certo!")

    say("e agora?")

    messages = scripted_llm.requests[-1]["messages"]
    assert not any("mensagem 2 " in (m.get("content") or "") for m in messages)  # the oldest turns were dropped
    assert "Quero organizar minhas finanças este ano" in messages[1]["content"]


def test_a_first_message_replayed_whole_is_not_repeated_as_a_note(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_text("Ok.")
    say("Quero organizar minhas finanças este ano")
    scripted_llm.reply_text("Certo!")

    say("e agora?")

    contents = [m.get("content") or "" for m in scripted_llm.requests[-1]["messages"]]
    assert sum("Quero organizar minhas finanças este ano" in text for text in contents) == 1
    assert contents[1] == "Quero organizar minhas finanças este ano"


def test_a_spanish_speaker_gets_spanish_fixed_texts(scripted_llm: Any, say: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 8, "description": "café"})
    scripted_llm.reply_text("¿Lo registro?")
    # /finance offers the finance tools (only tools offered this turn run); the prose stays Spanish.
    reply = say("/finance Hoy gasté ocho reales en un café con mis amigas de la oficina")
    assert reply["pending_actions"][0]["summary"] == "Registrar un gasto de R$ 8,00 (café)"
    scripted_llm.reply_text("Listo.")
    say("sí, agrégalo")
    assert PendingAction.objects.get().status == "executed"


def test_saving_a_stale_conversation_keeps_the_skills_a_message_turned_on(user: Any) -> None:
    """docs/api.md, Concurrent requests: a rename that read the row before a message keeps that message's skills."""
    conversation = Conversation.objects.create(owner=user, title="Old")
    stale = Conversation.objects.get(pk=conversation.pk)
    Conversation.objects.filter(pk=conversation.pk).update(active_skills=["finance"], messages_since_detection=0)

    stale.title = "Renamed"
    stale.save()

    saved = Conversation.objects.get(pk=conversation.pk)
    assert (saved.title, saved.active_skills) == ("Renamed", ["finance"])


def test_a_rename_writes_only_the_title_not_a_language_stored_meanwhile(user: Any) -> None:
    """docs/api.md, Concurrent requests: the PATCH serializer saves the fields it was given, nothing it merely read."""
    conversation = Conversation.objects.create(owner=user, title="Old", language="pt")
    stale = Conversation.objects.get(pk=conversation.pk)
    Conversation.objects.filter(pk=conversation.pk).update(language="en", active_skills=["finance"])

    renaming = ConversationSerializer(stale, data={"title": "Renamed"}, partial=True)
    assert renaming.is_valid(), renaming.errors
    renaming.save(title_source=Conversation.TitleSource.USER)

    saved = Conversation.objects.get(pk=conversation.pk)
    assert (saved.title, saved.title_source, saved.language, saved.active_skills) == ("Renamed", "user", "en", ["finance"])
