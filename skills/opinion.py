"""A learned second opinion on the skills a message is about, beside the trigger patterns.

Trigger patterns are exact: what they name they find, and what they do not name they miss.
Each blind set written since the first round found the same two kinds of miss: everyday
wording no pattern names ("levei a Mel no veterinário, 350 a consulta" fires nothing), and a
pattern's word used in another sense ("qual foi o primeiro banco do Brasil?" fires finance).
This module holds a small linear classifier, one logistic regression per skill over the
message's words, word pairs and character n-grams, trained on every labelled routing set in
``tests/data`` (``manage.py train_routing_opinion``). Its weights ship as
``skills/data/routing_opinion.json``; reading them needs nothing but the standard library.

It is a second opinion, not a router (:meth:`LearnedOpinion.revise`):

- when no pattern fires, a skill it is sure of (``ADD_AT``) is added, unless the message
  sets that topic aside or the skill is not in the catalog;
- when patterns fire, a fired skill it is sure is wrong (``DROP_AT``) is dropped, if every
  pattern that fired it is one it saw misfire: a shipped pattern that fired that skill on a
  labelled message (any turn) labelled without it (kept in its file, ``doubted_patterns``).
  A pattern that never misfired there, one staff add in the admin, or a later round's, is
  never overruled: the opinion's weights are surest on the wording it was trained on, and
  a pattern with no known misfire beats its doubt on wording it has not met ("quero fazer
  uma Lakshmi puja em casa" stays spiritual; docs/skills.md, round 60);
  and a skill it is surer of still (``JOIN_AT``) joins the fired ones ("o estresse do
  trabalho tá me dando gastrite": the patterns find work and the body, it adds the feeling),
  on the same conditions as adding;
- otherwise the patterns stand. Inertia and combination then decide as before, except that
  what the opinion alone suggests does not interrupt a conversation (a feeling it reads
  joins the topic kept: skills.inertia, rule c), and a topic kept that it
  still leans to (``LEAN_AT``, :meth:`LearnedOpinion.leaning`) is one the message goes on with
  (skills.inertia, rule h).

The thresholds were chosen on holdout-69/70 with a model that had not seen them, and
checked on six folds of every set (docs/skills.md, "A learned second opinion"). It speaks
only for the skills it was trained on, by name: a skill staff add in the admin is routed by
its patterns alone, and a disabled or deleted one is never added.
``SKILLS_LEARNED_OPINION=false`` turns it off.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import sys
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

SHIPPED_PATH = Path(__file__).resolve().parent / "data" / "routing_opinion.json"

# A fired skill is dropped when the opinion gives it at most DROP_AT; a skill is added to a
# message no pattern fires on when it gives at least ADD_AT, and joins the skills patterns
# fired when it gives at least JOIN_AT (higher: beside a pattern, adding is riskier).
ADD_AT = 0.7
JOIN_AT = 0.8
DROP_AT = 0.05
# A skill it gives at least this, though far from sure, the message may still be about: a
# topic kept in a conversation that the next message goes on with (skills.inertia, rule h).
LEAN_AT = 0.2

# What the opinion reads of a message: its opening, where a chat message says what it is
# about. It bounds the cost on a long paste (~2,000 n-grams at most).
READ_CHARS = 600

# The pattern recorded for a skill the opinion added (Decision.matched shows it to staff).
LEARNED = "(learned)"

CHAR_SIZES = (3, 4, 5)
_WORD = re.compile(r"\b\w\w+\b")


def word_features(normalized: str) -> list[str]:
    """The words of two letters or more and each pair of neighbouring ones."""
    words = _WORD.findall(normalized)
    return words + [f"{first} {second}" for first, second in zip(words, words[1:])]


def char_features(normalized: str) -> list[str]:
    """The character 3-, 4- and 5-grams of each space-padded word (a short word once whole)."""
    grams: list[str] = []
    for word in normalized.split():
        padded = f" {word} "
        for size in CHAR_SIZES:
            if len(padded) <= size:
                grams.append(padded)
                break
            grams.extend(padded[start : start + size] for start in range(len(padded) - size + 1))
    return grams


@dataclass(frozen=True)
class _Part:
    """One group of features: each known feature's row, its inverse document frequency then
    one weight per skill, in one flat array of 32-bit floats (a dict of tuples took 9 MiB in
    every web and worker process; this, ~2 MiB)."""

    rows: Mapping[str, int]
    table: array  # len(rows) * stride floats
    stride: int

    def add_scores(self, features: Iterable[str], scores: list[float]) -> None:
        """Add this part's contribution (sublinear tf-idf, unit length) to ``scores``."""
        rows, table, stride = self.rows, self.table, self.stride
        counts = Counter(rows[feature] * stride for feature in features if feature in rows)
        values = {start: (1.0 + math.log(count)) * table[start] for start, count in counts.items()}
        norm = math.sqrt(sum(value * value for value in values.values()))
        if not norm:
            return
        for start, value in values.items():
            scaled = value / norm
            for index in range(stride - 1):
                scores[index] += scaled * table[start + 1 + index]


