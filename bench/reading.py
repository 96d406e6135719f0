"""How long reading a hostile message takes, for ``manage.py benchmark --section reading``.

Before a message is stored, ``POST …/messages/`` reads its text three ways: the
preprocessor (commands and ``@references``), language detection, and the extractor
(pasted blocks). Each is made of regular expressions and per-line loops, where one pattern
that backtracks makes a request take seconds. This times those three steps on messages of
``MESSAGE_MAX_CHARS`` made of one short unit repeated (every punctuation character, runs
without a space, command lines, table, list, transcript, fence and JSON openers …) against
a message of ordinary prose of the same length, in the same run.
"""

from __future__ import annotations

import statistics
import string
import time
from typing import Any

from django.conf import settings

from documents.extraction import extract
from documents.language import detect_language
from skills.preprocessor import execute as preprocess

PROSE = "Gastei cinquenta reais no mercado hoje e quero saber onde economizar este mês. "
UNITS = [
    *string.punctuation,
    "a", "1", "a.", "x@", "a@b.c ", "http://a", "www.", "a://", "| a ", "|a|\n", "- [ ] x\n", "1. x\n",
    "Q: a\nA: b\n", "<a>", '{"a":', '["a",', "```json\n{", "a,b;c\t", "/a b\n", "!a b\n", "/a 'b\n", "@a ",
    "`a", "~~~a\n", "$ARGUMENTS ", "não ", "R$ 1,00 ", "a\u00a0", "\u200b", "e\u0301", "\U0001f600",
]  # fmt: skip


def read(text: str) -> None:
    """The text steps of a POST, as ``chat.services.understand`` runs them."""
    preprocess(text)
    detect_language(text)
    extract(text)


def _seconds(text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        read(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def filled(unit: str, length: int) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def measure_reading(*, repeats: int = 3) -> dict[str, Any]:
    length = settings.MESSAGE_MAX_CHARS
    read(PROSE)  # warm: the language model loads on first use
    prose_ms = 1000 * _seconds(filled(PROSE, length), repeats)
    shapes = {unit: 1000 * _seconds(filled(unit, length), repeats) for unit in UNITS}
    worst = sorted(shapes.items(), key=lambda item: item[1], reverse=True)
    return {
        "characters": length,
        "shapes": len(shapes),
        "prose_ms": prose_ms,
        "worst": [{"unit": unit, "ms": ms, "ratio": ms / prose_ms} for unit, ms in worst[:5]],
        "median_ratio": statistics.median(shapes.values()) / prose_ms,
    }


def render_reading(figures: dict[str, Any]) -> list[str]:
    lines = [
        f"  {figures['shapes']} messages of {figures['characters']:,} characters, each one unit repeated; "
        f"ordinary prose of that length: {figures['prose_ms']:.1f} ms",
        f"  median shape / prose: {figures['median_ratio']:.2f}x",
        "  slowest shapes (preprocess + language + extraction):",
    ]
    lines += [f"    {row['unit']!r:14} {row['ms']:8.1f} ms  {row['ratio']:6.2f}x prose" for row in figures["worst"]]
    return lines
