"""The translation catalogs: pt-BR complete, nothing fuzzy (msgfmt drops fuzzy entries, so
the page would show English), and the committed .mo files compiled from the .po files."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

LOCALE = Path(__file__).resolve().parents[2] / "locale"
ENTRY = re.compile(
    r'^((?:#.*\n)*)(?:msgctxt (".*")\n)?msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', re.MULTILINE
)


def entries(language: str) -> list[tuple[str, str, str, str]]:
    """(flags, msgid, msgstr, msgctxt or "") of the catalog's messages, the header left out."""
    text = (LOCALE / language / "LC_MESSAGES" / "django.po").read_text(encoding="utf-8")
    found = []
    for comments, context, msgid, msgstr in ENTRY.findall(text):
        source = "".join(ast.literal_eval(line) for line in msgid.splitlines())
        if source:
            target = "".join(ast.literal_eval(line) for line in msgstr.splitlines())
            found.append((comments, source, target, ast.literal_eval(context) if context else ""))
    return found


@pytest.mark.parametrize("language", ["pt_BR", "es"])
def test_no_message_is_fuzzy_and_each_translation_is_in_the_compiled_catalog(language: str) -> None:
    found = entries(language)
    assert len(found) > 100
    assert [source for flags, source, _, _ in found if "fuzzy" in flags] == []

    def compiled(source: str, context: str) -> str:
        return translation.pgettext(context, source) if context else translation.gettext(source)

    with translation.override(language.replace("_", "-").lower()):
        stale = [source for _, source, target, context in found if target and compiled(source, context) != target]
    assert stale == []  # run `make messages` (compilemessages) after editing a .po file


def test_every_message_has_its_brazilian_portuguese_translation() -> None:
    assert [source for _, source, target, _ in entries("pt_BR") if not target] == []
