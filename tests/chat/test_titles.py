"""Conversation titles: the first message's request offline, the model's when configured,
and never over a title the user wrote."""

from __future__ import annotations

import functools

import litellm
import pytest

from chat.models import Conversation
from chat.titles import MAX_TITLE_CHARS, heuristic_title, model_title


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Oi! Quero organizar minhas finanças deste mês. Pode ajudar?", "Quero organizar minhas finanças deste mês"),
        ("Bom dia, tudo bem? gastei 50 reais no mercado", "Gastei 50 reais no mercado"),
        ("please summarize this table:\n| a | b |\n|---|---|", "Summarize this table"),
        ("## **Plano** de treino", "Plano de treino"),
        ("Oi!", "Oi"),
        ("", ""),
    ],
)
def test_the_offline_title_is_the_first_messages_request(text: str, title: str) -> None:
    assert heuristic_title(text) == title


def test_a_long_request_is_cut_at_a_whole_word_not_on_a_linking_word() -> None:
    title = heuristic_title(
        "Preciso de ajuda para planejar uma viagem de férias com a família inteira para o nordeste em janeiro"
    )
    assert title == "Preciso de ajuda para planejar uma viagem de férias"
    assert len(heuristic_title("palavra " * 30)) <= MAX_TITLE_CHARS
    assert heuristic_title("x" * 100) == "X" + "x" * (MAX_TITLE_CHARS - 1)


def test_a_models_answer_loses_quotes_labels_and_the_final_period() -> None:
    assert model_title('"Planejamento financeiro."') == "Planejamento financeiro"
    assert model_title("Title: **Trip to Rio**\nextra") == "Trip to Rio"
    assert model_title("  ") == ""


@pytest.mark.django_db
def test_offline_an_untitled_conversation_is_named_from_the_first_message(api, send, shipped_skills):
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "Oi! Quero organizar minhas finanças. Pode ajudar?"})
    send(api, conversation["id"], {"content": "Outra coisa agora"})
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Quero organizar minhas finanças"


@pytest.mark.django_db
def test_with_a_model_the_first_reply_names_the_conversation_once(api, send, shipped_skills, settings, monkeypatch):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response='"Finanças do mês."'))
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "Quero organizar minhas finanças"})
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Finanças do mês"
    assert Conversation.objects.get().title_source == "model"

    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="Outro título"))
    send(api, conversation["id"], {"content": "E os gastos de ontem?"})
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Finanças do mês"


@pytest.mark.django_db
def test_a_title_the_user_set_is_never_replaced(api, send, shipped_skills, settings, monkeypatch):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="Título do modelo"))
    named = api.post("/api/v1/conversations/", {"title": "Meu nome"}, format="json").json()
    send(api, named["id"], {"content": "Quero organizar minhas finanças"})
    assert api.get(f"/api/v1/conversations/{named['id']}/").json()["title"] == "Meu nome"

    # Renamed after the first message, before its reply: the rename wins.
    renamed = api.post("/api/v1/conversations/", {}, format="json").json()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("chat.services.queue_reply", lambda pk: None)
        sent = api.post(f"/api/v1/conversations/{renamed['id']}/messages/", {"content": "Plano de treino"}, format="json")
    assert api.patch(f"/api/v1/conversations/{renamed['id']}/", {"title": "Academia"}, format="json").status_code == 200
    from chat.tasks import generate_reply

    generate_reply(sent.json()["assistant_message"]["id"])
    assert api.get(f"/api/v1/conversations/{renamed['id']}/").json()["title"] == "Academia"
    assert Conversation.objects.get(pk=renamed["id"]).title_source == "user"


@pytest.mark.django_db
def test_a_failing_title_call_does_not_fail_the_reply(api, send, shipped_skills, settings, monkeypatch):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    monkeypatch.setattr("chat.answering.model_title", lambda answer: 1 / 0)
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="Anotado!"))
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    reply = send(api, conversation["id"], {"content": "Quero organizar minhas finanças"}).json()["assistant_message"]
    assert api.get(f"/api/v1/messages/{reply['id']}/").json()["status"] == "done"
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Quero organizar minhas finanças"


@pytest.mark.django_db
def test_the_title_call_holds_no_database_connection(api, send, shipped_skills, settings, monkeypatch):
    """The title is a second model call: a connection held through it kept one of the pool's
    ten from every other reply for up to its timeout (a burst's replies all end at once).
    (SQLite's in-memory test database ignores a close: the order of the steps is checked.)"""
    from types import SimpleNamespace

    from chat import answering
    from chat.models import Message

    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "Quero organizar minhas finanças"})
    reply = Message.objects.get(conversation_id=conversation["id"], role="assistant")
    settings.LLM_MODEL = "gpt-4o-mini"
    steps: list[str] = []
    monkeypatch.setattr(answering, "release_connections", lambda: steps.append("connection released"))
    monkeypatch.setattr(
        answering.llm, "completion", lambda *a, **k: steps.append("model called") or SimpleNamespace(text="Finanças do mês")
    )
    answering.name_conversation(reply, "Vamos organizar.")

    assert steps == ["connection released", "model called"]
    assert Conversation.objects.get(pk=conversation["id"]).title == "Finanças do mês"
