"""Streaming for real: a Celery worker on Redis writes the reply, uvicorn serves the SSE.

The reply comes from the scripted model a word every 100 ms, so the test reads the
middle of it, hangs up, and resumes with Last-Event-ID.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from django.db import connection
from chat.api_tokens import issue_token

from chat.models import Message

from .test_worker import BROKER, REPO, use_broker, wait_for_reply

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def stack(scripted_llm: Any, tmp_path: Path, shipped_skills: None, request: pytest.FixtureRequest) -> Any:
    """A worker and an ASGI server on the test database, Redis and the scripted model.

    ``@pytest.mark.parametrize("stack", ["prefork"], indirect=True)`` runs the worker with
    a prefork pool of one child, which a test can kill."""
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://...")
    database = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/{database['NAME']}",
        "CELERY_BROKER_URL": BROKER,
        "EVENTS_REDIS_URL": BROKER,
        "LLM_MODEL": "openai/scripted",
        "LLM_API_BASE": scripted_llm.api_base,
        "LLM_API_KEY": "test-key",
    }
    # The test database starts its ids at 1 again; logs of earlier runs must not answer for them.
    client = redis.Redis.from_url(BROKER)
    for key in client.scan_iter("reply-events:*"):
        client.delete(key)
    port = free_port()
    log = (tmp_path / "stack.log").open("w")
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "lifeassistant", "worker",
             f"--pool={getattr(request, 'param', 'solo')}", "--concurrency=1", "-l", "warning"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "lifeassistant.asgi:application", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
        ),
    ]  # fmt: skip
    use_broker(BROKER, eager=False)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"{base}/api/schema/", timeout=2)
            break
        except httpx.HTTPError:
            time.sleep(0.3)
    try:
        yield {"base": base, "worker": processes[0]} if getattr(request, "param", None) else base
    finally:
        use_broker("memory://", eager=True)
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def read_events(lines: Iterator[str], *, stop_after_deltas: int | None = None) -> list[dict[str, Any]]:
    """SSE events from ``lines`` until the final one, or after ``stop_after_deltas`` deltas."""
    events: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    for line in lines:
        if line.startswith(":"):
            continue
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value
            continue
        if fields:
            fields["data"] = json.loads(fields["data"])
            events.append(fields)
            fields = {}
            if events[-1]["event"] in ("done", "failed", "cancelled"):
                break
            deltas = sum(e["event"] == "delta" for e in events)
            if stop_after_deltas is not None and deltas >= stop_after_deltas:
                break
    return events


def test_a_worker_reply_streams_over_sse_and_a_client_resumes_half_way(stack: str, scripted_llm: Any, user: Any) -> None:
    words = " ".join(f"palavra{n}" for n in range(80))
    scripted_llm.token_delay = 0.1
    scripted_llm.reply_tool_call("get_finance_summary", {}, call_id="call_sum")
    scripted_llm.reply_text(words)
    headers = {"Authorization": f"Token {issue_token(user)[1]}"}
    with httpx.Client(base_url=stack, headers=headers, timeout=30) as client:
        conversation = client.post("/api/v1/conversations/", json={}).json()
        sent = client.post(f"/api/v1/conversations/{conversation['id']}/messages/", json={"content": "Como estão minhas finanças?"})
        assert sent.status_code == 202
        reply_id = sent.json()["assistant_message"]["id"]

        with client.stream("GET", f"/api/v1/messages/{reply_id}/events/") as first:
            assert first.headers["content-type"].startswith("text/event-stream")
            before = read_events(first.iter_lines(), stop_after_deltas=5)
        # The client hung up mid-reply; the reply goes on in the worker.
        polled = client.get(f"/api/v1/messages/{reply_id}/").json()
        with client.stream("GET", f"/api/v1/messages/{reply_id}/events/", headers={"Last-Event-ID": before[-1]["id"]}) as again:
            after = read_events(again.iter_lines())
        replay = client.get(f"/api/v1/messages/{reply_id}/events/?after={before[2]['id']}")

    assert polled["status"] == "running" and polled["content"]  # the text so far
    assert not polled["content"].endswith("palavra79")
    events = before + after
    assert [e["event"] for e in events if e["event"].startswith("tool_")] == ["tool_started", "tool_finished"]
    assert events[-1]["event"] == "done"
    text = "".join(e["data"]["text"] for e in events if e["event"] == "delta")
    assert text == words == events[-1]["data"]["content"]
    assert [e["id"] for e in after][0] > before[-1]["id"] or len(after[0]["id"]) > len(before[-1]["id"])
    assert replay.status_code == 200 and "event: done" in replay.text
    final = wait_for_reply(reply_id)
    assert final.status == Message.Status.DONE and final.content == words


def test_a_reply_stopped_through_the_api_mid_stream_keeps_its_text(stack: str, scripted_llm: Any, user: Any) -> None:
    scripted_llm.token_delay = 0.1
    scripted_llm.reply_text(" ".join(f"w{n}" for n in range(60)))
    headers = {"Authorization": f"Token {issue_token(user)[1]}"}
    with httpx.Client(base_url=stack, headers=headers, timeout=30) as client:
        conversation = client.post("/api/v1/conversations/", json={}).json()
        sent = client.post(f"/api/v1/conversations/{conversation['id']}/messages/", json={"content": "conte"})
        reply_id = sent.json()["assistant_message"]["id"]
        with client.stream("GET", f"/api/v1/messages/{reply_id}/events/") as stream:
            lines = stream.iter_lines()
            events = read_events(lines, stop_after_deltas=3)
            stopped = client.post(f"/api/v1/messages/{reply_id}/cancel/")
            events += read_events(lines)

    assert stopped.status_code == 200 and stopped.json()["status"] == "cancelled"
    assert events[-1]["event"] == "cancelled"
    final = Message.objects.get(pk=reply_id)
    assert final.status == Message.Status.CANCELLED
    assert final.content.startswith("w0 w1") and "w59" not in final.content
    assert events[-1]["data"]["content"] == final.content
    # The stop answered at once; the worker records the usage spent when it notices.
    deadline = time.monotonic() + 5
    while Message.objects.get(pk=reply_id).completion_tokens == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert Message.objects.get(pk=reply_id).completion_tokens > 0
    deadline = time.monotonic() + 5
    while scripted_llm.streams_closed_early == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert scripted_llm.streams_closed_early == 1  # the worker closed the model's stream


@pytest.mark.parametrize("stack", ["prefork"], indirect=True)
def test_a_worker_process_killed_mid_stream_gives_the_reply_back_and_the_stream_ends(
    stack: dict[str, Any], scripted_llm: Any, user: Any
) -> None:
    words = " ".join(f"w{n}" for n in range(60))
    scripted_llm.token_delay = 0.1
    scripted_llm.reply_text(words)  # the run that dies
    scripted_llm.reply_text("De novo, inteiro.")  # the redelivered run
    headers = {"Authorization": f"Token {issue_token(user)[1]}"}
    with httpx.Client(base_url=stack["base"], headers=headers, timeout=60) as client:
        conversation = client.post("/api/v1/conversations/", json={}).json()
        sent = client.post(f"/api/v1/conversations/{conversation['id']}/messages/", json={"content": "conte"})
        reply_id = sent.json()["assistant_message"]["id"]
        with client.stream("GET", f"/api/v1/messages/{reply_id}/events/") as stream:
            lines = stream.iter_lines()
            events = read_events(lines, stop_after_deltas=3)
            children = subprocess.run(
                ["pgrep", "-P", str(stack["worker"].pid)], capture_output=True, text=True, check=True
            ).stdout.split()
            for child in children:
                os.kill(int(child), 9)  # the pool process running the reply
            events += read_events(lines)

    statuses = [e["data"] for e in events if e["event"] == "status"]
    assert {"status": "running", "restarted": True} in statuses  # redelivered at once, started over
    assert events[-1]["event"] == "done"
    assert events[-1]["data"]["content"] == "De novo, inteiro."
    final = Message.objects.get(pk=reply_id)
    assert final.status == Message.Status.DONE and final.content == "De novo, inteiro."
