"""An OpenAI-compatible chat-completions server that answers at once, for benchmarks.

Every request gets the same short text answer, so a benchmark measures the project's
time, not a model's. Binds 127.0.0.1; ``--port 0`` picks a free port, written to
``--port-file`` when given.

    python -m bench.instant_model --port 0 --port-file /tmp/model.port
"""

from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ANSWER = {
    "id": "chatcmpl-instant",
    "object": "chat.completion",
    "created": 1_700_000_000,
    "model": "instant",
    "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Anotado! Algo mais?"}}
    ],
    "usage": {"prompt_tokens": 900, "completion_tokens": 6, "total_tokens": 906},
}
BODY = json.dumps(ANSWER).encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def serve(port: int = 0) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (not yet serving: call ``serve_forever``)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    args = parser.parse_args()
    server = serve(args.port)
    port = server.server_address[1]
    if args.port_file:
        args.port_file.write_text(str(port))
    print(f"instant model on http://127.0.0.1:{port}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
