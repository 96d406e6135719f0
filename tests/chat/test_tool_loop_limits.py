"""The pure tool loop: iteration cap, wall-clock budget, offered tools, stopping."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from chat.tool_loop import LoopLimitReached, ToolResult, run_tool_loop
from lifeassistant.completions import Completion, ToolCallRequest


class FakeStream:
    """A streamed completion of ``pieces`` that ends in ``tool_calls`` (or plain text)."""

    def __init__(self, pieces: list[str], tool_calls: list[ToolCallRequest] | None = None) -> None:
        self.pieces = pieces
        self.tool_calls = tool_calls or []
        self.read: list[str] = []
        self.closed = False

    def __iter__(self) -> Iterator[str]:
        for piece in self.pieces:
            self.read.append(piece)
            yield piece

    def close(self) -> None:
        self.closed = True

    def result(self) -> Completion:
        return Completion(
            text="".join(self.read),
            tool_calls=self.tool_calls,
            prompt_tokens=10,
            completion_tokens=len(self.read),
            usage_reported=True,
            model="m",
            cost=0.0,
        )


def tool_call(call_id: str, name: str = "get_finance_summary") -> ToolCallRequest:
    return ToolCallRequest(id=call_id, name=name, arguments="{}")


class Recorder:
    """Progress that records what the loop reported and can stop it."""

    def __init__(self, stop_after_pieces: int | None = None, stop_at_checkpoint: int | None = None) -> None:
        self.events: list[tuple[str, ...]] = []
        self.pieces = 0
        self.checkpoints = 0
        self.stop_after_pieces = stop_after_pieces
        self.stop_at_checkpoint = stop_at_checkpoint

    def text(self, piece: str) -> None:
        self.pieces += 1
        self.events.append(("text", piece))

    def tool_started(self, name: str) -> None:
        self.events.append(("tool_started", name))

    def tool_finished(self, name: str, status: str) -> None:
        self.events.append(("tool_finished", name, status))

    def cancelled(self) -> bool:
        return self.stop_after_pieces is not None and self.pieces >= self.stop_after_pieces

    def checkpoint(self) -> bool:
        self.checkpoints += 1
        return self.cancelled() or (self.stop_at_checkpoint is not None and self.checkpoints >= self.stop_at_checkpoint)


def always_asks_for_a_tool(calls: list[bool]) -> Any:
    def complete(messages: list[dict[str, Any]], tools_enabled: bool) -> FakeStream:
        calls.append(tools_enabled)
        if not tools_enabled:
            return FakeStream(["Resumo ", "final."])
        return FakeStream([], [tool_call(f"call_{len(messages)}")])

    return complete


def run(complete: Any, **overrides: Any) -> Any:
    arguments: dict[str, Any] = {
        "complete": complete,
        "execute": lambda *args: ToolResult("{}", "ok"),
        "offered": ["get_finance_summary"],
        "max_iterations": 5,
        "time_budget_seconds": 90,
    }
    return run_tool_loop([{"role": "user", "content": "oi"}], **{**arguments, **overrides})


def test_the_loop_stops_when_the_time_budget_is_spent() -> None:
    now = [0.0]
    executed: list[str] = []

    def slow_tool(iteration: int, call_id: str, name: str, arguments: str) -> ToolResult:
        now[0] += 40
        executed.append(call_id)
        return ToolResult("{}", "ok")

    with pytest.raises(LoopLimitReached, match="ran out of time") as raised:
        run(always_asks_for_a_tool([]), execute=slow_tool, max_iterations=10, clock=lambda: now[0])
    assert len(executed) == 3
    # The user reads "did not answer in time", not "unavailable right now".
    assert raised.value.code == "timeout"


def test_at_the_iteration_cap_one_last_call_without_tools_answers() -> None:
    calls: list[bool] = []

    result = run(always_asks_for_a_tool(calls), max_iterations=2)

    assert calls == [True, True, False]
    assert result.content == "Resumo final."
    assert len(result.calls) == 2


def test_a_last_call_that_still_says_nothing_fails_the_loop() -> None:
    def complete(messages: list[dict[str, Any]], tools_enabled: bool) -> FakeStream:
        return FakeStream([], [tool_call(f"call_{len(messages)}")])

    with pytest.raises(LoopLimitReached, match="maximum of 2 tool steps"):
        run(complete, max_iterations=2)


def test_a_tool_not_offered_this_turn_is_an_error_for_the_model_and_never_runs() -> None:
    executed: list[str] = []
    script = iter([FakeStream([], [tool_call("call_1", "create_expense")]), FakeStream(["Não posso."])])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "oi"}]

    result = run_tool_loop(
        messages,
        complete=lambda messages, tools_enabled: next(script),
        execute=lambda iteration, call_id, name, arguments: executed.append(name) or ToolResult("{}", "ok"),
        offered=["get_finance_summary"],
        max_iterations=5,
        time_budget_seconds=90,
    )

    assert executed == []
    told = json.loads(next(m for m in messages if m["role"] == "tool")["content"])
    assert "'create_expense' is not available in this turn" in told["error"]
    assert result.content == "Não posso."


def test_text_is_reported_as_it_arrives_and_tools_with_their_status() -> None:
    script = iter([FakeStream(["Vou ver."], [tool_call("call_1")]), FakeStream(["Tudo ", "certo."])])
    progress = Recorder()

    result = run(lambda messages, tools_enabled: next(script), progress=progress)

    assert progress.events == [
        ("text", "Vou ver."),
        ("tool_started", "get_finance_summary"),
        ("tool_finished", "get_finance_summary", "ok"),
        ("text", "\n\n"),
        ("text", "Tudo "),
        ("text", "certo."),
    ]
    assert result.content == "Vou ver.\n\nTudo certo."


def test_stopping_mid_stream_closes_the_stream_and_keeps_the_text_so_far() -> None:
    stream = FakeStream(["um ", "dois ", "três ", "quatro"])

    result = run(lambda messages, tools_enabled: stream, progress=Recorder(stop_after_pieces=2))

    assert result.cancelled
    assert result.content == "um dois"
    assert stream.closed and stream.read == ["um ", "dois "]
    assert result.prompt_tokens == 10 and result.completion_tokens == 2  # the usage so far is kept


def test_stopping_between_tool_calls_runs_no_further_tool() -> None:
    executed: list[str] = []
    stream = FakeStream([], [tool_call("call_1"), tool_call("call_2")])

    result = run(
        lambda messages, tools_enabled: stream,
        execute=lambda iteration, call_id, name, arguments: executed.append(call_id) or ToolResult("{}", "ok"),
        progress=Recorder(stop_at_checkpoint=2),
    )

    assert result.cancelled
    assert executed == ["call_1"]
