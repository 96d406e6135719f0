"""``manage.py evaluate_routing FILE.jsonl``: score skill detection on labelled messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from skills.evaluation import evaluate, format_report
from skills.models import Skill


class Command(BaseCommand):
    help = (
        "Score trigger detection and inertia on a labelled JSON Lines file, with the enabled "
        "skills stored in the database (as staff edited them) and SKILL_INERTIA_MESSAGES. "
        'Each line is {"text", "skills", "preferences"?} or {"conversation": [{"text", '
        '"skills"}, ...], "preferences"?}, a conversation whose turns carry inertia. '
        "Prints exact-set accuracy, per-skill precision and recall, and the misses. "
        "No model is called."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="The labelled .jsonl file.")
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print one JSON object: {"n", "exact_match", "per_skill", "misses", ...}.',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        file: Path = options["file"]
        lines = read_labelled_lines(file)
        skills = [skill.to_definition() for skill in Skill.objects.filter(enabled=True)]
        if not skills:
            raise CommandError(
                "No enabled skills in the database: load them first (manage.py load_skills "
                "or manage.py bootstrap)."
            )
        inertia = settings.SKILL_INERTIA_MESSAGES
        report = evaluate(lines, skills, inertia_messages=inertia)
        if options["json"]:
            figures = {**report.as_dict(), "skills": len(skills), "inertia_messages": inertia}
            self.stdout.write(json.dumps(figures, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"{file}: {len(skills)} enabled skills, inertia {inertia} messages\n")
        self.stdout.write(format_report(report))


def read_labelled_lines(file: Path) -> list[dict[str, Any]]:
    """Read and check the labelled lines; CommandError names the file line of a bad one."""
    if not file.is_file():
        raise CommandError(f"{file}: no such file")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise CommandError(f"{file}: not UTF-8 text (byte {error.start})") from None
    lines: list[dict[str, Any]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise CommandError(f"{file}:{number}: invalid JSON ({error.msg})") from None
        problem = _shape_problem(value)
        if problem:
            raise CommandError(f"{file}:{number}: {problem}")
        lines.append(value)
    if not lines:
        raise CommandError(f"{file}: no labelled lines")
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
