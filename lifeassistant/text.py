"""Text helpers shared by every layer: normalisation for matching, tools and the light
context, and the one way prompt sections are joined.

One accent and case folding for the whole project, so "Gastei", "gastéi" and
"GASTEI" compare equal wherever text is matched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence


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


def join_sections(*sections: str) -> str:
    """Prompt sections joined by blank lines, empty ones left out."""
    return "\n\n".join(section for section in sections if section.strip())
