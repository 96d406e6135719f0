"""Retention: conversations idle longer than the user's (or the deployment's) limit are deleted daily."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone

from chat.erasure import apply_retention
from chat.models import Conversation, Message
from chat.tasks import apply_retention as retention_task
from lifeassistant import light_context
from lifeassistant.models import Profile

pytestmark = pytest.mark.django_db


def conversation_idle_for(owner: Any, days: int, title: str) -> Conversation:
    conversation = Conversation.objects.create(owner=owner, title=title)
    Message.objects.create(conversation=conversation, role="user", content=title)
    Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now() - timedelta(days=days))
    return conversation


def keep(owner: Any, days: int | None) -> None:
    Profile.objects.filter(pk=Profile.for_user(owner).pk).update(retention_days=days)


def titles() -> set[str]:
    return set(Conversation.objects.values_list("title", flat=True))


def test_it_deletes_what_is_older_than_n_days_and_nothing_newer(user: Any, django_capture_on_commit_callbacks: Any) -> None:
    keep(user, 30)
    old = conversation_idle_for(user, 31, "antiga")
    conversation_idle_for(user, 29, "recente")
    cache.set(light_context.context_key(user.pk, old.pk), {"last_intent": "x"}, 600)

    with django_capture_on_commit_callbacks(execute=True):
        assert apply_retention() == 1

    assert titles() == {"recente"}
    assert not Message.objects.filter(conversation_id=old.pk).exists()
    assert cache.get(light_context.context_key(user.pk, old.pk)) is None


def test_retention_is_off_by_default(user: Any) -> None:
    conversation_idle_for(user, 3000, "muito antiga")
    assert apply_retention() == 0
    assert titles() == {"muito antiga"}


def test_each_user_keeps_their_own_setting(user: Any, other_user: Any) -> None:
    keep(user, 7)
    conversation_idle_for(user, 10, "da ana")
    conversation_idle_for(other_user, 10, "do bruno")

    apply_retention()

    assert titles() == {"do bruno"}


def test_the_deployment_maximum_applies_to_everyone(user: Any, other_user: Any, settings: Any) -> None:
    settings.RETENTION_MAX_DAYS = 90
    keep(user, 365)  # the user asked for more: the maximum wins
    keep(other_user, 10)  # fewer: theirs wins
    conversation_idle_for(user, 100, "ana 100 dias")
    conversation_idle_for(user, 80, "ana 80 dias")
    conversation_idle_for(other_user, 20, "bruno 20 dias")
    conversation_idle_for(other_user, 5, "bruno 5 dias")

    apply_retention()

    assert titles() == {"ana 80 dias", "bruno 5 dias"}


def test_the_command_and_the_daily_task_apply_it(user: Any, settings: Any) -> None:
    keep(user, 1)
    conversation_idle_for(user, 2, "um")
    out = StringIO()
    call_command("apply_retention", stdout=out)
    assert "Deleted 1 conversations." in out.getvalue()

    conversation_idle_for(user, 2, "dois")
    assert retention_task.delay().get() == 1
    assert settings.CELERY_BEAT_SCHEDULE["apply-retention"]["task"] == "chat.apply_retention"


def test_the_user_sets_it_through_the_api(api: Any, user: Any) -> None:
    assert api.get("/api/v1/me/").json()["retention_days"] is None
    assert api.patch("/api/v1/me/", {"retention_days": 30}, format="json").json()["retention_days"] == 30
    assert Profile.objects.get(user=user).retention_days == 30
    assert api.patch("/api/v1/me/", {"retention_days": 0}, format="json").status_code == 400
    assert api.patch("/api/v1/me/", {"retention_days": None}, format="json").json()["retention_days"] is None
