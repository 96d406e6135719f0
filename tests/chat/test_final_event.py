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


def test_an_action_accepted_during_the_title_call_is_in_the_final_event(scripted_llm, api, send, shipped_skills, monkeypatch) -> None:
    scripted_llm.reply_tool_calls([("create_expense", {"amount": 50, "description": "mercado"}, "call_1")])
    scripted_llm.reply_text("Registro R$ 50,00?")

    def title_call_meanwhile(message: Message, reply: str) -> None:
        # The title call takes up to seconds; a polling client sees the reply done with
        # its proposal and accepts it (POST /api/v1/actions/{id}/accept/).
        for action in PendingAction.objects.filter(message=message, status="pending"):
            accept(action)

    monkeypatch.setattr(answering, "name_conversation", title_call_meanwhile)
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    reply = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()["assistant_message"]

    shown = api.get(f"/api/v1/messages/{reply['id']}/").json()
    final = [event for event in event_log().read(reply["id"], None) if event.final]
    assert [action["status"] for action in shown["pending_actions"]] == ["executed"]
    assert len(final) == 1 and final[0].type == "done"
    assert final_message(reply["id"], "en") == shown
