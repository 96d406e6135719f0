"""The assistant's tools: one registry, tools registered by the modules imported below."""

from .registry import REGISTRY, Tool, ToolContext, ToolOutcome, tool

__all__ = ["REGISTRY", "Tool", "ToolContext", "ToolOutcome", "tool"]
