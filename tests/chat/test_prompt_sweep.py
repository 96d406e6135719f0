"""Stored prompts no message refers to are deleted: a deleted conversation's memory does not stay.

Prompts were never deleted, so what was known about a user (a memory item deleted since
included) stayed readable to staff after the conversation was gone.
"""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from chat.models import PROMPT_CACHE_SECONDS, CommittedPrompts, Message, Prompt
from chat.prompt_sweep import sweep_prompts
from lifeassistant.models import KnowledgeItem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]

LATER = timedelta(seconds=PROMPT_CACHE_SECONDS + 1)


def test_a_deleted_conversations_prompt_goes_after_two_sweeps(api: Any, user: Any, conversation: Any, send: Any) -> None:
    KnowledgeItem.objects.create(owner=user, content="Segredo de família", area="family")
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    assert Prompt.objects.filter(text__contains="Segredo de família").exists()
    assert api.delete(f"/api/v1/conversations/{conversation['id']}/").status_code == 204

    now = timezone.now()
    assert sweep_prompts(now).marked == 1
    assert Prompt.objects.exists()  # a process may still trust the row for a while
    assert sweep_prompts(now + LATER).deleted == 1
    assert not Prompt.objects.exists()


def test_a_prompt_still_in_use_is_kept(api: Any, conversation: Any, send: Any) -> None:
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    now = timezone.now()
    sweep_prompts(now)
    assert sweep_prompts(now + LATER).deleted == 0
    assert Message.objects.get(role="assistant").system_prompt


def test_a_prompt_stored_again_between_sweeps_is_kept(api: Any, conversation: Any, send: Any) -> None:
    from chat.models import COMMITTED_PROMPTS

    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado"})
    Message.objects.filter(role="assistant").delete()
    now = timezone.now()
    assert sweep_prompts(now).marked == 1
    COMMITTED_PROMPTS.clear()  # another process, or this one an hour later
    send(api, conversation["id"], {"content": "Gastei 20 reais no mercado"})  # the same prompt

    assert sweep_prompts(now + LATER).deleted == 0
    assert Prompt.objects.get().unreferenced_since is None


def test_a_process_trusts_a_stored_prompt_only_for_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1_000.0]
    monkeypatch.setattr("chat.models.time.monotonic", lambda: clock[0])
    kept = CommittedPrompts(seconds=60)
    kept.add("digest")
    clock[0] += 59
    assert "digest" in kept
    clock[0] += 2
    assert "digest" not in kept


def test_the_sweep_command_says_what_it_did(api: Any, conversation: Any, send: Any) -> None:
    send(api, conversation["id"], {"content": "oi"})
    api.delete(f"/api/v1/conversations/{conversation['id']}/")
    out = StringIO()
    call_command("sweep_prompts", stdout=out)
    assert "marked unreferenced: 1" in out.getvalue()
