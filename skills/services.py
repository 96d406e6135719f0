"""Skill planning for one message: the ORM-facing adapter around the pure skills logic.

The enabled skills and their compiled matcher are cached per process and rebuilt
when any skill changes: saving a skill bumps a version number in the shared cache
(Redis in production), so every worker notices on its next message.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone

from lifeassistant.db import close_connections_and_pools
from lifeassistant.tokens import count_tokens
from lifeassistant.tools import REGISTRY

from .arguments import render_arguments
from .catalog_version import shared_catalog_version
from .composition import BASE_PROMPT, Composition, compose, compose_monolithic, domain_catalog
from .domain import BASE_TOOLS, SkillDefinition
from .inertia import Decision, InertiaState, decide, is_allowed, topic_cue
from .matching import TriggerMatcher, compile_matcher
from .models import Skill
from .opinion import LearnedOpinion, shipped_opinion
from .router import semantic_router


logger = logging.getLogger(__name__)

class InertiaHolder(Protocol):
    """Where a conversation keeps its skill-inertia state (chat's ``Conversation`` row)."""

    active_skills: list[str]
    skills_detected_at: datetime | None
    messages_since_detection: int
    skills_quiet_for: list[int]


@dataclass(frozen=True)
class Catalog:
    """The enabled skills of one version, with their matcher."""

    version: str
    skills: tuple[SkillDefinition, ...]
    matcher: TriggerMatcher


class _CatalogCache:
    """The process's catalog, shared by its threads. Under ASGI every request runs in a
    thread of its own, so a per-thread cache was rebuilt (a query and a compile of every
    trigger) on every message: half of the web process's CPU."""

    def __init__(self) -> None:
        self.catalog: Catalog | None = None
        self.lock = threading.Lock()


_process = _CatalogCache()
_monolithic_tokens: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], int] = {}


def configured_opinion() -> LearnedOpinion | None:
    """The learned second opinion the settings ask for (``SKILLS_LEARNED_OPINION``), or None."""
    return shipped_opinion() if settings.SKILLS_LEARNED_OPINION else None


def current_catalog() -> Catalog:
    """The cached catalog, rebuilt when the shared version moved."""
    version = shared_catalog_version()
    cached = _process.catalog
    if cached is not None and cached.version == version:
        return cached
    with _process.lock:  # one thread rebuilds; the others wait and take its result
        cached = _process.catalog
        if cached is not None and cached.version == version:
            return cached
        definitions = tuple(skill.to_definition() for skill in Skill.objects.filter(enabled=True))
        catalog = Catalog(version, definitions, compile_matcher(definitions, configured_opinion()))
        _process.catalog = catalog
        return catalog


def load_catalog() -> None:
    """Build the catalog before serving (a ``lifeassistant.warmup`` step): compiling every
    trigger holds the GIL for tens of milliseconds, which the first burst's requests would
    otherwise each wait for. Its connection and pool are closed: none may cross a fork."""
    try:
        current_catalog()
    finally:
        close_connections_and_pools()


@dataclass(frozen=True)
class SkillPlan:
    """The skills, prompt, tools and temperature chosen for one message."""

    decision: Decision | None
    composition: Composition
    reason: str
    fixed_tokens: int
    monolithic_fixed_tokens: int

    def ledger_fields(self) -> dict[str, Any]:
        """Fields of the assistant Message that record this plan."""
        return {
            "active_skills": list(self.composition.skill_names),
            "skill_reason": self.reason,
            "tools_offered": list(self.composition.tool_names),
            "temperature": self.composition.temperature,
            "system_prompt": self.composition.system_prompt,
            "fixed_tokens": self.fixed_tokens,
            "monolithic_fixed_tokens": self.monolithic_fixed_tokens,
        }

    def apply_state(self, conversation: InertiaHolder) -> list[str]:
        """Write the new inertia state onto the (locked) conversation and return the
        names of the fields it set; the caller saves exactly those."""
        if self.decision is None:
            return []
        state = self.decision.state
        conversation.active_skills = list(state.active_skills)
        conversation.skills_detected_at = state.last_detected_at
        conversation.messages_since_detection = state.messages_since_detection
        conversation.skills_quiet_for = list(state.quiet_for)
        return ["active_skills", "skills_detected_at", "messages_since_detection", "skills_quiet_for"]


