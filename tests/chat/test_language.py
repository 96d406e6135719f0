"""Which language a reply's fixed texts use (chat.language): pure rules."""

from __future__ import annotations

import pytest

from chat.language import django_language, fallback_language, from_accept_language, from_profile_value, profile_value


@pytest.mark.parametrize(
    ("conversation", "profile", "header", "expected"),
    [
        ("en", "pt", "pt-BR", "en"),  # the conversation's language wins
        (None, "en", "pt-BR", "en"),  # then the profile's
        ("", "", "en-US,en;q=0.9", "en"),  # then the browser's
        (None, "", None, None),  # no signal at all
    ],
)
def test_a_short_message_keeps_the_nearest_known_language(conversation, profile, header, expected) -> None:
    assert fallback_language(conversation, profile, header) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("en-US,en;q=0.9,pt-BR;q=0.8", "en"),
        ("pt-BR,pt;q=0.9,en;q=0.8", "pt"),
        ("fr-FR,fr;q=0.9,es;q=0.5", "es"),  # the best one the product speaks
        ("de, en;q=0", None),  # q=0 means "not this one"
        ("en;q=0.2, es;q=0.7", "es"),
        ("*", None),
        ("", None),
        ("en;q=abc", "en"),  # a weight that is no number: the language was still named
        ("pt_BR", "pt"),  # as some mobile clients write it
        ("pt-BR;q=0.9;foo=bar, en;q=0.5", "pt"),  # parameters besides the weight
        ("es;q=0, *;q=0.1", None),
        ("x-klingon, en", "en"),
    ],
)
def test_accept_language_picks_the_preferred_supported_language(header, expected) -> None:
    assert from_accept_language(header) == expected


def test_django_codes_never_default_an_english_speaker_to_portuguese() -> None:
    assert django_language("en") == "en"
    assert django_language("pt") == "pt-br"
    assert django_language("es") == "es"
    assert django_language("fr") == "en"  # a language the product does not speak: English
    assert django_language(None) == "pt-br"  # no signal at all: most users are Brazilian


def test_profile_values_round_trip() -> None:
    assert [profile_value(code) for code in ("pt", "en", "es", "", "fr")] == ["pt-BR", "en", "es", None, None]
    assert [from_profile_value(value) for value in ("pt-BR", "en", "es", None)] == ["pt", "en", "es", ""]
    with pytest.raises(ValueError):
        from_profile_value("pt")
