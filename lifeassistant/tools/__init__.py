"""The assistant's tools: one registry, tools registered by the modules imported below."""

from .registry import REGISTRY, Tool, ToolContext, ToolError, ToolOutcome, tool

# Importing a tool module registers its tools (docs/specification.md, skills architecture §2.1: fourteen tools). The apps above add
# their own: ``read_document`` (documents) and ``conversation_context`` (chat).
from . import knowledge, analysis, tracking, finance, people  # noqa: E402,F401  isort: skip

__all__ = ["REGISTRY", "Tool", "ToolContext", "ToolError", "ToolOutcome", "tool"]
