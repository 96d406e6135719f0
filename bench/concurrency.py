"""Concurrency benchmark: N people send a message at the same moment against a paced model.

Drives a RUNNING stack (``bench/concurrency.sh`` starts one from the Procfile) whose model
is ``bench/paced_model.py``. For each ``--people`` N, N people (one token each, from
``--tokens``, signed in beforehand; a conversation each, created beforehand) post one
message at once, then follow their reply's event stream
(``GET /api/v1/messages/{id}/events/``) to its final event. One line of figures per N:

- replies in flight at the model at once (max), from the model's ``/stats``;
- first text at the client p50/p95 (POST sent → first ``delta`` event) and done p50/p95
  (POST sent → final event); a person who never got there counts as "never";
- errors: a POST that was not 2xx, a reply that ended ``failed``/``cancelled`` or with an
  ``error`` event, a stream that did not end within ``--timeout``;
- worker CPU per streamed chunk (CPU of the worker's process tree / chunks the model
  served), web CPU (the web processes' CPU over the run);
- message-row writes per reply (PostgreSQL's ``n_tup_upd`` of ``chat_message``, delta /
  replies that ended; a backend reports its counts when it goes idle, at most once a second and at
  the latest ``PGSTAT_IDLE_INTERVAL``, 10 s, after: the run waits ``--settle`` seconds
  before reading them, and ``pg_stat_force_next_flush()`` only flushes the reading
  backend's own counts);
- Redis connections opened (``INFO stats`` ``total_connections_received`` delta: the
  whole server's, so give the stack a Redis of its own, as ``concurrency.sh`` does);
- resident memory of the worker's process tree, RSS and PSS, the highest sampled.

Before the levels, ``--single-runs`` replies one person at a time give "first text over
the model's own first chunk" (first text at the client minus the model's delay to its
first chunk; replies whose first round asked for a tool are left out), p50.

    python -m bench.concurrency --url http://127.0.0.1:8000 --tokens tokens.txt \\
        --model-url http://127.0.0.1:9000 --people 20 --people 100 \\
        --web-pid 1234 --worker-pid 5678 --database-url postgres://... --redis-url redis://...

Only addresses on this machine are meant as targets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.load import children, cpu_seconds, memory_mib

SHORT_TEXTS = (
    "Gastei 50 reais no mercado hoje",
    "Dormi 6 horas essa noite e acordei cansada",
    "Preciso organizar minhas contas do mês",
    "Como posso conversar melhor com meu irmão?",
    "Quero começar a caminhar três vezes por semana",
)
FINAL_EVENTS = {b"done", b"failed", b"cancelled"}


# --- the stack's processes and services --------------------------------------------------


def tree(*pids: int | None) -> list[int]:
    """The ``pids`` and all their descendants."""
    found: list[int] = []
    pending = [pid for pid in pids if pid]
    while pending:
        current = pending.pop()
        found.append(current)
        pending += children(current)
    return found


class MemorySampler:
    """The highest RSS and PSS (MiB) of a process tree, and of its largest process, sampled each second."""

    def __init__(self, roots: list[int], web_root: int | None) -> None:
        self.roots, self.web_root = roots, web_root
        self.peak = {"rss": 0.0, "pss": 0.0, "web_rss_max": 0.0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            self.sample()

    def sample(self) -> None:
        rows = [memory_mib(pid) for pid in tree(*self.roots)]
        self.peak["rss"] = max(self.peak["rss"], sum(r["rss"] for r in rows))
        self.peak["pss"] = max(self.peak["pss"], sum(r["pss"] for r in rows))
        web = [memory_mib(pid)["rss"] for pid in (children(self.web_root) if self.web_root else [])]
        self.peak["web_rss_max"] = max([self.peak["web_rss_max"], *web])


class RowWrites:
    """Updates of ``chat_message`` rows, from PostgreSQL's statistics (None without a database)."""

    def __init__(self, url: str | None) -> None:
        self.connection = None
        if url and url.startswith("postgres"):
            import psycopg

            self.connection = psycopg.connect(url, autocommit=True)

    def count(self) -> int | None:
        if self.connection is None:
            return None
        self.connection.execute("SELECT pg_stat_clear_snapshot()")
        row = self.connection.execute(
            "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'chat_message'").fetchone()
        return int(row[0]) if row else None


