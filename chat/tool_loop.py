"""The tool loop (docs/specification.md, skills architecture §9.4): model ⇄ tools until a final answer.

Pure orchestration: it gets a streaming completion function, an executor and a progress
sink, so it knows nothing of the ORM, Celery or the event log.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Protocol

from lifeassistant.completions import Completion, CompletionStream, LLMError, ToolCallRequest
from lifeassistant.failures import FailureCode


@dataclass(frozen=True)
class ExecutedCall:
    iteration: int
    call_id: str
    name: str
    arguments: str
    content: str  # what went back to the model


@dataclass
class LoopResult:
    content: str = ""
    calls: list[ExecutedCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0
    model: str = ""
    cancelled: bool = False  # the user stopped the reply; ``content`` is the text so far


class LoopLimitReached(LLMError):
    """The time budget ran out, or the model would not answer even with tools disabled."""


class Progress(Protocol):
    """Where the loop reports what it does, and learns that the user stopped it."""

    def text(self, piece: str) -> None: ...
    def tool_started(self, name: str) -> None: ...
    def tool_finished(self, name: str, status: str) -> None: ...
    def cancelled(self) -> bool: ...  # cheap: after each piece of text
    def checkpoint(self) -> bool: ...  # before each tool call: may ask the store


class Silent:
    """Progress that goes nowhere and never stops the loop."""

    def text(self, piece: str) -> None:
        pass

    def tool_started(self, name: str) -> None:
        pass

    def tool_finished(self, name: str, status: str) -> None:
        pass

    def cancelled(self) -> bool:
        return False

    def checkpoint(self) -> bool:
        return False


Complete = Callable[[list[dict[str, Any]], bool], CompletionStream]  # (messages, tools enabled) -> stream
Executor = Callable[[int, str, str, str], "ToolResult"]  # (iteration, call_id, name, arguments)

# Between the text of two model rounds (text before a tool call, then the answer).
ROUND_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class ToolResult:
    content: str  # what goes back to the model
    status: str  # "ok", "error" or "proposed" (a write waiting for the user's confirmation)


def run_tool_loop(
    messages: list[dict[str, Any]],
    *,
    complete: Complete,
    execute: Executor,
    offered: Collection[str],
    max_iterations: int,
    time_budget_seconds: float,
    progress: Progress | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> LoopResult:
    """Stream completions, executing the requested tools, until the model answers in text.

    Every round streams: its text goes to ``progress`` as it arrives. ``messages`` is
    extended in place with the assistant tool-call turns and tool results, in the order
    providers require. Only tools in ``offered`` run; another name is a tool error the
    model reads. After ``max_iterations`` rounds that all asked for tools, one last call
    with tools disabled gives the answer. The user can stop the loop (``progress.cancelled``):
    it is checked after each piece of text and before each tool call (``checkpoint``), and a stopped loop
    closes the model stream and returns the text so far with ``cancelled`` set.
    Raises ``LoopLimitReached`` when the time budget is spent before a final answer.
    """
    progress = progress or Silent()
    result = LoopResult()
    texts: list[str] = []
    deadline = clock() + time_budget_seconds
    for iteration in range(1, max_iterations + 2):
        last_call = iteration > max_iterations
        if clock() > deadline:
            # The user reads "did not answer in time", not "unavailable": nothing was down.
            raise LoopLimitReached(
                f"The assistant ran out of time ({time_budget_seconds:.0f} s) before answering.", code=FailureCode.TIMEOUT
            )
        text, answer = _stream_round(complete(messages, not last_call), progress, separate=bool(texts))
        _add_usage(result, answer)
        if text:
            texts.append(text)
        result.content = ROUND_SEPARATOR.join(texts).strip()
        if progress.cancelled():
            result.cancelled = True
            return result
        tool_calls = [] if last_call else answer.tool_calls
        if not tool_calls:
            if last_call and not result.content:
                raise LoopLimitReached(
                    f"The assistant used the maximum of {max_iterations} tool steps without finishing."
                )
            return result
        messages.append(
            {
                "role": "assistant",
                "content": text or None,
                "tool_calls": [_call_dict(call) for call in tool_calls],
            }
        )
        for call in tool_calls:
            if progress.checkpoint():
                result.cancelled = True
                return result
            name, arguments = call.name, call.arguments
            progress.tool_started(name)
            outcome = execute(iteration, call.id, name, arguments) if name in offered else _not_offered(name)
            progress.tool_finished(name, outcome.status)
            result.calls.append(ExecutedCall(iteration, call.id, name, arguments, outcome.content))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": outcome.content})
    raise AssertionError("unreachable")  # pragma: no cover - the last call never asks for tools


def _stream_round(stream: CompletionStream, progress: Progress, *, separate: bool) -> tuple[str, Completion]:
    """Read one streamed completion to its end, or until the user stops the reply."""
    pieces: list[str] = []
    try:
        for piece in stream:
            if not pieces and separate:
                progress.text(ROUND_SEPARATOR)
            pieces.append(piece)
            progress.text(piece)
            if progress.cancelled():
                break
    finally:
        stream.close()
    return "".join(pieces), stream.result()


def _not_offered(name: str) -> ToolResult:
    """A tool the model asked for that this turn did not offer: never run, never proposed."""
    error = f"The tool {name!r} is not available in this turn. Answer with the tools offered, or in text."
    return ToolResult(json.dumps({"error": error}, ensure_ascii=False), "error")


def _call_dict(call: ToolCallRequest) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _add_usage(result: LoopResult, answer: Completion) -> None:
    result.prompt_tokens += answer.prompt_tokens
    result.completion_tokens += answer.completion_tokens
    result.cost = None if answer.cost is None or result.cost is None else result.cost + answer.cost
    result.model = answer.model or result.model

