"""Two messages posted at once to one conversation both count towards skill inertia.

Needs PostgreSQL (row locks): DATABASE_URL=postgres://... pytest -m postgres tests/skills
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection, connections
from django.utils import timezone

import chat.services
from chat.models import Conversation, Message
from chat.services import submit_message

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_quiet_messages_sent_at_once_both_advance_the_inertia_counter(
    user: Any, shipped_skills: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL row locks (set DATABASE_URL=postgres://...)")
    conversation = Conversation.objects.create(
        owner=user, title="finanças", active_skills=["finance"],
        skills_detected_at=timezone.now(), messages_since_detection=0,
    )
    # The replies are not under test; planning is slowed so that, without the row
    # lock, both threads would read the same state before either writes it back.
    monkeypatch.setattr(chat.services, "dispatch_reply", lambda message: None)
    plan = chat.services.plan_skills

    def slow_plan(**kwargs: Any) -> Any:
        result = plan(**kwargs)
        time.sleep(0.3)
        return result

    monkeypatch.setattr(chat.services, "plan_skills", slow_plan)
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def post(content: str) -> None:
        try:
            start.wait(timeout=10)
            submit_message(user=user, conversation=conversation, content=content)
        except BaseException as error:  # reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=post, args=(text,)) for text in ("ok", "entendi")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert not errors, errors
    conversation.refresh_from_db()
    assert conversation.active_skills == ["finance"]
    assert conversation.messages_since_detection == 2
    replies = Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT)
    assert sorted(reply.skill_reason for reply in replies) == ["inertia", "inertia"]
    assert Message.objects.filter(conversation=conversation, role=Message.Role.USER).count() == 2