class RedisConnections:
    """The Redis server's ``total_connections_received`` (None without a Redis URL)."""

    def __init__(self, url: str | None) -> None:
        self.client = None
        if url:
            import redis

            self.client = redis.Redis.from_url(url)
            self.client.ping()  # the one connection this counter makes, opened before the first reading

    def count(self) -> int | None:
        return int(self.client.info("stats")["total_connections_received"]) if self.client else None


# --- one person ----------------------------------------------------------------------------


@dataclass
class Person:
    token: str
    conversation: int
    text: str
    post_status: int = 0
    posted: float | None = None  # seconds from the POST being sent to its answer
    first_text: float | None = None  # seconds from the POST being sent
    done: float | None = None
    final: str = ""  # done / failed / cancelled / error / timeout / post / broken
    why: str = ""  # what the client saw of a failure: an HTTP status, an exception, a missing end
    tool_before_text: bool = False
    opened: float | None = None  # seconds from the POST being sent to the event stream's headers

    @property
    def failed(self) -> bool:
        return self.final != "done"


async def follow(client: httpx.AsyncClient, person: Person, timeout: float) -> None:
    """Post the person's message, then read its reply's events to the final one."""
    headers = {"Authorization": f"Token {person.token}"}
    started = time.perf_counter()
    try:
        # Bounded as a whole like the stream: a server that never answers ends the run, not hangs it.
        response = await asyncio.wait_for(
            client.post(f"conversations/{person.conversation}/messages/", json={"content": person.text}, headers=headers),
            timeout,
        )
    except (httpx.HTTPError, asyncio.TimeoutError) as exc:
        person.final, person.why = "post", type(exc).__name__
        return
    person.post_status = response.status_code
    person.posted = time.perf_counter() - started
    reply = response.json().get("assistant_message") if response.is_success else None
    if not reply:
        person.final, person.why = "post", f"HTTP {response.status_code}"
        return
    try:
        await asyncio.wait_for(read_events(client, person, reply["id"], headers, started), timeout)
    except asyncio.TimeoutError:
        person.final = "timeout"
    except httpx.HTTPError as exc:
        person.final, person.why = "broken", f"{type(exc).__name__} {exc}".strip()


async def read_events(client: httpx.AsyncClient, person: Person, reply: int, headers: dict[str, str],
                      started: float) -> None:
    buffer = b""
    async with client.stream("GET", f"messages/{reply}/events/", headers=headers) as response:
        person.opened = time.perf_counter() - started
        if response.status_code != 200:
            person.final, person.why = "broken", f"HTTP {response.status_code}"
            return
        async for data in response.aiter_bytes():
            buffer += data
            *blocks, buffer = buffer.split(b"\n\n")
            for block in blocks:
                kind = event_type(block)
                if kind == b"delta" and person.first_text is None:
                    person.first_text = time.perf_counter() - started
                elif kind == b"tool_started" and person.first_text is None:
                    person.tool_before_text = True
                elif kind in FINAL_EVENTS or kind == b"error":
                    person.done = time.perf_counter() - started
                    person.final = kind.decode()
                    return
    person.final, person.why = "broken", "the stream ended without a final event"


def event_type(block: bytes) -> bytes:
    for line in block.split(b"\n"):
        if line.startswith(b"event:"):
            return line[6:].strip()
    return b""


# --- a level ---------------------------------------------------------------------------------


