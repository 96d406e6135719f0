"""CPU to read one streamed chunk: litellm, the OpenAI SDK and the lean reader, side by side.

A loopback server (another process, so its CPU is not counted) streams ``--chunks``
OpenAI-style chunks, a word each, as fast as it can; this process reads ``--streams``
such streams through each path and prints the CPU it spent per chunk (user + system,
``time.process_time``), after one warm-up stream per path:

- ``litellm``: ``llm.stream_completion`` with ``LLM_LEAN_STREAMING=false`` (litellm's
  wrapper over the OpenAI SDK, with the project's patches),
- ``openai-sdk``: the OpenAI SDK's own stream, read as litellm reads it,
- ``lean``: ``llm.stream_completion`` as it runs by default (httpx, httpx-sse, orjson),
- ``httpx+json``: the floor, httpx lines and ``json.loads``, no SSE decoder.

    python -m bench.stream_reading --chunks 300 --streams 20
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "lifeassistant.settings")

WORDS = ("Anotei ", "a ", "despesa ", "de ", "R$ ", "50,00 ", "no ", "mercado. ")
MODEL = "openai/bench-model"
HISTORY = [{"role": "user", "content": "Gastei 50 no mercado"}]


def stream_body(chunks: int) -> bytes:
    """The whole answer as one chunked HTTP body of OpenAI chunks, usage last."""
    identity = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1_764_290_000, "model": "bench-model"}

    def event(payload: dict[str, Any]) -> bytes:
        data = f"data: {json.dumps({**identity, **payload}, separators=(',', ':'))}\n\n".encode()
        return b"%x\r\n%s\r\n" % (len(data), data)

    def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}], "usage": None}

    parts = [event(choice({"role": "assistant", "content": ""}))]
    parts += [event(choice({"content": WORDS[number % len(WORDS)]})) for number in range(chunks)]
    parts.append(event(choice({}, "stop")))
    usage = {"prompt_tokens": 900, "completion_tokens": chunks, "total_tokens": 900 + chunks}
    parts.append(event({"choices": [], "usage": usage}))
    done = b"data: [DONE]\n\n"
    parts.append(b"%x\r\n%s\r\n0\r\n\r\n" % (len(done), done))
    return b"".join(parts)


def serve(chunks: int, ready: Any) -> None:
    """The loopback model: every POST gets the same pre-encoded stream, on a kept-alive connection."""
    body = stream_body(chunks)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ready.send(server.server_address[1])
    server.serve_forever()


def cpu_per_chunk(read_one: Callable[[], int], streams: int) -> tuple[float, float]:
    """µs of this process's CPU per chunk read, and ms of wall time per stream, over
    ``streams`` streams after a warm-up one."""
    read_one()
    chunks = 0
    started, wall = time.process_time(), time.perf_counter()
    for _ in range(streams):
        chunks += read_one()
    return (time.process_time() - started) / chunks * 1e6, (time.perf_counter() - wall) / streams * 1e3


def readers(api_base: str) -> dict[str, Callable[[], int]]:
    """Each path as a function that reads one whole stream and returns its text chunks."""
    import httpx
    import openai
    from django.conf import settings

    from lifeassistant import llm

    llm.litellm_module()
    settings.LLM_MODEL, settings.LLM_API_BASE, settings.LLM_API_KEY = MODEL, api_base, "bench"

    def through_llm(lean: bool) -> Callable[[], int]:
        def read() -> int:
            settings.LLM_LEAN_STREAMING = lean
            stream = llm.stream_completion(HISTORY)
            pieces = sum(1 for _ in stream)
            stream.close()
            stream.result()
            return pieces

        return read

    sdk = openai.OpenAI(base_url=api_base, api_key="bench", max_retries=0)

    def openai_sdk() -> int:
        stream = sdk.chat.completions.create(
            model="bench-model",
            messages=[{"role": "user", "content": HISTORY[0]["content"]}],
            stream=True,
            stream_options={"include_usage": True},
        )
        pieces = 0
        for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                pieces += 1
        return pieces

    client = httpx.Client()

    def httpx_json() -> int:
        pieces = 0
        body = {"model": "bench-model", "messages": HISTORY, "stream": True}
        with client.stream("POST", f"{api_base}/chat/completions", json=body) as response:
            for line in response.iter_lines():
                if line.startswith("data: {"):
                    chunk = json.loads(line[6:])
                    if chunk["choices"] and chunk["choices"][0]["delta"].get("content"):
                        pieces += 1
        return pieces

    return {"litellm": through_llm(False), "openai-sdk": openai_sdk, "lean": through_llm(True), "httpx+json": httpx_json}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=300, help="text chunks per stream")
    parser.add_argument("--streams", type=int, default=20, help="streams read per path")
    args = parser.parse_args()

    receive, send = multiprocessing.Pipe(duplex=False)
    server = multiprocessing.get_context("fork").Process(target=serve, args=(args.chunks, send), daemon=True)
    server.start()  # before litellm is imported: the server process stays small
    api_base = f"http://127.0.0.1:{receive.recv()}/v1"

    import django

    django.setup()
    try:
        print(f"{args.streams} streams of {args.chunks} chunks each: CPU µs per chunk (this process), wall ms per stream")
        for path, read in readers(api_base).items():
            cpu, wall = cpu_per_chunk(read, args.streams)
            print(f"  {path:<11} {cpu:8.1f} µs {wall:8.1f} ms")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()
