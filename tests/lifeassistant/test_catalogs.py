"""The translation catalogs: pt-BR complete, nothing fuzzy (msgfmt drops fuzzy entries, so
the page would show English), and the committed .mo files compiled from the .po files."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

LOCALE = Path(__file__).resolve().parents[2] / "locale"
ENTRY = re.compile(r'^((?:#.*\n)*)msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', re.MULTILINE)


def entries(language: str) -> list[tuple[str, str, str]]:
    """(flags, msgid, msgstr) of the catalog's messages, the header left out."""
    text = (LOCALE / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    found = []
    for comments, msgid, msgstr in ENTRY.findall(text):
        source = "".join(ast.literal_eval(line) for line in msgid.splitlines())
        if source:
            found.append((comments, source, "".join(ast.literal_eval(line) for line in msgstr.splitlines())))
    return found


@pytest.mark.parametrize("language", ["pt_BR", "es"])
def test_no_message_is_fuzzy_and_each_translation_is_in_the_compiled_catalog(language: str) -> None:
    found = entries(language)
    assert len(found) > 100
    assert [source for flags, source, _ in found if "fuzzy" in flags] == []
    with translation.override(language.replace("_", "-").lower()):
        stale = [source for _, source, target in found if target and translation.gettext(source) != target]
    assert stale == []  # run `make messages` (compilemessages) after editing a .po file


def test_every_message_has_its_brazilian_portuguese_translation() -> None:
    assert [source for _, source, target in entries("pt_BR") if not target] == []