class Stack:
    """What the driver reads besides the API: the model's counters, processes, PostgreSQL, Redis."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.model_url = args.model_url.rstrip("/")
        self.web_pid, self.worker_pids = args.web_pid, args.worker_pid or []
        self.rows = RowWrites(args.database_url)
        self.redis = RedisConnections(args.redis_url)

    def model_stats(self, reset: bool = False) -> dict[str, Any]:
        if reset:
            return httpx.post(f"{self.model_url}/stats/reset").json()
        return httpx.get(f"{self.model_url}/stats").json()

    def web_cpu(self) -> float:
        return cpu_seconds(tree(self.web_pid))

    def worker_cpu(self) -> float:
        return cpu_seconds(tree(*self.worker_pids))


def percentile(values: list[float | None], q: float) -> float | None:
    """Nearest rank over everyone; a person who never got there ranks last (None: "never")."""
    if not values:
        return None
    ordered = sorted(values, key=lambda v: math.inf if v is None else v)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def create_conversations(url: str, tokens: list[str]) -> list[int]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        ids = []
        for token in tokens:
            response = await client.post("conversations/", json={"title": "concurrency"},
                                         headers={"Authorization": f"Token {token}"})
            response.raise_for_status()
            ids.append(response.json()["id"])
        return ids


async def burst(url: str, people: list[Person], timeout: float) -> float:
    """Everyone posts at once and follows their reply; the seconds the whole burst took."""
    limits = httpx.Limits(max_connections=2 * len(people) + 10, max_keepalive_connections=2 * len(people) + 10)
    timeouts = httpx.Timeout(60, read=None)  # a stream is bounded by ``timeout`` as a whole
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeouts) as client:
        started = time.perf_counter()
        await asyncio.gather(*(follow(client, person, timeout) for person in people))
        return time.perf_counter() - started


def run_level(args: argparse.Namespace, stack: Stack, tokens: list[str], count: int) -> dict[str, Any]:
    chosen = [tokens[n % len(tokens)] for n in range(count)]
    conversations = asyncio.run(create_conversations(args.api, chosen))
    people = [Person(token, conversation, SHORT_TEXTS[n % len(SHORT_TEXTS)])
              for n, (token, conversation) in enumerate(zip(chosen, conversations))]
    rows_before, redis_before = stack.rows.count(), stack.redis.count()
    web_before, worker_before = stack.web_cpu(), stack.worker_cpu()
    with MemorySampler(stack.worker_pids, stack.web_pid) as memory:
        stack.model_stats(reset=True)  # the model's arrival times count from here, as the POSTs do
        seconds = asyncio.run(burst(args.api, people, args.timeout))
    web_cpu, worker_cpu = stack.web_cpu() - web_before, stack.worker_cpu() - worker_before
    model = stack.model_stats()
    redis_after = stack.redis.count()
    rows_after = None
    if rows_before is not None:
        time.sleep(args.settle)  # the backends' counts reach pg_stat at the latest 10 s after they go idle
        rows_after = stack.rows.count()
    # Row writes are shared among the replies that ended (a reply stuck mid-way wrote some too).
    ended = sum(1 for p in people if p.final in ("done", "failed", "cancelled"))
    failed = [person for person in people if person.failed]
    errors = Counter(person.final for person in failed)
    whys = Counter(f"{person.final}: {person.why}" for person in failed if person.why)
    return {
        "people": count,
        "seconds": round(seconds, 2),
        "model_max_in_flight": model["max_in_flight"],
        "model_chunks": model["chunks"],
        "model_tool_rounds": model["tool_rounds"],
        # Where the first text's wait goes: the POST's answer, then the reply's first request
        # reaching the model (its first chunk comes the model's delay later).
        "posted_s": {"p50": percentile([p.posted for p in people], 0.50),
                     "p95": percentile([p.posted for p in people], 0.95)},
        # The event stream's headers, after the POST: a stream opened late holds its first text.
        "opened_s": {"p50": percentile([p.opened for p in people], 0.50),
                     "p95": percentile([p.opened for p in people], 0.95)},
        "at_model_s": {"p50": percentile(model.get("first_round_arrivals", []), 0.50),
                       "p95": percentile(model.get("first_round_arrivals", []), 0.95)},
        # From a tool round's last frame to the worker asking again with the tool's result.
        "tool_turnaround_s": {"p50": percentile(model.get("tool_turnarounds", []), 0.50),
                              "p95": percentile(model.get("tool_turnarounds", []), 0.95)},
        "first_text_s": {"p50": percentile([p.first_text for p in people], 0.50),
                         "p95": percentile([p.first_text for p in people], 0.95)},
        # A reply whose first round asks for a tool (one in three on the paced model) writes no
        # text before its second round: two of the model's delays and the tool run first.
        "first_text_by_first_round_s": {
            kind: {"n": len(group), "p50": percentile([p.first_text for p in group], 0.50),
                   "p95": percentile([p.first_text for p in group], 0.95)}
            # Someone who got no text at all is in neither: the errors and the p95 above count them.
            for kind, group in (("text", [p for p in people if not p.tool_before_text and p.first_text is not None]),
                                ("tool", [p for p in people if p.tool_before_text]))
        },
        "done_s": {"p50": percentile([p.done if not p.failed else None for p in people], 0.50),
                   "p95": percentile([p.done if not p.failed else None for p in people], 0.95)},
        "errors": sum(errors.values()),
        "errors_by_kind": dict(errors),
        "errors_seen": dict(whys),
        "worker_cpu_s": round(worker_cpu, 2),
        "worker_cpu_us_per_chunk": 1e6 * worker_cpu / model["chunks"] if model["chunks"] and args.worker_pid else None,
        "web_cpu_s": round(web_cpu, 2) if args.web_pid else None,
        "replies_ended": ended,
        "row_writes_per_reply": (rows_after - rows_before) / ended
        if rows_after is not None and rows_before is not None and ended else None,
        "redis_connections_opened": (redis_after - redis_before)
        if redis_after is not None and redis_before is not None else None,
        "worker_memory_mib": {"rss": round(memory.peak["rss"]), "pss": round(memory.peak["pss"])},
        "web_worker_rss_max_mib": round(memory.peak["web_rss_max"]),
        # Each person's timeline (seconds from their POST): for a closer look in the JSON.
        "timelines": [{"posted": p.posted, "opened": p.opened, "first_text": p.first_text, "done": p.done, "final": p.final,
                       "tool_round_first": p.tool_before_text} for p in people],
    }


def single_runs(args: argparse.Namespace, stack: Stack, tokens: list[str]) -> dict[str, Any]:
    """One person at a time: the first is a warm-up (imports, pools, first queries)."""
    delay = float(stack.model_stats().get("first_chunk_delay", 0.0))
    conversation = asyncio.run(create_conversations(args.api, tokens[:1]))[0]
    samples: list[float] = []
    posted: list[float] = []
    at_model: list[float] = []
    excluded, failed = 0, []
    for number in range(args.single_runs + 1):
        person = Person(tokens[0], conversation, SHORT_TEXTS[number % len(SHORT_TEXTS)])
        stack.model_stats(reset=True)  # its arrival time counts from here, as the POST does
        asyncio.run(burst(args.api, [person], args.timeout))
        if number == 0:
            continue
        if person.failed or person.first_text is None:
            failed.append(person.final or "no text")
        elif person.tool_before_text:
            excluded += 1  # two model rounds and a tool before the first word
        else:
            samples.append(person.first_text - delay)
            posted.append(person.posted or 0.0)
            at_model.extend(stack.model_stats().get("first_round_arrivals", [])[:1])

    def median_ms(values: list[float]) -> float | None:
        return 1000 * statistics.median(values) if values else None

    # Where the time over the model goes: the POST's answer, the reply reaching the model
    # (the worker's claim and prompt), then its first chunk's way to the reader.
    return {"model_first_chunk_delay_s": delay, "runs": args.single_runs, "tool_round_runs": excluded,
            "failed": failed, "over_model_ms_p50": median_ms(samples),
            "posted_ms_p50": median_ms(posted), "at_model_ms_p50": median_ms(at_model)}


def milliseconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f} ms"


def seconds_text(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f} s"


def by_first_round(level: dict[str, Any]) -> str:
    """First text apart for the replies that answered at once and those that made a tool round first."""
    kinds = level.get("first_text_by_first_round_s")
    if not kinds or not kinds["tool"]["n"]:
        return ""
    text, tool = kinds["text"], kinds["tool"]
    turnaround = level.get("tool_turnaround_s") or {}
    # The model timed no turnaround when no tool round's result came back (a run that failed early).
    timed = (f", its turnaround p50/p95 {seconds_text(turnaround['p50'])} / {seconds_text(turnaround['p95'])}"
             if turnaround.get("p50") is not None else "")
    return (f" (answered at once, {text['n']}: {seconds_text(text['p50'])} / {seconds_text(text['p95'])};"
            f" a tool round first, {tool['n']}: {seconds_text(tool['p50'])} / {seconds_text(tool['p95'])}{timed})")


def stream_opened(level: dict[str, Any]) -> str:
    """The event streams' opening, when the run timed it (older figures did not)."""
    opened = level.get("opened_s")
    if not opened or opened["p50"] is None:
        return ""
    return f" | stream opened p50/p95 {seconds_text(opened['p50'])} / {seconds_text(opened['p95'])}"


