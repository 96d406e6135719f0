from __future__ import annotations

import litellm
import pytest

from chat import llm


def test_the_offline_model_says_it_is_offline_and_shows_the_pipeline():
    response = llm.completion(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "Gastei 50 reais"}],
        tools=[{"type": "function", "function": {"name": "create_expense", "parameters": {"type": "object"}}}],
        temperature=0.3,
        note=llm.PipelineNote(skills=("finance",), reason="trigger"),
    )
    text = response.choices[0].message.content
    assert "No language model is configured" in text
    assert "Skills: finance (trigger)" in text
    assert "Tools offered: create_expense" in text
    assert "Temperature: 0.3" in text
    assert response.usage.prompt_tokens > 0


def test_the_offline_model_is_deterministic():
    messages = [{"role": "user", "content": "oi"}]
    assert llm.completion(messages).choices[0].message.content == llm.completion(messages).choices[0].message.content


def test_it_retries_transient_errors_then_fails_clearly(settings, monkeypatch):
    settings.LLM_RETRY_BACKOFF_SECONDS = 0
    settings.LLM_MAX_RETRIES = 2
    calls = []

    def outage(**kwargs):
        calls.append(kwargs)
        raise litellm.exceptions.ServiceUnavailableError("down", llm_provider="openai", model="x")

    monkeypatch.setattr(litellm, "completion", outage)
    with pytest.raises(llm.LLMError, match="unavailable .* after 3 attempts"):
        llm.completion([{"role": "user", "content": "oi"}])
    assert len(calls) == 3


def test_it_does_not_retry_a_refused_request(settings, monkeypatch):
    calls = []

    def refused(**kwargs):
        calls.append(kwargs)
        raise litellm.exceptions.BadRequestError("bad", llm_provider="openai", model="x")

    monkeypatch.setattr(litellm, "completion", refused)
    with pytest.raises(llm.LLMError, match="refused"):
        llm.completion([{"role": "user", "content": "oi"}])
    assert len(calls) == 1


def test_unknown_models_use_the_configured_context_window(settings):
    settings.LLM_MODEL = "openai/some-private-model"
    settings.LLM_MAX_INPUT_TOKENS = 32_000
    assert llm.max_input_tokens() == 32_000
    settings.LLM_MODEL = "gpt-4o-mini"
    assert llm.max_input_tokens() == 128_000


def test_it_counts_tool_definitions_in_tokens():
    messages = [{"role": "system", "content": "hello"}]
    tool = {"type": "function", "function": {"name": "x", "description": "a long description " * 10, "parameters": {"type": "object", "properties": {}}}}
    assert llm.count_tokens(messages=messages, tools=[tool]) > llm.count_tokens(messages=messages) + 20


def test_the_task_time_limit_is_not_retried_as_a_connection_error(settings, monkeypatch):
    from celery.exceptions import SoftTimeLimitExceeded

    settings.LLM_RETRY_BACKOFF_SECONDS = 0
    calls = []

    def interrupted(**kwargs):
        calls.append(kwargs)
        try:
            raise SoftTimeLimitExceeded()
        except SoftTimeLimitExceeded as limit:
            raise litellm.exceptions.APIConnectionError("wrapped", llm_provider="openai", model="x") from limit

    monkeypatch.setattr(litellm, "completion", interrupted)
    with pytest.raises(SoftTimeLimitExceeded):
        llm.completion([{"role": "user", "content": "oi"}])
    assert len(calls) == 1
