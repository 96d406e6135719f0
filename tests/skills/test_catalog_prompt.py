from __future__ import annotations

from pathlib import Path

from skills.domain import DEFAULT_TONE, SkillDefinition
from skills.catalog_prompt import SkillsContext, skills_prompt

SHIPPED = Path(__file__).resolve().parents[2] / "skills" / "definitions"


def skill(name: str, description: str = "Use it when.", **extra: object) -> SkillDefinition:
    return SkillDefinition(name=name, description=description, trigger_patterns=(), tools=(), prompt_extension="", tone=DEFAULT_TONE, **extra)  # type: ignore[arg-type]


def test_it_loads_a_directory_and_lists_every_skill_but_the_fallback():
    context = SkillsContext()
    results = context.load_from_directory(SHIPPED)
    assert len(results) == 7
    prompt = context.get_skills_prompt()
    assert prompt.startswith("## Skills")
    assert "- finance: " in prompt and "- general" not in prompt


def test_register_replaces_a_skill_of_the_same_name():
    context = SkillsContext([skill("travel", "old")])
    context.register(skill("travel", "new"))
    assert "- travel: new" in context.get_skills_prompt()
    assert "old" not in context.get_skills_prompt()


def test_it_stays_within_the_character_budget():
    context = SkillsContext([skill(f"s{i:03d}", "x" * 80) for i in range(100)], budget_chars=1000)
    prompt = context.get_skills_prompt()
    assert len(prompt) <= 1000 + 40
    assert prompt.endswith("more skills not listed)")


def test_it_leaves_out_skills_the_user_may_not_use():
    skills = [skill("finance"), skill("spiritual", requires_user_preference="christian_perspective")]
    assert "spiritual" not in skills_prompt(skills, {})
    assert "spiritual" in skills_prompt(skills, {"christian_perspective": True})