def render(level: dict[str, Any]) -> str:
    first, done = level["first_text_s"], level["done_s"]
    errors = ", ".join(f"{n} {kind}" for kind, n in sorted(level["errors_by_kind"].items()))
    chunk = level["worker_cpu_us_per_chunk"]
    rows = level["row_writes_per_reply"]
    redis = level["redis_connections_opened"]
    memory = level["worker_memory_mib"]
    return (
        f"{level['people']:>4} people ({level['seconds']:.0f} s): in flight at the model {level['model_max_in_flight']}"
        f" max | POST answered p50/p95 {seconds_text(level['posted_s']['p50'])} / {seconds_text(level['posted_s']['p95'])}"
        f"{stream_opened(level)}"
        f" | reply at the model p50/p95 {seconds_text(level['at_model_s']['p50'])} / {seconds_text(level['at_model_s']['p95'])}"
        f" | first text p50/p95 {seconds_text(first['p50'])} / {seconds_text(first['p95'])}{by_first_round(level)}"
        f" | done p50/p95 {seconds_text(done['p50'])} / {seconds_text(done['p95'])}"
        f" | errors {level['errors']}{' (' + errors + ')' if errors else ''}"
        f" | worker CPU {'-' if chunk is None else f'{chunk:.0f} µs'}/chunk ({level['model_chunks']} chunks,"
        f" {level['worker_cpu_s']:.1f} s), web CPU {level['web_cpu_s']} s"
        f" | row writes {'-' if rows is None else f'{rows:.1f}'}/reply ({level['replies_ended']} ended)"
        f" | Redis connections opened {'-' if redis is None else redis}"
        f" | worker RSS {memory['rss']} MiB, PSS {memory['pss']} MiB; web worker RSS {level['web_worker_rss_max_mib']} MiB"
        + "".join(f"\n      {n} × {why}" for why, n in sorted(level.get("errors_seen", {}).items()))
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="N people post at once against a paced model; print the figures.")
    parser.add_argument("--url", required=True, help="the running web server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--tokens", required=True, type=Path, help="API tokens, one a line (a person each, reused "
                                                                   "in turn when fewer than --people)")
    parser.add_argument("--model-url", required=True, help="the paced model's root, e.g. http://127.0.0.1:9000")
    parser.add_argument("--people", type=int, action="append", help="people at once (repeatable; default 20)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a reply's stream may take to end")
    parser.add_argument("--single-runs", type=int, default=4,
                        help="one-person replies for the first-text-over-the-model figure (after one warm-up)")
    parser.add_argument("--settle", type=float, default=11.0,
                        help="seconds to wait before reading PostgreSQL's row counts")
    parser.add_argument("--web-pid", type=int, help="the web server's main pid (gunicorn's master)")
    parser.add_argument("--worker-pid", type=int, action="append",
                        help="a reply worker's main pid (Celery's; the web's on the embedded defaults); repeat it "
                             "for each worker process: their CPU and memory are summed")
    parser.add_argument("--database-url", help="the stack's PostgreSQL database (row writes)")
    parser.add_argument("--redis-url", help="the stack's Redis (connections opened)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    args.api = args.url.rstrip("/") + "/api/v1/"
    tokens = [line.strip() for line in args.tokens.read_text().splitlines() if line.strip()]
    stack = Stack(args)

    single = single_runs(args, stack, tokens)
    over = single["over_model_ms_p50"]
    print(f"1 person, {single['runs']} replies after a warm-up: first text over the model's own first chunk "
          f"p50 {'-' if over is None else f'{over:.0f} ms'} (POST answered {milliseconds(single['posted_ms_p50'])}, "
          f"at the model {milliseconds(single['at_model_ms_p50'])}; model: {single['model_first_chunk_delay_s']} s to its "
          f"first chunk; {single['tool_round_runs']} with a tool round left out, {len(single['failed'])} failed{' (' + ', '.join(single['failed']) + ')' if single['failed'] else ''})", flush=True)
    levels = []
    for count in args.people or [20]:
        level = run_level(args, stack, tokens, count)
        levels.append(level)
        print(render(level), flush=True)
    if args.json:
        args.json.write_text(json.dumps({"single": single, "levels": levels}, indent=2))


if __name__ == "__main__":
    main()
