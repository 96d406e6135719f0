"""A long hostile message costs matching time in proportion to its length.

Every hit used to be compared with every set-aside and exclusion span, so a message of
thousands of both cost seconds of CPU. These tests count the comparisons made on match
positions, so they do not depend on the machine's speed.
"""

from typing import Any

import pytest

from skills.domain import DEFAULT_TONE, SkillDefinition
from skills.matching import TriggerMatcher, compile_matcher

REPEATS = 2000
# Comparisons allowed per repetition of the hostile unit: a few bisect steps per hit.
COMPARISONS_PER_REPEAT = 60


class CountedPosition(int):
    """A position in the message that counts every order comparison made with it."""

    comparisons = 0

    def _count(self, other: object, result: bool) -> bool:
        CountedPosition.comparisons += 1
        return result

    def __lt__(self, other: Any) -> bool:
        return self._count(other, int(self) < int(other))

    def __le__(self, other: Any) -> bool:
        return self._count(other, int(self) <= int(other))

    def __gt__(self, other: Any) -> bool:
        return self._count(other, int(self) > int(other))

    def __ge__(self, other: Any) -> bool:
        return self._count(other, int(self) >= int(other))


@pytest.fixture
def counted_positions(monkeypatch: pytest.MonkeyPatch) -> type[CountedPosition]:
    original = TriggerMatcher._hits

    def counted_hits(self: TriggerMatcher, normalized: str) -> list[Any]:
        return [
            (pattern, CountedPosition(start), CountedPosition(end))
            for pattern, start, end in original(self, normalized)
        ]

    monkeypatch.setattr(TriggerMatcher, "_hits", counted_hits)
    CountedPosition.comparisons = 0
    return CountedPosition


def skill(name: str, *patterns: str) -> SkillDefinition:
    return SkillDefinition(
        name=name, description=name, trigger_patterns=patterns, tools=(), prompt_extension="", tone=DEFAULT_TONE
    )


def test_thousands_of_exclusions_cost_comparisons_in_proportion_to_the_message(counted_positions):
    matcher = compile_matcher([skill("relationships", "=mae", "=sao", "!sao jose")])
    assert matcher.match("sao jose mae " * REPEATS) == {"relationships": ("=mae",)}
    assert counted_positions.comparisons <= COMPARISONS_PER_REPEAT * REPEATS


def test_thousands_of_topics_set_aside_cost_comparisons_in_proportion_to_the_message(counted_positions):
    matcher = compile_matcher([skill("finance", "gast", "=x")])
    assert matcher.match("sem papo de x. gastei " * REPEATS) == {"finance": ("gast",)}
    assert counted_positions.comparisons <= COMPARISONS_PER_REPEAT * REPEATS


def test_a_hit_overlapping_an_earlier_long_exclusion_is_still_dropped():
    # The exclusion that covers the hit starts before a shorter one that does not.
    matcher = compile_matcher([skill("work", "=chefe", "!o chefe do meu chefe", "!o chefe")])
    assert matcher.match("o chefe do meu chefe") == {}
    assert matcher.match("o chefe saiu, meu chefe ficou") == {"work": ("=chefe",)}
