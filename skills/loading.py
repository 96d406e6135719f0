"""SKILL.md folders ⇄ Skill rows (the SkillsContext's ``load_from_directory``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction

from .domain import SkillDefinition
from .models import Skill
from .skillmd import read_skill_dir, render_skill_md


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
    """Upsert every valid SKILL.md under ``directory`` by name; report the rest."""
    report = LoadReport()
    if not directory.is_dir():
        report.errors.append(f"{directory}: not a directory")
        return report
    with transaction.atomic():
        for path, parsed in read_skill_dir(directory):
            report.warnings.extend(f"{path}: {warning}" for warning in parsed.warnings)
            if parsed.definition is None:
                report.errors.append(f"{path}: {parsed.error}")
                continue
            try:
                _upsert(parsed.definition, report)
            except ValidationError as exc:  # e.g. a file that disables the fallback skill
                report.errors.append(f"{path}: {'; '.join(exc.messages)}")
    return report


def _upsert(definition: SkillDefinition, report: LoadReport) -> None:
    values = row_values(definition)
    existing = Skill.objects.filter(name=definition.name).first()
    if existing is None:
        Skill.objects.create(name=definition.name, **values)
        report.created.append(definition.name)
    elif existing.to_definition() == definition:
        report.unchanged.append(definition.name)
    else:
        for key, value in values.items():
            setattr(existing, key, value)
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
