"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, as a pytest fixture.

The real litellm → OpenAI client → HTTP path runs against it: tests enqueue the replies
(a text answer, tool calls, or an HTTP error) and read back the request bodies it got.
A request with ``"stream": true`` (the tool loop's) gets the reply as Server-Sent Events
chunks, the way OpenAI streams: text a word at a time, tool calls as argument deltas, and
the usage in a last chunk when ``stream_options.include_usage`` asks for it. Set
``token_delay`` (seconds between chunks, e.g. 0.1) to watch the middle of a reply.

    def test_it_answers(scripted_llm):
        scripted_llm.reply_text("Olá!")
        ...
        assert scripted_llm.requests[0]["messages"][-1]["content"] == "oi"
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass(frozen=True)
class RecordedStream:
    """A provider's stream as it came over the wire: its ``data:`` events, byte for byte.

    Sent with chunked transfer encoding, as providers send streams; ``cut`` closes the
    connection after the last event, with no end to the body (a connection lost mid-answer).
    """

    events: tuple[bytes, ...]
    cut: bool = False


class ScriptedLLM:
    """The queue of scripted replies and the log of received requests."""

    def __init__(self) -> None:
        self._script: deque[tuple[int, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._calls = 0
        self._stalls: deque[float] = deque()
        self.stalls_finished = threading.Event()
        self.port = 0
        self.token_delay = 0.0  # seconds between streamed chunks
        self.streams_closed_early = 0  # streams whose client hung up before the end

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ---------------------------------------------------------------

    def reply_text(self, content: str, *, prompt_tokens: int = 10, completion_tokens: int = 5) -> None:
        """The next completion answers ``content``."""
        message = {"role": "assistant", "content": content}
        self._script.append((200, self._completion(message, "stop", prompt_tokens, completion_tokens)))

    def reply_tool_call(
        self, name: str, arguments: dict[str, Any] | str, *, call_id: str | None = None, **usage: int
    ) -> None:
        """The next completion asks for one tool call."""
        self.reply_tool_calls([(name, arguments, call_id)], **usage)

    def reply_tool_calls(
        self,
        calls: list[tuple[str, dict[str, Any] | str, str | None]],
        *,
        prompt_tokens: int = 10,
        completion_tokens: int = 5,
    ) -> None:
        """The next completion asks for several tool calls at once: (name, arguments, call_id)."""
        tool_calls = []
        for name, arguments, call_id in calls:
            with self._lock:
                self._calls += 1
                number = self._calls
            tool_calls.append(
                {
                    "id": call_id or f"call_{number}",
                    "type": "function",
                    "function": {
                        "name": name,
                        "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                    },
                }
            )
        message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
        self._script.append((200, self._completion(message, "tool_calls", prompt_tokens, completion_tokens)))

    def replay(self, recorded: RecordedStream) -> None:
        """The next streamed completion is ``recorded``, sent as it is."""
        self._script.append((200, recorded))

    def reply_error(self, status: int, message: str = "scripted failure", *, times: int = 1) -> None:
        """The next ``times`` requests fail with HTTP ``status``."""
        body = {"error": {"message": message, "type": "server_error", "code": status}}
        for _ in range(times):
            self._script.append((status, body))

    def stall_next(self, seconds: float) -> None:
        """The next request waits ``seconds`` before it is answered: a model that stalls.

        ``stalls_finished`` is set when a stalled request has waited its time out.
        """
        self._stalls.append(seconds)

    def take_stall(self) -> float:
        with self._lock:
            return self._stalls.popleft() if self._stalls else 0.0

    @property
    def pending(self) -> int:
        """Scripted replies not consumed yet."""
        return len(self._script)

    # -- serving ---------------------------------------------------------------

    def next_reply(self, body: dict[str, Any]) -> tuple[int, Any]:
        with self._lock:
            self.requests.append(body)
            if not self._script:
                return 500, {"error": {"message": "The script has no reply left.", "type": "server_error"}}
            return self._script.popleft()

    def chunks(self, completion: dict[str, Any], *, include_usage: bool) -> Iterator[dict[str, Any]]:
        """``completion`` as the chunks of an OpenAI stream."""
        message = completion["choices"][0]["message"]

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {
                "id": completion["id"],
                "object": "chat.completion.chunk",
                "created": completion["created"],
                "model": completion["model"],
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }

        yield chunk({"role": "assistant", "content": ""})
        for word in re.findall(r"\S+\s*|\s+", message.get("content") or ""):
            yield chunk({"content": word})
        for index, call in enumerate(message.get("tool_calls") or []):
            yield chunk(
                {"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                 "function": {"name": call["function"]["name"], "arguments": ""}}]}
            )
            arguments = call["function"]["arguments"]
            for start in range(0, len(arguments), 8):
                yield chunk({"tool_calls": [{"index": index, "function": {"arguments": arguments[start : start + 8]}}]})
        yield chunk({}, completion["choices"][0]["finish_reason"])
        if include_usage:
            yield {**chunk({}), "choices": [], "usage": completion["usage"]}

    @staticmethod
    def _completion(message: dict[str, Any], finish: str, prompt_tokens: int, completion_tokens: int) -> dict[str, Any]:
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": "scripted",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _handler_for(script: ScriptedLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": f"No route {self.path}"}})
                return
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(400, {"error": {"message": "Body is not JSON."}})
                return
            stall = script.take_stall()
            if stall:
                time.sleep(stall)
                script.stalls_finished.set()
            status, payload = script.next_reply(body)
            if isinstance(payload, RecordedStream):
                self._replay(payload)
            elif status == 200 and body.get("stream"):
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                self._stream(script.chunks(payload, include_usage=include_usage))
            else:
                self._send(status, payload)

        def _stream(self, chunks: Iterator[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for number, chunk in enumerate(chunks):
                    if number and script.token_delay:
                        time.sleep(script.token_delay)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                with script._lock:
                    script.streams_closed_early += 1

        def _replay(self, recorded: RecordedStream) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.close_connection = True
            try:
                for number, event in enumerate(recorded.events):
                    if number and script.token_delay:
                        time.sleep(script.token_delay)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                if recorded.cut:
                    self.connection.shutdown(socket.SHUT_RDWR)
                else:
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                with script._lock:
                    script.streams_closed_early += 1

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (a timeout test): nothing to answer

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
            pass

    return Handler


@pytest.fixture
def scripted_llm(settings: Any) -> Iterator[ScriptedLLM]:
    """A running scripted server, with the LLM settings pointing at it."""
    script = ScriptedLLM()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(script))
    server.daemon_threads = True
    script.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-llm", daemon=True)
    thread.start()
    settings.LLM_MODEL = "openai/scripted"
    settings.LLM_API_BASE = script.api_base
    settings.LLM_API_KEY = "test-key"
    settings.LLM_RETRY_BACKOFF_SECONDS = 0
    try:
        yield script
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
