"""GET /metrics after real replies: every series the operator's rules read, with the right counts."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

Series = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Client | None = None, **headers: str) -> Series:
    response = (client or Client()).get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    series: Series = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for sample in family.samples:
            series[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return series


def value(series: Series, name: str, **labels: str) -> float:
    return series.get((name, tuple(sorted(labels.items()))), 0.0)


def grew(before: Series, after: Series, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


@pytest.fixture(autouse=True)
def skills(shipped_skills: None) -> None:
    """The shipped skills: 'gastei ... reais' activates finance and its tools."""


@pytest.fixture
def say(api: APIClient, django_capture_on_commit_callbacks: Any) -> Any:
    conversation = api.post("/api/v1/conversations/", {"title": "Dia a dia"}, format="json").json()["id"]

    def _say(text: str) -> dict[str, Any]:
        with django_capture_on_commit_callbacks(execute=True):
            response = api.post(f"/api/v1/conversations/{conversation}/messages/", {"content": text}, format="json")
        assert response.status_code == 202, response.content
        return api.get(f"/api/v1/messages/{response.json()['assistant_message']['id']}/").json()

    return _say


def test_a_conversation_shows_in_every_series(scripted_llm: Any, say: Any) -> None:
    model = "openai/scripted"
    before = scrape()

    scripted_llm.reply_tool_call("get_finance_summary", {}, prompt_tokens=100, completion_tokens=7)
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"}, prompt_tokens=120, completion_tokens=9)
    scripted_llm.reply_text("Quer que eu registre R$ 50,00 no mercado?", prompt_tokens=140, completion_tokens=11)
    assert say("Gastei 50 reais no mercado")["status"] == "done"
    scripted_llm.reply_text("Pronto.", prompt_tokens=50, completion_tokens=2)
    assert say("sim")["status"] == "done"
    scripted_llm.reply_error(400, "bad request")
    assert say("Gastei 20 reais de uber")["status"] == "failed"

    after = scrape()
    assert grew(before, after, "lifeassistant_replies_total", status="done", model=model, error_code="") == 2
    assert grew(before, after, "lifeassistant_replies_total", status="failed", model=model, error_code="model_refused") == 1
    assert grew(before, after, "lifeassistant_reply_duration_seconds_count", model=model) == 3
    assert grew(before, after, "lifeassistant_reply_first_token_seconds_count", model=model) == 2
    assert grew(before, after, "lifeassistant_model_tokens_total", direction="input", model=model, skill="finance") == 100 + 120 + 140 + 50
    assert grew(before, after, "lifeassistant_model_tokens_total", direction="output", model=model, skill="finance") == 7 + 9 + 11 + 2
    assert grew(before, after, "lifeassistant_tool_calls_total", tool="get_finance_summary", skill="finance", outcome="ok") == 1
    assert grew(before, after, "lifeassistant_tool_calls_total", tool="create_expense", skill="finance", outcome="proposed") == 1
    assert grew(before, after, "lifeassistant_tool_calls_total", tool="create_expense", skill="finance", outcome="confirmed") == 1
    assert grew(before, after, "lifeassistant_skill_activations_total", skill="finance", reason="trigger") == 1
    activations = sum(grew(before, after, "lifeassistant_skill_activations_total", skill="finance", reason=reason) for reason in ("trigger", "inertia", "combined"))
    assert activations == 3  # "sim" keeps finance by inertia; the next expense combines both
    assert value(after, "lifeassistant_replies_in_flight") == 0
    assert value(after, "lifeassistant_sse_streams_open") == 0
    assert ("lifeassistant_cache_faults_total", ()) in after
    # The HTTP side (django-prometheus): the POSTs above, by view.
    assert grew(before, after, "django_http_responses_total_by_status_total", status="202") == 3


def test_a_rejected_proposal_is_counted(scripted_llm: Any, say: Any) -> None:
    before = scrape()
    scripted_llm.reply_tool_call("create_expense", {"amount": 9, "description": "pão"})
    scripted_llm.reply_text("Registro?")
    say("Gastei 9 reais de pão")
    scripted_llm.reply_text("Tudo bem, não registrei.")
    say("não")

    after = scrape()
    assert grew(before, after, "lifeassistant_tool_calls_total", tool="create_expense", skill="finance", outcome="rejected") == 1


def test_a_tool_name_the_model_invented_never_becomes_a_label(scripted_llm: Any, say: Any) -> None:
    before = scrape()
    scripted_llm.reply_tool_call("steal_everything", {})
    scripted_llm.reply_text("Não posso.")
    say("Gastei 5 reais")

    after = scrape()
    assert not any(name == "lifeassistant_tool_calls_total" and ("tool", "steal_everything") in labels for name, labels in after)


def test_the_token_is_required_when_set(settings: Any) -> None:
    settings.METRICS_TOKEN = "s3cret-metrics"

    assert Client().get("/metrics").status_code == 401
    assert Client().get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert "lifeassistant_replies_in_flight" in {name for name, _ in scrape(Authorization="Bearer s3cret-metrics")}


def test_without_a_token_only_loopback_is_answered() -> None:
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 403
    # A proxy on this host makes every client look local: a forwarded request is refused.
    assert Client().get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
    assert Client(REMOTE_ADDR="::1").get("/metrics").status_code == 200


def test_an_operation_without_the_shared_cache_counts_a_fault(user: Any) -> None:
    from django.test import override_settings

    from lifeassistant.env import env_cache
    from tests.lifeassistant.test_cache_down import closed_port

    before = scrape()
    with override_settings(CACHES={"default": env_cache("NO_SUCH_VARIABLE", f"redis://127.0.0.1:{closed_port()}/0")}):
        signed_in = APIClient().post("/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123"}, format="json")

    assert signed_in.status_code == 200
    assert grew(before, scrape(), "lifeassistant_cache_faults_total") >= 1


def test_an_open_event_stream_is_counted_until_it_ends() -> None:
    import asyncio

    from lifeassistant.observability.metrics import SSE_STREAMS, counted_stream

    async def events() -> Any:
        yield "event: delta"
        yield "event: done"

    async def read() -> list[float]:
        seen = []
        async for _event in counted_stream(events()):
            seen.append(SSE_STREAMS._value.get())
        return seen

    before = SSE_STREAMS._value.get()
    during = asyncio.run(read())

    assert during == [before + 1, before + 1]
    assert SSE_STREAMS._value.get() == before
