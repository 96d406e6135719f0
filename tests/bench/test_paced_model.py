"""The concurrency benchmark's paced model speaks OpenAI's chat-completions protocol.

It streams a varied answer with its usage, asks for an offered tool in one first round
of three and answers in text once the tool's result comes back, and counts what it
served at ``/stats`` (the figures the concurrency run reads).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.paced_model import PacedModel, run

SEARCH_TOOL = {
    "type": "function",
    "function": {
        "name": "search_knowledge",
        "parameters": {
            "type": "object",
            "properties": {"query": {"type": "string"}, "area": {"type": "string", "enum": ["health", "work"]}},
            "required": ["query", "area"],
        },
    },
}
OTHER_TOOL = {"type": "function", "function": {"name": "add_knowledge", "parameters": {"type": "object"}}}


@pytest.fixture
def model(tmp_path: Path) -> Iterator[str]:
    paced = PacedModel(first_chunk_delay=0, chunks_per_second=1000, chunks=5, seed=7, tool_every=3)
    port_file = tmp_path / "port"
    loop = asyncio.new_event_loop()
    task: list[asyncio.Task[None]] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        task.append(loop.create_task(run(paced, 0, port_file)))
        try:
            loop.run_until_complete(task[0])
        except asyncio.CancelledError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    for _ in range(200):
        if port_file.exists() and port_file.read_text():
            break
        threading.Event().wait(0.01)
    yield f"http://127.0.0.1:{port_file.read_text()}"
    loop.call_soon_threadsafe(task[0].cancel)
    thread.join(timeout=5)


def streamed(client: httpx.Client, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[Any]:
    body = {"model": "paced", "stream": True, "stream_options": {"include_usage": True}, "messages": messages,
            "tools": tools}
    events = []
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data: "):
                data = line[len("data: "):]
                events.append(data if data == "[DONE]" else json.loads(data))
    return events


def text_of(events: list[Any]) -> str:
    return "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"])


def test_a_streamed_answer_has_its_words_its_finish_and_its_usage_then_done(model: str) -> None:
    with httpx.Client(base_url=model) as client:
        events = streamed(client, [{"role": "user", "content": "oi"}], [])

    assert events[-1] == "[DONE]"
    assert len(text_of(events).split()) == 5
    assert [e["choices"][0]["finish_reason"] for e in events[:-2]][-1] == "stop"
    assert events[-2]["usage"]["completion_tokens"] == 5


def test_every_third_first_round_asks_for_an_offered_tool_then_answers_after_its_result(model: str) -> None:
    user = [{"role": "user", "content": "oi"}]
    with httpx.Client(base_url=model) as client:
        first, second = streamed(client, user, [OTHER_TOOL, SEARCH_TOOL]), streamed(client, user, [SEARCH_TOOL])
        asking = streamed(client, user, [OTHER_TOOL, SEARCH_TOOL])
        calls = [c for e in asking[:-1] if e["choices"] for c in e["choices"][0]["delta"].get("tool_calls") or []]
        answer = streamed(client, [*user, {"role": "assistant", "tool_calls": calls[:1]},
                                   {"role": "tool", "tool_call_id": calls[0]["id"], "content": "{}"}],
                          [OTHER_TOOL, SEARCH_TOOL])
        stats = client.get("/stats").json()

    assert text_of(first) and text_of(second)
    assert calls[0]["function"]["name"] == "search_knowledge"
    arguments = json.loads("".join(c["function"]["arguments"] for c in calls))
    assert arguments == {"query": "rotina", "area": "health"}
    assert [e["choices"][0]["finish_reason"] for e in asking[:-2]][-1] == "tool_calls"
    assert len(text_of(answer).split()) == 5
    assert stats["streams"] == 4 and stats["tool_rounds"] == 1 and stats["max_in_flight"] == 1
    assert stats["chunks"] > 0 and stats["in_flight"] == 0
    # The one tool round's turnaround: its last frame to the request with the tool's result.
    assert len(stats["tool_turnarounds"]) == 1 and 0 <= stats["tool_turnarounds"][0] < 5


def test_a_plain_request_gets_the_whole_answer_as_one_body(model: str) -> None:
    with httpx.Client(base_url=model) as client:
        response = client.post("/v1/chat/completions", json={"model": "paced", "messages": []})

    assert response.json()["choices"][0]["message"]["content"]
    assert response.json()["choices"][0]["finish_reason"] == "stop"
