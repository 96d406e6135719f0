"""The tool loop (skills architecture §9.4): model ⇄ tools until a final answer.

Pure orchestration: it gets a completion function and an executor, so it knows
nothing of the ORM or of Celery.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .llm import LLMError


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
    stopped: str = ""  # '' when the model answered; otherwise why the loop stopped


class LoopLimitReached(LLMError):
    """The model kept calling tools past the iteration cap or the time budget."""


Completion = Callable[[list[dict[str, Any]]], Any]
Executor = Callable[[int, str, str, str], str]  # (iteration, call_id, name, arguments) -> content
Coster = Callable[[Any], float | None]


def run_tool_loop(
    messages: list[dict[str, Any]],
    *,
    complete: Completion,
    execute: Executor,
    cost_of: Coster,
    max_iterations: int,
    time_budget_seconds: float,
    clock: Callable[[], float] = time.monotonic,
) -> LoopResult:
    """Run completions, executing requested tools, until the model answers in text.

    ``messages`` is extended in place with the assistant tool-call turns and tool results,
    in the order providers require (assistant with tool_calls, then one tool message each).
    Raises ``LoopLimitReached`` after ``max_iterations`` completions that still asked for
    tools, or when the time budget is spent before a final answer.
    """
    result = LoopResult()
    deadline = clock() + time_budget_seconds
    for iteration in range(1, max_iterations + 1):
        if clock() > deadline:
            raise LoopLimitReached(f"The assistant ran out of time ({time_budget_seconds:.0f} s) before answering.")
        response = complete(messages)
        _add_usage(result, response, cost_of)
        choice = response.choices[0].message
        tool_calls = list(getattr(choice, "tool_calls", None) or [])
        if not tool_calls:
            result.content = (choice.content or "").strip()
            return result
        messages.append(
            {
                "role": "assistant",
                "content": choice.content or None,
                "tool_calls": [_call_dict(call) for call in tool_calls],
            }
        )
        for call in tool_calls:
            arguments = call.function.arguments or "{}"
            content = execute(iteration, call.id, call.function.name, arguments)
            result.calls.append(ExecutedCall(iteration, call.id, call.function.name, arguments, content))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise LoopLimitReached(f"The assistant used the maximum of {max_iterations} tool steps without finishing.")


def _call_dict(call: Any) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.function.name, "arguments": call.function.arguments or "{}"},
    }


def _add_usage(result: LoopResult, response: Any, cost_of: Coster) -> None:
    usage = getattr(response, "usage", None)
    if usage is not None:
        result.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        result.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
    cost = cost_of(response)
    result.cost = None if cost is None or result.cost is None else result.cost + cost
    result.model = getattr(response, "model", "") or result.model

