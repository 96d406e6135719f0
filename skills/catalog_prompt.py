"""SkillsContext (docs/specification.md, skill discovery and routing §2.3): the skills' metadata as a system-prompt section.

Level 1 of progressive disclosure: every usable skill's name and description are
always in the prompt (about 50 tokens each), so the model knows its own range and
the user's ``/name`` commands. Pure: definitions in, text out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from .domain import FALLBACK_SKILL, SkillDefinition
from .inertia import by_priority, is_allowed
from .skillmd import ParsedSkill, read_skill_dir

DEFAULT_BUDGET_CHARS = 2_000


class SkillsContext:
    """A set of skill definitions that renders itself for the system prompt."""

    def __init__(self, skills: Iterable[SkillDefinition] = (), *, budget_chars: int = DEFAULT_BUDGET_CHARS) -> None:
        self._skills: dict[str, SkillDefinition] = {}
        self.budget_chars = budget_chars
        for skill in skills:
            self.register(skill)

    def register(self, skill: SkillDefinition) -> None:
        """Add a skill, replacing one of the same name."""
        self._skills[skill.name] = skill

    def load_from_directory(self, directory: Path) -> list[tuple[Path, ParsedSkill]]:
        """Register every valid SKILL.md under ``directory``; return each file's parse result."""
        results = read_skill_dir(directory)
        for _, parsed in results:
            if parsed.definition is not None:
                self.register(parsed.definition)
        return results

    @property
    def skills(self) -> tuple[SkillDefinition, ...]:
        return by_priority(self._skills.values())

    def get_skills_prompt(self) -> str:
        """Name and description of every enabled skill, within the character budget."""
        listed = [skill for skill in self.skills if skill.enabled and skill.name != FALLBACK_SKILL]
        if not listed:
            return ""
        lines = [
            "## Skills",
            "Your abilities adapt to the topic through these skills; the user can also "
            "invoke one explicitly with /name.",
        ]
        used = sum(len(line) + 1 for line in lines)
        for index, skill in enumerate(listed):
            line = f"- {skill.name}: {' '.join(skill.description.split())}"
            if used + len(line) + 1 > self.budget_chars:
                lines.append(f"- ({len(listed) - index} more skills not listed)")
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)


def skills_prompt(
    skills: Iterable[SkillDefinition], preferences: Mapping[str, bool], disabled: Collection[str] = ()
) -> str:
    """The skills section for a user: only the skills their preferences allow and they did not turn off."""
    return SkillsContext(skill for skill in skills if is_allowed(skill, preferences, disabled)).get_skills_prompt()
