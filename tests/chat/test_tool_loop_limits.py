"""The pure tool loop: iteration cap and wall-clock budget."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from chat.tool_loop import LoopLimitReached, run_tool_loop


def asks_for_a_tool(messages: list[dict[str, Any]]) -> Any:
    call = SimpleNamespace(id=f"call_{len(messages)}", function=SimpleNamespace(name="get_finance_summary", arguments="{}"))
    message = SimpleNamespace(content=None, tool_calls=[call])
    return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None, model="m")


def test_the_loop_stops_when_the_time_budget_is_spent() -> None:
    now = [0.0]
    executed: list[str] = []

    def slow_tool(iteration: int, call_id: str, name: str, arguments: str) -> str:
        now[0] += 40
        executed.append(call_id)
        return "{}"

    with pytest.raises(LoopLimitReached, match="ran out of time"):
        run_tool_loop(
            [{"role": "user", "content": "oi"}],
            complete=asks_for_a_tool,
            execute=slow_tool,
            cost_of=lambda response: 0.0,
            max_iterations=10,
            time_budget_seconds=90,
            clock=lambda: now[0],
        )
    assert len(executed) == 3


def test_the_loop_stops_at_the_iteration_cap() -> None:
    with pytest.raises(LoopLimitReached, match="maximum of 2 tool steps"):
        run_tool_loop(
            [{"role": "user", "content": "oi"}],
            complete=asks_for_a_tool,
            execute=lambda *args: "{}",
            cost_of=lambda response: 0.0,
            max_iterations=2,
            time_budget_seconds=90,
        )
