"""The translation catalogs: pt-BR and Spanish complete, in both domains (``django`` for the
server, ``djangojs`` for the web chat's script), nothing fuzzy (msgfmt drops fuzzy entries,
so the page would show English), and the committed .mo files compiled from the .po files.

A new string marked for translation fails here until `make messages` has extracted it and
both languages translate it."""

from __future__ import annotations

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.utils import translation

LOCALE = Path(__file__).resolve().parents[2] / "locale"
ENTRY = re.compile(
    r'^((?:#.*\n)*)(?:msgctxt (".*")\n)?msgid ((?:".*"\n)+)msgstr ((?:".*"\n?)+)', re.MULTILINE
)


PLURAL = re.compile(
    r'^((?:#.*\n)*)msgid ((?:".*"\n)+)msgid_plural ((?:".*"\n)+)((?:msgstr\[\d+\] (?:".*"\n?)+)+)', re.MULTILINE
)
DOMAINS = ["django", "djangojs"]


def entries(language: str, domain: str = "django") -> list[tuple[str, str, str, str]]:
    """(flags, msgid, msgstr, msgctxt or "") of the catalog's messages, the header left out."""
    text = (LOCALE / language / "LC_MESSAGES" / f"{domain}.po").read_text(encoding="utf-8")
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


def plural_entries(language: str, domain: str) -> list[tuple[str, str, list[str]]]:
    """(flags, msgid, [msgstr[0], msgstr[1], ...]) of the catalog's plural messages."""
    text = (LOCALE / language / "LC_MESSAGES" / f"{domain}.po").read_text(encoding="utf-8")
    found = []
    for comments, msgid, _plural, forms in PLURAL.findall(text):
        source = "".join(ast.literal_eval(line) for line in msgid.splitlines())
        targets = [
            "".join(ast.literal_eval(line) for line in re.findall(r'"(?:[^"\\]|\\.)*"', form))
            for form in re.split(r"^msgstr\[\d+\] ", forms, flags=re.MULTILINE)[1:]
        ]
        found.append((comments, source, targets))
    return found


@pytest.mark.parametrize("language", ["pt_BR", "es"])
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_is_translated_and_none_is_fuzzy(language: str, domain: str) -> None:
    assert [source for _, source, target, _ in entries(language, domain) if not target] == []
    assert [source for _, source, targets in plural_entries(language, domain) if not all(targets)] == []
    flagged = [source for flags, source, _, _ in entries(language, domain) if "fuzzy" in flags]
    flagged += [source for flags, source, _ in plural_entries(language, domain) if "fuzzy" in flags]
    assert flagged == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_spanish_has_every_message_that_brazilian_portuguese_has(domain: str) -> None:
    def sources(language: str) -> set[str]:
        return {source for _, source, _, _ in entries(language, domain)} | {
            source for _, source, _ in plural_entries(language, domain)
        }

    assert sources("pt_BR") - sources("es") == set()


@pytest.mark.parametrize("language", ["pt_BR", "es"])
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_compiled_catalog_holds_every_translation(language: str, domain: str) -> None:
    with (LOCALE / language / "LC_MESSAGES" / f"{domain}.mo").open("rb") as compiled:
        catalog = gettext.GNUTranslations(compiled)
    stale = [
        source
        for _, source, target, context in entries(language, domain)
        if target and (catalog.pgettext(context, source) if context else catalog.gettext(source)) != target
    ]
    stale += [source for _, source, targets in plural_entries(language, domain) if catalog.ngettext(source, "", 1) != targets[0]]
    assert stale == []  # run `make messages` (compilemessages) after editing a .po file
