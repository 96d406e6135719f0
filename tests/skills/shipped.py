"""The shipped SKILL.md files, parsed once a test run: their YAML (about 8,000 patterns) takes
half a second to parse, longer than most tests that use them."""

from functools import lru_cache
from pathlib import Path

from skills.domain import SkillDefinition
from skills.skillmd import ParsedSkill, read_skill_dir

DEFINITIONS = Path(__file__).resolve().parents[2] / "skills" / "definitions"


@lru_cache(maxsize=1)
def shipped_skill_files() -> tuple[tuple[Path, ParsedSkill], ...]:
    """Each file under skills/definitions and what the loader parsed from it (frozen, so shareable)."""
    return tuple(read_skill_dir(DEFINITIONS))


def shipped_definitions() -> tuple[SkillDefinition, ...]:
    """The definitions in skills/definitions, as the loader parses them (the `shipped_skills`
    fixture, by contrast, loads them into the database)."""
    return tuple(parsed.definition for _, parsed in shipped_skill_files() if parsed.definition)
