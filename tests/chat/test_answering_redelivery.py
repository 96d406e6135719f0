"""A task delivered twice never repeats a write."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from chat.models import Conversation, Message, PendingAction, ToolCall
from chat.services import submit_message
from chat.tasks import generate_reply
from lifeassistant.models import Expense

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    pass


@pytest.fixture
def send(user: Any, django_capture_on_commit_callbacks: Any) -> Any:
    # Named by the user: the first reply's title call would be one more model request.
    conversation = Conversation.objects.create(owner=user, title="Gastos", title_source="user")

    def _send(text: str) -> Message:
        with django_capture_on_commit_callbacks(execute=True):
            submission = submit_message(user=user, conversation=conversation, content=text)
        return Message.objects.get(pk=submission.assistant_message.pk)

    return _send


def as_if_the_worker_died(reply: Message) -> None:
    Message.objects.filter(pk=reply.pk).update(status="running", started_at=timezone.now() - timedelta(hours=1))


def test_a_second_delivery_of_a_finished_reply_does_nothing(scripted_llm: Any, send: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Registro R$ 50,00?")
    reply = send("Gastei 50 reais no mercado")

    generate_reply.delay(reply.pk)

    assert len(scripted_llm.requests) == 2
    assert PendingAction.objects.count() == 1


def test_a_redelivery_after_a_crash_reuses_the_stored_tool_results(scripted_llm: Any, send: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"}, call_id="call_a")
    scripted_llm.reply_text("Registro R$ 50,00?")
    reply = send("Gastei 50 reais no mercado")
    as_if_the_worker_died(reply)
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"}, call_id="call_a")
    scripted_llm.reply_text("Registro R$ 50,00?")

    generate_reply.delay(reply.pk)

    assert Message.objects.get(pk=reply.pk).status == "done"
    assert PendingAction.objects.count() == 1
    assert ToolCall.objects.filter(message=reply).count() == 1


def test_a_confirmed_expense_is_written_once_whatever_the_redeliveries(scripted_llm: Any, send: Any) -> None:
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Registro R$ 50,00?")
    send("Gastei 50 reais no mercado")
    scripted_llm.reply_text("Registrado!")
    confirmed = send("sim")

    as_if_the_worker_died(confirmed)
    scripted_llm.reply_text("Registrado!")
    generate_reply.delay(confirmed.pk)
    generate_reply.delay(confirmed.pk)

    assert Expense.objects.count() == 1
    assert Message.objects.get(pk=confirmed.pk).content == "Registrado!"
    assert ToolCall.objects.filter(message=confirmed).count() == 1