def plan_skills(
    *,
    conversation: InertiaHolder,
    text: str,
    preferences: dict[str, bool],
    explicit: str | None = None,
    explicit_args: tuple[str, ...] = (),
    explicit_raw_arguments: str = "",
    extra_tools: Sequence[str] = (),
    routed: str | None = None,
    disabled: Collection[str] = (),
    catalog: Catalog | None = None,
    withheld_tools: Collection[str] = (),
) -> SkillPlan:
    """Detect the skills for ``text`` with the conversation's inertia, and compose them.

    ``explicit`` is a skill forced by a ``/name args`` command: its prompt extension is
    rendered with the arguments. ``routed`` is the semantic router's choice
    (``route_if_unmatched``), used only when neither triggers nor inertia chose a skill.
    ``disabled`` are the skills the user turned off: never active, not even by ``/name``.
    ``catalog`` is one the caller already read (each read asks the shared cache for its
    version); the current one otherwise. ``withheld_tools`` are never offered (the user
    has not consented to the data they write), whichever skill names them.
    """
    catalog = catalog or current_catalog()
    tool_catalog = {name: tool for name, tool in REGISTRY.catalog().items() if name not in withheld_tools}
    base_tools = (*BASE_TOOLS, *extra_tools)
    # The monolithic assistant this user would get: every tool, every skill they may use.
    usable = tuple(skill for skill in catalog.skills if is_allowed(skill, preferences, disabled))
    monolithic = compose_monolithic(
        usable, domain_catalog(tool_catalog, catalog.skills, extra_tools=extra_tools), base_prompt=BASE_PROMPT
    )
    monolithic_tokens = _monolithic_token_count(catalog.version, usable, monolithic)
    if not settings.SKILLS_ENABLED:
        return SkillPlan(None, monolithic, "disabled", monolithic_tokens, monolithic_tokens)

    decision = _decide(catalog, conversation, text, preferences, explicit=explicit, routed=routed, disabled=disabled)
    active = tuple(
        replace(skill, prompt_extension=render_arguments(
            skill.prompt_extension, explicit_args, raw_arguments=explicit_raw_arguments, skill_root=f"skills/{skill.name}"
        ))
        if skill.name == explicit else skill
        for skill in decision.active
    )
    composition = compose(active, tool_catalog, base_prompt=BASE_PROMPT, base_tools=base_tools)
    missing = [name for name in composition.missing_tools if name not in withheld_tools]
    if missing:
        logger.warning("skills %s name unknown tools %s; skipped", ",".join(composition.skill_names), ",".join(missing))
    fixed = count_tokens(
        messages=[{"role": "system", "content": composition.system_prompt}], tools=list(composition.tools)
    )
    return SkillPlan(decision, composition, decision.reason, fixed, monolithic_tokens)


def route_if_unmatched(
    *,
    conversation: InertiaHolder,
    text: str,
    preferences: dict[str, bool],
    explicit: str | None = None,
    disabled: Collection[str] = (),
) -> str | None:
    """Ask the semantic router (when enabled) for a message neither triggers nor inertia claim.

    Called before the conversation is locked: the router is a model call, and other
    messages of the conversation must not wait behind it.
    """
    router = semantic_router()
    if router is None or explicit is not None:
        return None
    catalog = current_catalog()
    if _decide(catalog, conversation, text, preferences, explicit=None, routed=None, disabled=disabled).reason != "fallback":
        return None
    return router(text, tuple(s for s in catalog.skills if is_allowed(s, preferences, disabled)), preferences)


def _decide(
    catalog: Catalog,
    conversation: InertiaHolder,
    text: str,
    preferences: dict[str, bool],
    *,
    explicit: str | None,
    routed: str | None,
    disabled: Collection[str] = (),
) -> Decision:
    state = InertiaState(
        active_skills=tuple(conversation.active_skills or ()),
        last_detected_at=conversation.skills_detected_at,
        messages_since_detection=conversation.messages_since_detection,
        quiet_for=tuple(conversation.skills_quiet_for or ()),
    )
    reading = catalog.matcher.reading(text)
    return decide(
        # Skills the user turned off are left out, so no trigger, inertia or command reaches them.
        tuple(skill for skill in catalog.skills if is_allowed(skill, preferences, disabled)),
        reading.fired,
        state,
        now=timezone.now(),
        preferences=preferences,
        inertia_messages=settings.SKILL_INERTIA_MESSAGES,
        explicit=explicit,
        routed=routed,
        cue=topic_cue(text),
        set_aside=reading.set_aside,
        leaning=reading.leaning,
    )


def _monolithic_token_count(version: str, usable: Sequence[SkillDefinition], monolithic: Composition) -> int:
    key = (version, settings.LLM_MODEL, tuple(skill.name for skill in usable), monolithic.tool_names)
    if key not in _monolithic_tokens:
        _monolithic_tokens[key] = count_tokens(
            messages=[{"role": "system", "content": monolithic.system_prompt}], tools=list(monolithic.tools)
        )
    return _monolithic_tokens[key]
