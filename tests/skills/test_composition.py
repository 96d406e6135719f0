from dataclasses import replace
from datetime import datetime, timezone

import pytest

from skills.composition import BASE_PROMPT, TONE_HEADING, compose, compose_monolithic, render_tone
from skills.domain import (
    BASE_TOOLS,
    DEFAULT_TONE,
    EMOJI_LEVELS,
    FORMALITIES,
    RESPONSE_LENGTHS,
    TONE_STYLES,
    SkillDefinition,
    ToneConfig,
)
from skills.inertia import EMPTY_STATE, decide
from skills.matching import compile_matcher
from tests.skills.shipped import shipped_definitions

SHIPPED = {definition.name: definition for definition in shipped_definitions()}
ALL_TOOLS = (
    *BASE_TOOLS,
    "get_finance_summary",
    "get_pending_bills",
    "mark_bill_paid",
    "create_expense",
    "get_debt_progress",
    "record_metric",
    "get_tracking_history",
    "update_metric",
    "delete_metric",
    "get_person",
    "update_person",
)


def tool(name: str) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "description": name, "parameters": {"type": "object"}}}


CATALOG = {name: tool(name) for name in ALL_TOOLS}


def detect(text: str) -> tuple[SkillDefinition, ...]:
    skills = list(SHIPPED.values())
    matches = compile_matcher(skills).match(text)
    return decide(skills, matches, EMPTY_STATE, now=datetime.now(timezone.utc)).active


def test_a_finance_message_gets_the_finance_tools_and_temperature():
    composition = compose(detect("gastei 50 reais no mercado"), CATALOG, base_prompt=BASE_PROMPT)
    assert composition.skill_names == ("finance",)
    assert composition.temperature == 0.3
    assert composition.tool_names == (
        "search_knowledge",
        "add_knowledge",
        "analyze_context",
        "get_finance_summary",
        "get_pending_bills",
        "mark_bill_paid",
        "create_expense",
        "get_debt_progress",
    )
    assert [definition["function"]["name"] for definition in composition.tools] == list(composition.tool_names)


def test_a_mixed_message_orders_skills_by_priority_and_takes_the_lowest_temperature():
    composition = compose(detect("gastei 40 reais em remédio pra gripe"), CATALOG, base_prompt=BASE_PROMPT)
    assert composition.skill_names == ("finance", "health")
    assert composition.temperature == 0.3
    assert len(composition.tools) == 12
    assert composition.tone == SHIPPED["finance"].tone
    assert composition.system_prompt.index("## Skill: Finanças") < composition.system_prompt.index(
        "## Skill: Saúde"
    )


def test_counselor_dominates_when_it_joins_finance_and_health():
    active = [SHIPPED["health"], SHIPPED["finance"], SHIPPED["counselor"]]
    composition = compose(active, CATALOG, base_prompt=BASE_PROMPT)
    assert composition.skill_names == ("counselor", "finance", "health")
    assert composition.temperature == 0.3
    assert composition.tone == SHIPPED["counselor"].tone
    assert "- NÃO use emojis" in composition.system_prompt
    assert composition.prompt_extension.startswith("## Skill: Conselheira")


def make_skill(name: str, priority: int, tools: tuple[str, ...], **fields: object) -> SkillDefinition:
    skill = SkillDefinition(
        name=name,
        description="",
        trigger_patterns=(),
        tools=tools,
        prompt_extension=f"## {name}",
        tone=DEFAULT_TONE,
        priority=priority,
    )
    return replace(skill, **fields)  # type: ignore[arg-type]


def test_tools_shared_by_skills_are_listed_once_in_a_stable_order():
    first = make_skill("first", 1, ("get_person", "search_knowledge", "record_metric"))
    second = make_skill("second", 2, ("record_metric", "get_person", "create_expense"))
    composition = compose([second, first], CATALOG, base_prompt="base")
    assert composition.tool_names == (*BASE_TOOLS, "get_person", "record_metric", "create_expense")


def test_a_tool_missing_from_the_catalog_is_skipped_and_reported():
    skill = make_skill("skill", 1, ("create_expense", "save_decision"))
    composition = compose([skill], CATALOG, base_prompt="base")
    assert "save_decision" not in composition.tool_names
    assert composition.missing_tools == ("save_decision",)
    assert len(composition.tools) == 4


