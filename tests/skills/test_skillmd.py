from dataclasses import replace
from pathlib import Path

import pytest

from skills.domain import DEFAULT_PRIORITY, DEFAULT_TONE, SkillDefinition, ToneConfig
from skills.skillmd import MAX_FILE_BYTES, parse_skill_md, read_skill_dir, render_skill_md

DEFINITIONS = Path(__file__).resolve().parents[2] / "skills" / "definitions"
SHIPPED_NAMES = ["counselor", "finance", "general", "health", "professional", "relationships", "spiritual"]
SEED_TOOLS = {
    "finance": ("get_finance_summary", "get_pending_bills", "mark_bill_paid", "create_expense", "get_debt_progress"),
    "health": ("record_metric", "get_tracking_history", "update_metric", "delete_metric"),
    "counselor": (),
    "relationships": ("get_person", "update_person"),
    "professional": (),
    "spiritual": (),
    "general": (),
}

MINIMAL = """---
name: pdf-tools
description: Extract text and tables from PDF files.
---
# PDF tools

Use this skill when the user mentions PDFs.
"""


def shipped() -> dict[str, SkillDefinition]:
    definitions = {}
    for path, parsed in read_skill_dir(DEFINITIONS):
        assert parsed.error is None, parsed.error
        assert parsed.warnings == (), parsed.warnings
        assert parsed.definition is not None
        assert path.parent.name == parsed.definition.name
        definitions[parsed.definition.name] = parsed.definition
    return definitions


def front_matter(**lines: str) -> str:
    fields = {"name": "demo", "description": "Demo skill."} | lines
    body = "\n".join(f"{key}: {value}" for key, value in fields.items())
    return f"---\n{body}\n---\nBody text.\n"


def error_of(text: str) -> str:
    parsed = parse_skill_md(text)
    assert parsed.definition is None
    assert parsed.error is not None
    return parsed.error


def test_the_seven_shipped_skills_parse_cleanly():
    assert sorted(shipped()) == SHIPPED_NAMES


@pytest.mark.parametrize("name", SHIPPED_NAMES)
def test_a_shipped_skill_survives_a_render_and_parse_round_trip(name):
    definition = shipped()[name]
    assert parse_skill_md(render_skill_md(definition)).definition == definition


def test_a_round_trip_keeps_every_field():
    definition = SkillDefinition(
        name="custom_skill-2",
        description="Tudo: ação, \"aspas\" e dois-pontos",
        trigger_patterns=(
            "=fé", "não sei o que fazer", "r$", "don't know", "!na promoção",
            "insônia | =sono & por causa & @finance", "@professional & @relationships",
        ),
        tools=("create_expense",),
        prompt_extension="## Título\n\n- linha com: dois pontos\n---\nfim",
        tone=ToneConfig("celebratory", "moderate", "elaborated", "careful-informal"),
        temperature=1.25,
        requires_user_preference="christian_perspective",
        priority=-1,
        enabled=False,
        examples=("exemplo: um", "- dois"),
        description_en="Everything: action, \"quotes\" and colons",
    )
    assert parse_skill_md(render_skill_md(definition)).definition == definition


def test_every_shipped_skill_has_an_english_description_for_english_readers():
    for definition in shipped().values():
        assert definition.description_en and definition.description_en != definition.description
        assert definition.description_for("en") == definition.description_en
        assert definition.description_for("pt-br") == definition.description_for("es") == definition.description


def test_shipped_skills_keep_the_seed_tools():
    assert {name: skill.tools for name, skill in shipped().items()} == SEED_TOOLS


def test_shipped_skills_keep_the_seed_settings():
    skills = shipped()
    assert {name: (skill.priority, skill.temperature) for name, skill in skills.items()} == {
        "finance": (3, 0.3),
        "health": (4, 0.5),
        "counselor": (2, 0.7),
        "relationships": (4, 0.6),
        "professional": (4, 0.4),
        "spiritual": (5, 0.6),
        "general": (10, None),
    }
    assert skills["spiritual"].requires_user_preference == "christian_perspective"
    assert skills["counselor"].tone == ToneConfig("reflective", "none", "elaborated", "careful-informal")


def test_shipped_skills_have_three_to_six_examples():
    assert all(3 <= len(skill.examples) <= 6 for skill in shipped().values())


def test_only_the_general_skill_has_no_triggers_and_no_prompt_extension():
    empty = [name for name, skill in shipped().items() if not skill.trigger_patterns or not skill.prompt_extension]
    assert empty == ["general"]


def test_a_foreign_skill_with_only_name_and_description_loads_with_defaults():
    parsed = parse_skill_md(MINIMAL)
    assert parsed.error is None
    assert parsed.definition == SkillDefinition(
        name="pdf-tools",
        description="Extract text and tables from PDF files.",
        trigger_patterns=(),
        tools=(),
        prompt_extension="# PDF tools\n\nUse this skill when the user mentions PDFs.",
        tone=DEFAULT_TONE,
        temperature=None,
        requires_user_preference=None,
        priority=DEFAULT_PRIORITY,
        enabled=True,
        examples=(),
    )


def test_agent_skills_keys_are_accepted_silently():
    text = front_matter(license="MIT", **{"allowed-tools": "Read Grep", "metadata": "{author: x}", "compatibility": "any"})
    parsed = parse_skill_md(text)
    assert parsed.definition is not None
    assert parsed.warnings == ()


