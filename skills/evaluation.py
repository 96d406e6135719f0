"""Offline evaluation of skill detection against labelled messages, with no model calls.

A labelled file is JSON Lines, one sample or one conversation per line::

    {"text": "gastei 50 reais", "skills": ["finance"], "preferences": {"x": true}}
    {"conversation": [{"text": "...", "skills": [...]}, ...], "preferences": {...}}

A line that states no ``preferences`` is scored for a user who turned every optional skill
on (``requires_user_preference``): its labeller did not restrict the user, as the shared
development set's labels read ("Quero me aproximar mais de Deus" is spiritual there, and
the same question with ``christian_perspective`` false is general). A line that states
preferences is scored with exactly those (an unnamed one is off).

Single messages start from an empty inertia state; the turns of a conversation carry
the state from one turn to the next, so inertia is evaluated too. Each message or
turn counts as one sample. A sample is right when the set of active skill names
equals the expected set (order does not matter). The turns of conversations are also
scored apart, since they measure inertia and combination.
"""

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from skills.domain import SkillDefinition
from skills.inertia import DEFAULT_INERTIA_MESSAGES, EMPTY_STATE, InertiaState, decide, topic_cue
from skills.matching import TriggerMatcher, compile_matcher
from skills.opinion import LearnedOpinion

# The labelled sets in tests/data written for a new user, every optional skill off where a
# line states no preferences ("vou na missa amanhã" is general there): scored and learned from so.
NEW_USER_LABELLED_SETS = frozenset({"routing-dev-2.jsonl", "routing-dev-3.jsonl", "routing-dev-4.jsonl", "routing-dev-5.jsonl"})

