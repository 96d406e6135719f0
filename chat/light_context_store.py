"""The light conversation context (lifeassistant/light_context.py) bound to Django's cache.

One entry per user per conversation, in the default cache (local memory by default,
Redis in production), expiring after CONTEXT_LIGHT_TTL_SECONDS without use.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.cache import cache

from lifeassistant.tools import REGISTRY

from lifeassistant import light_context
from .models import Conversation, Message, PendingAction, ToolCall

# The tool (chat/light_context_tool.py) that reads and writes the same entry.
CONTEXT_TOOL = "conversation_context"


def _key(conversation: Conversation) -> str:
    return light_context.context_key(conversation.owner_id, conversation.pk)


def handle_action(conversation: Conversation, payload: Any) -> dict[str, Any]:
    """The contract's store / retrieve / clear for one conversation (API and tool)."""
    return light_context.handle(
        payload, store=cache, key=_key(conversation), ttl_seconds=settings.CONTEXT_LIGHT_TTL_SECONDS
    )


def context_for(conversation: Conversation, text: str) -> dict[str, Any] | None:
    """The light context a new message (``text``) may use, read once per message, its
    expiry extended; None when there is none, or for a closing message, which clears it."""
    if light_context.is_completion_signal(text):
        return None
    return light_context.retrieve_context(cache, _key(conversation), settings.CONTEXT_LIGHT_TTL_SECONDS)


def context_tools(context: dict[str, Any] | None) -> tuple[str, ...]:
    """The context tool is offered only while the conversation has a context to use."""
    return (CONTEXT_TOOL,) if context else ()


def prompt_section_for(
    conversation: Conversation,
    text: str,
    *,
    context: dict[str, Any] | None,
    previous_skills: list[str],
    new_skills: list[str],
    reason: str,
) -> str:
    """Update the context for a new user message and return what the prompt should show
    of ``context`` (``context_for`` the same message).

    A closing remark ("obrigado", "that's all") or a new, unrelated topic (triggers
    fired for skills sharing nothing with the previous ones) clears it; a message that
    refers back ("add that", "isso") gets it in the prompt.
    """
    unrelated = reason == "trigger" and bool(previous_skills) and not set(previous_skills) & set(new_skills)
    if light_context.is_completion_signal(text) or (unrelated and not light_context.refers_back(text)):
        light_context.clear_context(cache, _key(conversation))
        return ""
    if not light_context.refers_back(text):
        return ""
    return light_context.render_for_prompt(context)


def remember_round(
    message: Message, *, tool_calls: list[ToolCall] | None = None, pending_actions: list[PendingAction] | None = None
) -> None:
    """Store what the round answered by ``message`` did, for follow-ups (never raises).

    The intent is the last tool that changed (or proposed to change) something, else
    the dominant skill; the task id is the entity that tool returned. After a closing
    message ("obrigado", "that's all") nothing is stored: the message cleared the context,
    and the round that thanked must not bring it back. ``tool_calls`` and
    ``pending_actions``: the reply's, when the caller has read them (else read here).
    """
    user_message = message.reply_to
    if user_message is not None and light_context.is_completion_signal(user_message.content):
        return
    if tool_calls is None:
        tool_calls = list(message.tool_calls.all())
    if pending_actions is None:  # only a tool call proposes an action
        pending_actions = list(message.pending_actions.all()) if tool_calls else []
    last_intent, last_task_id, pending_fields = _round_summary(message, tool_calls, pending_actions)
    light_context.store_context(
        cache,
        _key(message.conversation),
        settings.CONTEXT_LIGHT_TTL_SECONDS,
        last_intent=last_intent,
        last_task_id=last_task_id,
        pending_fields=pending_fields,
        # Capped so a message longer than the contract allows still leaves a context.
        last_user_message=user_message.content[: light_context.MAX_MESSAGE_CHARS] if user_message else "",
    )


def _round_summary(
    message: Message, tool_calls: list[ToolCall], pending_actions: list[PendingAction]
) -> tuple[str, str | None, list[str]]:
    # Python over the lists rather than filtered queries: the worker passes them read.
    waiting = [action for action in pending_actions if action.status == PendingAction.Status.PENDING]
    if waiting:  # a write waits for the user's "yes"
        return max(waiting, key=lambda action: action.pk).tool, None, ["confirmation"]
    calls = [call for call in tool_calls if call.ok]
    writes = [call for call in calls if (tool := REGISTRY.get(call.tool)) is not None and tool.writes]
    chosen = (writes or calls)[-1:]
    if chosen:
        task_id = _entity_id(chosen[0].result)
        return chosen[0].tool, None if task_id is None else str(task_id), []
    skills = list(message.active_skills or [])
    return (skills[0] if skills else "general"), None, []


def _entity_id(result: Any) -> Any:
    """The id a tool result names: ``{"id": ..}`` or ``{"expense": {"id": ..}}``."""
    if not isinstance(result, dict):
        return None
    if "id" in result:
        return result["id"]
    nested = [value["id"] for value in result.values() if isinstance(value, dict) and "id" in value]
    return nested[0] if len(nested) == 1 else None
