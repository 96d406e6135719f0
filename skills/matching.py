"""Trigger matching: which skills does a user message mention?

Pattern syntax
--------------
Matching ignores case and accents, in the pattern and in the message alike:
``divida`` matches "Dívidas", ``coração`` matches "CORACAO".

``gast``
    A plain pattern matches at the START of a word: it fires on "gastei" and
    "gastos", never inside a word (``briga`` does not fire on "obrigado").
``=fé``
    A pattern starting with ``=`` matches only a WHOLE word: ``=pai`` fires on
    "meu pai" but not on "paisagem"; ``=mae`` fires on "mãe" but not on "maestro".
``não sei o que fazer``
    A pattern with spaces is a phrase: its words must follow each other in the
    message (any run of spaces, tabs or line breaks counts as one space). The phrase
    starts at the start of a word, and its last word is a prefix again unless the
    pattern starts with ``=``: ``=me sinto só`` does not fire on "me sinto sozinho".

Punctuation is kept: ``não sei o que fazer`` does not fire on "não sei, o que fazer".
A pattern needs at least one letter or digit, at most 100 characters and a single line.

How it is fast
--------------
All patterns of all skills are compiled into one regular expression shaped as a
character trie, tried once at every word start of the normalized message. The
expression returns the longest pattern text found there; every shorter pattern that
fires at the same place is a prefix of that text, so a table precomputed per pattern
text lists them all. The cost of a match hence grows with the message length, not
with the number of skills or patterns.
"""

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from skills.domain import SkillDefinition

MAX_PATTERN_LENGTH = 100
WHOLE_WORD_PREFIX = "="


def _combining_mark_ranges(limit: int) -> list[tuple[int, int]]:
    """Return the code point ranges below ``limit`` that are combining marks."""
    ranges: list[tuple[int, int]] = []
    start: int | None = None
    for code_point in range(limit):
        if unicodedata.combining(chr(code_point)):
            if start is None:
                start = code_point
        elif start is not None:
            ranges.append((start, code_point - 1))
            start = None
    return ranges


def _character_class(ranges: Sequence[tuple[int, int]]) -> str:
    """Return a regex character class matching the given code point ranges."""
    parts = (
        re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        for low, high in ranges
    )
    return "[" + "".join(parts) + "]+"


# Scanning the Basic Multilingual Plane takes a few milliseconds at import, while the
# whole Unicode range would take ~70 ms; marks outside it do not occur in chat text.
_COMBINING_MARKS = re.compile(_character_class(_combining_mark_ranges(0x10000)))
# Typographic apostrophes, so "don’t" and "don't" match the same patterns.
_APOSTROPHES = ("\u2019", "\u2018", "\u02bc")


def normalize(text: str) -> str:
    """Return ``text`` casefolded, without accents, with whitespace runs as one space.

    Accents are removed by NFKD decomposition and dropping the combining marks, so
    "ç" becomes "c" and "ã" becomes "a"; typographic apostrophes become "'". Leading
    and trailing whitespace is dropped.
    """
    folded = unicodedata.normalize("NFKD", text.casefold())
    if not folded.isascii():
        folded = _COMBINING_MARKS.sub("", folded)
        for apostrophe in _APOSTROPHES:
            folded = folded.replace(apostrophe, "'")
    # split() and join() beat a regex substitution by 3x on chat-sized text.
    return " ".join(folded.split())


def validate_pattern(pattern: str) -> str | None:
    """Return why ``pattern`` is malformed, or None when it can be used."""
    if "\n" in pattern or "\r" in pattern:
        return "a pattern must fit on one line"
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"a pattern must be at most {MAX_PATTERN_LENGTH} characters long"
    stripped = pattern.strip()
    if not stripped:
        return "a pattern must not be empty"
    if stripped == WHOLE_WORD_PREFIX:
        return "'=' must be followed by a word"
    if not any(character.isalnum() for character in normalize(stripped)):
        return "a pattern needs at least one letter or digit"
    return None


@dataclass(frozen=True)
class _CompiledPattern:
    """A pattern as written by staff, with what the matcher needs to test it."""

    skill: str
    written: str
    key: str
    whole_word: bool


def _compile_pattern(skill: str, written: str) -> _CompiledPattern:
    """Split a valid pattern into its normalized text and its whole-word flag."""
    stripped = written.strip()
    whole_word = stripped.startswith(WHOLE_WORD_PREFIX)
    body = stripped[len(WHOLE_WORD_PREFIX):] if whole_word else stripped
    return _CompiledPattern(skill, written, normalize(body).strip(), whole_word)


