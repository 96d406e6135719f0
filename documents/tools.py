"""The ``read_document`` tool: the model reads one of the user's documents by name."""

from __future__ import annotations

from typing import Any

from lifeassistant.tools.registry import ToolContext, ToolError, tool

from .services import READ_DOCUMENT_TOOL, find_document

MAX_CHARS = 50_000


@tool(
    READ_DOCUMENT_TOOL,
    "Read the full content of a document listed in AVAILABLE_DOCUMENTS, by its file name.",
    {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The document's file name, e.g. user_context_1.txt"},
            "offset": {"type": "integer", "minimum": 0, "description": "Character offset for long documents."},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
)
def read_document(context: ToolContext, arguments: dict[str, Any]) -> dict[str, Any]:
    document = find_document(user=context.user, conversation=context.conversation, name=arguments["name"])
    if document is None:
        raise ToolError(f"No document named {arguments['name']!r}.")
    offset = arguments.get("offset", 0)
    chunk = document.content[offset : offset + MAX_CHARS]
    return {
        "name": document.file_name,
        "mime_type": document.mime_type,
        "size_bytes": document.size_bytes,
        "offset": offset,
        "content": chunk,
        "truncated": offset + len(chunk) < len(document.content),
    }
