"""Which language a page or an API answer speaks (chat.language.page_language)."""

from __future__ import annotations

import pytest

from chat.language import page_language


@pytest.mark.parametrize(
    ("profile", "chosen", "accept", "expected"),
    [
        ("en", "pt-br", "pt-BR", "en"),  # the user's own setting wins
        ("pt", None, "en-US", "pt-br"),
        ("", "en", "pt-BR", "en"),  # then what they picked on the sign-in page
        (None, None, "en-US,en;q=0.9", "en"),  # then the browser
        (None, None, "pt-BR,pt;q=0.9,en;q=0.8", "pt-br"),
        (None, None, "de-DE,fr;q=0.8", "en"),  # a browser we cannot serve gets English
        (None, None, None, "pt-br"),  # no signal at all: most users are Brazilian
        (None, "xx", "", "pt-br"),  # a forged cookie is ignored
        (None, None, "*", "pt-br"),  # any language will do: no signal
        (None, None, "pt_BR", "pt-br"),
        (None, None, "pt-BR;q=abc", "pt-br"),
        (None, None, "fr, *;q=0.1", "en"),  # names only a language we cannot serve
    ],
)
def test_the_profile_then_the_choice_then_the_browser(
    profile: str | None, chosen: str | None, accept: str | None, expected: str
) -> None:
    assert page_language(profile, chosen, accept) == expected
