from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from skills.loading import load_directory


class Command(BaseCommand):
    help = "Create or update skills from a folder of SKILL.md folders (upsert by name)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args: Any, directory: Path, **options: Any) -> None:
        report = load_directory(directory)
        self.stdout.write(report.summary())
