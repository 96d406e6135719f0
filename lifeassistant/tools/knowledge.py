"""Memory tools (base tools): what the assistant knows about its user."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.utils.translation import gettext as _

from lifeassistant.models import KnowledgeItem
from lifeassistant.text import normalize

from .common import AREAS, words_of
from .registry import ToolContext, ToolError, tool

if TYPE_CHECKING:
    from django.contrib.auth.models import User

KINDS = [choice.value for choice in KnowledgeItem.Kind]
SEARCH_WINDOW = 500  # the most recent items scanned per search


def knowledge_dict(item: KnowledgeItem) -> dict[str, Any]:
    return {
        "id": item.pk,
        "kind": item.kind,
        "area": item.area,
        "content": item.content,
        "learned_on": item.created_at.date().isoformat(),
    }


def matching_knowledge(user: User, query: str, *, area: str | None = None, limit: int = 10) -> list[KnowledgeItem]:
    """The user's items that share words with ``query``, best match first, then newest."""
    items = KnowledgeItem.objects.filter(owner=user)
    if area:
        items = items.filter(area=area)
    wanted = words_of(query)
    scored: list[tuple[int, KnowledgeItem]] = []
    for item in items.order_by("-created_at", "-id")[:SEARCH_WINDOW]:
        haystack = normalize(item.content)
        score = sum(1 for word in wanted if word in haystack)
        if score or not wanted:
            scored.append((score, item))
    scored.sort(key=lambda pair: -pair[0])  # stable: newest first among equal scores
    return [item for _score, item in scored[:limit]]


@tool(
    "search_knowledge",
    "Search the facts already known about the user (preferences, goals, people, history) "
    "before asking them again. Returns the best matches, newest first among equals.",
    {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 300, "description": "What to look for."},
            "area": {"type": "string", "enum": AREAS, "description": "Restrict to one area of life."},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 10},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)
def search_knowledge(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    found = matching_knowledge(
        context.user, arguments["query"], area=arguments.get("area"), limit=arguments.get("limit", 10)
    )
    return {"query": arguments["query"], "count": len(found), "items": [knowledge_dict(item) for item in found]}


def _summarize_add(context: ToolContext, arguments: dict[str, Any]) -> str:
    content = arguments["content"].strip()
    if not content:
        raise ToolError("The fact to remember is empty.")
    return _("Remember: “%(content)s”") % {"content": content}


@tool(
    "add_knowledge",
    "Remember a lasting fact the user stated about themselves (name, job, a preference, a goal, "
    "something about their life). It is saved at once, no confirmation needed; the user can review "
    "and delete what you remember. Do not guess facts the user did not state.",
    {
        "type": "object",
        "properties": {
            "content": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "The fact, in one sentence."},
            "area": {"type": "string", "enum": AREAS, "default": "general"},
            "kind": {"type": "string", "enum": KINDS, "default": "fact"},
        },
        "required": ["content"],
        "additionalProperties": False,
    },
    writes=True,
    summary=_summarize_add,
    confirm=False,
)
def add_knowledge(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    content = " ".join(arguments["content"].split())
    if not content:
        raise ToolError("The fact to remember is empty.")
    same = [item for item in KnowledgeItem.objects.filter(owner=context.user, content__iexact=content)[:1]]
    if same:
        return {"status": "already_known", "item": knowledge_dict(same[0])}
    if not KnowledgeItem.has_room_for(context.user):
        raise ToolError(
            f"Memory is full ({settings.MEMORY_MAX_ITEMS} items): nothing was saved. Tell the user "
            "to delete items they no longer need in their preferences, then try again."
        )
    item = KnowledgeItem.objects.create(
        owner=context.user,
        content=content,
        area=arguments.get("area", "general"),
        kind=arguments.get("kind", "fact"),
    )
    return {"status": "saved", "item": knowledge_dict(item)}
