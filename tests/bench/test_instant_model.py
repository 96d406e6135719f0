"""The benchmarks' instant model answers a streamed request with a stream.

The worker streams every round, so a model that answered a streamed request with a
plain JSON body gave replies with no text, and the load figures measured empty replies.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.test import override_settings

from bench.instant_model import ANSWER_TEXT, USAGE, serve
from lifeassistant import llm


@pytest.fixture(params=[0.0, 0.01], ids=["at-once", "spaced"])
def instant(request: pytest.FixtureRequest) -> Iterator[None]:
    server = serve(0, token_delay=request.param)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api_base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with override_settings(LLM_MODEL="openai/instant", LLM_API_BASE=api_base, LLM_API_KEY="bench", LLM_MAX_RETRIES=0):
        yield
    server.shutdown()
    server.server_close()


@pytest.mark.usefixtures("instant")
def test_a_streamed_call_reads_the_answer_word_by_word_with_its_usage() -> None:
    stream = llm.stream_completion([{"role": "user", "content": "oi"}])
    pieces = list(stream)
    answer = stream.result()

    assert pieces == ["Anotado! ", "Algo ", "mais?"]
    assert answer.text == ANSWER_TEXT
    assert answer.prompt_tokens == USAGE["prompt_tokens"]


@pytest.mark.usefixtures("instant")
def test_a_plain_call_gets_the_same_answer() -> None:
    response = llm.completion([{"role": "user", "content": "oi"}])
    assert response.text == ANSWER_TEXT
