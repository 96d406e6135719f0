"""``manage.py train_routing_opinion``: train the learned second opinion (skills/opinion.py).

Needs scikit-learn, which the product does not: ``pip install -e ".[training]"``. Reading
the weights it writes needs only the standard library.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from lifeassistant.text import normalize
from skills.evaluation import NEW_USER_LABELLED_SETS, load_jsonl
from skills.management.commands.bootstrap import SHIPPED_SKILLS
from skills.matching import compile_matcher
from skills.opinion import (
    READ_CHARS,
    SHIPPED_PATH,
    LearnedOpinion,
    char_features,
    encode_part,
    from_data,
    training_digest,
    word_features,
)
from skills.skillmd import read_skill_dir

DEFAULT_FILES = "tests/data/routing-*.jsonl"  # under the project's root (settings.BASE_DIR)
# The regularisation and the feature floors chosen with the thresholds (docs/skills.md).
STRENGTH = 4.0
MIN_DOCUMENTS = 3
MAX_CHAR_FEATURES = 10_000
# Weights kept as 32-bit floats: the probabilities they give may differ from the trained
# model's by at most this (checked on every example).
MAX_PROBABILITY_DRIFT = 0.01


class Command(BaseCommand):
    help = (
        "Train the learned second opinion on labelled routing sets (single messages and the "
        "first turn of each conversation: later turns carry inertia) and write its weights."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", type=Path, help=f"Labelled .jsonl files (default {DEFAULT_FILES}).")
        parser.add_argument("--output", type=Path, default=SHIPPED_PATH)
        parser.add_argument(
            "--check",
            action="store_true",
            help="Write nothing; fail unless the weights at --output are what training on these files gives.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            import numpy
            from sklearn.feature_extraction.text import TfidfVectorizer
            from sklearn.linear_model import LogisticRegression
        except ImportError:
            raise CommandError('Training needs scikit-learn: pip install -e ".[training]"') from None
        files: list[Path] = sorted(options["files"] or Path(settings.BASE_DIR).glob(DEFAULT_FILES))
        if not files:
            raise CommandError(f"No labelled files ({DEFAULT_FILES} matches nothing here).")
        texts, labels = _messages(files)
        skills = sorted({skill for label in labels for skill in label} - {"general"})
        parts = {
            "words": TfidfVectorizer(analyzer=word_features, min_df=MIN_DOCUMENTS, sublinear_tf=True),
            "chars": TfidfVectorizer(
                analyzer=char_features, min_df=MIN_DOCUMENTS, max_features=MAX_CHAR_FEATURES, sublinear_tf=True
            ),
        }
        from scipy.sparse import hstack

        matrix = hstack([vectorizer.fit_transform(texts) for vectorizer in parts.values()]).tocsr()
        models = [
            LogisticRegression(C=STRENGTH, max_iter=5000).fit(matrix, [skill in label for label in labels])
            for skill in skills
        ]
        data: dict[str, Any] = {
            "skills": skills,
            "intercepts": [float(model.intercept_[0]) for model in models],
            "trained_on": {"files": [file.name for file in files], "sha256": training_digest(files)},
            "doubted_patterns": _doubted_patterns(skills, *_messages(files, every_turn=True)),
        }
        offset = 0
        for name, vectorizer in parts.items():
            entries = {
                feature: [float(vectorizer.idf_[column]), *(float(model.coef_[0][offset + column]) for model in models)]
                for feature, column in sorted(vectorizer.vocabulary_.items())
            }
            data[name] = encode_part(entries, len(skills))
            offset += len(vectorizer.vocabulary_)
        expected = numpy.stack([model.predict_proba(matrix)[:, 1] for model in models], axis=1)
        drift = _drift(from_data(data), texts, skills, expected)
        if drift > MAX_PROBABILITY_DRIFT:
            raise CommandError(f"The written weights drift {drift:.4f} from the trained model's probabilities.")
        output: Path = options["output"]
        if options["check"]:
            self._check(data, output, texts, skills, expected)
            return
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(_serialized(data), encoding="utf-8")
        self.stdout.write(
            f"{output}: {len(skills)} skills, {len(texts)} examples from {len(files)} files, "
            f"{sum(len(data[name]['features']) for name in parts)} features; largest drift {drift:.5f}"
        )

    def _check(self, trained: dict[str, Any], output: Path, texts: list[str], skills: list[str], expected: Any) -> None:
        try:
            shipped = json.loads(output.read_text(encoding="utf-8"))
            opinion = from_data(shipped)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CommandError(f"{output}: {error}") from None
        if shipped.get("trained_on") != trained["trained_on"] or list(opinion.skills) != skills:
            raise CommandError(f"{output} was trained on other files, labels or skills: retrain it.")
        if shipped.get("doubted_patterns") != trained["doubted_patterns"]:
            raise CommandError(f"{output} doubts other patterns than the shipped skills' give now: retrain it.")
        drift = _drift(opinion, texts, skills, expected)
        if drift > MAX_PROBABILITY_DRIFT:
            raise CommandError(f"{output} differs from what training gives (probabilities drift {drift:.4f}): retrain it.")
        self.stdout.write(
            f"{output}: what training on {len(trained['trained_on']['files'])} files gives (largest drift {drift:.5f})"
        )


def _drift(opinion: LearnedOpinion, texts: list[str], skills: list[str], expected: Any) -> float:
    """The largest difference between ``opinion``'s probabilities and ``expected`` on ``texts``."""
    return max(
        abs(opinion.probabilities(text)[skill] - float(expected[row][index]))
        for row, text in enumerate(texts)
        for index, skill in enumerate(skills)
    )


