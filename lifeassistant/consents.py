"""Consent records: every answer is a ``Consent`` row, and the profile keeps the latest
answer per purpose (``Profile.consents``), so a message reads them with the profile it
loads anyway, at no extra query."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from .models import Consent, Profile
from .privacy import CONSENT_TEXT_VERSION


@dataclass(frozen=True)
class Consents:
    """A user's consents: the purposes given now, and every purpose they answered (a
    refusal is not asked again; the preferences page can still give it)."""

    given: frozenset[str]
    answered: frozenset[str]


def consents_of(profile: Profile) -> Consents:
    answers = profile.consents or {}
    return Consents(frozenset(purpose for purpose, given in answers.items() if given), frozenset(answers))


def consents_of_user(user_id: int) -> Consents:
    """The consents of a user whose profile is not loaded (one query)."""
    answers = Profile.objects.filter(user_id=user_id).values_list("consents", flat=True).first()
    return consents_of(Profile(consents=answers or {}))


def record_answer(owner: Any, purpose: str, *, given: bool) -> Consent:
    """Record the user's answer to the current text of ``purpose``: a new row, and the
    profile's latest answers merged under its lock (two answers at once both land)."""
    with transaction.atomic():
        profile = Profile.for_user(owner)
        stored = Profile.objects.select_for_update().values_list("consents", flat=True).get(pk=profile.pk)
        Profile.objects.filter(pk=profile.pk).update(consents={**(stored or {}), purpose: given})
        return Consent.objects.create(owner=owner, purpose=purpose, given=given, text_version=CONSENT_TEXT_VERSION)