# Inertia counts messages, not time, so any fixed instant keeps evaluation pure.
_EVALUATION_TIME = datetime(2000, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class SkillScore:
    """Detection counts and rates of one skill over the evaluated samples."""

    tp: int
    fp: int
    fn: int

    @property
    def support(self) -> int:
        """How many samples expected this skill."""
        return self.tp + self.fn

    @property
    def precision(self) -> float:
        """Share of the activations that were expected (0 when never activated)."""
        activated = self.tp + self.fp
        return self.tp / activated if activated else 0.0

    @property
    def recall(self) -> float:
        """Share of the expected activations that happened (0 when never expected)."""
        return self.tp / self.support if self.support else 0.0

    def as_dict(self) -> dict[str, float | int]:
        """Return the score as plain JSON-ready data."""
        return {
            "precision": self.precision,
            "recall": self.recall,
            "support": self.support,
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


class Miss(NamedTuple):
    """A sample whose detected skills differ from the expected ones.

    A named tuple, so it also unpacks as ``text, expected, got``.
    """

    text: str
    expected: tuple[str, ...]
    got: tuple[str, ...]


@dataclass(frozen=True)
class EvaluationReport:
    """Exact-set accuracy, per-skill scores and the misclassified samples.

    ``turns`` and ``turns_exact_match`` count only the turns of conversations.
    """

    n: int
    exact_match: float
    per_skill: dict[str, SkillScore]
    misses: tuple[Miss, ...]
    turns: int = 0
    turns_exact_match: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """Return the report as plain JSON-ready data."""
        return {
            "n": self.n,
            "exact_match": self.exact_match,
            "turns": self.turns,
            "turns_exact_match": self.turns_exact_match,
            "per_skill": {name: score.as_dict() for name, score in self.per_skill.items()},
            "misses": [
                {"text": miss.text, "expected": list(miss.expected), "got": list(miss.got)}
                for miss in self.misses
            ],
        }


@dataclass(frozen=True)
class _Sample:
    """One message to detect, with its expected skills and the user's preferences."""

    text: str
    expected: frozenset[str]
    preferences: Mapping[str, bool]
    in_conversation: bool
    continues_conversation: bool


def load_jsonl(path: Path | str) -> list[dict[str, Any]]:
    """Read a labelled JSON Lines file, skipping blank lines.

    Raises ValueError naming the file line of a line that is not valid JSON or not
    one of the two labelled shapes, and for a file with no labelled line.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start})") from None
    lines: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: invalid JSON ({error.msg})") from None
        problem = _shape_problem(value)
        if problem:
            raise ValueError(f"{path}:{number}: {problem}")
        lines.append(value)
    if not lines:
        raise ValueError(f"{path}: no labelled lines")
    return lines


def _shape_problem(value: Any) -> str | None:
    if not isinstance(value, dict):
        return "expected a JSON object"
    preferences = value.get("preferences")
    if preferences is not None and not (
        isinstance(preferences, dict) and all(isinstance(flag, bool) for flag in preferences.values())
    ):
        return "'preferences' must be an object of true/false flags"
    if "conversation" in value:
        turns = value["conversation"]
        if not isinstance(turns, list) or not turns:
            return "'conversation' must be a non-empty list of turns"
        for index, turn in enumerate(turns, start=1):
            problem = _message_problem(turn)
            if problem:
                return f"turn {index}: {problem}"
        return None
    if "text" in value:
        return _message_problem(value)
    return 'expected {"text", "skills"} or {"conversation": [...]}'


def _message_problem(value: Any) -> str | None:
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return "each message needs a 'text' string"
    skills = value.get("skills")
    if not isinstance(skills, list) or not all(isinstance(name, str) for name in skills):
        return "each message needs 'skills', a list of skill names"
    return None



def evaluate(
    lines: Iterable[Mapping[str, Any]],
    skills: Sequence[SkillDefinition],
    *,
    inertia_messages: int = DEFAULT_INERTIA_MESSAGES,
    unstated_preferences_on: bool = True,
    opinion: LearnedOpinion | None = None,
) -> EvaluationReport:
    """Detect the skills of every labelled sample and score them against the labels.

    ``unstated_preferences_on`` False scores a line without ``preferences`` as a new
    user's, with every optional skill off. ``opinion``: the learned second opinion the
    matcher is revised by (skills/opinion.py), as the catalog's is. Raises ValueError when
    a line has neither ``text`` nor ``conversation``.
    """
    matcher = _matcher(tuple(skills), _OpinionKey(opinion))
    every_preference = {skill.requires_user_preference: True for skill in skills if skill.requires_user_preference}
    unstated = every_preference if unstated_preferences_on else {}
    counts: dict[str, list[int]] = {}
    misses: list[Miss] = []
    n = exact = turns = turns_exact = 0
    state = EMPTY_STATE
    for sample in _samples(lines, unstated):
        if not sample.continues_conversation:
            state = EMPTY_STATE
        got, state = _detect(sample, matcher, skills, state, inertia_messages)
        n += 1
        turns += sample.in_conversation
        if got == sample.expected:
            exact += 1
            turns_exact += sample.in_conversation
        else:
            misses.append(Miss(sample.text, tuple(sorted(sample.expected)), tuple(sorted(got))))
        _count(counts, sample.expected, got)
    per_skill = {name: SkillScore(*counts[name]) for name in sorted(counts)}
    return EvaluationReport(
        n=n,
        exact_match=exact / n if n else 0.0,
        per_skill=per_skill,
        misses=tuple(misses),
        turns=turns,
        turns_exact_match=turns_exact / turns if turns else 0.0,
    )


class _OpinionKey:
    """A cache key that holds ``value`` and compares it by identity: an opinion's weights are
    arrays, which do not hash, and one opinion object serves a whole run."""

    __slots__ = ("value",)

    def __init__(self, value: LearnedOpinion | None) -> None:
        self.value = value

    def __hash__(self) -> int:
        return id(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _OpinionKey) and other.value is self.value


# Compiling the shipped patterns takes about 0.6 s, longer than scoring a set of 150 lines, and
# a run scores a hundred sets with the same skills: the matcher is compiled once for them. The
# key holds what it was built from, so an entry is never taken for another's skills or opinion.
@lru_cache(maxsize=4)
def _matcher(skills: tuple[SkillDefinition, ...], opinion: _OpinionKey) -> TriggerMatcher:
    return compile_matcher(skills, opinion.value)


def _detect(
    sample: _Sample,
    matcher: TriggerMatcher,
    skills: Sequence[SkillDefinition],
    state: InertiaState,
    inertia_messages: int,
) -> tuple[frozenset[str], InertiaState]:
    """Return the names of the skills detected for ``sample`` and the next state."""
    reading = matcher.reading(sample.text)
    decision = decide(
        skills,
        reading.fired,
        state,
        now=_EVALUATION_TIME,
        preferences=sample.preferences,
        inertia_messages=inertia_messages,
        cue=topic_cue(sample.text),
        set_aside=reading.set_aside,
        leaning=reading.leaning,
    )
    return frozenset(skill.name for skill in decision.active), decision.state


def _count(counts: dict[str, list[int]], expected: frozenset[str], got: frozenset[str]) -> None:
    """Add one sample's true positives, false positives and false negatives."""
    for outcome, names in enumerate((expected & got, got - expected, expected - got)):
        for name in names:
            counts.setdefault(name, [0, 0, 0])[outcome] += 1


def _samples(lines: Iterable[Mapping[str, Any]], unstated: Mapping[str, bool]) -> Iterator[_Sample]:
    """Flatten single messages and conversation turns into samples (``unstated``: the
    preferences of a line that states none)."""
    for index, line in enumerate(lines, start=1):
        stated = line.get("preferences")
        preferences = unstated if stated is None else stated
        if "conversation" in line:
            for turn_index, turn in enumerate(line["conversation"]):
                yield _sample(turn, preferences, turn_index=turn_index, where=f"line {index}")
        elif "text" in line:
            yield _sample(line, preferences, turn_index=None, where=f"line {index}")
        else:
            raise ValueError(f"line {index}: expected 'text' or 'conversation'")


def _sample(
    item: Mapping[str, Any], preferences: Mapping[str, bool], *, turn_index: int | None, where: str
) -> _Sample:
    """Build a sample from a message (``turn_index`` None) or a conversation's turn,
    checking it has text and skills."""
    if not isinstance(item.get("text"), str) or not isinstance(item.get("skills"), list):
        raise ValueError(f"{where}: each message needs 'text' and a list of 'skills'")
    in_conversation = turn_index is not None
    return _Sample(
        item["text"], frozenset(item["skills"]), preferences, in_conversation, bool(turn_index)
    )


def format_report(report: EvaluationReport) -> str:
    """Return the report as readable text: accuracy, a per-skill table, the misses."""
    correct = round(report.exact_match * report.n)
    lines = [
        f"exact match: {correct}/{report.n} ({report.exact_match:.1%})",
    ]
    if report.turns:
        turns_correct = round(report.turns_exact_match * report.turns)
        lines.append(
            f"conversation turns: {turns_correct}/{report.turns} ({report.turns_exact_match:.1%})"
        )
    lines += [
        "",
        f"{'skill':<16}{'precision':>10}{'recall':>8}{'support':>9}{'tp':>5}{'fp':>5}{'fn':>5}",
    ]
    for name, score in report.per_skill.items():
        lines.append(
            f"{name:<16}{score.precision:>10.2f}{score.recall:>8.2f}{score.support:>9}"
            f"{score.tp:>5}{score.fp:>5}{score.fn:>5}"
        )
    if report.misses:
        lines += ["", "misses:"]
        lines += [
            f"  {miss.text!r}: expected {', '.join(miss.expected) or '-'}; "
            f"got {', '.join(miss.got) or '-'}"
            for miss in report.misses
        ]
    return "\n".join(lines)
