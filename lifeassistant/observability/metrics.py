"""Prometheus metrics of the replies, tools, skills and cache, and their recording helpers.

Every label value is bounded: models, skills, tools, statuses and error codes, never a
user, a conversation or text. Nothing is recorded per streamed chunk: a reply records at
its start, at its first token, at each tool call and at its end.

Under gunicorn (several worker processes) and Celery's prefork pool, prometheus_client's
multiprocess mode keeps each process's values in files under ``PROMETHEUS_MULTIPROC_DIR``
(set in the environment before the process starts); the directory is wiped when the
server or the worker starts (``wipe_multiprocess_directory``) and a process that exits
is marked dead (``mark_process_dead``), so its live gauges stop counting. Without the
variable, each process exports its own values (``runserver``, the embedded defaults).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import AsyncIterator, Container, Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from django.utils import timezone

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

MULTIPROC_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"

# The GenAI semantic conventions' advisory bucket boundaries: time to first token
# (gen_ai.server.time_to_first_token) and a whole operation (gen_ai.client.operation.duration).
FIRST_TOKEN_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)

NO_SKILL = "none"
UNKNOWN_TOOL = "unknown"

REPLIES = Counter(
    "lifeassistant_replies",
    "Replies that ended, by status (done, failed, cancelled), model and failure code.",
    ["status", "model", "error_code"],
)
FIRST_TOKEN = Histogram(
    "lifeassistant_reply_first_token_seconds",
    "From the reply's start in the worker to its first streamed text.",
    ["model"],
    buckets=FIRST_TOKEN_BUCKETS,
)
DURATION = Histogram(
    "lifeassistant_reply_duration_seconds",
    "From the reply's start in the worker to its end.",
    ["model"],
    buckets=DURATION_BUCKETS,
)
IN_FLIGHT = Gauge(
    "lifeassistant_replies_in_flight", "Replies running now.", multiprocess_mode="livesum"
)
SSE_STREAMS = Gauge(
    "lifeassistant_sse_streams_open", "Server-Sent Event streams open now.", multiprocess_mode="livesum"
)
TOKENS = Counter(
    "lifeassistant_model_tokens",
    "Model tokens by direction (input, output), model and the reply's first active skill.",
    ["direction", "model", "skill"],
)
COST = Counter("lifeassistant_model_cost", "Model cost in US dollars, by model.", ["model"])
TOOL_CALLS = Counter(
    "lifeassistant_tool_calls",
    "Tool calls by tool, the reply's first active skill and outcome "
    "(ok, error, proposed; confirmed, rejected, expired for proposals).",
    ["tool", "skill", "outcome"],
)
SKILL_ACTIVATIONS = Counter(
    "lifeassistant_skill_activations",
    "Skills active for a message, by why (trigger, inertia, explicit, router, combined, fallback).",
    ["skill", "reason"],
)
CACHE_FAULTS = Counter("lifeassistant_cache_faults", "Operations that went on without the shared cache.")


# ------------------------------------------------------------------------- recording


def primary_skill(skills: Iterable[str]) -> str:
    """The label a reply's skills go under: its first active skill (the highest priority)."""
    return next(iter(skills), "") or NO_SKILL


def tool_label(name: str, known: Container[str]) -> str:
    """A tool's label: its name when registered; the model may invent any other."""
    return name if name in known else UNKNOWN_TOOL


def record_reply_finished(status: str, model: str, error_code: str = "", duration: float | None = None) -> None:
    """A reply ended: ``status`` done, failed or cancelled; ``duration`` in seconds when it ran."""
    REPLIES.labels(status, model or "", error_code or "").inc()
    if duration is not None and duration >= 0:
        DURATION.labels(model or "").observe(duration)


def seconds_since(started: datetime | None) -> float | None:
    """Seconds from a stored start (a reply's ``started_at``) to now; None when it never started."""
    return None if started is None else (timezone.now() - started).total_seconds()


def record_first_token(model: str, seconds: float) -> None:
    FIRST_TOKEN.labels(model or "").observe(seconds)


def record_reply_usage(
    model: str, skills: Iterable[str], input_tokens: int, output_tokens: int, cost: float | None
) -> None:
    """A reply's usage (all its model rounds), once at its end, under its first active skill."""
    record_tokens(model, primary_skill(skills), input_tokens, output_tokens, cost)


def record_tokens(model: str, skill: str, input_tokens: int, output_tokens: int, cost: float | None) -> None:
    if input_tokens:
        TOKENS.labels("input", model, skill).inc(input_tokens)
    if output_tokens:
        TOKENS.labels("output", model, skill).inc(output_tokens)
    if cost:
        COST.labels(model).inc(cost)


