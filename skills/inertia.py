"""Which skills are active for a message: triggers first, then inertia, then fallback.

The decision for each user message, in order:

1. Skills whose ``requires_user_preference`` is not on in the user's preferences are
   never active, by any route below. Disabled or unknown skills are ignored.
2. ``explicit`` (a skill forced with ``/name``) is active together with the skills whose
   triggers fired; reason ``explicit``. This counts as a detection.
3. Otherwise, if triggers fired, those skills are active; reason ``trigger``. A
   detection replaces the previous active skills and restarts the inertia count.
4. Otherwise the skills of the previous detection stay active while fewer than
   ``inertia_messages`` messages have passed without a detection; reason ``inertia``.
5. Otherwise ``routed`` (a skill chosen by an LLM router), reason ``router``; or the
   fallback skill ``general``, reason ``fallback``. Neither counts as a detection: the
   state keeps only ``general``, so the next quiet message asks again.

What "inertia of 5 messages" means: message 1 triggers finance; messages 2, 3, 4, 5
and 6 fire nothing and keep finance (``messages_since_detection`` goes 1..5); message
7 fires nothing and falls back to ``general``. ``inertia_messages=0`` disables inertia.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from skills.domain import FALLBACK_SKILL, SkillDefinition

DEFAULT_INERTIA_MESSAGES = 5


@dataclass(frozen=True)
class InertiaState:
    """What a conversation remembers between messages about its active skills."""

    active_skills: tuple[str, ...]
    last_detected_at: datetime | None
    messages_since_detection: int


EMPTY_STATE = InertiaState(active_skills=(), last_detected_at=None, messages_since_detection=0)


@dataclass(frozen=True)
class Decision:
    """The active skills for one message, why they are active, and the state to keep.

    ``matched`` holds every trigger that fired, including those of skills the user's
    preferences then excluded, so logs can tell why a skill stayed off.
    """

    active: tuple[SkillDefinition, ...]
    reason: str
    matched: dict[str, tuple[str, ...]]
    state: InertiaState


def is_allowed(skill: SkillDefinition, preferences: Mapping[str, bool]) -> bool:
    """Tell whether ``skill`` is enabled and its required preference, if any, is on."""
    if not skill.enabled:
        return False
    required = skill.requires_user_preference
    return required is None or bool(preferences.get(required))


def by_priority(skills: Iterable[SkillDefinition]) -> tuple[SkillDefinition, ...]:
    """Return ``skills`` ordered by priority (lowest number first), then by name."""
    return tuple(sorted(skills, key=lambda skill: (skill.priority, skill.name)))


def decide(
    skills: Sequence[SkillDefinition],
    matches: Mapping[str, Sequence[str]],
    state: InertiaState,
    *,
    now: datetime,
    preferences: Mapping[str, bool] | None = None,
    inertia_messages: int = DEFAULT_INERTIA_MESSAGES,
    explicit: str | None = None,
    routed: str | None = None,
) -> Decision:
    """Decide the active skills for one message (see the module docstring for the rules)."""
    allowed = {
        skill.name: skill for skill in skills if is_allowed(skill, preferences or {})
    }
    matched = {name: tuple(patterns) for name, patterns in matches.items() if patterns}
    triggered = [allowed[name] for name in matched if name in allowed]

    if explicit is not None and explicit in allowed:
        forced = {allowed[explicit], *triggered}
        return _detection(by_priority(forced), "explicit", matched, now)
    if triggered:
        return _detection(by_priority(triggered), "trigger", matched, now)

    kept = _kept_by_inertia(state, allowed, inertia_messages)
    if kept:
        return Decision(
            active=kept,
            reason="inertia",
            matched=matched,
            state=InertiaState(
                active_skills=tuple(skill.name for skill in kept),
                last_detected_at=state.last_detected_at,
                messages_since_detection=state.messages_since_detection + 1,
            ),
        )

    routed_skill = allowed.get(routed) if routed is not None else None
    return Decision(
        active=_fallback(allowed) if routed_skill is None else (routed_skill,),
        reason="fallback" if routed_skill is None else "router",
        matched=matched,
        state=InertiaState(
            active_skills=(FALLBACK_SKILL,),
            last_detected_at=state.last_detected_at,
            messages_since_detection=state.messages_since_detection + 1,
        ),
    )


def _detection(
    active: tuple[SkillDefinition, ...],
    reason: str,
    matched: dict[str, tuple[str, ...]],
    now: datetime,
) -> Decision:
    """Return a decision for freshly detected skills, restarting the inertia count."""
    return Decision(
        active=active,
        reason=reason,
        matched=matched,
        state=InertiaState(
            active_skills=tuple(skill.name for skill in active),
            last_detected_at=now,
            messages_since_detection=0,
        ),
    )


def _kept_by_inertia(
    state: InertiaState,
    allowed: Mapping[str, SkillDefinition],
    inertia_messages: int,
) -> tuple[SkillDefinition, ...]:
    """Return the previously active skills that inertia still keeps, if any."""
    if state.messages_since_detection >= inertia_messages:
        return ()
    if set(state.active_skills) <= {FALLBACK_SKILL}:
        return ()
    return by_priority(allowed[name] for name in state.active_skills if name in allowed)


def _fallback(allowed: Mapping[str, SkillDefinition]) -> tuple[SkillDefinition, ...]:
    """Return the fallback skill, or nothing when it is missing or disabled."""
    general = allowed.get(FALLBACK_SKILL)
    return (general,) if general is not None else ()
