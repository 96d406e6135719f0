from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from skills.loading import export_directory


class Command(BaseCommand):
    help = "Write every skill as DIRECTORY/<name>/SKILL.md (load_skills reads them back)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)

    def handle(self, *args: Any, directory: Path, **options: Any) -> None:
        for path in export_directory(directory):
            self.stdout.write(str(path))
