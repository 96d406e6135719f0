from __future__ import annotations

import contextvars
import functools
import gc

import litellm
import pytest

from lifeassistant import llm, tokens


def test_the_offline_model_says_it_is_offline_and_shows_the_pipeline():
    response = llm.completion(
        [{"role": "system", "content": "s"}, {"role": "user", "content": "Como organizo meu orçamento?"}],
        tools=[{"type": "function", "function": {"name": "create_expense", "parameters": {"type": "object"}}}],
        temperature=0.3,
        note=llm.PipelineNote(skills=("finance",), reason="trigger"),
    )
    text = response.text
    assert "No language model is configured" in text
    assert "Skills: finance (trigger)" in text
    assert "Tools offered: create_expense" in text
    assert "Temperature: 0.3" in text
    assert response.prompt_tokens > 0 and response.usage_reported
    assert response.cost == 0.0


def test_the_offline_model_is_deterministic():
    messages = [{"role": "user", "content": "oi"}]
    assert llm.completion(messages).text == llm.completion(messages).text


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
    assert tokens.count_tokens(messages=messages, tools=[tool]) > tokens.count_tokens(messages=messages) + 20


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


def test_the_sdk_sends_a_plain_request_exactly_as_its_type_walk_would():
    import openai
    from openai._utils import transform
    from openai.resources.chat.completions import completions
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming

    llm.litellm_module()
    body = {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Você é um assistente."},
            {"role": "user", "content": "Gastei 50 reais"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "create_expense", "arguments": "{\"amount\": 50}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "{\"ok\": true}"},
        ],
        "tools": [{"type": "function", "function": {
            "name": "create_expense", "description": "d",
            "parameters": {"type": "object", "properties": {"amount": {"type": "number"}}, "required": ["amount"]},
        }}],
        "temperature": 0.3,
        "metadata": {"skills": "finance"},
        "max_tokens": openai.omit,
        "top_p": openai.NOT_GIVEN,
    }
    assert completions.maybe_transform(body, CompletionCreateParamsNonStreaming) == transform(
        body, CompletionCreateParamsNonStreaming
    )
    # Anything but plain JSON still takes the SDK's walk (here a tuple becomes a list).
    odd = {**body, "stop": ("a", "b")}
    assert completions.maybe_transform(odd, CompletionCreateParamsNonStreaming)["stop"] == ["a", "b"]


def test_threads_asking_for_litellm_at_once_all_get_it_loaded_once(monkeypatch) -> None:
    """The embedded defaults run replies in threads: the first import must be serialised."""
    import threading
    import time

    loads = []

    def slow_load():
        loads.append(threading.get_ident())
        time.sleep(0.05)  # a second thread arrives while the first still imports
        return litellm

    monkeypatch.setattr(llm, "_litellm_loaded", None)
    monkeypatch.setattr(llm, "_load_litellm", slow_load)
    got = []
    threads = [threading.Thread(target=lambda: got.append(llm.litellm_module())) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(loads) == 1
    assert got == [litellm] * 4


def test_a_stream_the_garbage_collector_finalizes_sets_no_context_variable(settings, monkeypatch) -> None:
    """litellm's stream finalizer set two context variables from inside a garbage
    collection; on Python 3.11 a collection can start inside another ``ContextVar.set``,
    and the nested set then freed the mapping that call was walking (a segmentation
    fault in the PostgreSQL suite, the decimal context reading back as None)."""
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's own stream wrapper is the one finalized
    llm.litellm_module()
    from litellm._logging import session_id_var, trace_id_var

    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="um dois três"))

    def abandon_a_stream_in_a_cycle() -> None:
        stream = llm.stream_completion([{"role": "user", "content": "Conte até três"}])
        next(iter(stream))  # the user stops the reply after its first words
        stream.close()
        stream._wrapper.itself = stream._wrapper  # a cycle only the collector frees

    def collect_in_a_fresh_context() -> set[object]:
        gc.collect()
        return set(contextvars.copy_context())

    contextvars.Context().run(abandon_a_stream_in_a_cycle)
    touched = contextvars.Context().run(collect_in_a_fresh_context)

    assert trace_id_var not in touched and session_id_var not in touched


