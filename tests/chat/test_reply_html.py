"""An ended reply is rendered once; reads of it, and of the pages that hold it, reuse that HTML."""

from __future__ import annotations

import logging
from typing import Any
from unittest import mock

import pytest
from django.core.cache import cache
from redis.exceptions import ConnectionError as RedisConnectionError

from chat import markdown, reply_html
from chat.models import Conversation, Message

pytestmark = pytest.mark.django_db

REPLY = (
    "Aqui vai o resumo dos seus **gastos**:\n\n| categoria | valor |\n|---|---:|\n| mercado | R$ 450,00 |\n"
    "| transporte | R$ 120,00 |\n\n1. Compare preços em [sites de ofertas](https://exemplo.com.br).\n"
    "2. Planeje as compras da semana.\n\n```python\ntotal = 450 + 120\n```\n"
)


def _thread(conversation: dict[str, Any], replies: list[tuple[str, str]]) -> list[Message]:
    """A user message and its reply for each (text, status)."""
    row = Conversation.objects.get(pk=conversation["id"])
    made = []
    for n, (text, status) in enumerate(replies):
        asked = Message.objects.create(conversation=row, role="user", content=f"pergunta {n}")
        made.append(Message.objects.create(conversation=row, role="assistant", reply_to=asked, content=text, status=status))
    return made


@pytest.fixture
def renders() -> Any:
    """Counts markdown renders, still rendering."""
    with mock.patch.object(markdown, "render", side_effect=markdown.render) as spy:
        yield spy


def test_a_page_renders_its_ended_replies_once_across_reads(api: Any, conversation: dict[str, Any], renders: Any) -> None:
    _thread(conversation, [(f"{REPLY}\nResposta {n}.", "done") for n in range(5)])
    url = f"/api/v1/conversations/{conversation['id']}/messages/"

    first = api.get(url).json()["results"]
    assert renders.call_count == 5
    second = api.get(url).json()["results"]

    assert renders.call_count == 5  # the second read rendered nothing
    assert [m["content_html"] for m in second] == [m["content_html"] for m in first]
    html = {m["content"]: m["content_html"] for m in first if m["role"] == "assistant"}
    assert html[f"{REPLY}\nResposta 0."] == markdown.render(f"{REPLY}\nResposta 0.") and "<table>" in html[REPLY + "\nResposta 0."]


def test_the_html_the_final_event_carries_is_the_html_a_read_reuses(api: Any, conversation: dict[str, Any], renders: Any) -> None:
    from chat.api.streaming import final_message

    (reply,) = _thread(conversation, [(REPLY, "done")])
    final_message(reply.pk, "en")  # the SSE view, relaying the reply's end: the final event carries its HTML
    assert renders.call_count == 1

    body = api.get(f"/api/v1/messages/{reply.pk}/").json()

    assert renders.call_count == 1
    assert body["content_html"] == markdown.render(REPLY)


def test_a_running_reply_is_rendered_as_it_is_now_on_every_read(api: Any, conversation: dict[str, Any]) -> None:
    (reply,) = _thread(conversation, [(REPLY, "running")])
    url = f"/api/v1/messages/{reply.pk}/"
    assert api.get(url).json()["content_html"] == markdown.render(REPLY)

    Message.objects.filter(pk=reply.pk).update(content=REPLY + "\nMais uma **linha**.")

    assert "<strong>linha</strong>" in api.get(url).json()["content_html"]
    kept = cache.get_many([reply_html.cache_key(REPLY), reply_html.cache_key(REPLY + "\nMais uma **linha**.")])
    assert kept == {}  # nothing kept while it runs


def test_same_text_same_html_whoever_reads_it_and_a_new_rule_set_is_a_new_key(
    api: Any, other_api: Any, conversation: dict[str, Any], renders: Any
) -> None:
    (mine,) = _thread(conversation, [(REPLY, "done")])
    theirs = other_api.post("/api/v1/conversations/", {"title": "outra"}, format="json").json()
    (other,) = _thread(theirs, [(REPLY, "failed")])

    assert api.get(f"/api/v1/messages/{mine.pk}/").json()["content_html"] == markdown.render(REPLY)
    assert other_api.get(f"/api/v1/messages/{other.pk}/").json()["content_html"] == markdown.render(REPLY)
    assert api.get(f"/api/v1/messages/{other.pk}/").status_code == 404  # sharing HTML shares no access
    key = reply_html.cache_key(REPLY)
    with mock.patch.object(markdown, "FINGERPRINT", "rules-of-the-next-deploy"):
        assert reply_html.cache_key(REPLY) != key


def test_short_replies_are_rendered_without_the_cache(renders: Any) -> None:
    with mock.patch.object(cache, "get_many") as get_many:
        assert reply_html.ended_replies_html(["Olá, **Ana**!"]) == {"Olá, **Ana**!": "<p>Olá, <strong>Ana</strong>!</p>"}
    get_many.assert_not_called()


def test_with_the_cache_down_a_page_is_rendered_and_the_fault_logged(
    api: Any, conversation: dict[str, Any], caplog: Any
) -> None:
    _thread(conversation, [(REPLY, "done"), (REPLY + "\nOutra.", "cancelled")])
    down = RedisConnectionError("Connection refused")
    with mock.patch.object(cache, "get_many", side_effect=down), mock.patch.object(cache, "set_many", side_effect=down):
        with caplog.at_level(logging.WARNING, logger="lifeassistant.cache"):
            response = api.get(f"/api/v1/conversations/{conversation['id']}/messages/")

    assert response.status_code == 200
    html = {m["content"]: m["content_html"] for m in response.json()["results"] if m["role"] == "assistant"}
    assert html == {text: markdown.render(text) for text in (REPLY, REPLY + "\nOutra.")}
    assert "cache unavailable, replies rendered without it" in caplog.text


def test_with_no_time_to_keep_it_every_read_renders_and_nothing_is_kept(
    api: Any, conversation: dict[str, Any], renders: Any, settings: Any
) -> None:
    settings.REPLY_HTML_TTL_SECONDS = 0
    (reply,) = _thread(conversation, [(REPLY, "done")])
    url = f"/api/v1/messages/{reply.pk}/"

    assert api.get(url).json()["content_html"] == api.get(url).json()["content_html"] == markdown.render(REPLY)

    assert renders.call_count == 3  # two reads and the expected value
    assert cache.get(reply_html.cache_key(REPLY)) is None


def test_the_html_is_kept_for_the_configured_time(settings: Any) -> None:
    settings.REPLY_HTML_TTL_SECONDS = 120
    with mock.patch.object(cache, "set_many") as set_many:
        reply_html.ended_replies_html([REPLY])
    set_many.assert_called_once_with({reply_html.cache_key(REPLY): markdown.render(REPLY)}, 120)