def _serialized(data: dict[str, Any]) -> str:
    """``data`` as JSON with one feature a line, so a retrained file's diff shows the features
    gained and lost (their weights are one base64 string, see skills.opinion.encode_part)."""

    def dumped(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    lines = []
    for key, value in data.items():
        if key in ("words", "chars"):
            features = ",\n".join(dumped(feature) for feature in value["features"])
            lines.append(f'{dumped(key)}:{{"features":[\n{features}\n],\n"table":{dumped(value["table"])}}}')
        else:
            lines.append(f"{dumped(key)}:{dumped(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _doubted_patterns(skills: list[str], texts: list[str], labels: list[frozenset[str]]) -> dict[str, list[str]]:
    """Per skill of ``skills``, the shipped SKILL.md patterns that fired it on a message
    labelled without it: the only ones the opinion may overrule (skills/opinion.py). Every
    turn of a conversation counts here: its label may hold more than its text says (inertia
    keeps skills), never a skill its labeller saw the text name and left out."""
    definitions = [parsed.definition for _, parsed in read_skill_dir(SHIPPED_SKILLS) if parsed.definition]
    matcher = compile_matcher(definitions)
    doubted: dict[str, set[str]] = {skill: set() for skill in skills}
    for text, label in zip(texts, labels):
        for skill, written in matcher.read(text)[0].items():
            if skill in doubted and skill not in label:
                doubted[skill].update(written)
    return {skill: sorted(written) for skill, written in doubted.items()}


def _messages(files: list[Path], *, every_turn: bool = False) -> tuple[list[str], list[frozenset[str]]]:
    """Each single message and each conversation's first turn (``every_turn``: all its turns),
    normalized, with its skills. The opinion learns from first turns only: later ones carry
    inertia, so their labels are not their text's alone."""
    texts: list[str] = []
    labels: list[frozenset[str]] = []
    for file in files:
        try:
            lines = load_jsonl(file)
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in lines:
            stated = line.get("preferences")
            if (stated is None and file.name in NEW_USER_LABELLED_SETS) or (stated is not None and not (stated and all(stated.values()))):
                continue  # labelled for a user with a skill off: not the text's topic alone
            turns = line["conversation"] if "conversation" in line else [line]
            for message in turns if every_turn else turns[:1]:
                texts.append(normalize(message["text"])[:READ_CHARS])
                labels.append(frozenset(message["skills"]))
    return texts, labels
