"""The user's profile and knowledge items for the system prompt (the ORM side of
``lifeassistant.memory_prompt``)."""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings

from lifeassistant.memory_prompt import MemoryItem, render_memory_section
from lifeassistant.models import Area, KnowledgeItem, Profile

# The area of life each skill works on, where the names differ.
_AREA_OF_SKILL = {"counselor": Area.EMOTIONAL.value}
# Enough candidates for any budget, in one query: the newest items (the relevant areas
# are chosen among them).
_CANDIDATES = 100


def skill_areas(skill_names: Sequence[str]) -> set[str]:
    areas = {_AREA_OF_SKILL.get(name, name) for name in skill_names}
    return areas & set(Area.values)


def memory_section(profile: Profile, skill_names: Sequence[str], *, has_items: bool = True) -> str:
    """The "About the user" section for a message handled by ``skill_names``
    (``has_items`` False: the caller knows there are no knowledge items, no query)."""
    areas = skill_areas(skill_names)
    items: list[MemoryItem] = []
    if has_items:
        rows = KnowledgeItem.objects.filter(owner_id=profile.user_id).order_by("-updated_at", "-id")[:_CANDIDATES]
        items = [MemoryItem(*row) for row in rows.values_list("id", "kind", "area", "content", "updated_at")]
    return render_memory_section(
        items,
        areas=areas,
        profile={
            "name": profile.display_name,
            "timezone": profile.timezone,
            "currency": profile.currency,
            "today": profile.today().isoformat(),
        },
        budget_tokens=settings.MEMORY_PROMPT_TOKENS,
    )
