"""Delete the stored prompts no message refers to any more.

A prompt holds its user's "About the user" section: kept after its conversation was
deleted (or after a retried reply was given a rebuilt prompt), it left a deleted memory
readable to staff for good. Processes skip storing a prompt they stored lately
(``CommittedPrompts``), so a prompt is deleted in two sweeps: the first marks it
unreferenced, a later one at least ``PROMPT_CACHE_SECONDS`` after deletes it if it is
still unreferenced and no message stored it since (storing clears the mark).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Exists, OuterRef

from .models import PROMPT_CACHE_SECONDS, Message, Prompt


@dataclass(frozen=True)
class Swept:
    deleted: int
    marked: int


def sweep_prompts(now: datetime) -> Swept:
    """Delete the prompts marked unreferenced long enough ago, mark the newly unreferenced."""
    referenced = Exists(Message.objects.filter(prompt_id=OuterRef("pk")))
    with transaction.atomic():
        # Referenced again (a message points at it without having stored it): not a candidate.
        Prompt.objects.filter(referenced, unreferenced_since__isnull=False).update(unreferenced_since=None)
        unused = Prompt.objects.filter(~referenced)
        deleted, _ = unused.filter(unreferenced_since__lte=now - timedelta(seconds=PROMPT_CACHE_SECONDS)).delete()
        marked = unused.filter(unreferenced_since__isnull=True).update(unreferenced_since=now)
    return Swept(deleted=deleted, marked=marked)
