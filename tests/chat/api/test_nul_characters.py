"""Text holding NUL is refused with a 400 naming the field, on every database.

PostgreSQL can neither store nor compare text holding NUL, so a NUL that reached a query
there was a server error. The API's description promises the 400; this checks every text
field of a request body and every free-text query parameter the schema lists (the context
contract's own test covers its fields). Schemathesis leaves NUL out of its data
(tests/api_clients/schemathesis.toml), so the second test fails when the schema gains a text
field that ``CHECKED`` does not send NUL to.
"""

from __future__ import annotations

from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

from chat.models import Conversation, Message
from lifeassistant.models import KnowledgeItem

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("shipped_skills")]

NUL = "a\x00b"
# (method, path as the schema writes it, the body or query that carries NUL, the field)
CHECKED = [
    ("post", "/api/v1/auth/token/", {"username": NUL, "password": "x"}, "username"),
    ("post", "/api/v1/auth/token/", {"username": "ana", "password": NUL}, "password"),
    ("post", "/api/v1/auth/token/", {"username": "ana", "password": "pass-ana-123", "client": NUL}, "client"),
    ("post", "/api/v1/conversations/", {"title": NUL}, "title"),
    ("patch", "/api/v1/conversations/{conversation_id}/", {"title": NUL}, "title"),
    ("put", "/api/v1/conversations/{conversation_id}/", {"title": NUL}, "title"),
    ("post", "/api/v1/conversations/{conversation_id}/messages/", {"content": NUL}, "content"),
    ("post", "/api/v1/messages/{message_id}/edit/", {"content": NUL}, "content"),
    ("patch", "/api/v1/me/", {"display_name": NUL}, "display_name"),
    ("patch", "/api/v1/me/", {"timezone": NUL}, "timezone"),
    ("patch", "/api/v1/me/", {"currency": NUL}, "currency"),
    ("delete", "/api/v1/me/", {"password": NUL}, "password"),
    ("post", "/api/v1/memory/", {"kind": "fact", "area": "general", "content": NUL}, "content"),
    ("patch", "/api/v1/memory/{memory_id}/", {"content": NUL}, "content"),
    ("get", "/api/v1/conversations/", {"search": NUL}, "search"),
]
# Its own contract and error body: tests/lifeassistant/test_light_context.py.
CONTEXT = "/api/v1/conversations/{conversation_id}/context/"
# Opaque or patterned strings, answered 400 ("Invalid cursor." or their own) by their own tests.
NOT_FREE_TEXT = {"cursor", "after", "Idempotency-Key", "Last-Event-ID"}


def test_every_text_field_refuses_nul_and_nothing_is_written(api: Any, send: Any) -> None:
    conversation = api.post("/api/v1/conversations/", {"title": "Contas"}, format="json").json()
    asked = send(api, conversation["id"], {"content": "Oi"}).json()["user_message"]
    memory = api.post("/api/v1/memory/", {"kind": "fact", "area": "general", "content": "Mora em Recife"}, format="json").json()
    ids = {"conversation_id": conversation["id"], "message_id": asked["id"], "memory_id": memory["id"]}

    for method, path, body, field in CHECKED:
        url = path.format(**ids)
        response = getattr(api, method)(url, body, **({} if method == "get" else {"format": "json"}))
        assert response.status_code == 400, (method, url, field, response.content)
        assert field in response.json()["errors"], (method, url, response.json())

    assert list(Conversation.objects.values_list("title", flat=True)) == ["Contas"]
    assert [(m.content, m.superseded_at) for m in Message.objects.filter(role="user")] == [("Oi", None)]
    assert list(KnowledgeItem.objects.values_list("content", flat=True)) == ["Mora em Recife"]


def test_the_nul_check_covers_every_text_field_the_schema_lists() -> None:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    components = schema["components"]["schemas"]

    def free_text(spec: dict[str, Any]) -> bool:
        return spec.get("type") == "string" and not ({"enum", "format", "pattern", "$ref"} & spec.keys())

    listed = set()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] in ("query", "header") and parameter["name"] not in NOT_FREE_TEXT:
                    if free_text(parameter["schema"]):
                        listed.add((method, path, parameter["name"]))
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            if "$ref" in body and path != CONTEXT:
                properties = components[body["$ref"].rsplit("/", 1)[-1]].get("properties", {})
                listed |= {
                    (method, path, name) for name, spec in properties.items() if free_text(spec) and not spec.get("readOnly")
                }

    unchecked = listed - {(method, path, field) for method, path, _body, field in CHECKED}
    assert not unchecked, f"add these to CHECKED: {sorted(unchecked)}"
