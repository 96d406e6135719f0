"""analyze_context: connections inferred from the user's own data, without a model."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import Bill, KnowledgeItem, MetricEntry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def users_time_zone() -> Any:
    """The tools run in the user's time zone (their profile's, São Paulo by default): the
    test's "today" is the user's too, whatever the hour in UTC."""
    with timezone.override("America/Sao_Paulo"):
        yield


def analyze(user: Any, **arguments: Any) -> dict[str, Any]:
    outcome = REGISTRY.execute("analyze_context", arguments, ToolContext(user, None, None))
    assert outcome.ok, outcome.error
    return outcome.result


def day(user: Any, days_ago: int, sleep: str, mood: str) -> None:
    moment = timezone.now() - timedelta(days=days_ago)
    MetricEntry.objects.create(owner=user, type="sleep", value=Decimal(sleep), unit="h", recorded_at=moment)
    MetricEntry.objects.create(owner=user, type="mood", value=Decimal(mood), unit="score", recorded_at=moment)


def test_it_connects_short_sleep_with_low_mood(user: Any) -> None:
    day(user, 1, "5", "3")
    day(user, 2, "5.5", "4")
    day(user, 3, "8", "7")

    result = analyze(user, topic="ando cansada", areas=["health"])

    assert any("short sleep, mood averages 3.5 against 7.0" in c for c in result["connections"])


def test_it_connects_overdue_bills_with_stress(user: Any) -> None:
    Bill.objects.create(owner=user, name="Luz", amount=Decimal("300"), due_date=timezone.localdate() - timedelta(days=3))

    result = analyze(user, topic="estou muito estressada", areas=["finance"])

    assert any("Financial pressure" in c for c in result["connections"])
    assert "1 overdue bill(s), R$ 300,00 in total." in result["facts"]


def test_it_only_looks_at_the_users_own_data(user: Any, other_user: Any) -> None:
    KnowledgeItem.objects.create(owner=other_user, content="Tem medo de avião")
    day(other_user, 1, "4", "2")

    result = analyze(user, topic="medo de avião")

    assert result["connections"] == []
    assert result["data"]["knowledge"] == []
    assert result["data"]["health"] == {}
