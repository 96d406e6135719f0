"""OpenTelemetry traces, off unless the standard variables configure an exporter.

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, or
``OTEL_TRACES_EXPORTER``) is set and ``OTEL_SDK_DISABLED`` is not true; the SDK reads the
rest itself (``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, headers, sampler ...).
Off, nothing of OpenTelemetry is imported and every helper here is a no-op.

Two steps, because of forking servers:

- ``instrument()`` patches Django (the request span), Celery (the context travels in the
  task's headers from the web process that sends it to the worker that runs it),
  psycopg, Redis and httpx (the model provider's HTTP calls). It runs as the apps load,
  before Django builds its middleware chain; it starts no thread.
- ``start_sdk()`` builds the tracer provider and its exporter (a background thread), in
  each process that serves: after the fork under gunicorn (``deploy/gunicorn.conf.py``)
  and in Celery's pool processes (``lifeassistant.celery``), at once elsewhere.

Model rounds are spans ``chat {model}`` and tool calls ``execute_tool {name}`` with the
GenAI semantic conventions; message text is recorded only with ``OTEL_CAPTURE_CONTENT=true``.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from lifeassistant.completions import Completion

T = TypeVar("T")

logger = logging.getLogger(__name__)

_ENABLING = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER")
# Set by a forking server's configuration (deploy/gunicorn.conf.py) before it loads the app:
# the SDK then starts in each worker after the fork, not in the parent.
DEFER_VARIABLE = "LIFEASSISTANT_TRACING_AFTER_FORK"

_state: dict[str, Any] = {"on": None, "instrumented": False, "sdk_pid": None}
_lock = threading.Lock()


def enabled() -> bool:
    """Whether tracing is configured (read once per process)."""
    on = _state["on"]
    if on is None:
        disabled = os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"
        exporter = os.environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
        configured = any(os.environ.get(name, "").strip() for name in _ENABLING) and exporter != "none"
        on = _state["on"] = configured and not disabled
    return bool(on)


def capture_content() -> bool:
    return os.environ.get("OTEL_CAPTURE_CONTENT", "").strip().lower() == "true"


def instrument() -> None:
    """Patch the libraries (idempotent). Called as the apps load; a no-op when off."""
    if not enabled():
        return
    with _lock:
        if _state["instrumented"]:
            return
        from opentelemetry.instrumentation.celery import CeleryInstrumentor
        from opentelemetry.instrumentation.django import DjangoInstrumentor
        from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        # The health and metrics probes would be most of the traces.
        DjangoInstrumentor().instrument(excluded_urls="livez,readyz,healthz,metrics")
        CeleryInstrumentor().instrument()
        PsycopgInstrumentor().instrument(enable_commenter=False)
        RedisInstrumentor().instrument()
        HTTPXClientInstrumentor().instrument()
        _state["instrumented"] = True


def start_sdk_unless_forking() -> None:
    """Start the SDK now, unless a forking server will start it in each child."""
    if os.environ.get(DEFER_VARIABLE) != "1":
        start_sdk()


def start_sdk(exporter: Any = None) -> None:
    """The tracer provider with a batching exporter, once per process (a no-op when off).

    ``exporter`` replaces the OTLP one (tests pass an in-memory exporter)."""
    if not enabled() and exporter is None:
        return
    with _lock:
        if _state["sdk_pid"] == os.getpid():
            return
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

        provider = TracerProvider(resource=Resource.create({"service.name": _service_name()}))
        if exporter is None:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        else:
            provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        _state["sdk_pid"] = os.getpid()


def _service_name() -> str:
    return os.environ.get("OTEL_SERVICE_NAME", "").strip() or "lifeassistant"


def current_trace_id() -> str | None:
    """The current trace's id in hex (for log lines), or None when off or outside a span."""
    if not _state["instrumented"] and _state["sdk_pid"] is None:
        return None
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None


def _tracer() -> Any:
    from opentelemetry import trace

    return trace.get_tracer("lifeassistant")


def _active() -> bool:
    return _state["sdk_pid"] is not None


def provider_name(model: str) -> str:
    """``gen_ai.provider.name`` from a litellm model string ("anthropic/claude-…" → "anthropic")."""
    if "/" in model:
        return model.split("/", 1)[0]
    return "openai"


# ------------------------------------------------------------------- GenAI spans


class TracedStream:
    """A model round's stream inside its ``chat {model}`` span.

    The span opens before the stream does (so the provider's HTTP span is its child) and
    ends with the usage and finish reason of ``result()``.
    Iterating adds one generator hop per chunk and records nothing per chunk.
    """

    def __init__(self, open_stream: Callable[[], Any], model: str, messages: list[dict[str, Any]], temperature: float | None) -> None:
        from opentelemetry import trace
        from opentelemetry.trace import SpanKind

        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": provider_name(model),
            "gen_ai.request.model": model,
        }
        if temperature is not None:
            attributes["gen_ai.request.temperature"] = temperature
        if capture_content():
            attributes["gen_ai.input.messages"] = json.dumps(messages, ensure_ascii=False, default=str)
        self._span = _tracer().start_span(f"chat {model}", kind=SpanKind.CLIENT, attributes=attributes)
        self._ended = False
        try:
            with trace.use_span(self._span, end_on_exit=False, record_exception=True):
                self._stream = open_stream()
        except BaseException as exc:
            self._fail(exc)
            raise

    def __iter__(self) -> Iterator[str]:
        try:
            yield from self._stream
        except BaseException as exc:
            self._fail(exc)
            raise

    def close(self) -> None:
        self._stream.close()

    def result(self) -> Completion:
        completion: Completion = self._stream.result()
        self._finish(completion)
        return completion

    def _finish(self, completion: Completion) -> None:
        if self._ended:
            return
        span = self._span
        span.set_attribute("gen_ai.usage.input_tokens", completion.prompt_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", completion.completion_tokens)
        if completion.finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [completion.finish_reason])
        if completion.model:
            span.set_attribute("gen_ai.response.model", completion.model)
        if capture_content():
            span.set_attribute(
                "gen_ai.output.messages",
                json.dumps([{"role": "assistant", "content": completion.text}], ensure_ascii=False, default=str),
            )
        span.end()
        self._ended = True

    def _fail(self, exc: BaseException) -> None:
        if self._ended:
            return
        from opentelemetry.trace import Status, StatusCode

        self._span.set_attribute("error.type", type(exc).__name__)
        self._span.set_status(Status(StatusCode.ERROR))
        self._span.end()
        self._ended = True


def model_round(open_stream: Callable[[], Any], *, model: str, messages: list[dict[str, Any]], temperature: float | None = None) -> Any:
    """``open_stream()`` (a model round's stream), inside a ``chat {model}`` span when tracing is on."""
    if not _active():
        return open_stream()
    return TracedStream(open_stream, model, messages, temperature)


def tool_call(name: str, call_id: str, arguments: str, run: Callable[[], T]) -> T:
    """``run()`` (one tool call, returning something with a ``status``: "ok", "error" or
    "proposed") inside an ``execute_tool {name}`` span when tracing is on."""
    if not _active():
        return run()
    from opentelemetry.trace import SpanKind, Status, StatusCode

    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
    }
    if capture_content():
        attributes["gen_ai.tool.call.arguments"] = arguments
    with _tracer().start_as_current_span(f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes) as span:
        result = run()
        status = str(getattr(result, "status", ""))
        span.set_attribute("lifeassistant.tool.outcome", status)
        if status == "error":
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        return result
