"""SKILL.md folders ⇄ Skill rows (the SkillsContext's ``load_from_directory``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import DatabaseError, transaction

from .domain import SkillDefinition
from .models import Skill
from .skillmd import ParsedSkill, read_skill_dir, render_skill_md


@dataclass
class LoadReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "path: reason" of skipped files
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        lines = [
            f"created: {len(self.created)} {', '.join(self.created)}".rstrip(),
            f"updated: {len(self.updated)} {', '.join(self.updated)}".rstrip(),
            f"unchanged: {len(self.unchanged)} {', '.join(self.unchanged)}".rstrip(),
            f"skipped: {len(self.errors)}",
            *(f"  skipped {error}" for error in self.errors),
            *(f"  warning {warning}" for warning in self.warnings),
        ]
        return "\n".join(lines)


def row_values(definition: SkillDefinition) -> dict[str, object]:
    """Model field values for a definition (the inverse of ``Skill.to_definition``)."""
    return {
        "description": definition.description,
        "description_en": definition.description_en,
        "trigger_patterns": list(definition.trigger_patterns),
        "tools": list(definition.tools),
        "prompt_extension": definition.prompt_extension,
        "tone_style": definition.tone.style,
        "tone_emoji_level": definition.tone.emoji_level,
        "tone_response_length": definition.tone.response_length,
        "tone_formality": definition.tone.formality,
        "temperature": definition.temperature,
        "requires_user_preference": definition.requires_user_preference or "",
        "priority": definition.priority,
        "enabled": definition.enabled,
        "examples": list(definition.examples),
    }


def load_directory(directory: Path) -> LoadReport:
    """Upsert every valid SKILL.md under ``directory`` by name; report the rest.

    Each file is checked as the admin checks a form (``full_clean``: tools that exist,
    preference names, the priority's range, no NUL) and saved on its own savepoint, so a bad
    file is reported and skipped while the others load. A skill whose compound pattern names
    another one (``@finance``) may come before it in the folder: files that fail are tried
    again while each round loads one more.
    """
    if not directory.is_dir():
        report = LoadReport()
        report.errors.append(f"{directory}: not a directory")
        return report
    return load_parsed(read_skill_dir(directory))


def load_parsed(files: Iterable[tuple[Path, ParsedSkill]]) -> LoadReport:
    """Upsert the skills of SKILL.md files already parsed (``read_skill_dir``), as
    :func:`load_directory` does: parsing is most of its time, and a caller loading the same
    files many times (the test suite) parses them once."""
    report = LoadReport()
    pending: list[tuple[Path, SkillDefinition]] = []
    for path, parsed in files:
        report.warnings.extend(f"{path}: {warning}" for warning in parsed.warnings)
        if parsed.definition is None:
            error = str(parsed.error)
            report.errors.append(error if error.startswith(f"{path}:") else f"{path}: {error}")
        else:
            pending.append((path, parsed.definition))
    with transaction.atomic():
        while pending:
            failed: list[tuple[Path, SkillDefinition, str]] = []
            for path, definition in pending:
                try:
                    with transaction.atomic():
                        _upsert(definition, report)
                except ValidationError as exc:  # e.g. a file that disables the fallback skill
                    failed.append((path, definition, "; ".join(exc.messages)))
                except DatabaseError as exc:  # a constraint the checks did not foresee
                    failed.append((path, definition, str(exc).strip()))
            if len(failed) == len(pending):
                report.errors.extend(f"{path}: {reason}" for path, _, reason in failed)
                break
            pending = [(path, definition) for path, definition, _ in failed]
    return report


def _upsert(definition: SkillDefinition, report: LoadReport) -> None:
    values = row_values(definition)
    existing = Skill.objects.filter(name=definition.name).first()
    if existing is None:
        created = Skill(name=definition.name, **values)
        created.full_clean()
        created.save()
        report.created.append(definition.name)
    elif existing.to_definition() == definition:
        report.unchanged.append(definition.name)
    else:
        for key, value in values.items():
            setattr(existing, key, value)
        existing.full_clean()
        existing.save()
        report.updated.append(definition.name)


def export_directory(directory: Path) -> list[Path]:
    """Write every skill row as ``<directory>/<name>/SKILL.md``; returns the files written."""
    written = []
    for skill in Skill.objects.order_by("name"):
        path = directory / skill.name / "SKILL.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_skill_md(skill.to_definition()), encoding="utf-8")
        written.append(path)
    return written
