"""``manage.py benchmark --section reading``: hostile shapes timed against prose."""

from __future__ import annotations

import json
from io import StringIO

from django.core.management import call_command

from bench.reading import UNITS, filled


def test_the_reading_section_times_every_shape_against_prose_of_the_same_length(settings) -> None:
    settings.MESSAGE_MAX_CHARS = 3_000  # the shapes, not their size, are under test here
    out = StringIO()
    call_command("benchmark", "--json", "--section", "reading", stdout=out)
    figures = json.loads(out.getvalue())["reading"]

    assert figures["characters"] == 3_000 and figures["shapes"] == len(set(UNITS))
    assert figures["prose_ms"] > 0 and figures["median_ratio"] > 0
    assert [row["ms"] for row in figures["worst"]] == sorted((row["ms"] for row in figures["worst"]), reverse=True)
    assert all(row["unit"] in UNITS for row in figures["worst"])


def test_a_shape_fills_the_length_exactly() -> None:
    assert filled("ab", 5) == "ababa"
    assert filled("\U0001f600", 3) == "\U0001f600" * 3
