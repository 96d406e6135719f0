"""Regenerate the last reply and edit the last message: the old turn stays in the
database, out of the thread, the model's history and the reach of a typed "sim"."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

from chat.actions import propose
from chat.answering import build_llm_messages
from chat.models import Message, PendingAction
from lifeassistant.models import Expense
from lifeassistant.tools import ToolContext

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]


@pytest.fixture
def post(django_capture_on_commit_callbacks: Any) -> Any:
    """POST to a message's action and run what the commit dispatches (the reply)."""

    def _post(client: Any, message_id: int, action: str, body: Any = None) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            # The refusals are asserted in the source language.
            return client.post(
                f"/api/v1/messages/{message_id}/{action}/", body, format="json", headers={"Accept-Language": "en"}
            )

    return _post


def thread(api: Any, conversation: dict[str, Any]) -> list[tuple[str, str]]:
    listed = api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()["results"]
    return [(m["role"], m["content"][:20]) for m in reversed(listed)]


def offer_expense(reply_id: int) -> PendingAction:
    reply = Message.objects.select_related("conversation__owner").get(pk=reply_id)
    context = ToolContext(reply.conversation.owner, reply.conversation, reply)
    arguments = json.dumps({"amount": 50, "description": "mercado"})
    outcome = propose(message=reply, context=context, call_id="call_1", name="create_expense", arguments=arguments)
    return PendingAction.objects.get(pk=outcome.result["action_id"])


def test_regenerate_supersedes_the_reply_and_answers_the_same_message_again(api, conversation, send, post):
    first = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()
    old_reply = first["assistant_message"]["id"]

    response = post(api, old_reply, "regenerate")

    assert response.status_code == 202
    body = response.json()
    assert body["user_message"]["id"] == first["user_message"]["id"]
    assert body["assistant_message"]["status"] == "pending"
    assert body["assistant_message"]["reply_to"] == first["user_message"]["id"]
    new_reply = body["assistant_message"]["id"]
    assert Message.objects.get(pk=new_reply).status == "done"
    # Kept, but only the new reply is in the thread.
    assert Message.objects.get(pk=old_reply).superseded_at is not None
    listed = api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()["results"]
    assert [m["id"] for m in listed] == [new_reply, first["user_message"]["id"]]


@pytest.mark.parametrize("command", ["/help", "/no-such-skill", "!date"])
def test_regenerating_a_commands_answer_runs_the_command_again_not_the_model(api, conversation, send, post, command):
    first = send(api, conversation["id"], {"content": command}).json()
    old = first["assistant_message"]
    assert old["status"] == "done"  # a command answers at once

    with mock.patch("chat.services.dispatch_reply") as dispatch:
        response = post(api, old["id"], "regenerate")

    assert response.status_code == 202
    new = response.json()["assistant_message"]
    dispatch.assert_not_called()  # the model is never asked to answer "/help"
    assert (new["status"], new["content"], new["language"]) == ("done", old["content"], old["language"])
    assert new["content_html"] and new["id"] != old["id"]
    assert [m["id"] for m in api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()["results"]][0] == new["id"]


def test_regenerate_refuses_an_earlier_reply_a_user_message_and_a_running_reply(api, conversation, send, post):
    first = send(api, conversation["id"], {"content": "primeira"}).json()
    second = send(api, conversation["id"], {"content": "segunda"}).json()

    earlier = post(api, first["assistant_message"]["id"], "regenerate")
    assert earlier.status_code == 409
    assert earlier.json() == {"detail": "Only the conversation's last reply can be regenerated."}
    assert post(api, second["user_message"]["id"], "regenerate").status_code == 409

    Message.objects.filter(pk=second["assistant_message"]["id"]).update(status="running")
    running = post(api, second["assistant_message"]["id"], "regenerate")
    assert running.status_code == 409
    assert "stop it" in running.json()["detail"]
    assert not Message.objects.filter(superseded_at__isnull=False).exists()


