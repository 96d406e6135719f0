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
  pattern that fired it is one the opinion was trained beside (the shipped SKILL.md's, kept
  in its file): a pattern staff add in the admin, or a later round's, is never overruled;
- otherwise the patterns stand. Inertia and combination then decide as before.

The thresholds were chosen on holdout-69/70 with a model that had not seen them, and
checked on six folds of every set (docs/skills.md, "A learned second opinion"). It speaks
only for the skills it was trained on, by name: a skill staff add in the admin is routed by
its patterns alone, and a disabled or deleted one is never added.
``SKILLS_LEARNED_OPINION=false`` turns it off.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

SHIPPED_PATH = Path(__file__).resolve().parent / "data" / "routing_opinion.json"

# A fired skill is dropped when the opinion gives it at most this probability; a skill is
# added to a message no pattern fires on when it gives at least ADD_AT.
ADD_AT = 0.7
DROP_AT = 0.05

# What the opinion reads of a message: its opening, where a chat message says what it is
# about. It bounds the cost on a long paste (~1,000 n-grams at most).
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
    """One group of features: each known feature's inverse document frequency and weights."""

    idf: Mapping[str, float]
    weights: Mapping[str, tuple[float, ...]]

    def add_scores(self, features: Iterable[str], scores: list[float]) -> None:
        """Add this part's contribution (sublinear tf-idf, unit length) to ``scores``."""
        counts = Counter(feature for feature in features if feature in self.idf)
        values = {feature: (1.0 + math.log(count)) * self.idf[feature] for feature, count in counts.items()}
        norm = math.sqrt(sum(value * value for value in values.values()))
        if not norm:
            return
        for feature, value in values.items():
            weights = self.weights.get(feature)
            if weights:
                scaled = value / norm
                for index, weight in enumerate(weights):
                    scores[index] += scaled * weight


@dataclass(frozen=True)
class LearnedOpinion:
    """The trained classifier: the skills it speaks for, their intercepts, two feature parts."""

    skills: tuple[str, ...]
    intercepts: tuple[float, ...]
    words: _Part
    chars: _Part
    # Per skill, the patterns it was trained beside: only what they alone fired may be dropped.
    known_patterns: Mapping[str, frozenset[str]]

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
        normalized: str,
        *,
        catalog: Collection[str],
        set_aside: Collection[str] = (),
    ) -> dict[str, tuple[str, ...]]:
        """The patterns' ``fired`` skills, revised as the module's docstring says (``catalog``:
        the names of the skills that may be added)."""
        probabilities = self.probabilities(normalized)
        if not fired:
            return {
                skill: (LEARNED,)
                for skill, probability in probabilities.items()
                if probability >= ADD_AT and skill in catalog and skill not in set_aside
            }
        return {skill: written for skill, written in fired.items() if not self._overrules(skill, written, probabilities)}

    def _overrules(self, skill: str, written: tuple[str, ...], probabilities: Mapping[str, float]) -> bool:
        known = self.known_patterns.get(skill, frozenset())
        return probabilities.get(skill, 1.0) <= DROP_AT and all(pattern in known for pattern in written)


def from_data(data: Mapping[str, Any]) -> LearnedOpinion:
    """Build the opinion from its JSON form (``train_routing_opinion`` writes it)."""
    skills = tuple(str(name) for name in data["skills"])
    parts = []
    for name in ("words", "chars"):
        entries: Mapping[str, list[float]] = data[name]
        parts.append(
            _Part(
                idf={feature: values[0] for feature, values in entries.items()},
                weights={feature: tuple(values[1:]) for feature, values in entries.items() if len(values) > 1},
            )
        )
    intercepts = tuple(float(value) for value in data["intercepts"])
    if len(intercepts) != len(skills):
        raise ValueError("routing opinion: one intercept per skill expected")
    known = {skill: frozenset(written) for skill, written in data.get("patterns", {}).items()}
    return LearnedOpinion(skills, intercepts, parts[0], parts[1], known)


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
