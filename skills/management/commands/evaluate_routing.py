"""``manage.py evaluate_routing FILE.jsonl [FILE.jsonl ...]``: score skill detection on labelled messages."""

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
        "Prints exact-set accuracy, per-skill precision and recall, and the misses, of each file "
        "given in turn (one process scores many sets without reloading the skills). "
        "The learned second opinion takes part as SKILLS_LEARNED_OPINION says. "
        "No model is called."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="file", help="The labelled .jsonl files.")
        parser.add_argument(
            "--json",
            action="store_true",
            help='Print one JSON object: {"n", "exact_match", "per_skill", "misses", ...} (one file only).',
        )
        parser.add_argument(
            "--unstated-preferences",
            choices=("on", "off"),
            default="on",
            help="How a line without 'preferences' is scored: 'on' (default), for a user with every "
            "optional skill turned on (its labeller did not restrict the user); 'off', as a new user.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        files: list[Path] = options["files"]
        if options["json"] and len(files) > 1:
            raise CommandError("--json prints one file's figures: give one file")
        # Every file is read before any is scored, so a typo in the last one fails at once
        # rather than after the others' reports.
        sets = [(file, self._read(file)) for file in files]
        skills = [skill.to_definition() for skill in Skill.objects.filter(enabled=True)]
        if not skills:
            raise CommandError(
                "No enabled skills in the database: load them first (manage.py load_skills "
                "or manage.py bootstrap)."
            )
        inertia = settings.SKILL_INERTIA_MESSAGES
        opinion = configured_opinion()
        for file, lines in sets:
            report = evaluate(
                lines,
                skills,
                inertia_messages=inertia,
                unstated_preferences_on=options["unstated_preferences"] == "on",
                opinion=opinion,
            )
            if options["json"]:
                figures = {**report.as_dict(), "skills": len(skills), "inertia_messages": inertia}
                self.stdout.write(json.dumps(figures, ensure_ascii=False, indent=2))
                return
            self.stdout.write(f"{file}: {len(skills)} enabled skills, inertia {inertia} messages\n")
            self.stdout.write(format_report(report))

    @staticmethod
    def _read(file: Path) -> list[dict[str, Any]]:
        if not file.is_file():
            raise CommandError(f"{file}: no such file")
        try:
            return load_jsonl(file)
        except ValueError as error:
            raise CommandError(str(error)) from None
