"""The model gets the recent history within a token budget, tool turns in provider order."""

from __future__ import annotations

from typing import Any

import pytest

from chat.answering import build_llm_messages
from chat.models import Conversation, Message, ToolCall

pytestmark = pytest.mark.django_db


def test_only_the_most_recent_messages_are_read(user: Any, settings: Any) -> None:
    settings.HISTORY_SCAN_MESSAGES = 2
    conversation = Conversation.objects.create(owner=user)
    for number in range(3):
        said = Message.objects.create(conversation=conversation, role="user", content=f"pergunta {number}")
        Message.objects.create(conversation=conversation, role="assistant", reply_to=said, content=f"resposta {number}")
    said = Message.objects.create(conversation=conversation, role="user", content="pergunta nova")
    reply = Message.objects.create(conversation=conversation, role="assistant", reply_to=said, status="pending", system_prompt="S")

    messages = build_llm_messages(reply)

    assert [m["content"] for m in messages][0] == "S"
    assert [m["content"] for m in messages][2:] == ["pergunta 2", "resposta 2", "pergunta nova"]
    # The first message, no longer replayed, comes back as a note.
    assert messages[1]["content"].endswith('"pergunta 0"')


def test_tool_calls_of_one_step_come_before_their_results_and_the_answer(user: Any) -> None:
    conversation = Conversation.objects.create(owner=user)
    said = Message.objects.create(conversation=conversation, role="user", content="contas?")
    past = Message.objects.create(conversation=conversation, role="assistant", reply_to=said, content="Nenhuma.")
    ToolCall.objects.create(message=past, call_id="b", iteration=1, tool="get_pending_bills", ok=True, result={"count": 0})
    ToolCall.objects.create(message=past, call_id="a", iteration=1, tool="get_debt_progress", ok=False, error="boom")
    ToolCall.objects.create(message=past, call_id="c", iteration=2, tool="get_finance_summary", ok=True, result={})
    now = Message.objects.create(conversation=conversation, role="user", content="e agora?")
    reply = Message.objects.create(conversation=conversation, role="assistant", reply_to=now, status="pending")

    shape = [(m["role"], m.get("tool_call_id") or [c["id"] for c in m.get("tool_calls") or []]) for m in build_llm_messages(reply)]

    assert shape == [
        ("system", []),
        ("user", []),
        ("assistant", ["b", "a"]),
        ("tool", "b"),
        ("tool", "a"),
        ("assistant", ["c"]),
        ("tool", "c"),
        ("assistant", []),
        ("user", []),
    ]
