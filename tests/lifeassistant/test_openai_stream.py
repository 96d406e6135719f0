"""Which streams the lean reader takes, and how it reads them (lifeassistant/openai_stream.py)."""

from __future__ import annotations

import threading

import pytest

from lifeassistant import llm, openai_stream
from tests.scripted_llm import RecordedStream

HISTORY = [{"role": "user", "content": "oi"}]


@pytest.fixture(autouse=True)
def loaded() -> None:
    llm.litellm_module()


def test_an_openai_compatible_server_at_the_configured_base_is_read_lean() -> None:
    endpoint = openai_stream.endpoint_for("openai/qwen2.5", "http://10.0.0.5:8000/v1/", "sk-local")

    assert endpoint is not None
    assert endpoint.url == "http://10.0.0.5:8000/v1/chat/completions"
    assert endpoint.model == "qwen2.5"
    assert endpoint.headers["Authorization"] == "Bearer sk-local"


def test_openai_compatible_providers_are_read_lean_at_the_base_litellm_knows() -> None:
    groq = openai_stream.endpoint_for("groq/llama-3.1-8b-instant", "", "gsk-test")
    openrouter = openai_stream.endpoint_for("openrouter/openai/gpt-4o-mini", "", "or-test")

    assert groq is not None and groq.url == "https://api.groq.com/openai/v1/chat/completions"
    assert openrouter is not None and openrouter.url == "https://openrouter.ai/api/v1/chat/completions"
    assert openrouter.model == "openai/gpt-4o-mini"


@pytest.mark.parametrize(
    "model", ["anthropic/claude-3-5-haiku-latest", "azure/gpt-4o", "ollama/llama3", "o3-mini", "gpt-5-mini", "offline/x"]
)
def test_other_providers_and_models_litellm_rewrites_the_request_for_stay_on_litellm(model) -> None:
    assert openai_stream.endpoint_for(model, "", "key") is None


def test_the_setting_turns_the_lean_reader_off(settings) -> None:
    settings.LLM_MODEL, settings.LLM_API_BASE = "openai/qwen2.5", "http://10.0.0.5:8000/v1"
    assert llm._lean_endpoint() is not None
    settings.LLM_LEAN_STREAMING = False
    assert llm._lean_endpoint() is None


def test_a_process_that_answers_replies_makes_its_client_before_the_first_reply(settings, monkeypatch) -> None:
    """Made by the first replies of a burst, its TLS context held the others behind a lock."""
    settings.LLM_MODEL, settings.LLM_API_BASE = "openai/qwen2.5", "http://10.0.0.5:8000/v1"
    monkeypatch.setattr(openai_stream, "_client", None)

    llm.load_for_replies()

    assert openai_stream._client is not None


def test_every_thread_of_a_process_streams_through_one_client_with_room_for_hundreds_of_streams() -> None:
    clients = []
    threads = [threading.Thread(target=lambda: clients.append(openai_stream.shared_client())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len({id(client) for client in clients}) == 1
    shards = clients[0]._transport._pool.shards  # httpcore's pools: how many connections they may open
    assert sum(shard._max_connections for shard in shards) >= 500


def test_the_request_names_the_model_as_its_provider_knows_it_and_asks_for_the_usage(scripted_llm) -> None:
    scripted_llm.reply_text("Olá!")
    tools = [{"type": "function", "function": {"name": "get_finance_summary", "parameters": {"type": "object"}}}]

    stream = llm.stream_completion(HISTORY, tools=tools, temperature=0.2)
    assert "".join(stream) == "Olá!"

    sent = scripted_llm.requests[0]
    assert sent["model"] == "scripted"
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    assert sent["tools"] == tools and sent["temperature"] == 0.2
    assert sent["messages"] == HISTORY


def test_a_stream_that_ends_without_its_end_marker_or_a_finish_reason_was_cut(scripted_llm) -> None:
    """A server that ends the body by closing the connection makes a cut look like an end."""
    chunk = b'data: {"choices":[{"index":0,"delta":{"content":"Vou "},"finish_reason":null}]}\n\n'
    scripted_llm.replay(RecordedStream((chunk,)))

    stream = llm.stream_completion(HISTORY)
    with pytest.raises(llm.LLMError) as failed:
        list(stream)

    assert failed.value.code == "model_interrupted"
    assert stream.result().text == "Vou "

