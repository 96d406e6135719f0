"""The history's token budget (chat.history): whole turns, shortened old results, the opening kept."""

from __future__ import annotations

import json
from typing import Any

from chat.history import OPENING_NOTE, SHORT_RESULT_CHARS, fit_history, group_turns, shorten_tool_results


def count(messages: list[dict[str, Any]]) -> int:
    """One token per 4 characters of content, plus one per message."""
    return sum(1 + len(m.get("content") or "") // 4 for m in messages)


def turn(n: int, result: str | None = None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"pergunta {n}"}]
    if result is not None:
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{n}"}]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": result},
        ]
    return messages + [{"role": "assistant", "content": f"resposta {n}"}]


def test_everything_fits_a_big_budget() -> None:
    turns = [turn(0), turn(1)]
    assert fit_history(turns, budget_tokens=1000, count=count, opening="pergunta 0", opening_shown=True) == turns[0] + turns[1]


def test_the_oldest_whole_turns_go_first_and_a_call_never_loses_its_result() -> None:
    turns = [turn(n, result="r" * 40) for n in range(10)]
    kept = fit_history(turns, budget_tokens=3 * count(turns[-1]), count=count)
    assert [m["content"] for m in kept if m["role"] == "user"] == ["pergunta 7", "pergunta 8", "pergunta 9"]
    calls = [c["id"] for m in kept for c in m.get("tool_calls") or []]
    assert calls == [m["tool_call_id"] for m in kept if m["role"] == "tool"]


def test_old_tool_results_are_shortened_and_the_latest_stay_whole() -> None:
    turns = [turn(n, result=str(n) * 2000) for n in range(4)]
    kept = fit_history(turns, budget_tokens=100_000, count=count)
    results = [m["content"] for m in kept if m["role"] == "tool"]
    assert [len(r) for r in results] == [SHORT_RESULT_CHARS, SHORT_RESULT_CHARS, 2000, 2000]
    assert results[0].endswith("…")


def test_a_long_old_result_is_shortened_before_it_costs_its_turn() -> None:
    turns = [turn(0, result="x" * 20_000), turn(1), turn(2)]
    kept = fit_history(turns, budget_tokens=300, count=count)
    assert kept[0]["content"] == "pergunta 0"


def test_the_opening_comes_back_as_a_note_when_it_was_dropped_and_fits() -> None:
    turns = [turn(n) for n in range(50)]
    kept = fit_history(turns, budget_tokens=200, count=count, opening="Quero juntar dinheiro", opening_shown=True)
    assert kept[0] == {"role": "user", "content": OPENING_NOTE + json.dumps("Quero juntar dinheiro")}
    assert kept[-1]["content"] == "resposta 49"


def test_no_note_when_the_opening_is_replayed_or_there_is_no_room() -> None:
    turns = [turn(0), turn(1)]
    assert fit_history(turns, budget_tokens=1000, count=count, opening="pergunta 0", opening_shown=True)[0]["content"] == "pergunta 0"
    assert fit_history(turns, budget_tokens=0, count=count, opening="pergunta 0") == []


def test_turns_start_at_each_user_message() -> None:
    user, reply = {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}
    assert group_turns([[reply], [user], [reply], [reply], [user]], ["assistant", "user", "assistant", "assistant", "user"]) == [
        [reply], [user, reply, reply], [user],
    ]


def test_shortening_leaves_calls_and_replies_alone() -> None:
    original = turn(0, result="z" * 1000)
    short = shorten_tool_results(original, limit=10)
    assert short[0] == original[0] and short[1] == original[1] and short[3] == original[3]
    assert short[2]["content"] == "z" * 9 + "…"
