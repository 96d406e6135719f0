"""Consent records (``Consent`` rows): the user's current answers, and new ones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .models import Consent
from .privacy import CONSENT_TEXT_VERSION, current_answers


def answers_of(owner_id: int) -> dict[str, bool]:
    """Each purpose's latest answer of the user (one query)."""
    rows = Consent.objects.filter(owner_id=owner_id).order_by("-created_at", "-id").values_list("purpose", "given")
    return current_answers(rows)


@dataclass(frozen=True)
class Consents:
    """A user's consents: the purposes given now, and every purpose they answered (a
    refusal is not asked again; the preferences page can still give it)."""

    given: frozenset[str]
    answered: frozenset[str]


def consents_of(owner_id: int) -> Consents:
    answers = answers_of(owner_id)
    return Consents(frozenset(purpose for purpose, given in answers.items() if given), frozenset(answers))


def record_answer(owner: Any, purpose: str, *, given: bool) -> Consent:
    """Record the user's answer to the current text of ``purpose``."""
    return Consent.objects.create(owner=owner, purpose=purpose, given=given, text_version=CONSENT_TEXT_VERSION)