def test_unknown_keys_are_ignored_with_a_warning():
    parsed = parse_skill_md(front_matter(colour="blue"), source="demo/SKILL.md")
    assert parsed.definition is not None
    assert parsed.warnings == ("demo/SKILL.md: unknown key 'colour' ignored",)


def test_a_partial_tone_is_completed_with_the_defaults():
    parsed = parse_skill_md(front_matter(tone="{style: hopeful}"))
    assert parsed.definition is not None
    assert parsed.definition.tone == replace(DEFAULT_TONE, style="hopeful")


def test_a_byte_order_mark_and_windows_line_endings_are_accepted():
    parsed = parse_skill_md("\ufeff" + MINIMAL.replace("\n", "\r\n"))
    assert parsed.definition is not None
    assert parsed.definition.name == "pdf-tools"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("no front matter here", "must start with a '---' line"),
        ("---\nname: demo\n", "not closed"),
        ("---\nname: [unclosed\n---\n", "not valid YAML"),
        ("---\n- a\n- b\n---\n", "must be a mapping"),
        ("---\n!!python/object:os.system {}\n---\n", "not valid YAML"),
        ("---\ndescription: no name\n---\n", "'name' is required"),
        ("---\nname: demo\n---\n", "'description' is required"),
    ],
)
def test_a_malformed_file_gives_an_error(text, expected):
    assert expected in error_of(text)


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("name", "Finance", "lowercase letters"),
        ("name", "'two words'", "lowercase letters"),
        ("name", "'" + "a" * 65 + "'", "at most 64"),
        ("name", "42", "must be non-empty text"),
        ("tone", "{style: grumpy}", "tone style 'grumpy' must be one of"),
        ("tone", "{mood: calm}", "unknown keys: mood"),
        ("tone", "practical", "'tone' must be a mapping"),
        ("temperature", "hot", "'temperature' must be a number"),
        ("temperature", "true", "'temperature' must be a number"),
        ("temperature", "2.5", "between 0 and 2"),
        ("temperature", "-0.1", "between 0 and 2"),
        ("priority", "high", "'priority' must be an integer"),
        ("priority", "1.5", "'priority' must be an integer"),
        ("priority", "true", "'priority' must be an integer"),
        ("enabled", "maybe", "'enabled' must be true or false"),
        ("triggers", "gast", "'triggers' must be a list"),
        ("triggers", "[gast, '=']", "trigger '=': '=' must be followed by a word"),
        ("triggers", "[gast, '']", "must not be empty"),
        ("triggers", "['!']", "trigger '!': '!' must be followed by a pattern"),
        ("triggers", "['sono & ']", "empty alternative"),
        ("triggers", "['sono & @Finance']", "'@Finance' must be '@' followed by a skill name"),
        ("tools", "[1, 2]", "'tools' must be a list of text items"),
        ("examples", "{a: b}", "'examples' must be a list"),
        ("requires_user_preference", "[]", "must be non-empty text"),
    ],
)
def test_an_invalid_value_gives_an_error_naming_it(key, value, expected):
    assert expected in error_of(front_matter(**{key: value}))


def test_errors_name_the_source():
    assert parse_skill_md("oops", source="x/SKILL.md").error.startswith("x/SKILL.md: ")


def test_reading_a_directory_finds_the_root_and_child_skill_files(tmp_path):
    (tmp_path / "SKILL.md").write_text(MINIMAL, encoding="utf-8")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "SKILL.md").write_text(MINIMAL.replace("pdf-tools", "b"), encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "SKILL.md").write_text(MINIMAL.replace("pdf-tools", "a"), encoding="utf-8")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "README.md").write_text("not a skill", encoding="utf-8")
    found = read_skill_dir(tmp_path)
    assert [(path.relative_to(tmp_path).as_posix(), parsed.definition.name) for path, parsed in found] == [
        ("SKILL.md", "pdf-tools"),
        ("a/SKILL.md", "a"),
        ("b/SKILL.md", "b"),
    ]


def test_a_file_that_is_not_utf8_gives_an_error_entry(tmp_path):
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "SKILL.md").write_bytes(MINIMAL.replace("PDF files", "arquivos em portugu\xeas").encode("latin-1"))
    [(_, parsed)] = read_skill_dir(tmp_path)
    assert parsed.definition is None
    assert "not valid UTF-8" in parsed.error


def test_a_file_larger_than_the_limit_gives_an_error_entry(tmp_path):
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "SKILL.md").write_text(MINIMAL + "x" * MAX_FILE_BYTES, encoding="utf-8")
    [(_, parsed)] = read_skill_dir(tmp_path)
    assert parsed.definition is None
    assert "larger than 256 KiB" in parsed.error


def test_a_file_at_the_size_limit_is_read(tmp_path):
    (tmp_path / "edge").mkdir()
    (tmp_path / "edge" / "SKILL.md").write_text(MINIMAL + "x" * (MAX_FILE_BYTES - len(MINIMAL)), encoding="utf-8")
    [(_, parsed)] = read_skill_dir(tmp_path)
    assert parsed.error is None


def test_an_empty_directory_has_no_skills(tmp_path):
    assert read_skill_dir(tmp_path) == []
