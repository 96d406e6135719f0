"""SKILL.md files: a skill as YAML front matter plus a markdown body.

The format extends the public Agent Skills layout (a folder per skill holding a
``SKILL.md`` whose front matter has ``name`` and ``description``)::

    ---
    name: finance
    description: Domínio financeiro: gastos, receitas, contas, ...
    description_en: Finance: spending, income, bills, ...
    triggers: [gast, =contas, conta de luz]
    tools: [get_finance_summary, create_expense]
    tone: {style: practical, emoji_level: minimal, response_length: concise, formality: informal}
    temperature: 0.3
    priority: 3
    requires_user_preference: null
    enabled: true
    examples: [gastei 50 reais no mercado]
    ---
    ## Skill: Finanças
    - Seja prática e objetiva com números

The body, stripped, is the prompt extension. ``description_en`` is what English readers
see of the skill (the model always reads ``description``). Only ``name`` and
``description`` are required, so a SKILL.md written for another agent loads with defaults. The Agent Skills
keys ``license``, ``allowed-tools``, ``metadata`` and ``compatibility`` are accepted and
ignored; any other unknown key is ignored with a warning.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from skills.domain import (
    DEFAULT_PRIORITY,
    DEFAULT_TONE,
    EMOJI_LEVELS,
    FORMALITIES,
    RESPONSE_LENGTHS,
    TONE_STYLES,
    SkillDefinition,
    ToneConfig,
)
from skills.matching import validate_pattern

SKILL_FILE_NAME = "SKILL.md"
MAX_FILE_BYTES = 256 * 1024
MAX_NAME_LENGTH = 64
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.0, 2.0

_NAME_PATTERN = re.compile(r"[a-z0-9_-]+")
_DELIMITER = "---"
_OUR_KEYS = frozenset(
    {
        "name",
        "description",
        "description_en",
        "triggers",
        "tools",
        "tone",
        "temperature",
        "priority",
        "requires_user_preference",
        "examples",
        "enabled",
    }
)
_AGENT_SKILLS_KEYS = frozenset({"license", "allowed-tools", "metadata", "compatibility"})
_TONE_CHOICES: Mapping[str, tuple[str, ...]] = {
    "style": TONE_STYLES,
    "emoji_level": EMOJI_LEVELS,
    "response_length": RESPONSE_LENGTHS,
    "formality": FORMALITIES,
}


@dataclass(frozen=True)
class ParsedSkill:
    """The outcome of reading one SKILL.md: a definition, or the error that prevented it."""

    definition: SkillDefinition | None
    warnings: tuple[str, ...]
    error: str | None


class _InvalidSkill(Exception):
    """Raised inside this module to stop parsing at the first invalid value."""


def parse_skill_md(text: str, *, source: str = "") -> ParsedSkill:
    """Parse a SKILL.md text; malformed input yields an error, never an exception.

    ``source`` (a file path, say) prefixes the error and warning messages.
    """
    prefix = f"{source}: " if source else ""
    try:
        front_matter, body = _split_front_matter(text)
        fields = _load_yaml_mapping(front_matter)
        warnings = tuple(prefix + warning for warning in _unknown_key_warnings(fields))
        definition = _definition_from_fields(fields, body)
    except _InvalidSkill as error:
        return ParsedSkill(definition=None, warnings=(), error=prefix + str(error))
    return ParsedSkill(definition=definition, warnings=warnings, error=None)


def render_skill_md(definition: SkillDefinition) -> str:
    """Return the SKILL.md text of ``definition``; parsing it gives ``definition`` back."""
    fields: dict[str, Any] = {
        "name": definition.name,
        "description": definition.description,
        **({"description_en": definition.description_en} if definition.description_en else {}),
        "triggers": list(definition.trigger_patterns),
        "tools": list(definition.tools),
        "tone": {
            "style": definition.tone.style,
            "emoji_level": definition.tone.emoji_level,
            "response_length": definition.tone.response_length,
            "formality": definition.tone.formality,
        },
        "temperature": definition.temperature,
        "priority": definition.priority,
        "requires_user_preference": definition.requires_user_preference,
        "enabled": definition.enabled,
        "examples": list(definition.examples),
    }
    front_matter = yaml.safe_dump(
        fields, sort_keys=False, allow_unicode=True, default_flow_style=False, width=4096
    )
    body = definition.prompt_extension.strip()
    return f"{_DELIMITER}\n{front_matter}{_DELIMITER}\n" + (f"{body}\n" if body else "")


def read_skill_dir(path: Path) -> list[tuple[Path, ParsedSkill]]:
    """Parse ``path/SKILL.md`` and every ``path/*/SKILL.md``, in path order.

    Files that cannot be read, are larger than 256 KiB or are not UTF-8 give an entry
    with an error instead of raising.
    """
    candidates = [path / SKILL_FILE_NAME, *sorted(path.glob(f"*/{SKILL_FILE_NAME}"))]
    return [(file, read_skill_file(file)) for file in candidates if file.is_file()]


