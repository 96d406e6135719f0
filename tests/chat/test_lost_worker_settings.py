"""A worker killed mid-reply hands the reply back to the queue at once (docs/operations.md, Processes).

The kill itself is exercised with a real worker in test_streaming_worker.py (``-m worker``); these
check the settings that make it work on every run of the fast suite, because losing one
of them turns a redelivery back into a reply stuck ``running`` until the retry window.
"""

from __future__ import annotations

from django.conf import settings

from chat.tasks import generate_reply


def test_the_reply_task_is_acknowledged_late_and_requeued_when_its_worker_dies() -> None:
    assert generate_reply.acks_late is True
    assert generate_reply.reject_on_worker_lost is True
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True


def test_the_visibility_timeout_outlasts_the_hard_time_limit() -> None:
    # Shorter, and Redis would hand a still-running reply to a second worker.
    visibility = settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert visibility > settings.CELERY_TASK_TIME_LIMIT > settings.CELERY_TASK_SOFT_TIME_LIMIT