def test_the_tone_comes_from_the_dominant_skill():
    calm = ToneConfig("reflective", "none", "elaborated", "careful-informal")
    loud = ToneConfig("celebratory", "moderate", "concise", "informal")
    composition = compose(
        [make_skill("loud", 5, (), tone=loud), make_skill("calm", 2, (), tone=calm)],
        CATALOG,
        base_prompt="base",
    )
    assert composition.tone == calm
    assert render_tone(calm) in composition.system_prompt
    assert render_tone(loud) not in composition.system_prompt


def test_the_system_prompt_joins_base_tone_and_extensions_with_blank_lines():
    composition = compose(
        [make_skill("b", 2, ()), make_skill("a", 1, (), prompt_extension="  ")],
        CATALOG,
        base_prompt="base",
    )
    assert composition.system_prompt == "\n\n".join(["base", render_tone(DEFAULT_TONE), "## b"])
    assert composition.prompt_extension == "## b"


def test_the_temperature_is_none_when_no_skill_defines_one():
    composition = compose([make_skill("a", 1, ())], CATALOG, base_prompt="base")
    assert composition.temperature is None


def test_composing_no_skills_gives_the_base_prompt_and_tools():
    composition = compose([], CATALOG, base_prompt="base")
    assert composition.system_prompt == "base"
    assert composition.tool_names == BASE_TOOLS
    assert composition.tone is None


def test_the_general_skill_adds_only_its_tone():
    composition = compose([SHIPPED["general"]], CATALOG, base_prompt=BASE_PROMPT)
    assert composition.tool_names == BASE_TOOLS
    assert composition.system_prompt == BASE_PROMPT + "\n\n" + render_tone(SHIPPED["general"].tone)


@pytest.mark.parametrize(
    ("field", "choices"),
    [("style", TONE_STYLES), ("emoji_level", EMOJI_LEVELS), ("response_length", RESPONSE_LENGTHS), ("formality", FORMALITIES)],
)
def test_every_tone_choice_adds_its_own_line(field, choices):
    rendered = {render_tone(replace(DEFAULT_TONE, **{field: choice})) for choice in choices}
    assert len(rendered) == len(choices)
    assert all(text.startswith(TONE_HEADING) and text.count("\n") == 4 for text in rendered)


def test_the_seed_tone_lines_are_kept():
    rendered = render_tone(ToneConfig("reflective", "none", "elaborated", "careful-informal"))
    assert "- Seja reflexiva e pausada" in rendered
    assert "- NÃO use emojis" in rendered
    assert "- Pode elaborar e se aprofundar" in rendered


def test_the_monolithic_composition_has_every_tool_and_every_extension():
    skills = list(SHIPPED.values())
    composition = compose_monolithic(skills, CATALOG, base_prompt=BASE_PROMPT)
    assert composition.tool_names == ALL_TOOLS
    assert composition.temperature is None
    assert composition.tone is None
    for skill in skills:
        assert skill.prompt_extension in composition.system_prompt


def test_the_monolithic_composition_leaves_out_disabled_skills():
    skill = make_skill("off", 1, (), enabled=False, prompt_extension="## off")
    composition = compose_monolithic([skill], CATALOG, base_prompt="base")
    assert composition.system_prompt == "base"


def test_the_base_prompt_is_compact():
    assert 150 <= len(BASE_PROMPT.split()) <= 250


def test_the_monolithic_catalog_leaves_out_on_demand_tools_unless_asked():
    from skills.composition import domain_catalog
    from skills.domain import DEFAULT_TONE, SkillDefinition

    finance = SkillDefinition(
        name="finance", description="d", trigger_patterns=(), tools=("create_expense",), prompt_extension="", tone=DEFAULT_TONE
    )
    catalog = {name: {"function": {"name": name}} for name in ("search_knowledge", "create_expense", "read_document")}
    assert list(domain_catalog(catalog, [finance])) == ["search_knowledge", "create_expense"]
    assert "read_document" in domain_catalog(catalog, [finance], extra_tools=["read_document"])