def test_a_stopped_or_failed_reply_can_be_regenerated(api, conversation, send, post):
    reply = send(api, conversation["id"], {"content": "oi"}).json()["assistant_message"]["id"]
    Message.objects.filter(pk=reply).update(status="cancelled")
    assert post(api, reply, "regenerate").status_code == 202
    newer = Message.objects.filter(role="assistant", superseded_at__isnull=True).get()
    Message.objects.filter(pk=newer.pk).update(status="failed")
    assert post(api, newer.pk, "regenerate").status_code == 202
    assert Message.objects.filter(role="assistant").count() == 3


def test_a_superseded_reply_leaves_the_models_history(api, conversation, send, post):
    first = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()
    Message.objects.filter(pk=first["assistant_message"]["id"]).update(content="RESPOSTA ANTIGA")
    post(api, first["assistant_message"]["id"], "regenerate")
    second = send(api, conversation["id"], {"content": "e agora?"}).json()

    sent = build_llm_messages(Message.objects.get(pk=second["assistant_message"]["id"]))

    texts = [m.get("content") or "" for m in sent[1:]]
    assert "RESPOSTA ANTIGA" not in texts
    assert texts.count("Gastei 50 reais no mercado") == 1


def test_a_sim_cannot_run_what_a_superseded_reply_proposed(api, conversation, send, post):
    # No amount: the offline model proposes nothing itself, the test's proposal is the only one.
    reply = send(api, conversation["id"], {"content": "Gastei no mercado"}).json()["assistant_message"]["id"]
    action = offer_expense(reply)

    post(api, reply, "regenerate")
    send(api, conversation["id"], {"content": "sim"})

    action.refresh_from_db()
    assert action.status == "expired"
    assert not Expense.objects.exists()


def test_a_failed_superseded_reply_cannot_be_retried(api, conversation, send, post):
    reply = send(api, conversation["id"], {"content": "oi"}).json()["assistant_message"]["id"]
    Message.objects.filter(pk=reply).update(status="failed")
    post(api, reply, "regenerate")
    Message.objects.filter(pk=reply).update(status="failed")
    assert post(api, reply, "retry").status_code == 409


def test_edit_supersedes_the_message_and_its_reply_and_sends_the_new_text(api, conversation, send, post):
    send(api, conversation["id"], {"content": "primeira"})
    second = send(api, conversation["id"], {"content": "Gastei 50 no mercdo"}).json()
    offered = offer_expense(second["assistant_message"]["id"])

    response = post(api, second["user_message"]["id"], "edit", {"content": "Gastei 50 reais no mercado"})

    assert response.status_code == 202
    body = response.json()
    assert body["user_message"]["content"] == "Gastei 50 reais no mercado"
    assert body["assistant_message"]["status"] == "pending"
    shown = thread(api, conversation)
    assert [role for role, _ in shown] == ["user", "assistant", "user", "assistant"]
    assert [text for role, text in shown if role == "user"] == ["primeira", "Gastei 50 reais no m"]
    assert set(
        Message.objects.filter(superseded_at__isnull=False).values_list("pk", flat=True)
    ) == {second["user_message"]["id"], second["assistant_message"]["id"]}
    offered.refresh_from_db()
    assert offered.status == "expired"
    # The new text went through the pipeline: the finance skill answered it.
    assert Message.objects.get(pk=body["assistant_message"]["id"]).active_skills == ["finance"]


