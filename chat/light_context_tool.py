"""The light conversation context as a tool: the model stores, reads or clears it.

Same JSON in and out as the REST endpoint and the contract (lifeassistant/light_context.py);
the contract's own validation answers bad input, so the schema here stays loose.
"""

from __future__ import annotations

from typing import Any

from lifeassistant.tools import ToolContext, tool

from .light_context_store import CONTEXT_TOOL, handle_action
from .models import Conversation


@tool(
    CONTEXT_TOOL,
    "Short-term memory of this conversation for follow-ups ('add that', 'update it'). "
    "action 'retrieve' returns {last_intent, last_task_id, pending_fields, last_user_message}; "
    "'store' needs all four fields; 'clear' forgets them when the user is done.",
    {
        "type": "object",
        "properties": {
            "action": {"type": "string", "description": "store, retrieve or clear"},
            "last_intent": {"type": "string"},
            "last_task_id": {"type": ["string", "integer", "null"]},
            "pending_fields": {"type": "array", "items": {"type": "string"}},
            "last_user_message": {"type": "string"},
        },
        "required": ["action"],
    },
)
def conversation_context(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    conversation = context.conversation
    assert isinstance(conversation, Conversation)  # the base types it as a model row
    return handle_action(conversation, arguments)
