"""Generated clients and schemathesis against a live server (127.0.0.1, an ephemeral port).

The live server runs on a file-backed SQLite database (see tests/live_db.py), the
shipped skills are loaded, and the model is the scripted OpenAI-compatible server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.live_db import django_db_modify_db_settings  # noqa: F401 - the fixture, for this folder

USERNAME, PASSWORD = "ana", "pass-ana-123"


@pytest.fixture
def server(live_server: Any, user: Any, shipped_skills: None) -> str:
    """The live server's base URL, with the user ana and the shipped skills."""
    return str(live_server.url)


@pytest.fixture
def schema_file(server: str, tmp_path: Path) -> Path:
    """The schema as the server serves it today, for the generators."""
    response = requests.get(f"{server}/api/schema/", params={"format": "json"}, timeout=30)
    response.raise_for_status()
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(response.json(), indent=1))
    return path


@pytest.fixture
def expense_proposal(scripted_llm: Any) -> str:
    """Script the model to propose an expense, then ask; returns the message that triggers it."""
    scripted_llm.reply_tool_call("create_expense", {"amount": 50, "description": "mercado"})
    scripted_llm.reply_text("Quer que eu registre a despesa de R$ 50,00 no mercado?")
    return "Gastei 50 reais no mercado"
