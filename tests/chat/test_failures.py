"""A failed reply tells its reader what happened in plain words; the detail stays in the row.

Class names, provider messages and stack traces are for the logs and the admin: the API
(and so the mobile app and the web chat) gets a stable ``error_code`` and its sentence in
the reader's language.
"""

from __future__ import annotations

from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import translation

from chat import tasks
from chat.failures import Failure, failure_text
from chat.models import Message
from lifeassistant.event_log import event_log

pytestmark = pytest.mark.django_db


def _failing_reply(api: Any, send: Any, monkeypatch: Any, error: BaseException) -> dict[str, Any]:
    def answer(message: Message, **_: Any) -> None:
        raise error

    monkeypatch.setattr(tasks, "answer", answer)
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    return send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"}).json()["assistant_message"]


def test_a_reply_past_its_time_limit_says_it_did_not_answer_in_time(api, send, shipped_skills, monkeypatch) -> None:
    reply = _failing_reply(api, send, monkeypatch, SoftTimeLimitExceeded())

    shown = api.get(f"/api/v1/messages/{reply['id']}/").json()
    in_portuguese = api.get(f"/api/v1/messages/{reply['id']}/", HTTP_ACCEPT_LANGUAGE="pt-BR").json()

    assert shown["status"] == "failed" and shown["error_code"] == "timeout"
    assert shown["error"] == "The assistant did not answer in time. Please retry."
    assert in_portuguese["error"] == "O assistente não respondeu a tempo. Tente de novo."


def test_a_crash_shows_a_sentence_and_keeps_the_class_name_for_the_admin(api, send, shipped_skills, monkeypatch) -> None:
    reply = _failing_reply(api, send, monkeypatch, KeyError("secret_internal_key"))

    shown = api.get(f"/api/v1/messages/{reply['id']}/").json()
    final = [event for event in event_log().read(reply["id"], None) if event.final]

    assert shown["error_code"] == "internal"
    assert shown["error"] == "An internal error stopped the assistant. Please retry."
    assert "KeyError" not in str(shown) and "secret_internal_key" not in str(final[0].data)
    assert Message.objects.get(pk=reply["id"]).error == "KeyError: 'secret_internal_key'"


def test_every_failure_code_has_a_portuguese_sentence() -> None:
    with translation.override("pt-br"):
        portuguese = {code: failure_text(code) for code in Failure.values}
    with translation.override("en"):
        english = {code: failure_text(code) for code in Failure.values}

    assert all(portuguese[code] != english[code] for code in Failure.values), portuguese


@pytest.mark.django_db(transaction=True)  # the missing row fails its write at once, as in production
def test_a_conversation_deleted_while_its_reply_runs_ends_the_reply_quietly(
    api, send, shipped_skills, scripted_llm, monkeypatch, caplog
) -> None:
    from chat import answering
    from chat.models import Conversation, ToolCall

    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    execute = answering.execute_tool_call

    def delete_then_execute(*args: Any, **kwargs: Any) -> Any:
        # The user deletes the conversation after the loop's last check, as the tool runs.
        Conversation.objects.filter(pk=conversation["id"]).delete()
        return execute(*args, **kwargs)

    monkeypatch.setattr(answering, "execute_tool_call", delete_then_execute)
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Quer que eu registre?")

    accepted = send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})

    assert accepted.status_code == 202
    assert not Conversation.objects.exists() and not Message.objects.exists() and not ToolCall.objects.exists()
    assert len(scripted_llm.requests) == 1  # no model call after the deletion
    assert not [record for record in caplog.records if record.levelname == "ERROR"], caplog.text


def _pending_reply(api: Any, django_capture_on_commit_callbacks: Any) -> tuple[int, int]:
    """A conversation and its reply, queued but not yet picked up by a worker."""
    conversation = api.post("/api/v1/conversations/", {}, format="json").json()
    with django_capture_on_commit_callbacks(execute=False):
        accepted = api.post(
            f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Gastei 50 reais no mercado"}, format="json"
        )
    return conversation["id"], accepted.json()["assistant_message"]["id"]


def test_a_reply_whose_conversation_was_deleted_before_a_worker_took_it_is_dropped_quietly(
    api, shipped_skills, django_capture_on_commit_callbacks, caplog
) -> None:
    from chat.models import Conversation

    conversation_id, reply_id = _pending_reply(api, django_capture_on_commit_callbacks)
    Conversation.objects.filter(pk=conversation_id).delete()

    with caplog.at_level("INFO", logger="chat.tasks"):
        tasks.generate_reply(reply_id)

    assert f"message {reply_id} no longer exists" in caplog.text
    assert "already claimed" not in caplog.text


def test_a_conversation_deleted_as_its_reply_is_claimed_ends_the_task_quietly(
    api, shipped_skills, django_capture_on_commit_callbacks, monkeypatch, caplog
) -> None:
    from chat.models import Conversation

    conversation_id, reply_id = _pending_reply(api, django_capture_on_commit_callbacks)
    select_related = Message.objects.select_related

    def delete_then_load(*args: Any) -> Any:
        # The user deletes the conversation between the worker's claim and its load.
        Conversation.objects.filter(pk=conversation_id).delete()
        return select_related(*args)

    monkeypatch.setattr(Message.objects, "select_related", delete_then_load)

    with caplog.at_level("INFO", logger="chat.tasks"):
        tasks.generate_reply(reply_id)  # raised DoesNotExist before

    assert f"message {reply_id} no longer exists" in caplog.text
    assert not Message.objects.exists()
