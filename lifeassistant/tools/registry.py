"""The tool registry: names, JSON-schema parameters, handlers, and safe execution.

A handler runs as the requesting user (``ToolContext.user``) and returns JSON-able data.
Bad arguments and handler errors come back as a failed ``ToolOutcome`` that is fed to
the model as a tool error; they never crash the loop.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jsonschema
from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from lifeassistant.money import currency_override

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolContext:
    """Who is asking and where: handlers must scope every query to ``user``.

    ``conversation`` and ``message`` are rows of the chat app, the layer above this one:
    the base knows them as model rows (to filter by or link to), and a tool of the chat
    layer narrows them to its own types.
    """

    user: User
    conversation: Model
    message: Model


@dataclass(frozen=True)
class ToolOutcome:
    ok: bool
    result: Any
    error: str
    duration_ms: float

    def as_tool_content(self) -> str:
        """What goes back to the model as the tool message content."""
        if self.ok:
            return json.dumps(self.result, ensure_ascii=False, default=str)
        return json.dumps({"error": self.error}, ensure_ascii=False)


Handler = Callable[[ToolContext, dict[str, Any]], Any]
# Describes, in one sentence for the user, what a writing tool is about to do; it may
# raise ToolError when the arguments cannot work (unknown id, bad amount...).
Summarizer = Callable[[ToolContext, dict[str, Any]], str]


class ToolError(Exception):
    """Raised by a handler for an expected failure; its message is shown to the model."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: Mapping[str, Any]
    handler: Handler
    writes: bool = False
    summarize: Summarizer | None = None
    # A write that runs at once instead of waiting for the user's yes (a plain fact the
    # user stated); money and health writes always wait.
    confirm: bool = True

    @property
    def needs_confirmation(self) -> bool:
        return self.writes and self.confirm

    def definition(self) -> dict[str, Any]:
        """The OpenAI-style tool definition sent to the model."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": dict(self.parameters)},
        }


class ToolRegistry:
    """All tools by name; the only source of tool definitions in the project."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}
        # Each tool's validator, built once: jsonschema.validate() checks the schema itself
        # again on every call, ~2 ms of CPU a tool call against ~15 µs for the validation
        # (docs/performance.md, eleventh pass).
        self._validators: dict[str, Any] = {}

    def register(self, new_tool: Tool) -> Tool:
        schema = dict(new_tool.parameters)
        validator_class = jsonschema.validators.validator_for(schema)
        validator_class.check_schema(schema)
        if new_tool.name in self._tools:
            raise ValueError(f"Tool {new_tool.name!r} is already registered.")
        self._tools[new_tool.name] = new_tool
        self._validators[new_tool.name] = validator_class(schema)
        return new_tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def catalog(self) -> dict[str, dict[str, Any]]:
        """Tool name → definition, in registration order."""
        return {name: registered.definition() for name, registered in self._tools.items()}

    def execute(self, name: str, raw_arguments: str | Mapping[str, Any], context: ToolContext) -> ToolOutcome:
        """Validate the arguments and run the tool; every failure becomes a failed outcome."""
        started = time.perf_counter()

        def failed(error: str) -> ToolOutcome:
            return ToolOutcome(False, None, error, (time.perf_counter() - started) * 1000)

        try:
            registered, arguments = self.validated(name, raw_arguments)
        except ToolError as exc:
            return failed(str(exc))
        try:
            # A savepoint: a handler that fails half-way leaves nothing behind, and a
            # database error inside it cannot poison the caller's transaction.
            with transaction.atomic(), users_conventions(context.user):
                result = registered.handler(context, arguments)
        except ToolError as exc:
            return failed(str(exc))
        except Exception:
            logger.exception("tool %s crashed", name)
            return failed(f"The tool {name} failed unexpectedly.")
        return ToolOutcome(True, result, "", (time.perf_counter() - started) * 1000)

    def validated(self, name: str, raw_arguments: str | Mapping[str, Any]) -> tuple[Tool, dict[str, Any]]:
        """The tool and its arguments checked against its schema; ``ToolError`` otherwise."""
        registered = self._tools.get(name)
        if registered is None:
            raise ToolError(f"Unknown tool {name!r}.")
        try:
            arguments = parse_arguments(raw_arguments)
            error = jsonschema.exceptions.best_match(self._validators[name].iter_errors(arguments))
            if error is not None:
                raise error
        except (ValueError, jsonschema.ValidationError) as exc:
            message = exc.message if isinstance(exc, jsonschema.ValidationError) else str(exc)
            raise ToolError(f"Invalid arguments for {name}: {message}") from None
        return registered, arguments

    def describe(self, name: str, raw_arguments: str | Mapping[str, Any], context: ToolContext) -> tuple[dict[str, Any], str]:
        """Validate a call without running it: (arguments, one-sentence summary for the user).

        Raises ``ToolError`` when the call could not succeed as given.
        """
        registered, arguments = self.validated(name, raw_arguments)
        if registered.summarize is None:
            return arguments, f"{name}({json.dumps(arguments, ensure_ascii=False, sort_keys=True)})"
        with users_conventions(context.user):
            return arguments, registered.summarize(context, arguments)


@contextmanager
def users_conventions(user: User) -> Iterator[None]:
    """The user's time zone and currency, active while their tool runs or is described:
    "hoje", "ontem", "this month" and the amounts are the user's, not the server's (UTC)."""
    from lifeassistant.models import Profile  # not at import: tools register while the apps load

    profile = Profile.of(user)
    with timezone.override(profile.zone), currency_override(profile.currency or "BRL"):
        yield


def parse_arguments(raw: str | Mapping[str, Any]) -> dict[str, Any]:
    """Tool-call arguments as a dict; models send a JSON string (sometimes empty)."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if not raw or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"arguments are not valid JSON ({exc.msg})") from None
    if not isinstance(value, dict):
        raise ValueError("arguments must be a JSON object")
    return value


REGISTRY = ToolRegistry()


def tool(
    name: str,
    description: str,
    parameters: Mapping[str, Any],
    *,
    writes: bool = False,
    summary: Summarizer | None = None,
    confirm: bool = True,
) -> Callable[[Handler], Handler]:
    """Register the decorated function as a tool in ``REGISTRY``.

    ``writes`` tools change the user's data and run only after the user confirms, unless
    ``confirm`` is False; ``summary`` tells the user, in one sentence, what such a call will do.
    """

    def decorator(handler: Handler) -> Handler:
        REGISTRY.register(Tool(name, description, parameters, handler, writes, summary, confirm))
        return handler

    return decorator
