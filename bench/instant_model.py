"""An OpenAI-compatible chat-completions server that answers at once, for benchmarks.

Every request gets the same short text answer, so a benchmark measures the project's
time, not a model's. A request with ``"stream": true`` (the worker's, every round) gets
that answer as an OpenAI event stream, a word per chunk, with the usage chunk when
``stream_options.include_usage`` asks for it; ``--token-delay`` spaces the chunks as a
real model would (0: all at once). Binds 127.0.0.1; ``--port 0`` picks a free port,
written to ``--port-file`` when given.

    python -m bench.instant_model --port 0 --port-file /tmp/model.port
"""

from __future__ import annotations

import argparse
import json
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ANSWER_TEXT = "Anotado! Algo mais?"
USAGE = {"prompt_tokens": 900, "completion_tokens": 6, "total_tokens": 906}
IDENTITY = {"id": "chatcmpl-instant", "created": 1_700_000_000, "model": "instant"}


def completion_body(text: str) -> bytes:
    """The non-streamed answer."""
    choice = {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
    return json.dumps({**IDENTITY, "object": "chat.completion", "choices": [choice], "usage": USAGE}).encode()


def stream_events(text: str, *, include_usage: bool) -> list[bytes]:
    """The streamed answer: one ``data:`` event per chunk, ``[DONE]`` last."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {**IDENTITY, "object": "chat.completion.chunk", "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": word}) for word in re.findall(r"\S+\s*|\s+", text)]
    chunks.append(chunk({}, "stop"))
    if include_usage:
        chunks.append({**IDENTITY, "object": "chat.completion.chunk", "choices": [], "usage": USAGE})
    return [f"data: {json.dumps(item)}\n\n".encode() for item in chunks] + [b"data: [DONE]\n\n"]


def handler_for(text: str = ANSWER_TEXT, token_delay: float = 0.0) -> type[BaseHTTPRequestHandler]:
    """A request handler answering ``text``; the bodies are built once, not per request."""
    plain = completion_body(text)
    streams = {usage: stream_events(text, include_usage=usage) for usage in (False, True)}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
            if body.get("stream"):
                self._stream(streams[bool((body.get("stream_options") or {}).get("include_usage"))])
            else:
                self._send("application/json", plain)

        def _send(self, content_type: str, data: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, events: list[bytes]) -> None:
            if not token_delay:  # all at once, on a connection kept alive like a provider's
                self._send("text/event-stream", b"".join(events))
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")  # no length known up front: the close ends it
            self.end_headers()
            self.close_connection = True
            try:
                for number, event in enumerate(events):
                    if number:
                        time.sleep(token_delay)
                    self.wfile.write(event)
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client closed the stream (a stopped reply)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    return Handler


def serve(port: int = 0, *, text: str = ANSWER_TEXT, token_delay: float = 0.0) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (not yet serving: call ``serve_forever``)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(text, token_delay))
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--token-delay", type=float, default=0.0, help="seconds between streamed chunks")
    parser.add_argument("--answer", default=ANSWER_TEXT, help="the text of every answer")
    args = parser.parse_args()
    server = serve(args.port, text=args.answer, token_delay=args.token_delay)
    port = server.server_address[1]
    if args.port_file:
        args.port_file.write_text(str(port))
    print(f"instant model on http://127.0.0.1:{port}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
