"""``manage.py evaluate_routing FILE.jsonl``: score skill detection on labelled messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from skills.evaluation import evaluate, format_report, load_jsonl
from skills.models import Skill
from skills.services import configured_opinion


class Command(BaseCommand):
    help = (
        "Score trigger detection and inertia on a labelled JSON Lines file, with the enabled "
        "skills stored in the database (as staff edited them) and SKILL_INERTIA_MESSAGES. "
        'Each line is {"text", "skills", "preferences"?} or {"conversation": [{"text", '
        '"skills"}, ...], "preferences"?}, a conversation whose turns carry inertia. '
        "Prints exact-set accuracy, per-skill precision and recall, and the misses. "
        "The learned second opinion takes part as SKILLS_LEARNED_OPINION says. "
        "No model is called."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, help="The labelled .jsonl file.")
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print one JSON object: {"n", "exact_match", "per_skill", "misses", ...}.',
        )
        parser.add_argument(
            "--unstated-preferences",
            choices=("on", "off"),
            default="on",
            help="How a line without 'preferences' is scored: 'on' (default), for a user with every "
            "optional skill turned on (its labeller did not restrict the user); 'off', as a new user.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        file: Path = options["file"]
        if not file.is_file():
            raise CommandError(f"{file}: no such file")
        try:
            lines = load_jsonl(file)
        except ValueError as error:
            raise CommandError(str(error)) from None
        skills = [skill.to_definition() for skill in Skill.objects.filter(enabled=True)]
        if not skills:
            raise CommandError(
                "No enabled skills in the database: load them first (manage.py load_skills "
                "or manage.py bootstrap)."
            )
        inertia = settings.SKILL_INERTIA_MESSAGES
        report = evaluate(
            lines,
            skills,
            inertia_messages=inertia,
            unstated_preferences_on=options["unstated_preferences"] == "on",
            opinion=configured_opinion(),
        )
        if options["json"]:
            figures = {**report.as_dict(), "skills": len(skills), "inertia_messages": inertia}
            self.stdout.write(json.dumps(figures, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"{file}: {len(skills)} enabled skills, inertia {inertia} messages\n")
        self.stdout.write(format_report(report))

