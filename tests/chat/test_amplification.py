"""No derived artefact outgrows its documented bound (SECURITY.md, Limits)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from chat.answering import build_llm_messages
from chat.models import Conversation, Message, ToolCall

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills."""


def test_33333_shell_commands_store_a_short_reply(api: Any, conversation: Any, send: Any) -> None:
    content = "\n".join(["!a"] * 33_333)

    body = send(api, conversation["id"], {"content": content}).json()

    reply = Message.objects.get(pk=body["assistant_message"]["id"])
    assert reply.status == "done"
    assert reply.content.count("Did not run") == 5
    assert reply.content.endswith("33328 more ! commands were not run: at most 5 per message.")
    assert len(reply.content) < 2_000


def test_11500_rejected_references_store_a_bounded_intent(api: Any, conversation: Any, send: Any) -> None:
    content = "Resuma " + " ".join(f"@x/{n}" for n in range(11_500))

    body = send(api, conversation["id"], {"content": content}).json()

    intent = Message.objects.get(pk=body["user_message"]["id"]).intent
    assert intent.count("[notice: @x/") == 20
    assert "[notice: 11480 more @references were not included]" in intent
    assert len(intent) < len(content) + 3_000


def test_the_intent_is_cut_at_its_setting(api: Any, conversation: Any, send: Any, settings: Any) -> None:
    settings.INTENT_MAX_CHARS = 1_000
    body = send(api, conversation["id"], {"content": "Resuma " + " ".join(f"@y/{n}" for n in range(100))}).json()

    intent = Message.objects.get(pk=body["user_message"]["id"]).intent
    assert len(intent) == 1_000
    assert intent.endswith("more characters not shown]")


def test_each_replayed_message_is_capped(user: Any, settings: Any) -> None:
    settings.HISTORY_MESSAGE_MAX_CHARS = 1_000
    conversation = Conversation.objects.create(owner=user)
    said = Message.objects.create(conversation=conversation, role="user", content="u" * 90_000)
    past = Message.objects.create(conversation=conversation, role="assistant", reply_to=said, content="a" * 90_000)
    ToolCall.objects.create(message=past, call_id="c1", iteration=1, tool="read_document", ok=True, result={"content": "d" * 50_000})
    now = Message.objects.create(conversation=conversation, role="user", content="e agora?")
    reply = Message.objects.create(conversation=conversation, role="assistant", reply_to=now, status="pending", system_prompt="S")

    messages = build_llm_messages(reply)

    replayed = [m for m in messages[1:-1] if m.get("content")]
    assert len(replayed) == 3
    assert all(len(m["content"]) <= 1_000 for m in replayed)
    assert messages[-1]["content"] == "e agora?"
    assert len(json.dumps(messages)) < 5_000


def test_a_model_reply_is_stored_up_to_its_setting(scripted_llm: Any, api: Any, conversation: Any, send: Any, settings: Any) -> None:
    settings.REPLY_MAX_CHARS = 1_000
    scripted_llm.reply_text("r" * 5_000)

    body = send(api, conversation["id"], {"content": "oi"}).json()

    content = Message.objects.get(pk=body["assistant_message"]["id"]).content
    assert len(content) == 1_000
    assert content.endswith("more characters not shown]")
