"""The final event carries the reply as GET /api/v1/messages/{id}/ shows it once it ended.

The log holds only the final status; the SSE view adds the message as it is when relayed."""

from __future__ import annotations

import pytest

from chat import answering
from chat.actions import accept
from chat.api.streaming import final_message
from chat.models import Message, PendingAction
from lifeassistant.event_log import event_log

pytestmark = pytest.mark.django_db


def test_the_final_event_shows_the_reply_as_it_is_when_relayed(scripted_llm, api, send, shipped_skills) -> None:
    scripted_llm.reply_tool_calls([("create_expense", {"amount": 50, "description": "mercado"}, "call_1")])
    scripted_llm.reply_text("Registro R$ 50,00?")
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    reply = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()["assistant_message"]
    # A polling client saw the reply done with its proposal and accepted it before its
    # event stream relayed the end.
    for action in PendingAction.objects.filter(message_id=reply["id"], status="pending"):
        accept(action)

    shown = api.get(f"/api/v1/messages/{reply['id']}/").json()
    final = [event for event in event_log().read(reply["id"], None) if event.final]
    assert [action["status"] for action in shown["pending_actions"]] == ["executed"]
    assert len(final) == 1 and final[0].type == "done"
    assert final_message(reply["id"], "en") == shown


def test_the_final_event_does_not_wait_for_the_title_call(scripted_llm, api, send, shipped_skills, monkeypatch) -> None:
    scripted_llm.reply_text("Anotado.")
    ended_before_the_title: list[bool] = []

    def title_call(message: Message, reply: str) -> None:
        # The title is a second model call: the reply's readers already have its end.
        ended_before_the_title.append(any(event.final for event in event_log().read(message.pk, None)))

    monkeypatch.setattr(answering, "name_conversation", title_call)
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    send(api, conversation["id"], {"content": "Oi, tudo bem?"})
    assert ended_before_the_title == [True]
