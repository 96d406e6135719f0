"""The semantic router (docs/specification.md, skill discovery and routing §2.2): the model picks one skill, or none.

The skills architecture (§5.2) keeps it off by default: an extra model call per message costs
more than trigger patterns save. When SEMANTIC_ROUTER_ENABLED is on, it is asked
only for messages where neither triggers nor inertia chose a skill.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence

from django.conf import settings

from lifeassistant.llm import LLMError, completion, is_offline

from .domain import FALLBACK_SKILL, SkillDefinition
from .inertia import is_allowed

logger = logging.getLogger(__name__)

Router = Callable[[str, Sequence[SkillDefinition], Mapping[str, bool]], "str | None"]

ROUTER_PROMPT = """\
You route a user's message to at most one skill of a life-assistant.
Each skill has a description ("use it when...") and example phrases.
Answer with JSON only, no markdown: {"skill": "<name>"} when one skill clearly fits,
or {"skill": null} when none fits or the message is ambiguous or off-topic.
Never pick a skill only because a word looks similar; pick by meaning."""


def router_messages(text: str, skills: Sequence[SkillDefinition]) -> list[dict[str, str]]:
    """The prompt: the skills' descriptions and examples as few-shot context, then the message."""
    catalog = "\n".join(
        f"- {skill.name}: {' '.join(skill.description.split())}"
        + (f" Examples: {'; '.join(skill.examples)}" if skill.examples else "")
        for skill in skills
    )
    return [
        {"role": "system", "content": f"{ROUTER_PROMPT}\n\nSkills:\n{catalog}"},
        {"role": "user", "content": text},
    ]


def parse_router_answer(answer: str, allowed: set[str]) -> str | None:
    """The chosen skill name, or None for none / an invalid answer / a name not allowed."""
    cleaned = answer.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        value = json.loads(cleaned)
    except json.JSONDecodeError:
        return None
    name = value.get("skill") if isinstance(value, dict) else None
    return name if isinstance(name, str) and name in allowed else None


def route(text: str, skills: Sequence[SkillDefinition], preferences: Mapping[str, bool]) -> str | None:
    """Ask the model which skill fits ``text``; None when none does or the call fails."""
    candidates = [s for s in skills if is_allowed(s, preferences) and s.name != FALLBACK_SKILL]
    if not candidates:
        return None
    try:
        response = completion(
            router_messages(text, candidates),
            temperature=0.0,
            response_format={"type": "json_object"},
            timeout=settings.SEMANTIC_ROUTER_TIMEOUT_SECONDS,
            max_retries=0,  # it runs inside the POST; no answer means no routed skill
        )
    except LLMError as exc:
        logger.warning("semantic router unavailable: %s", exc)
        return None
    return parse_router_answer(response.text, {s.name for s in candidates})


def semantic_router() -> Router | None:
    """The router when enabled and a real model is configured, else None."""
    if not settings.SEMANTIC_ROUTER_ENABLED or is_offline():
        return None
    return route
