from __future__ import annotations

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_openapi_schema_generates_without_warnings(tmp_path, capsys):
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yml"))
    schema = (tmp_path / "schema.yml").read_text()
    assert "/api/v1/conversations/{conversation_id}/messages/" in schema
    assert "Idempotency-Key" in schema


def test_the_docs_page_is_served(client):
    assert client.get("/api/docs/").status_code == 200
