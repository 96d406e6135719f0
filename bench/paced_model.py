"""An OpenAI-compatible chat-completions server that answers at a real model's pace.

Where ``bench/instant_model.py`` answers at once (every millisecond is ours), this one
takes as long as a typical hosted model: ``--first-chunk-delay`` (0.5 s) before the first
chunk, then ``--chunks-per-second`` (50) for ``--chunks`` (300) chunks of varied words (a
fixed ``--seed``: the same run gives the same answers), 6.5 s an answer. One first round
in three (``--tool-every``) asks for a tool the request offers (``search_knowledge`` when
offered, else the first) and answers in text once the tool's result comes back. A
request with ``"stream": true`` gets an OpenAI event stream, with the usage chunk when
``stream_options.include_usage`` asks for it; without, the whole answer as one JSON body.

It must hold hundreds of streams at once on a small machine without taking the CPU the
stack under test needs: plain asyncio with a minimal HTTP/1.1 handler (keep-alive,
chunked streams), chunks encoded once at start, and one timer loop that writes every
stream's due chunks each tick (not a sleeping coroutine per stream).

``GET /stats`` (JSON): requests served, streams in flight now and at most at once, chunks
served, tool rounds asked, when each first round arrived, and each tool round's turnaround
(from its last frame to the request carrying the tool's result). ``POST /stats/reset`` zeroes them (the maximum restarts at the
streams in flight now). Binds 127.0.0.1; ``--port 0`` picks a free port, written to
``--port-file`` when given.

    python -m bench.paced_model --port 0 --port-file /tmp/model.port
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IDENTITY = {"id": "chatcmpl-paced", "created": 1_700_000_000, "model": "paced"}
ANSWERS = 32  # distinct pre-encoded answers, used in turn
WORDS = (
    "você consegue organizar isso com calma e um passo de cada vez vamos ver juntos o que faz "
    "sentido para sua rotina hoje amanhã semana mês planejamento gastos contas sono saúde "
    "trabalho família amigos objetivo meta pequeno simples claro possível importante lembrar "
    "anotar revisar começar terminar respirar descansar conversar ouvir escolher priorizar "
    "reserva mercado transporte energia água exercício caminhada leitura projeto reunião prazo"
).split()
DONE_EVENT = b"data: [DONE]\n\n"


def frame(data: bytes) -> bytes:
    """One chunk of an HTTP/1.1 chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


def event(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {**IDENTITY, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def usage(completion_tokens: int) -> dict[str, int]:
    return {"prompt_tokens": 900, "completion_tokens": completion_tokens, "total_tokens": 900 + completion_tokens}


def answer_words(rng: random.Random, count: int) -> list[str]:
    """``count`` words (each a chunk, with its space), sentences closed now and then."""
    words: list[str] = []
    for number in range(count):
        word = rng.choice(WORDS)
        if number == 0 or words[-1].endswith(". "):
            word = word.capitalize()
        words.append(word + (". " if rng.random() < 0.08 or number == count - 1 else " "))
    return words


@dataclass
class Answer:
    """One answer, encoded once: its streamed events (without and with the usage chunk)
    and its non-streamed body."""

    text: str
    events: list[bytes]
    usage_event: bytes
    body: bytes


def encode_answer(words: list[str]) -> Answer:
    text = "".join(words).strip()
    events = [event(chunk({"role": "assistant", "content": words[0]}))]
    events += [event(chunk({"content": word})) for word in words[1:]]
    events.append(event(chunk({}, "stop")))
    usage_event = event({**IDENTITY, "object": "chat.completion.chunk", "choices": [], "usage": usage(len(words))})
    message = {"role": "assistant", "content": text}
    body = json.dumps({**IDENTITY, "object": "chat.completion", "usage": usage(len(words)),
                       "choices": [{"index": 0, "finish_reason": "stop", "message": message}]}).encode()
    return Answer(text, [frame(e) for e in events], frame(usage_event), body)


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments that satisfy a tool's JSON schema: its required properties, filled in."""
    arguments: dict[str, Any] = {}
    properties = schema.get("properties") or {}
    for name in schema.get("required") or []:
        spec = properties.get(name) or {}
        kind = spec.get("type")
        if "enum" in spec:
            arguments[name] = spec["enum"][0]
        elif kind in ("integer", "number"):
            arguments[name] = spec.get("minimum", 1)
        elif kind == "boolean":
            arguments[name] = False
        elif kind == "array":
            arguments[name] = []
        elif kind == "object":
            arguments[name] = example_arguments(spec)
        else:
            arguments[name] = "rotina"
    return arguments


def tool_call_id(round_number: int) -> str:
    """The id of the call a first round asks for: the request with its result names it back."""
    return f"call_paced_{round_number}"


def tool_call_events(tools: list[dict[str, Any]], round_number: int, *, include_usage: bool) -> list[bytes]:
    """A first round that asks for one offered tool, its arguments split over two chunks."""
    functions = [tool.get("function") or {} for tool in tools]
    chosen = next((f for f in functions if f.get("name") == "search_knowledge"), functions[0])
    arguments = json.dumps(example_arguments(chosen.get("parameters") or {}))
    half = len(arguments) // 2
    call_id = tool_call_id(round_number)
    head = {"index": 0, "id": call_id, "type": "function", "function": {"name": chosen.get("name"), "arguments": ""}}
    events = [
        event(chunk({"role": "assistant", "content": None, "tool_calls": [head]})),
        event(chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[:half]}}]})),
        event(chunk({"tool_calls": [{"index": 0, "function": {"arguments": arguments[half:]}}]})),
        event(chunk({}, "tool_calls")),
    ]
    if include_usage:
        events.append(event({**IDENTITY, "object": "chat.completion.chunk", "choices": [], "usage": usage(12)}))
    return [frame(e) for e in events]