def record_tool_call(tool: str, skill: str, outcome: str) -> None:
    TOOL_CALLS.labels(tool, skill, outcome).inc()


def record_skill_activations(skills: Iterable[str], reason: str) -> None:
    for skill in skills:
        SKILL_ACTIVATIONS.labels(skill, reason or "").inc()


def record_cache_fault() -> None:
    CACHE_FAULTS.inc()


def reply_started() -> None:
    IN_FLIGHT.inc()


def reply_ended() -> None:
    IN_FLIGHT.dec()


@contextmanager
def reply_in_flight() -> Iterator[None]:
    """``reply_started`` / ``reply_ended`` around a block."""
    reply_started()
    try:
        yield
    finally:
        reply_ended()


@contextmanager
def sse_stream_open() -> Iterator[None]:
    SSE_STREAMS.inc()
    try:
        yield
    finally:
        SSE_STREAMS.dec()


async def counted_stream(stream: AsyncIterator[str]) -> AsyncIterator[str]:
    """An SSE response's events, counted in ``lifeassistant_sse_streams_open`` while it is open."""
    SSE_STREAMS.inc()
    try:
        async for event in stream:
            yield event
    finally:
        SSE_STREAMS.dec()


class FirstToken:
    """Times a reply's first streamed text: ``seen()`` is called for each piece of text and
    records once; after that it is one attribute test (well under 5 µs per chunk)."""

    __slots__ = ("model", "started", "done")

    def __init__(self, model: str, started: float | None = None) -> None:
        self.model = model
        self.started = time.monotonic() if started is None else started
        self.done = False

    def seen(self) -> None:
        if self.done:
            return
        self.done = True
        record_first_token(self.model, time.monotonic() - self.started)


# ------------------------------------------------------------------- multiprocess mode


def multiprocess_directory() -> Path | None:
    value = os.environ.get(MULTIPROC_VARIABLE, "").strip()
    return Path(value) if value else None


def wipe_multiprocess_directory() -> None:
    """Empty ``PROMETHEUS_MULTIPROC_DIR`` (create it if missing): values of a previous run
    would otherwise be summed with this one's. Call once, in the parent, before any fork."""
    directory = multiprocess_directory()
    if directory is None:
        return
    if directory.exists():
        for entry in directory.iterdir():
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
    directory.mkdir(parents=True, exist_ok=True)


def mark_process_dead(pid: int) -> None:
    """A child process exited: its live gauges stop counting (its counters stay summed)."""
    if multiprocess_directory() is None:
        return
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(pid)


# ----------------------------------------------------------------------- exposition


class QueueDepthCollector(Collector):
    """``lifeassistant_celery_queue_depth{queue}``: tasks waiting in the broker, read at scrape
    time (Redis brokers: the queue is a list). Absent on the embedded defaults."""

    def __init__(self, broker_url: str, queues: tuple[str, ...]) -> None:
        self.broker_url = broker_url
        self.queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        if not self.broker_url.startswith(("redis://", "rediss://")):
            return
        import redis

        family = GaugeMetricFamily(
            "lifeassistant_celery_queue_depth", "Tasks waiting in the Celery broker's queue.", labels=["queue"]
        )
        try:
            client = redis.Redis.from_url(self.broker_url, socket_timeout=1, socket_connect_timeout=1)
            try:
                for queue in self.queues:
                    family.add_metric([queue], float(client.llen(queue)))
            finally:
                client.close()
        except (redis.RedisError, OSError) as exc:
            logger.warning("metrics: broker queue depth unavailable: %s: %s", type(exc).__name__, exc)
            return
        yield family


def scrape_registry(extra: Iterable[Collector] = ()) -> CollectorRegistry:
    """What a scrape exports: every process's values under multiprocess mode, else this one's."""
    from prometheus_client import REGISTRY

    directory = multiprocess_directory()
    if directory is None:
        registry = REGISTRY
        extras = list(extra)
        if not extras:
            return registry
        combined = CollectorRegistry(auto_describe=False)
        combined.register(_Merged(registry))
    else:
        from prometheus_client import multiprocess

        combined = CollectorRegistry()
        multiprocess.MultiProcessCollector(combined, path=str(directory))
        extras = list(extra)
    for collector in extras:
        combined.register(collector)
    return combined


class _Merged(Collector):
    """The process's default registry inside another (to add scrape-time collectors)."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.registry = registry

    def collect(self) -> Iterable[Metric]:
        return self.registry.collect()


def start_worker_metrics_server(port: int, address: str = "") -> None:
    """The Celery worker's metrics (all its pool processes) on ``port``, from its main process."""
    from prometheus_client import start_http_server

    start_http_server(port, addr=address, registry=scrape_registry())
    logger.info("worker metrics on port %s", port)