def read_skill_file(file: Path) -> ParsedSkill:
    """Parse one SKILL.md file, turning read, size and encoding problems into errors."""
    try:
        with file.open("rb") as handle:
            # Reading one byte past the limit detects an oversized file without
            # loading all of it.
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        return _file_error(file, f"cannot be read ({error.strerror or error})")
    if len(raw) > MAX_FILE_BYTES:
        return _file_error(file, f"is larger than {MAX_FILE_BYTES // 1024} KiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        return _file_error(file, f"is not valid UTF-8 (byte {error.start})")
    return parse_skill_md(text, source=str(file))


def _file_error(file: Path, problem: str) -> ParsedSkill:
    """Return a parse result for a file that could not be turned into text."""
    return ParsedSkill(definition=None, warnings=(), error=f"{file}: the file {problem}")


def _split_front_matter(text: str) -> tuple[str, str]:
    """Return the front matter and the body of a SKILL.md text."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != _DELIMITER:
        raise _InvalidSkill("the file must start with a '---' line opening the YAML front matter")
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == _DELIMITER:
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    raise _InvalidSkill("the YAML front matter is not closed by a '---' line")


def _load_yaml_mapping(front_matter: str) -> dict[Any, Any]:
    """Parse the front matter, which must be a YAML mapping."""
    try:
        loaded = yaml.safe_load(front_matter)
    except (yaml.YAMLError, RecursionError) as error:
        raise _InvalidSkill(f"the front matter is not valid YAML: {_first_line(error)}") from None
    if not isinstance(loaded, dict):
        raise _InvalidSkill("the front matter must be a mapping of keys to values")
    return loaded


def _first_line(error: BaseException) -> str:
    """Return the first line of an error message, for one-line reports."""
    message = str(error).strip()
    return message.splitlines()[0] if message else type(error).__name__


def _unknown_key_warnings(fields: Mapping[Any, Any]) -> list[str]:
    """Return a warning for each front matter key this format does not know."""
    known = _OUR_KEYS | _AGENT_SKILLS_KEYS
    return [f"unknown key {key!r} ignored" for key in fields if key not in known]


def _definition_from_fields(fields: Mapping[Any, Any], body: str) -> SkillDefinition:
    """Build a skill definition from validated front matter fields and the body."""
    return SkillDefinition(
        name=_name(fields.get("name")),
        description=_required_text(fields.get("description"), "description"),
        trigger_patterns=_triggers(fields.get("triggers")),
        tools=_text_list(fields.get("tools"), "tools"),
        prompt_extension=body.strip(),
        tone=_tone(fields.get("tone")),
        temperature=_temperature(fields.get("temperature")),
        requires_user_preference=_optional_text(
            fields.get("requires_user_preference"), "requires_user_preference"
        ),
        priority=_priority(fields.get("priority")),
        enabled=_enabled(fields.get("enabled")),
        examples=_text_list(fields.get("examples"), "examples"),
        description_en=_optional_text(fields.get("description_en"), "description_en") or "",
    )


def _name(value: Any) -> str:
    """Validate the skill name: a slug of lowercase letters, digits, '-' and '_'."""
    name = _required_text(value, "name")
    if len(name) > MAX_NAME_LENGTH or not _NAME_PATTERN.fullmatch(name):
        raise _InvalidSkill(
            f"name {name!r} must be at most {MAX_NAME_LENGTH} characters "
            "of lowercase letters, digits, '-' and '_'"
        )
    return name


def _required_text(value: Any, key: str) -> str:
    """Validate a mandatory, non-blank text value."""
    if value is None:
        raise _InvalidSkill(f"'{key}' is required")
    if not isinstance(value, str) or not value.strip():
        raise _InvalidSkill(f"'{key}' must be non-empty text")
    return value.strip()


def _optional_text(value: Any, key: str) -> str | None:
    """Validate a text value that may be absent."""
    if value is None:
        return None
    return _required_text(value, key)


def _text_list(value: Any, key: str) -> tuple[str, ...]:
    """Validate a list of text items; an absent list is empty."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _InvalidSkill(f"'{key}' must be a list of text items")
    return tuple(value)


def _triggers(value: Any) -> tuple[str, ...]:
    """Validate the trigger patterns with the matcher's own rules."""
    patterns = _text_list(value, "triggers")
    for pattern in patterns:
        error = validate_pattern(pattern)
        if error is not None:
            raise _InvalidSkill(f"trigger {pattern!r}: {error}")
    return patterns


def _tone(value: Any) -> ToneConfig:
    """Validate the tone mapping; missing keys take the default tone's values."""
    if value is None:
        return DEFAULT_TONE
    if not isinstance(value, dict):
        raise _InvalidSkill("'tone' must be a mapping of style, emoji_level, response_length, formality")
    unknown = sorted(str(key) for key in value if key not in _TONE_CHOICES)
    if unknown:
        raise _InvalidSkill(f"'tone' has unknown keys: {', '.join(unknown)}")
    chosen = {key: value.get(key, getattr(DEFAULT_TONE, key)) for key in _TONE_CHOICES}
    for key, choice in chosen.items():
        if choice not in _TONE_CHOICES[key]:
            raise _InvalidSkill(
                f"tone {key} {choice!r} must be one of: {', '.join(_TONE_CHOICES[key])}"
            )
    return ToneConfig(**chosen)


def _temperature(value: Any) -> float | None:
    """Validate the optional temperature: a number from 0 to 2."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _InvalidSkill("'temperature' must be a number")
    if not MIN_TEMPERATURE <= value <= MAX_TEMPERATURE:
        raise _InvalidSkill(
            f"'temperature' must be between {MIN_TEMPERATURE:g} and {MAX_TEMPERATURE:g}"
        )
    return float(value)


def _priority(value: Any) -> int:
    """Validate the priority: an integer, lower meaning more important."""
    if value is None:
        return DEFAULT_PRIORITY
    # type() rather than isinstance(): YAML's true/false are bools, and bools are ints.
    if type(value) is not int:
        raise _InvalidSkill("'priority' must be an integer")
    return value


def _enabled(value: Any) -> bool:
    """Validate the enabled flag: true or false, true when absent."""
    if value is None:
        return True
    if not isinstance(value, bool):
        raise _InvalidSkill("'enabled' must be true or false")
    return value
