"""What the web chat reads from the API: replies as safe HTML, documents with their first lines."""

from __future__ import annotations

import functools

import litellm
import pytest

from documents.listing import preview

pytestmark = pytest.mark.django_db


def test_an_assistant_reply_carries_sanitized_html_and_a_user_message_none(
    api, conversation, send, shipped_skills, settings, monkeypatch
):
    settings.LLM_MODEL = "gpt-4o-mini"
    settings.LLM_LEAN_STREAMING = False  # litellm's mock_response stands in for the provider
    reply_text = "**Feito.** Veja [o extrato](https://banco.example) ou [isto](javascript:alert(1))"
    monkeypatch.setattr(litellm, "completion", functools.partial(litellm.completion, mock_response=reply_text))
    body = send(api, conversation["id"], {"content": "Resuma <b>isto</b>"}).json()
    assert body["user_message"]["content_html"] is None

    reply = api.get(f"/api/v1/messages/{body['assistant_message']['id']}/").json()
    assert reply["content"] == reply_text
    assert reply["content_html"].startswith("<p><strong>Feito.</strong>")
    assert '<a href="https://banco.example" target="_blank" rel="noopener noreferrer">o extrato</a>' in reply["content_html"]
    assert 'href="javascript' not in reply["content_html"]
    listed = api.get(f"/api/v1/conversations/{conversation['id']}/messages/").json()["results"]
    assert [m["content_html"] is None for m in listed] == [False, True]


def test_a_pasted_document_shows_its_first_lines(api, conversation, send, shipped_skills, settings):
    settings.LLM_MAX_INPUT_TOKENS = 16_000
    rows = "\n".join(f"2024-09-{n % 28 + 1:02d},mercado {n},{n}.50" for n in range(1800))
    body = send(api, conversation["id"], {"content": f"Analise meus gastos:\n\n```csv\ndate,place,amount\n{rows}\n```\n"}).json()
    [document] = body["user_message"]["documents"]
    assert document["preview"].splitlines() == [
        "date,place,amount",
        "2024-09-01,mercado 0,0.50",
        "2024-09-02,mercado 1,1.50",
        "2024-09-03,mercado 2,2.50",
        "2024-09-04,mercado 3,3.50",
    ]
    assert document["size_bytes"] > 40_000 and document["file_name"]


def test_a_preview_stops_at_five_lines_or_400_characters() -> None:
    assert preview("\n\na\nb\nc\nd\ne\nf\n") == "a\nb\nc\nd\ne"
    assert preview("x" * 1000) == "x" * 400
    assert preview("curto") == "curto"
