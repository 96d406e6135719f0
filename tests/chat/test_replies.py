"""A reply's one deadline and the watchdog that keeps no reply waiting forever."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from chat import replies
from chat.models import Message

pytestmark = pytest.mark.django_db


@pytest.fixture
def reply(api: Any, conversation: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Message:
    """A reply whose task went nowhere (as if the broker lost it)."""
    monkeypatch.setattr("chat.services.queue_reply", lambda message_id: None)
    submitted = api.post(f"/api/v1/conversations/{conversation['id']}/messages/", {"content": "Oi"}, format="json")
    return Message.objects.get(pk=submitted.json()["assistant_message"]["id"])


def sweep() -> tuple[dict[str, int], list[tuple[int, bool]]]:
    queued: list[tuple[int, bool]] = []
    return replies.sweep(lambda pk, restarted: queued.append((pk, restarted))), queued


def test_a_reply_whose_task_was_lost_is_queued_again_once_per_wait(reply: Message) -> None:
    assert sweep()[1] == []  # just queued: its task may be on its way
    Message.objects.filter(pk=reply.pk).update(created_at=timezone.now() - timedelta(seconds=31))

    counts, queued = sweep()

    assert queued == [(reply.pk, False)] and counts["requeued"] == 1
    assert sweep()[1] == []  # the next pass waits again before another copy


def test_a_running_reply_whose_worker_died_is_queued_again_to_start_over(reply: Message, monkeypatch: pytest.MonkeyPatch) -> None:
    Message.objects.filter(pk=reply.pk).update(status="running", started_at=timezone.now(), runner="host:1:1")
    monkeypatch.setattr(replies, "runners_alive", lambda runners: set())

    counts, queued = sweep()

    assert queued == [(reply.pk, True)] and counts["taken_over"] == 1
    taken = Message.objects.get(pk=reply.pk)
    assert taken.status == "pending" and taken.runner == ""
    assert replies.claim(reply.pk) is not None  # the new run claims it as any pending reply


def test_a_running_reply_whose_worker_is_alive_is_left_alone(reply: Message, monkeypatch: pytest.MonkeyPatch) -> None:
    Message.objects.filter(pk=reply.pk).update(status="running", started_at=timezone.now(), runner="host:1:1")
    monkeypatch.setattr(replies, "runners_alive", lambda runners: set(runners))

    assert sweep()[1] == []
    assert replies.claim(reply.pk) is None  # and nobody else may run it
    assert Message.objects.get(pk=reply.pk).status == "running"


def test_when_liveness_cannot_be_known_nobody_is_taken_over(reply: Message, settings: Any) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    Message.objects.filter(pk=reply.pk).update(status="running", started_at=timezone.now(), runner="elsewhere:1:1")

    assert replies.runners_alive({"elsewhere:1:1"}) is None
    assert sweep()[1] == []


@pytest.mark.parametrize(("status", "code"), [("running", "timeout"), ("pending", "not_queued")])
def test_a_reply_past_its_deadline_fails_with_a_clear_code(reply: Message, status: str, code: str, settings: Any) -> None:
    long_ago = timezone.now() - timedelta(seconds=settings.REPLY_TIME_LIMIT_SECONDS + replies.OVERDUE_GRACE_SECONDS + 1)
    Message.objects.filter(pk=reply.pk).update(status=status, started_at=long_ago, created_at=long_ago)

    counts, queued = sweep()

    failed = Message.objects.get(pk=reply.pk)
    assert counts["failed"] == 1 and queued == []
    assert failed.status == "failed" and failed.error_code == code
    assert replies.can_retry(failed)


def test_one_deadline_decides_claim_retry_and_the_watchdog(reply: Message, settings: Any) -> None:
    just_in_time = timezone.now() - timedelta(seconds=settings.REPLY_TIME_LIMIT_SECONDS + replies.OVERDUE_GRACE_SECONDS - 2)
    Message.objects.filter(pk=reply.pk).update(status="running", started_at=just_in_time, runner="host:1:1")
    running = Message.objects.get(pk=reply.pk)

    assert not replies.is_overdue(running) and not replies.can_retry(running)
    assert replies.claim(reply.pk) is None
    assert replies.fail_if_overdue(reply.pk) is False