@dataclass(frozen=True)
class LearnedOpinion:
    """The trained classifier: the skills it speaks for, their intercepts, two feature parts."""

    skills: tuple[str, ...]
    intercepts: tuple[float, ...]
    words: _Part
    chars: _Part
    # Per skill, the shipped patterns it saw misfire: only what they alone fired may be dropped.
    doubted_patterns: Mapping[str, frozenset[str]]

    def probabilities(self, normalized: str) -> dict[str, float]:
        """Each skill's probability that ``normalized`` (see lifeassistant.text.normalize) is about it."""
        text = normalized[:READ_CHARS]
        scores = list(self.intercepts)
        self.words.add_scores(word_features(text), scores)
        self.chars.add_scores(char_features(text), scores)
        return {skill: 1.0 / (1.0 + math.exp(-score)) for skill, score in zip(self.skills, scores)}

    def revise(
        self,
        fired: Mapping[str, tuple[str, ...]],
        probabilities: Mapping[str, float],
        *,
        catalog: Collection[str],
        set_aside: Collection[str] = (),
    ) -> dict[str, tuple[str, ...]]:
        """The patterns' ``fired`` skills, revised as the module's docstring says, by the
        message's :meth:`probabilities` (``catalog``: the names of the skills that may be added)."""
        floor = JOIN_AT if fired else ADD_AT
        kept = {skill: written for skill, written in fired.items() if not self._overrules(skill, written, probabilities)}
        added = {
            skill: (LEARNED,)
            for skill, probability in probabilities.items()
            if probability >= floor and skill in catalog and skill not in set_aside and skill not in fired
        }
        return {**kept, **added}

    @staticmethod
    def leaning(probabilities: Mapping[str, float]) -> frozenset[str]:
        """The skills a message may still be about, by its :meth:`probabilities` (``LEAN_AT``)."""
        return frozenset(skill for skill, probability in probabilities.items() if probability >= LEAN_AT)

    def _overrules(self, skill: str, written: tuple[str, ...], probabilities: Mapping[str, float]) -> bool:
        doubted = self.doubted_patterns.get(skill, frozenset())
        return probabilities.get(skill, 1.0) <= DROP_AT and all(pattern in doubted for pattern in written)


def encode_part(entries: Mapping[str, Sequence[float]], skills: int) -> dict[str, Any]:
    """A feature part in its JSON form: the features, one a line when written, and one base64
    string of 32-bit little-endian floats, each feature's idf then one weight per skill. A
    JSON number per weight took ~10 MiB of every process's memory to parse, for 2 MiB kept."""
    stride = 1 + skills
    table = array("f")
    for values in entries.values():
        if len(values) != stride:
            raise ValueError(f"routing opinion: {stride} numbers a feature expected, got {len(values)}")
        table.extend(values)
    if sys.byteorder == "big":
        table.byteswap()
    return {"features": list(entries), "table": base64.b64encode(table.tobytes()).decode("ascii")}


def _decode_part(part: Mapping[str, Any], stride: int) -> _Part:
    table = array("f", base64.b64decode(part["table"]))
    if sys.byteorder == "big":
        table.byteswap()
    features: list[str] = part["features"]
    if len(table) != stride * len(features):
        raise ValueError(f"routing opinion: {len(features)} features need {stride * len(features)} numbers, not {len(table)}")
    return _Part({feature: row for row, feature in enumerate(features)}, table, stride)


def from_data(data: Mapping[str, Any]) -> LearnedOpinion:
    """Build the opinion from its JSON form (``train_routing_opinion`` writes it)."""
    skills = tuple(str(name) for name in data["skills"])
    intercepts = tuple(float(value) for value in data["intercepts"])
    if len(intercepts) != len(skills):
        raise ValueError("routing opinion: one intercept per skill expected")
    words, chars = (_decode_part(data[name], 1 + len(skills)) for name in ("words", "chars"))
    doubted = {skill: frozenset(written) for skill, written in data.get("doubted_patterns", {}).items()}
    return LearnedOpinion(skills, intercepts, words, chars, doubted)


def training_digest(files: Iterable[Path]) -> str:
    """The SHA-256 of the labelled files an opinion was trained on (names and bytes, in order)."""
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


@lru_cache(maxsize=1)
def shipped_opinion() -> LearnedOpinion:
    """The opinion shipped with the skills (read once a process)."""
    return from_data(json.loads(SHIPPED_PATH.read_text(encoding="utf-8")))
