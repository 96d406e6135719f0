"""Text holding NUL is refused with a 400 naming the field, on every database.

PostgreSQL can neither store nor compare text holding NUL, so a NUL that reached a query
there was a server error. The API's description promises the 400; this checks every
operation with a text field (the context contract's own test covers its fields).
Schemathesis leaves NUL out of its data (tests/api_clients/schemathesis.toml), so a new
text field or query parameter belongs in the list below.
"""

from __future__ import annotations

from typing import Any

import pytest

from chat.models import Conversation, Message
from lifeassistant.models import KnowledgeItem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]

NUL = "a\x00b"


def test_every_text_field_refuses_nul_and_nothing_is_written(api: Any, send: Any) -> None:
    conversation = api.post("/api/v1/conversations/", {"title": "Contas"}, format="json").json()
    asked = send(api, conversation["id"], {"content": "Oi"}).json()["user_message"]
    memory = api.post("/api/v1/memory/", {"kind": "fact", "area": "general", "content": "Mora em Recife"}, format="json").json()
    base = f"/api/v1/conversations/{conversation['id']}"
    requests = [
        ("post", "/api/v1/auth/token/", {"username": NUL, "password": "x"}, "username"),
        ("post", "/api/v1/conversations/", {"title": NUL}, "title"),
        ("patch", f"{base}/", {"title": NUL}, "title"),
        ("put", f"{base}/", {"title": NUL}, "title"),
        ("post", f"{base}/messages/", {"content": NUL}, "content"),
        ("post", f"/api/v1/messages/{asked['id']}/edit/", {"content": NUL}, "content"),
        ("patch", "/api/v1/me/", {"display_name": NUL}, "display_name"),
        ("patch", "/api/v1/me/", {"timezone": NUL}, "timezone"),
        ("patch", "/api/v1/me/", {"currency": NUL}, "currency"),
        ("post", "/api/v1/memory/", {"kind": "fact", "area": "general", "content": NUL}, "content"),
        ("patch", f"/api/v1/memory/{memory['id']}/", {"content": NUL}, "content"),
        ("get", "/api/v1/conversations/", {"search": NUL}, "search"),
    ]
    for method, url, body, field in requests:
        response = getattr(api, method)(url, body, **({} if method == "get" else {"format": "json"}))
        assert response.status_code == 400, (method, url, response.content)
        assert field in response.json()["errors"], (method, url, response.json())

    assert list(Conversation.objects.values_list("title", flat=True)) == ["Contas"]
    assert [(m.content, m.superseded_at) for m in Message.objects.filter(role="user")] == [("Oi", None)]
    assert list(KnowledgeItem.objects.values_list("content", flat=True)) == ["Mora em Recife"]
