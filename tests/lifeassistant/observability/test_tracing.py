"""One trace per reply: the POST, the Celery task, each model round and tool call, without text."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from rest_framework.test import APIClient

from lifeassistant.observability import tracing

# Real commits: the reply is queued from inside the request, as in production.
pytestmark = pytest.mark.django_db(transaction=True)

MESSAGE = "Gastei 50 reais no mercado com a Joana"
REPLY = "Você gastou R$ 50,00 no mercado hoje."
EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """Tracing on, as OTEL_EXPORTER_OTLP_ENDPOINT would turn it on, into memory."""
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor

    exporter = EXPORTER  # OpenTelemetry sets a process's tracer provider once: one exporter for all
    exporter.clear()
    monkeypatch.setitem(tracing._state, "on", True)
    tracing.instrument()
    tracing.start_sdk(exporter)
    try:
        yield exporter
    finally:
        for instrumentor in (DjangoInstrumentor, CeleryInstrumentor, PsycopgInstrumentor, RedisInstrumentor, HTTPXClientInstrumentor):
            instrumentor().uninstrument()
        tracing._state.update(instrumented=False, sdk_pid=None)


@pytest.fixture
def reply_with_a_tool_call(scripted_llm: Any, shipped_skills: None, api: APIClient, spans: InMemorySpanExporter) -> list[ReadableSpan]:
    conversation = api.post("/api/v1/conversations/", {"title": "Dia a dia"}, format="json").json()["id"]
    spans.clear()
    scripted_llm.reply_tool_call("get_finance_summary", {}, prompt_tokens=100, completion_tokens=7)
    scripted_llm.reply_text(REPLY, prompt_tokens=140, completion_tokens=11)

    response = api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": MESSAGE}, format="json")

    assert response.status_code == 202
    assert api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json()["status"] == "done"
    return [span for span in spans.get_finished_spans()]


def named(spans: list[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [span for span in spans if span.name.startswith(prefix)]


def ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    by_id = {each.context.span_id: each for each in spans}
    names = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def test_the_post_the_task_the_model_rounds_and_the_tool_call_are_one_trace(reply_with_a_tool_call: list[ReadableSpan]) -> None:
    spans = reply_with_a_tool_call
    [post] = [span for span in spans if span.name.startswith("POST") and "messages" in span.name]
    [task] = named(spans, "run/chat.generate_reply")
    rounds = named(spans, "chat openai/scripted")
    [tool] = named(spans, "execute_tool get_finance_summary")

    assert len(rounds) == 2
    trace_ids = {post.context.trace_id, task.context.trace_id, tool.context.trace_id, *(r.context.trace_id for r in rounds)}
    assert len(trace_ids) == 1
    assert post.name in ancestors(task, spans)
    for child in [*rounds, tool]:
        assert task.name in ancestors(child, spans)
    # The provider's HTTP call is a child of its model round.
    http = [span for span in spans if span.name == "POST"]
    assert http and all(ancestors(span, spans)[0] == "chat openai/scripted" for span in http)


def test_model_rounds_carry_the_genai_attributes(reply_with_a_tool_call: list[ReadableSpan]) -> None:
    first, second = sorted(named(reply_with_a_tool_call, "chat "), key=lambda span: span.start_time or 0)

    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.provider.name"] == "openai"
    assert "gen_ai.system" not in first.attributes
    assert first.attributes["gen_ai.request.model"] == "openai/scripted"
    assert (first.attributes["gen_ai.usage.input_tokens"], first.attributes["gen_ai.usage.output_tokens"]) == (100, 7)
    assert tuple(first.attributes["gen_ai.response.finish_reasons"]) == ("tool_calls",)
    assert (second.attributes["gen_ai.usage.input_tokens"], second.attributes["gen_ai.usage.output_tokens"]) == (140, 11)
    assert tuple(second.attributes["gen_ai.response.finish_reasons"]) == ("stop",)
    [tool] = named(reply_with_a_tool_call, "execute_tool")
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "get_finance_summary"


def test_no_span_holds_the_message_or_the_reply_text(reply_with_a_tool_call: list[ReadableSpan]) -> None:
    values = " ".join(str(value) for span in reply_with_a_tool_call for value in (span.attributes or {}).values())

    assert "mercado" not in values
    assert "Joana" not in values
    assert "gastou" not in values


def test_with_content_capture_on_the_model_rounds_hold_the_messages(
    monkeypatch: pytest.MonkeyPatch, scripted_llm: Any, shipped_skills: None, api: APIClient, spans: InMemorySpanExporter
) -> None:
    monkeypatch.setenv("OTEL_CAPTURE_CONTENT", "true")
    conversation = api.post("/api/v1/conversations/", {"title": "x"}, format="json").json()["id"]
    scripted_llm.reply_text(REPLY)

    api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": MESSAGE}, format="json")

    [round_] = named(list(spans.get_finished_spans()), "chat ")
    assert "Joana" in str(round_.attributes["gen_ai.input.messages"])
    assert "gastou" in str(round_.attributes["gen_ai.output.messages"])


def test_tracing_is_off_without_the_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setitem(tracing._state, "on", None)
    assert not tracing.enabled()

    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setitem(tracing._state, "on", None)
    assert tracing.enabled()