def test_editing_the_first_message_renames_a_conversation_named_after_it_not_one_the_user_named(
    api, conversation, send, post
):
    """The title kept what the user had edited away, and a search still found it."""
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()  # untitled
    first = send(api, conversation["id"], {"content": "minha senha do banco é hunter2"}).json()
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"].startswith("Minha senha")

    post(api, first["user_message"]["id"], "edit", {"content": "quero organizar minhas contas"})

    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Quero organizar minhas contas"
    assert api.get("/api/v1/conversations/?search=hunter2").json()["results"] == []
    # A second message's edit, and a title the user chose, leave the title alone.
    second = send(api, conversation["id"], {"content": "e também as dívidas"}).json()
    post(api, second["user_message"]["id"], "edit", {"content": "e os boletos"})
    assert api.get(f"/api/v1/conversations/{conversation['id']}/").json()["title"] == "Quero organizar minhas contas"
    api.patch(f"/api/v1/conversations/{conversation['id']}/", {"title": "Contas"}, format="json")
    named = api.post("/api/v1/conversations/", {"title": "Só minha"}, format="json").json()
    opening = send(api, named["id"], {"content": "oi"}).json()
    post(api, opening["user_message"]["id"], "edit", {"content": "olá de novo"})
    assert api.get(f"/api/v1/conversations/{named['id']}/").json()["title"] == "Só minha"


def test_edit_refuses_an_earlier_message_a_reply_and_a_message_whose_reply_runs(api, conversation, send, post):
    first = send(api, conversation["id"], {"content": "primeira"}).json()
    second = send(api, conversation["id"], {"content": "segunda"}).json()

    earlier = post(api, first["user_message"]["id"], "edit", {"content": "outra"})
    assert earlier.status_code == 409
    assert earlier.json() == {"detail": "Only your last message in the conversation can be edited."}
    assert post(api, second["assistant_message"]["id"], "edit", {"content": "outra"}).status_code == 409

    Message.objects.filter(pk=second["assistant_message"]["id"]).update(status="pending")
    running = post(api, second["user_message"]["id"], "edit", {"content": "outra"})
    assert running.status_code == 409
    assert "stop it" in running.json()["detail"]
    assert Message.objects.count() == 4
    assert not Message.objects.filter(superseded_at__isnull=False).exists()


def test_edit_validates_its_body_like_a_new_message(api, conversation, send, post):
    sent = send(api, conversation["id"], {"content": "oi"}).json()
    for body in ({"content": "   "}, {}, {"content": "x", "extra": 1}):
        assert post(api, sent["user_message"]["id"], "edit", body).status_code == 400
    assert Message.objects.count() == 2


def test_others_cannot_regenerate_or_edit_my_messages(api, other_api, conversation, send, post):
    sent = send(api, conversation["id"], {"content": "oi"}).json()
    assert post(other_api, sent["assistant_message"]["id"], "regenerate").status_code == 404
    assert post(other_api, sent["user_message"]["id"], "edit", {"content": "intruso"}).status_code == 404
    assert Message.objects.count() == 2
    assert not Message.objects.filter(superseded_at__isnull=False).exists()


def test_regenerate_and_edit_share_the_message_rate(api, conversation, send, post):
    from rest_framework.settings import api_settings
    from rest_framework.throttling import ScopedRateThrottle

    original = ScopedRateThrottle.THROTTLE_RATES
    ScopedRateThrottle.THROTTLE_RATES = {**api_settings.DEFAULT_THROTTLE_RATES, "messages": "2/minute"}
    try:
        sent = send(api, conversation["id"], {"content": "oi"}).json()
        assert post(api, sent["assistant_message"]["id"], "regenerate").status_code == 202
        assert post(api, sent["user_message"]["id"], "edit", {"content": "olá"}).status_code == 429
    finally:
        ScopedRateThrottle.THROTTLE_RATES = original


def test_an_edit_racing_the_deletion_of_its_conversation_is_a_404_not_a_409(api, conversation, send, post):
    """The view read the message, then another tab deleted the conversation."""
    from chat.api import views

    sent = send(api, conversation["id"], {"content": "Quanto gastei?"}).json()
    read = views.get_object_or_404

    def read_then_lose(*args, **kwargs):
        message = read(*args, **kwargs)
        message.conversation.delete()
        return message

    with mock.patch.object(views, "get_object_or_404", read_then_lose):
        response = post(api, sent["user_message"]["id"], "edit", {"content": "Quanto gastei em novembro?"})

    assert response.status_code == 404
