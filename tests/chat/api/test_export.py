"""GET /api/v1/me/export/: everything of the user, as one streamed JSON document."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, datetime, timezone as dt_timezone
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from chat.models import Conversation, Message, ToolCall
from documents.models import ChatDocument
from lifeassistant.models import Consent, Expense, KnowledgeItem, MetricEntry, Profile

pytestmark = pytest.mark.django_db


def download(client: APIClient, path: str = "/api/v1/me/export/") -> Any:
    response = client.get(path)
    assert response.status_code == 200
    assert response.streaming
    return response, b"".join(response.streaming_content).decode("utf-8")


@pytest.fixture
def history(user: Any, api: APIClient, send: Any, conversation: dict[str, Any]) -> dict[str, Any]:
    send(api, conversation["id"], {"content": "Gastei 50 reais no mercado e pesei 70 kg"})
    asked = Message.objects.filter(role="user").get()
    reply = Message.objects.filter(role="assistant").get()
    ToolCall.objects.create(message=reply, call_id="c1", tool="create_expense", arguments={"amount": 50}, result={"id": 1}, ok=True)
    ChatDocument.objects.create(
        owner=user, conversation_id=conversation["id"], message=asked, file_name="extrato.csv", content="data,valor\n5/1,50"
    )
    KnowledgeItem.objects.create(owner=user, content="Sou vegetariana")
    Expense.objects.create(owner=user, amount=Decimal("50"), description="mercado", spent_on=date(2026, 1, 5))
    MetricEntry.objects.create(owner=user, type="weight", value=Decimal("70"), unit="kg", recorded_at=timezone.now())
    Consent.objects.create(owner=user, purpose="health", text_version=1, given=True)
    return conversation


def test_the_files_name_carries_the_users_day(api: APIClient, user: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # 1 December, 01:03 UTC: still 30 November in São Paulo.
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 12, 1, 1, 3, tzinfo=dt_timezone.utc))
    profile = Profile.for_user(user)
    profile.timezone = "America/Sao_Paulo"
    profile.save()

    response, _ = download(api)

    assert response["Content-Disposition"] == 'attachment; filename="life-assistant-2026-11-30.json"'


def test_the_export_holds_each_kind_of_data_and_parses(api: APIClient, history: dict[str, Any]) -> None:
    response, body = download(api)

    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith('attachment; filename="life-assistant-')
    data = json.loads(body)
    assert data["profile"]["username"] == "ana"
    assert [item["content"] for item in data["memory"]] == ["Sou vegetariana"]
    assert [expense["description"] for expense in data["expenses"]] == ["mercado"]
    assert data["expenses"][0]["amount"] == "50.00"
    assert [(metric["type"], metric["value"]) for metric in data["metrics"]] == [("weight", "70.00")]
    assert [document["file_name"] for document in data["documents"]] == ["extrato.csv"]
    assert [(c["purpose"], c["given"]) for c in data["consents"]] == [("health", True)]
    [conversation] = data["conversations"]
    asked, reply = conversation["messages"]
    assert asked["content"] == "Gastei 50 reais no mercado e pesei 70 kg"
    assert reply["role"] == "assistant" and reply["content"]
    assert reply["tool_calls"][0]["tool"] == "create_expense"
    assert reply["tool_calls"][0]["result"] == {"id": 1}


def test_another_users_data_never_appears(api: APIClient, other_api: APIClient, other_user: Any, history: dict[str, Any]) -> None:
    Conversation.objects.create(owner=other_user, title="Segredo do Bruno")
    Expense.objects.create(owner=other_user, amount=Decimal("9"), description="presente surpresa", spent_on=date(2026, 1, 6))

    _, mine = download(api)
    _, theirs = download(other_api)

    assert "Segredo do Bruno" not in mine and "presente surpresa" not in mine
    assert "mercado" not in theirs and "vegetariana" not in theirs
    assert json.loads(theirs)["conversations"][0]["title"] == "Segredo do Bruno"


def test_an_empty_account_exports_empty_lists(api: APIClient) -> None:
    _, body = download(api)
    data = json.loads(body)
    assert data["conversations"] == [] and data["expenses"] == [] and data["memory"] == []


def test_the_csv_of_expenses_quotes_cells_a_spreadsheet_would_run(api: APIClient, user: Any) -> None:
    Expense.objects.create(owner=user, amount=Decimal("10"), description="=HYPERLINK(\"http://x\")", spent_on=date(2026, 1, 5))
    Expense.objects.create(owner=user, amount=Decimal("20"), description="@SUM(A1)", spent_on=date(2026, 1, 6))

    response, body = download(api, "/api/v1/me/export/expenses/")

    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["spent_on", "description", "category", "amount"]
    assert [row[1] for row in rows[1:]] == ["'=HYPERLINK(\"http://x\")", "'@SUM(A1)"]
    assert [row[3] for row in rows[1:]] == ["10.00", "20.00"]


def test_the_csv_of_metrics_lists_the_users_metrics(api: APIClient, user: Any, other_user: Any) -> None:
    MetricEntry.objects.create(owner=user, type="sleep", value=Decimal("7.5"), unit="h", recorded_at=timezone.now(), note="-bem")
    MetricEntry.objects.create(owner=other_user, type="weight", value=Decimal("90"), unit="kg", recorded_at=timezone.now())

    _, body = download(api, "/api/v1/me/export/metrics/")

    rows = list(csv.reader(io.StringIO(body)))
    assert [(row[1], row[2], row[4]) for row in rows[1:]] == [("sleep", "7.50", "'-bem")]


def test_the_export_needs_a_signed_in_user() -> None:
    assert APIClient().get("/api/v1/me/export/").status_code == 401