@pytest.mark.parametrize("lean", [True, False], ids=["lean", "litellm"])
def test_a_streamed_call_counts_no_tokens_when_the_provider_reports_its_usage(scripted_llm, settings, monkeypatch, lean) -> None:
    """litellm priced each stream as it opened by counting the whole prompt with the model's
    tokenizer (~40 MiB per worker process, and CPU on every round of the tool loop) for an
    estimate nothing read; the usage the provider reports at the end is what is recorded."""
    settings.LLM_LEAN_STREAMING = lean
    llm.litellm_module()
    import litellm.cost_calculator

    counted: list[str] = []
    count = litellm.cost_calculator.token_counter

    def spy(*args, **kwargs):
        counted.append(kwargs.get("model", ""))
        return count(*args, **kwargs)

    monkeypatch.setattr(litellm.cost_calculator, "token_counter", spy)
    scripted_llm.reply_tool_call("add_expense", {"amount": 50}, prompt_tokens=900, completion_tokens=12)
    scripted_llm.reply_text("Anotei: R$ 50 no mercado.", prompt_tokens=950, completion_tokens=9)
    history = [{"role": "system", "content": "Você é um assistente. " * 200}, {"role": "user", "content": "Gastei 50"}]

    for _ in range(2):
        stream = llm.stream_completion(history)
        text = "".join(stream)
        answer = stream.result()
        stream.close()

    assert text == "Anotei: R$ 50 no mercado."
    assert answer.prompt_tokens == 950 and answer.usage_reported
    assert counted == []


@pytest.mark.parametrize("lean", [True, False], ids=["lean", "litellm"])
def test_a_stream_stopped_early_estimates_its_usage_without_a_tokenizer(scripted_llm, settings, monkeypatch, lean) -> None:
    """A stopped reply's stream has no usage chunk: litellm counted its tokens with tiktoken,
    loading an encoding into the Celery child for good (its RSS went 230 → 268 MiB)."""
    settings.LLM_LEAN_STREAMING = lean
    llm.litellm_module()
    import litellm.litellm_core_utils.streaming_chunk_builder_utils as builder

    def no_tokenizer(*args, **kwargs):
        raise AssertionError("a tokenizer was used")

    monkeypatch.setattr(builder, "token_counter", no_tokenizer)
    scripted_llm.reply_text("um dois três quatro cinco seis sete oito", prompt_tokens=900, completion_tokens=12)
    history = [{"role": "system", "content": "Você é um assistente. " * 100}, {"role": "user", "content": "Conte"}]

    stream = llm.stream_completion(history)
    first = next(iter(stream))  # the user stops the reply after its first words
    stream.close()
    answer = stream.result()

    assert answer.text == first
    assert not answer.usage_reported
    assert answer.prompt_tokens > 500  # the long system prompt, estimated
    assert 0 < answer.completion_tokens < 12


def test_a_streamed_response_is_priced_once_and_as_litellm_prices_it(settings, monkeypatch) -> None:
    settings.LLM_MODEL = "gpt-4o-mini"  # in litellm's price map
    settings.LLM_LEAN_STREAMING = False  # litellm's mock answers in place of the provider
    llm.litellm_module()
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response="um dois três"))
    stream = llm.stream_completion([{"role": "user", "content": "Conte até três"}])
    "".join(stream)
    priced = []
    completion_cost = litellm.completion_cost
    monkeypatch.setattr(litellm, "completion_cost", lambda **kwargs: priced.append(kwargs) or completion_cost(**kwargs))
    answer = stream.result()
    stream.close()

    prompt_cost, output_cost = litellm.cost_per_token(
        model="gpt-4o-mini", prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens
    )
    assert answer.cost is not None and answer.cost > 0
    assert answer.cost == pytest.approx(prompt_cost + output_cost)
    assert len(priced) <= 1  # litellm's builder prices the stream; result() does not price it again
