from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def conversation(api: APIClient) -> dict[str, Any]:
    return api.post("/api/v1/conversations/", {"title": "Dia a dia"}, format="json").json()


@pytest.fixture
def send(django_capture_on_commit_callbacks: Any) -> Callable[..., Any]:
    """POST a message and run what the commit dispatches (the eager Celery task)."""

    def _send(client: APIClient, conversation_id: int, body: Any, **headers: str) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                f"/api/v1/conversations/{conversation_id}/messages/", body, format="json", headers=headers
            )

    return _send
