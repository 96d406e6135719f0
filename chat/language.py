"""Which language a reply and its fixed texts use: pure rules, no ORM.

A message too short to judge ("ok", "thanks", "gastei 50") keeps the conversation's
language, else the one in the user's profile, else the client's ``Accept-Language``;
only with none of those signals does Brazilian Portuguese apply (most users are
Brazilian). A language the product does not speak gets English. Languages are ISO
639-1 codes ("pt", "en", "es"), as the detector and ``Message.language`` store them.
"""

from __future__ import annotations

import re

# The languages the product speaks; fixed texts exist in English (source) and pt-BR.
SUPPORTED = ("pt", "en", "es")
# Django's language codes for each: Brazilian Portuguese is the Portuguese users speak.
_DJANGO_CODES = {"pt": "pt-br", "en": "en", "es": "es"}
# With no signal at all; any other language the user writes in gets English.
_NO_SIGNAL, _UNSUPPORTED = "pt-br", "en"
# An API value per profile language, and back ("pt-BR" is what clients show and send).
_PROFILE_VALUES = {"pt": "pt-BR", "en": "en", "es": "es"}

# A language range ("pt-BR", and "pt_BR" as some mobile clients write it, or "*"), then
# parameters, of which only the weight "q" counts.
_ACCEPT_ENTRY = re.compile(r"^\s*(\*|[A-Za-z]{1,8}(?:[-_][A-Za-z0-9]{1,8})*)\s*(;.*)?$")
_WEIGHT = re.compile(r";\s*q\s*=\s*([^;\s]*)", re.IGNORECASE)


def _accept_entries(header: str | None) -> list[tuple[str, float]]:
    """(primary language or "*", weight) of each well-formed entry, at most 20. A weight
    that is no number counts as 1: the browser still named the language."""
    entries = []
    for entry in (header or "").split(",")[:20]:
        match = _ACCEPT_ENTRY.match(entry)
        if match is None:
            continue
        weight_text = _WEIGHT.search(match.group(2) or "")
        try:
            weight = float(weight_text.group(1)) if weight_text else 1.0
        except ValueError:
            weight = 1.0
        entries.append((re.split(r"[-_]", match.group(1))[0].lower(), weight))
    return entries


def fallback_language(conversation: str | None, profile: str | None, accept_language: str | None) -> str | None:
    """The language to keep when a message has too little prose to detect its own."""
    for candidate in (conversation, profile, from_accept_language(accept_language)):
        if candidate:
            return candidate
    return None


def from_accept_language(header: str | None) -> str | None:
    """The supported language the browser prefers most ("en-US,en;q=0.9,pt;q=0.8" → "en")."""
    return _preferred(_accept_entries(header))


def _preferred(entries: list[tuple[str, float]]) -> str | None:
    """The supported language of the highest weight, the first listed among equals."""
    best: tuple[float, int, str] | None = None
    for position, (code, weight) in enumerate(entries):
        if code in SUPPORTED and weight > 0 and (best is None or (weight, -position) > best[:2]):
            best = (weight, -position, code)
    return best[2] if best else None


def page_language(profile: str | None, chosen: str | None, accept_language: str | None) -> str:
    """The Django language of a page or API answer: the signed-in user's profile
    language, else the one chosen on the sign-in page (a Django language code, from the
    language cookie), else the browser's ``Accept-Language``; a browser that asks only
    for languages the product does not speak gets English; no signal at all, or "*", pt-BR."""
    if profile:
        return django_language(profile)
    if chosen is not None and chosen in _DJANGO_CODES.values():
        return chosen
    entries = _accept_entries(accept_language)
    if any(code != "*" and weight > 0 for code, weight in entries):
        return django_language(_preferred(entries) or "unsupported")
    return _NO_SIGNAL  # no header, or one naming no language ("*": any will do)


def django_language(language: str | None) -> str:
    """The Django language code for ``translation.override`` ("pt" → "pt-br", "fr" → "en")."""
    if not language:
        return _NO_SIGNAL
    return _DJANGO_CODES.get(language, _UNSUPPORTED)


def profile_value(language: str) -> str | None:
    """How the API shows a profile language: "pt" → "pt-BR"; unset or unsupported → None."""
    return _PROFILE_VALUES.get(language)


def from_profile_value(value: str | None) -> str:
    """The stored code for an API value: "pt-BR" → "pt", None → "" (unset)."""
    if value is None:
        return ""
    for code, shown in _PROFILE_VALUES.items():
        if shown == value:
            return code
    raise ValueError(f"Unsupported language {value!r}; use one of {', '.join(_PROFILE_VALUES.values())} or null.")
