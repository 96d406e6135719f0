"""A saved skill changes detection on the next message, with no restart of any worker."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from skills.models import Skill
from skills.services import current_catalog

pytestmark = pytest.mark.usefixtures("shipped_skills")



def skills_for(api: APIClient, conversation_id: int, content: str, capture: Any) -> list[str]:
    with capture(execute=True):
        response = api.post(
            f"/api/v1/conversations/{conversation_id}/messages/", {"content": content}, format="json"
        )
    return response.json()["assistant_message"]["active_skills"]


def test_a_pattern_added_in_the_admin_routes_the_next_message(
    admin_client: Any, api: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    conversations = [api.post("/api/v1/conversations/", {}, format="json").json()["id"] for _ in range(2)]
    before = skills_for(api, conversations[0], "joguei xadrez a tarde toda", django_capture_on_commit_callbacks)
    health = Skill.objects.get(name="health")
    data = {
        field: "\n".join(value) if isinstance(value, list) else value
        for field, value in {
            "name": health.name,
            "description": health.description,
            "enabled": "on",
            "priority": health.priority,
            "trigger_patterns": [*health.trigger_patterns, "xadrez"],
            "requires_user_preference": "",
            "tools": health.tools,
            "prompt_extension": health.prompt_extension,
            "temperature": health.temperature,
            "tone_style": health.tone_style,
            "tone_emoji_level": health.tone_emoji_level,
            "tone_response_length": health.tone_response_length,
            "tone_formality": health.tone_formality,
            "examples": health.examples,
        }.items()
    }

    saved = admin_client.post(reverse("admin:skills_skill_change", args=[health.pk]), data)
    after = skills_for(api, conversations[1], "joguei xadrez a tarde toda", django_capture_on_commit_callbacks)

    assert saved.status_code == 302
    assert before == ["general"]
    assert after == ["health"]


def test_a_worker_with_a_built_catalog_rebuilds_it_after_a_save() -> None:
    cached = current_catalog()
    assert current_catalog() is cached
    assert cached.matcher.match("joguei xadrez") == {}

    professional = Skill.objects.get(name="professional")
    professional.trigger_patterns = [*professional.trigger_patterns, "xadrez"]
    professional.save()
    rebuilt = current_catalog()

    assert rebuilt.version != cached.version
    assert rebuilt.matcher.match("joguei xadrez") == {"professional": ("xadrez",)}


def test_disabling_or_deleting_a_skill_stops_its_detection_at_once() -> None:
    assert "finance" in current_catalog().matcher.match("gastei 50 reais")
    assert "health" in current_catalog().matcher.match("dormi mal")

    Skill.objects.get(name="finance").delete()
    health = Skill.objects.get(name="health")
    health.enabled = False
    health.save()

    assert current_catalog().matcher.match("gastei 50 reais") == {}
    assert current_catalog().matcher.match("dormi mal") == {}
    assert {skill.name for skill in current_catalog().skills} == {
        "general", "counselor", "professional", "relationships", "spiritual",
    }


def test_the_catalog_is_built_once_per_process_not_per_thread(django_assert_num_queries: Any) -> None:
    # Under ASGI each request runs in a thread of its own: a per-thread catalog was
    # rebuilt (a query and a compile of every trigger) on every message.
    first = current_catalog()
    seen: list[Any] = []
    with django_assert_num_queries(0):
        thread = threading.Thread(target=lambda: seen.append(current_catalog()))
        thread.start()
        thread.join()
    assert seen == [first] and seen[0] is first


def test_a_catalog_rebuilt_before_the_save_commits_is_replaced_after_it(django_capture_on_commit_callbacks: Any) -> None:
    """A process that rebuilt between the save and its commit read the old rows; the
    commit moves the version again, so that stale catalog is not kept."""
    from skills.catalog_version import shared_catalog_version

    health = Skill.objects.get(name="health")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        health.trigger_patterns = [*health.trigger_patterns, "xadrez"]
        health.save()
        during = shared_catalog_version()  # what another process would have cached under
    for callback in callbacks:
        callback()
    assert shared_catalog_version() != during


def test_a_bulk_update_of_skills_reaches_the_catalog() -> None:
    assert "health" in {skill.name for skill in current_catalog().skills}
    Skill.objects.filter(name="health").update(enabled=False)
    assert "health" not in {skill.name for skill in current_catalog().skills}


def test_a_message_reads_the_catalog_version_once(api: APIClient, monkeypatch: pytest.MonkeyPatch) -> None:
    # Each read is a round trip to the shared cache; understanding and planning one message
    # use the same catalog.
    from skills import services

    conversation = api.post("/api/v1/conversations/", {}, format="json").json()["id"]
    reads: list[str] = []
    real = services.shared_catalog_version
    monkeypatch.setattr(services, "shared_catalog_version", lambda: reads.append("read") or real())

    response = api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": "gastei 50 reais"}, format="json")

    assert response.status_code == 202
    assert response.json()["assistant_message"]["active_skills"] == ["finance"]
    assert len(reads) == 1


def test_a_save_moves_the_catalog_version_with_debug_off_and_after_a_collection(settings: Any) -> None:
    """With DEBUG off nothing but the signal refers to the receiver (Django caches receiver
    signatures only in DEBUG): it must stay alive on its own."""
    import gc

    from django.utils.inspect import _get_func_parameters

    from skills.catalog_version import shared_catalog_version

    settings.DEBUG = False
    _get_func_parameters.cache_clear()
    gc.collect()
    before = shared_catalog_version()

    health = Skill.objects.get(name="health")
    health.enabled = False
    health.save()

    assert shared_catalog_version() != before
    assert "health" not in {skill.name for skill in current_catalog().skills}