def _is_word_character(character: str) -> bool:
    """Tell whether ``character`` is what the regex ``\\w`` calls a word character."""
    return character.isalnum() or character == "_"


_Trie = dict[str, "_Trie"]
_END = ""  # Key marking that a pattern text ends at this trie node.


def _build_trie(keys: Iterable[str]) -> _Trie:
    """Return a character trie holding ``keys``."""
    root: _Trie = {}
    for key in keys:
        node = root
        for character in key:
            node = node.setdefault(character, {})
        node[_END] = {}
    return root


def _trie_regex(node: _Trie) -> str:
    """Return a regex matching the longest key stored below ``node``.

    Siblings never share a first character, so the first alternative that succeeds is
    the only one that can; greedy optional groups make the longest key win.
    """
    single_characters: list[str] = []
    branches: list[str] = []
    for character in sorted(key for key in node if key != _END):
        child = node[character]
        if list(child) == [_END]:
            single_characters.append(re.escape(character))
        else:
            branches.append(re.escape(character) + _trie_regex(child))
    if len(single_characters) == 1:
        branches.append(single_characters[0])
    elif single_characters:
        branches.append("[" + "".join(single_characters) + "]")
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return f"(?:{body})?" if _END in node else body


def _prefix_table(
    patterns: Sequence[_CompiledPattern],
) -> dict[str, tuple[_CompiledPattern, ...]]:
    """Map each pattern text to all patterns whose text is a prefix of it (itself included).

    When the trie regex reports text T at some word start, exactly these patterns
    can fire there: whatever else fires at that place is shorter and thus a prefix of T.
    """
    by_key: dict[str, list[_CompiledPattern]] = {}
    for pattern in patterns:
        by_key.setdefault(pattern.key, []).append(pattern)
    return {
        key: tuple(
            pattern
            for length in range(1, len(key) + 1)
            for pattern in by_key.get(key[:length], ())
        )
        for key in by_key
    }


class TriggerMatcher:
    """All trigger patterns of a set of skills, compiled to match in one pass.

    Build it with :func:`compile_matcher`; it is immutable and safe to share.
    """

    def __init__(
        self,
        patterns: Sequence[_CompiledPattern],
        skipped: tuple[tuple[str, str, str], ...],
    ) -> None:
        self._table = _prefix_table(patterns)
        # The lookahead captures without consuming, so a pattern starting at a later
        # word inside an earlier hit ("a pagar" inside "contas a pagar") is still seen.
        self._regex = (
            re.compile(r"(?<!\w)(?=(" + _trie_regex(_build_trie(self._table)) + "))")
            if self._table
            else None
        )
        self.pattern_count = len(patterns)
        self.skipped_patterns = skipped

    def match(self, text: str) -> dict[str, tuple[str, ...]]:
        """Return, per skill that fired on ``text``, the patterns that fired, as written."""
        if self._regex is None:
            return {}
        normalized = normalize(text)
        fired: dict[str, dict[str, None]] = {}
        for hit in self._regex.finditer(normalized):
            start = hit.start()
            for pattern in self._table[hit.group(1)]:
                if pattern.whole_word and _continues_word(normalized, start + len(pattern.key)):
                    continue
                fired.setdefault(pattern.skill, {})[pattern.written] = None
        return {skill: tuple(written) for skill, written in fired.items()}


def _continues_word(text: str, index: int) -> bool:
    """Tell whether a word character sits at ``index`` (so a word goes on there)."""
    return index < len(text) and _is_word_character(text[index])


def compile_matcher(skills: Iterable[SkillDefinition]) -> TriggerMatcher:
    """Compile the trigger patterns of the enabled ``skills`` into one matcher.

    Malformed patterns (see :func:`validate_pattern`) never reach the matcher: they are
    listed in ``skipped_patterns`` as (skill, pattern, reason) for the caller to log.
    """
    patterns: list[_CompiledPattern] = []
    skipped: list[tuple[str, str, str]] = []
    for skill in skills:
        if not skill.enabled:
            continue
        for written in skill.trigger_patterns:
            error = validate_pattern(written)
            if error is None:
                patterns.append(_compile_pattern(skill.name, written))
            else:
                skipped.append((skill.name, written, error))
    return TriggerMatcher(patterns, tuple(skipped))


def naive_match(text: str, skills: Iterable[SkillDefinition]) -> tuple[str, ...]:
    """Return the names of the skills with a pattern contained in the lowercased text.

    This is the original detection algorithm, kept verbatim as the benchmark baseline:
    plain substring search, no word boundaries, no accent folding, no syntax.
    """
    lowered = text.lower()
    return tuple(
        skill.name
        for skill in skills
        if any(pattern in lowered for pattern in skill.trigger_patterns)
    )