@dataclass
class Stream:
    """A streamed answer being written: its frames, and when the first one is due."""

    writer: asyncio.StreamWriter
    frames: list[bytes]
    start_at: float
    sent: int = 0
    ended: asyncio.Future[bool] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


@dataclass
class Stats:
    requests: int = 0
    streams: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    chunks: int = 0
    tool_rounds: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


class PacedModel:
    def __init__(self, *, first_chunk_delay: float, chunks_per_second: float, chunks: int, seed: int,
                 tool_every: int) -> None:
        self.delay = first_chunk_delay
        self.rate = chunks_per_second
        self.tool_every = tool_every
        self.chunks = chunks
        rng = random.Random(seed)
        self.answers = [encode_answer(answer_words(rng, chunks)) for _ in range(ANSWERS)]
        self.streams: list[Stream] = []
        self.stats = Stats()
        self.first_rounds = 0  # requests that did not carry a tool's result
        self.reset_at = 0.0
        self.first_round_arrivals: list[float] = []  # seconds after the last reset, streamed first rounds
        # A tool round's turnaround: from its last frame written to the request carrying the tool's
        # result (the worker reading the call, running the tool, storing the round, asking again).
        self.tool_round_ended: dict[str, float] = {}
        self.tool_turnarounds: list[float] = []

    # --- the timer loop ------------------------------------------------------------------

    async def tick(self) -> None:
        """Write every stream's due frames, ``rate`` times a second, catching up after a late tick."""
        loop = asyncio.get_running_loop()
        interval = 1 / self.rate
        while True:
            await asyncio.sleep(interval)
            now = loop.time()
            kept = []
            for stream in self.streams:
                if now >= stream.start_at and not stream.writer.is_closing():
                    due = min(len(stream.frames), int((now - stream.start_at) * self.rate) + 1)
                    if due > stream.sent:
                        stream.writer.write(b"".join(stream.frames[stream.sent:due]))
                        self.stats.chunks += due - stream.sent
                        stream.sent = due
                if stream.sent < len(stream.frames) and not stream.writer.is_closing():
                    kept.append(stream)
                elif not stream.ended.done():
                    stream.ended.set_result(stream.sent == len(stream.frames))
            self.streams = kept

    # --- HTTP ----------------------------------------------------------------------------

    async def serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                method, path, _version = (request_line.split(" ") + ["", ""])[:3]
                headers = {}
                for line in header_lines:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                body = await reader.readexactly(int(headers.get("content-length") or 0))
                keep_alive = headers.get("connection", "").lower() != "close"
                if not await self.respond(method, path.split("?", 1)[0], body, writer):
                    return
                if not keep_alive:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            writer.close()

    async def respond(self, method: str, path: str, body: bytes, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False when the connection cannot be kept."""
        if path == "/stats" and method == "GET" or path == "/stats/reset" and method == "POST":
            if path == "/stats/reset":
                in_flight = self.stats.in_flight
                self.stats = Stats(in_flight=in_flight, max_in_flight=in_flight)
                self.reset_at = asyncio.get_running_loop().time()
                self.first_round_arrivals = []
                self.tool_turnarounds = []
            self.send(writer, 200, "application/json", json.dumps(self.stats_body()).encode())
            return True
        if method == "GET" and path.rstrip("/").endswith("/models"):
            models = {"object": "list", "data": [{"id": "paced", "object": "model", "owned_by": "bench"}]}
            self.send(writer, 200, "application/json", json.dumps(models).encode())
            return True
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            self.send(writer, 404, "application/json", b'{"error": {"message": "not found"}}')
            return True
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            self.send(writer, 400, "application/json", b'{"error": {"message": "malformed JSON"}}')
            return True
        return await self.complete(request, writer)

    async def complete(self, request: dict[str, Any], writer: asyncio.StreamWriter) -> bool:
        self.stats.requests += 1
        messages = request.get("messages") or []
        carries_tool_result = bool(messages) and messages[-1].get("role") == "tool"
        round_number = 0
        if not carries_tool_result:
            self.first_rounds += 1
            round_number = self.first_rounds
        tools = request.get("tools") or []
        asks_tool = bool(tools) and not carries_tool_result and self.tool_every > 0 \
            and round_number % self.tool_every == 0
        answer = self.answers[self.stats.requests % len(self.answers)]
        if not request.get("stream"):
            await asyncio.sleep(self.delay)
            if writer.is_closing():
                return False
            self.send(writer, 200, "application/json", answer.body)
            return True
        if not carries_tool_result:
            self.first_round_arrivals.append(round(asyncio.get_running_loop().time() - self.reset_at, 3))
        else:
            ended = self.tool_round_ended.pop(str(messages[-1].get("tool_call_id")), None)
            if ended is not None:
                self.tool_turnarounds.append(round(asyncio.get_running_loop().time() - ended, 4))
        include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
        if asks_tool:
            self.stats.tool_rounds += 1
            frames = tool_call_events(tools, round_number, include_usage=include_usage)
        else:
            # A word a chunk, about a token each: max_tokens (a title's 24) cuts the answer, as a model would.
            limit = request.get("max_tokens")
            words = answer.events[:limit] if isinstance(limit, int) and limit > 0 else answer.events
            frames = words + ([answer.usage_event] if include_usage else [])
        frames.append(frame(DONE_EVENT))
        frames.append(b"0\r\n\r\n")  # the chunked body's end: the connection stays open for the next request
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n")
        stream = Stream(writer, frames, asyncio.get_running_loop().time() + self.delay)
        self.stats.streams += 1
        self.stats.in_flight += 1
        self.stats.max_in_flight = max(self.stats.max_in_flight, self.stats.in_flight)
        self.streams.append(stream)
        try:
            completed = await stream.ended
        finally:
            self.stats.in_flight -= 1
        if asks_tool and completed:
            self.tool_round_ended[tool_call_id(round_number)] = asyncio.get_running_loop().time()
        return completed

    def stats_body(self) -> dict[str, Any]:
        return {**self.stats.as_dict(), "first_round_arrivals": self.first_round_arrivals,
                "tool_turnarounds": self.tool_turnarounds,
                "first_chunk_delay": self.delay, "chunks_per_second": self.rate,
                "chunks_per_answer": self.chunks, "tool_every": self.tool_every}

    @staticmethod
    def send(writer: asyncio.StreamWriter, status: int, content_type: str, data: bytes) -> None:
        reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
        writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\n"
                     f"Content-Length: {len(data)}\r\n\r\n".encode() + data)


async def run(model: PacedModel, port: int, port_file: Path | None) -> None:
    server = await asyncio.start_server(model.serve_connection, "127.0.0.1", port, backlog=2048)
    bound = server.sockets[0].getsockname()[1]
    if port_file:
        port_file.write_text(str(bound))
    print(f"paced model on http://127.0.0.1:{bound}/v1 ({model.delay} s to the first chunk, "
          f"{model.rate:g} chunks/s, {model.chunks} chunks an answer)", flush=True)
    ticker = asyncio.create_task(model.tick())
    try:
        async with server:
            await server.serve_forever()
    finally:
        ticker.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path)
    parser.add_argument("--first-chunk-delay", type=float, default=0.5, help="seconds before the first chunk")
    parser.add_argument("--chunks-per-second", type=float, default=50.0)
    parser.add_argument("--chunks", type=int, default=300, help="chunks (words) in an answer")
    parser.add_argument("--seed", type=int, default=33, help="seed of the answers' words")
    parser.add_argument("--tool-every", type=int, default=3,
                        help="every Nth first round asks for a tool (0: never)")
    args = parser.parse_args()
    model = PacedModel(first_chunk_delay=args.first_chunk_delay, chunks_per_second=args.chunks_per_second,
                       chunks=args.chunks, seed=args.seed, tool_every=args.tool_every)
    started = time.monotonic()
    try:
        asyncio.run(run(model, args.port, args.port_file))
    except KeyboardInterrupt:
        pass
    finally:
        print(f"paced model: {model.stats.as_dict()} over {time.monotonic() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
