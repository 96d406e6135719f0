"""The user's rights over their data (LGPD): consent for sensitive data, and the pieces of
export and deletion that need no database.

Health data and religious conviction are sensitive data (LGPD art. 11): they are stored
only for a purpose the user consented to, after reading what is stored and why. Without
that consent the tools that write health data are not offered (reading what exists is
fine), and the skills that work on religious conviction stay off.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

# Bump when a purpose's text changes in substance: answers to an older text stay on
# record with the version they answered.
CONSENT_TEXT_VERSION = 1

HEALTH = "health"
SPIRITUAL = "spiritual"


@dataclass(frozen=True)
class Purpose:
    """A purpose a user may consent to: what is stored, why, and what needs it."""

    name: str
    title: Promise
    text: Promise
    # Skills that stay off without this consent.
    skills: tuple[str, ...] = ()
    # Tools (by registry name) that are not offered without it.
    tools: tuple[str, ...] = ()

    def as_card(self) -> dict[str, Any]:
        """What a client shows to ask for this consent, in the active language."""
        return {"purpose": self.name, "version": CONSENT_TEXT_VERSION, "title": str(self.title), "text": str(self.text)}


PURPOSES: dict[str, Purpose] = {
    HEALTH: Purpose(
        HEALTH,
        _("Health data"),
        _(
            "To track your health, the assistant stores the measurements you tell it (weight, sleep, "
            "water, exercise, mood, energy, steps) with their date and your notes. They are used only to "
            "answer you and to show your progress; nobody else sees them. You can download or delete "
            "them and revoke this consent at any time in Preferences."
        ),
        # Deleting a metric stays offered: removing data never needs consent.
        tools=("record_metric", "update_metric"),
    ),
    SPIRITUAL: Purpose(
        SPIRITUAL,
        _("Religious conviction"),
        _(
            "To answer from a Christian perspective, the assistant uses what you tell it about your faith, "
            "and your conversations keep it. It is used only to answer you; nobody else sees it. You can "
            "download or delete your conversations and revoke this consent at any time in Preferences."
        ),
        skills=("spiritual",),
    ),
}


def withheld_skills(given: Collection[str]) -> tuple[str, ...]:
    """The skills that stay off for a user who consented to the purposes ``given``."""
    return tuple(skill for purpose in PURPOSES.values() if purpose.name not in given for skill in purpose.skills)


def withheld_tools(given: Collection[str]) -> frozenset[str]:
    """The tools not offered to a user who consented to the purposes ``given``."""
    return frozenset(tool for purpose in PURPOSES.values() if purpose.name not in given for tool in purpose.tools)


def purposes_to_ask(
    given: Collection[str], *, wanted_skills: Iterable[str], wanted_tools: Iterable[str]
) -> list[str]:
    """The purposes, not consented to, that the skills and tools a message wanted need."""
    skills, tools = set(wanted_skills), set(wanted_tools)
    return [
        purpose.name
        for purpose in PURPOSES.values()
        if purpose.name not in given and (skills & set(purpose.skills) or tools & set(purpose.tools))
    ]


def subject_hash(user_id: int) -> str:
    """A one-way, keyed hash of a user id for records that must name nobody.

    Keyed with the deployment's SECRET_KEY: a plain hash of a small integer is undone by
    hashing every integer.
    """
    key = hashlib.sha256(f"account-deletion:{settings.SECRET_KEY}".encode()).digest()
    return hmac.new(key, str(user_id).encode(), hashlib.sha256).hexdigest()


# A spreadsheet runs a cell that starts with one of these as a formula (CSV injection).
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """``value`` as a CSV cell a spreadsheet shows as text: a leading formula character is
    quoted with an apostrophe (OWASP's advice); numbers stay numbers."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_STARTS) and not _is_number(text):
        return "'" + text
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
