"""LOG_FORMAT=json: one JSON object per line, with the ids of its request and reply, and never
what the user wrote, a password or a token."""

from __future__ import annotations

import io
import json
import logging.config
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from lifeassistant.observability.logs import logging_config

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "pass-ana-123"
# Eight digits: a shorter number turns up by chance inside a task id or a timing in the log.
SECRET_TEXT = "minha senha do banco é 44719352 e gastei 50 reais no mercado com a Joana"


@pytest.fixture
def json_logs() -> Iterator[Any]:
    """The settings' logging with LOG_FORMAT=json, its console written to a buffer."""
    written = io.StringIO()
    config = logging_config("json", "INFO")
    config["handlers"]["console"]["stream"] = written
    logging.config.dictConfig(config)
    try:
        yield written.getvalue
    finally:
        logging.config.dictConfig(settings.LOGGING)


def test_a_whole_conversation_logs_parseable_lines_without_text_password_or_token(
    json_logs: Any, user: Any, scripted_llm: Any, shipped_skills: None
) -> None:
    client = APIClient()
    token = client.post("/api/v1/auth/token/", {"username": "ana", "password": PASSWORD}, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    conversation = client.post("/api/v1/conversations/", {"title": "Contas"}, format="json").json()["id"]
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado com a Joana"})
    scripted_llm.reply_text("Quer que eu registre R$ 50,00 no mercado com a Joana?")
    posted = client.post(
        f"/api/v1/conversations/{conversation}/messages/", {"content": SECRET_TEXT}, format="json", headers={"X-Request-ID": "req-42"}
    )
    scripted_llm.reply_error(400, "refused: minha senha do banco")
    client.post(f"/api/v1/conversations/{conversation}/messages/", {"content": "sim, e a Joana?"}, format="json")
    client.post("/api/v1/auth/token/", {"username": "ana", "password": "wrong-" + PASSWORD}, format="json")
    output = json_logs()

    lines = [json.loads(line) for line in output.splitlines() if line.strip()]
    assert lines, "the conversation logged nothing"
    for needle in ("senha do banco", "Joana", "44719352", PASSWORD, token):
        assert needle not in output
    assert posted["X-Request-ID"] == "req-42"
    reply_id = posted.json()["assistant_message"]["id"]
    about_the_reply = [line for line in lines if line.get("message_id") == reply_id]
    assert about_the_reply
    assert {line["request_id"] for line in about_the_reply} == {"req-42"}
    assert {line["conversation_id"] for line in about_the_reply} == {conversation}
    assert {line["user_id"] for line in about_the_reply} == {user.pk}
    assert all({"time", "level", "logger", "message"} <= line.keys() for line in lines)


def test_a_request_without_an_id_gets_one_and_a_forged_one_is_replaced(client: Any) -> None:
    made = client.get("/livez")["X-Request-ID"]
    assert len(made) == 32

    assert client.get("/livez", headers={"X-Request-ID": "abc-123"})["X-Request-ID"] == "abc-123"
    forged = client.get("/livez", headers={"X-Request-ID": 'x" level=ERROR'})["X-Request-ID"]
    assert forged != 'x" level=ERROR' and len(forged) == 32


def test_log_format_accepts_plain_or_json_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from tests.conftest import last_line_printed_by_a_fresh_process

    assert last_line_printed_by_a_fresh_process("from django.conf import settings; print(settings.LOG_FORMAT)", LOG_FORMAT="json") == "json"
    with pytest.raises(Exception) as refused:
        last_line_printed_by_a_fresh_process("from django.conf import settings; print(settings.LOG_FORMAT)", LOG_FORMAT="xml")
    assert "LOG_FORMAT must be plain or json" in str(getattr(refused.value, "stderr", ""))
    del ImproperlyConfigured
