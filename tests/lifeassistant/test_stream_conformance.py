"""The lean reader and litellm read a provider's stream to the same answer, or the same failure.

Each stream in ``tests/data/provider_streams`` is written in the shape a provider sends
(OpenAI with ``stream_options.include_usage``, vLLM / Ollama's ``/v1``, OpenRouter), and
is replayed byte for byte by the scripted server on 127.0.0.1 through both paths of
``llm.stream_completion``: litellm's wrapper, and the lean reader (httpx, httpx-sse, orjson).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lifeassistant import llm
from lifeassistant.completions import Completion, ToolCallRequest
from tests.scripted_llm import RecordedStream, ScriptedLLM

STREAMS = Path(__file__).parent.parent / "data" / "provider_streams"
HISTORY = [{"role": "system", "content": "Você é um assistente financeiro."}, {"role": "user", "content": "Gastei 50 no mercado"}]
PATHS = {"litellm": False, "lean": True}


def recorded(name: str, *, cut: bool = False) -> RecordedStream:
    text = (STREAMS / f"{name}.sse").read_text(encoding="utf-8")
    return RecordedStream(tuple(f"{event}\n\n".encode() for event in text.split("\n\n") if event), cut=cut)


@dataclass
class Read:
    pieces: list[str]
    completion: Completion
    error: str | None  # the LLMError code, None when the stream ended well


def read_through_both_paths(scripted_llm: ScriptedLLM, settings: Any, stream: RecordedStream) -> dict[str, Read]:
    settings.LLM_MODEL = "openai/gpt-4o-mini"  # in litellm's price table, so both paths price it
    reads = {}
    for path, lean in PATHS.items():
        settings.LLM_LEAN_STREAMING = lean
        scripted_llm.replay(stream)
        opened = llm.stream_completion(HISTORY, temperature=0.3)
        pieces: list[str] = []
        error = None
        try:
            for piece in opened:
                pieces.append(piece)
        except llm.LLMError as exc:
            error = exc.code
        finally:
            opened.close()
        reads[path] = Read(pieces, opened.result(), error)
    return reads


def assert_the_same(reads: dict[str, Read]) -> Read:
    lean, litellm = reads["lean"], reads["litellm"]
    assert lean.pieces == litellm.pieces
    assert lean.error == litellm.error
    assert lean.completion.text == litellm.completion.text
    assert lean.completion.tool_calls == litellm.completion.tool_calls
    assert lean.completion.finish_reason == litellm.completion.finish_reason
    assert (lean.completion.prompt_tokens, lean.completion.completion_tokens, lean.completion.usage_reported) == (
        litellm.completion.prompt_tokens,
        litellm.completion.completion_tokens,
        litellm.completion.usage_reported,
    )
    assert lean.completion.model == litellm.completion.model == "gpt-4o-mini"
    assert lean.completion.cost == pytest.approx(litellm.completion.cost)
    return lean


def test_a_text_answer_with_its_usage_in_a_last_chunk_reads_the_same(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("openai_text")))

    assert read.pieces == ["Anotei", " R$", " 50", ",00", " no", " mercado", " hoje", ".", " Algo mais?"]
    assert read.completion.text == "Anotei R$ 50,00 no mercado hoje. Algo mais?"
    assert read.completion.finish_reason == "stop" and read.error is None
    assert (read.completion.prompt_tokens, read.completion.completion_tokens) == (412, 9)
    assert read.completion.usage_reported and read.completion.cost is not None and read.completion.cost > 0


def test_several_tool_calls_split_across_chunks_read_the_same(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("openai_tool_calls")))

    assert read.completion.text == "Vou registrar e conferir."
    assert read.completion.tool_calls == [
        ToolCallRequest(
            id="call_Xq7hV2n9LmA0",
            name="create_expense",
            arguments='{"amount": 50, "description": "mercado", "category": "alimentação"}',
        ),
        ToolCallRequest(id="call_R4tY8uI1oP2w", name="get_finance_summary", arguments='{"period": "month"}'),
    ]
    assert read.completion.finish_reason == "tool_calls"
    assert read.completion.completion_tokens == 61


def test_usage_on_the_chunk_with_the_finish_reason_reads_the_same(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("usage_with_the_finish")))

    assert read.completion.text == "Claro! Seu saldo está positivo."
    assert (read.completion.prompt_tokens, read.completion.completion_tokens) == (388, 7)


def test_a_stream_without_usage_has_the_same_estimate(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("no_usage")))

    assert read.completion.text == "Bom dia! Como posso ajudar?"
    assert not read.completion.usage_reported
    assert read.completion.prompt_tokens > 0 and read.completion.completion_tokens > 0


def test_an_error_event_mid_stream_interrupts_both_and_keeps_the_text_so_far(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("error_event")))

    assert read.error == "model_interrupted"
    assert read.completion.text == "Os gastos do mês"
    assert read.completion.finish_reason is None
    assert not read.completion.usage_reported  # estimated: the provider never said


def test_a_connection_cut_mid_stream_interrupts_both_and_keeps_the_text_so_far(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("cut", cut=True)))

    assert read.error == "model_interrupted"
    assert read.completion.text == "Vou te ajudar com"
    assert read.completion.finish_reason is None


def test_a_malformed_chunk_interrupts_both_and_keeps_the_text_before_it(scripted_llm, settings) -> None:
    read = assert_the_same(read_through_both_paths(scripted_llm, settings, recorded("malformed_chunk")))

    assert read.error == "model_interrupted"
    assert read.completion.text == "Um dois"


@pytest.mark.parametrize("path", PATHS)
def test_a_rate_limit_on_open_is_retried_then_reported_unavailable(scripted_llm, settings, path) -> None:
    settings.LLM_MODEL = "openai/gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = PATHS[path]
    settings.LLM_MAX_RETRIES = 2
    scripted_llm.reply_error(429, "Rate limit reached", times=3)

    with pytest.raises(llm.LLMError, match=r"unavailable \(RateLimitError\) after 3 attempts") as failed:
        llm.stream_completion(HISTORY)

    assert failed.value.code == "model_unavailable"
    assert len(scripted_llm.requests) == 3


@pytest.mark.parametrize("path", PATHS)
def test_a_server_error_on_open_is_retried_and_the_next_attempt_streams(scripted_llm, settings, path) -> None:
    settings.LLM_MODEL = "openai/gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = PATHS[path]
    scripted_llm.reply_error(503, "overloaded")
    scripted_llm.reply_text("Pronto.")

    stream = llm.stream_completion(HISTORY)

    assert "".join(stream) == "Pronto."
    assert len(scripted_llm.requests) == 2


@pytest.mark.parametrize("path", PATHS)
def test_a_bad_request_on_open_is_refused_without_a_retry(scripted_llm, settings, path) -> None:
    settings.LLM_MODEL = "openai/gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = PATHS[path]
    scripted_llm.reply_error(400, "Invalid type for 'messages[1].content'.")

    with pytest.raises(llm.LLMError, match=r"refused the request \(BadRequestError\)") as failed:
        llm.stream_completion(HISTORY)

    assert failed.value.code == "model_refused"
    assert len(scripted_llm.requests) == 1


@pytest.mark.parametrize("path", PATHS)
def test_a_stream_past_its_deadline_is_closed_with_the_timeout_code_and_its_text_kept(scripted_llm, settings, path) -> None:
    import time

    settings.LLM_MODEL = "openai/gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = PATHS[path]
    scripted_llm.token_delay = 0.05
    scripted_llm.reply_text("um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze")

    stream = llm.stream_completion(HISTORY, deadline=time.monotonic() + 0.3)
    pieces: list[str] = []
    with pytest.raises(llm.LLMError) as failed:
        for piece in stream:
            pieces.append(piece)

    assert failed.value.code == "timeout"
    assert pieces and stream.result().text == "".join(pieces)
    assert not "".join(pieces).endswith("quinze")


@pytest.mark.parametrize("path", PATHS)
def test_a_model_that_never_answers_fails_at_the_deadline_with_the_timeout_code(scripted_llm, settings, path) -> None:
    import time

    settings.LLM_MODEL = "openai/gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = PATHS[path]
    scripted_llm.stall_next(3)
    scripted_llm.reply_text("tarde demais")

    with pytest.raises(llm.LLMError) as failed:
        llm.stream_completion(HISTORY, deadline=time.monotonic() + 0.5)

    assert failed.value.code == "timeout"
