"""Tracking tools over the user's own metric entries."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone

from lifeassistant.tools import REGISTRY, ToolContext
from lifeassistant.models import MetricEntry

pytestmark = pytest.mark.django_db


def run(user: Any, tool: str, /, **arguments: Any) -> Any:
    outcome = REGISTRY.execute(tool, arguments, ToolContext(user, None, None))
    return outcome.result if outcome.ok else outcome.error


def entry(owner: Any, metric_type: str, value: str, unit: str, days_ago: int = 0) -> MetricEntry:
    return MetricEntry.objects.create(
        owner=owner, type=metric_type, value=Decimal(value), unit=unit,
        recorded_at=timezone.now() - timedelta(days=days_ago),
    )


def test_a_metric_is_recorded_with_its_default_unit(user: Any) -> None:
    result = run(user, "record_metric", type="water", value=500)

    stored = MetricEntry.objects.get()
    assert (stored.type, stored.value, stored.unit) == ("water", Decimal("500.00"), "ml")
    assert result["metric"]["unit"] == "ml"


def test_an_implausible_value_is_refused(user: Any) -> None:
    error = run(user, "record_metric", type="mood", value=42)

    assert "outside the plausible range" in error
    assert not MetricEntry.objects.exists()


def test_the_history_has_statistics_per_type_and_only_the_users_entries(user: Any, other_user: Any) -> None:
    entry(user, "weight", "82.0", "kg", days_ago=10)
    entry(user, "weight", "80.5", "kg", days_ago=1)
    entry(user, "sleep", "7", "h", days_ago=1)
    entry(user, "weight", "90", "kg", days_ago=60)
    entry(other_user, "weight", "50", "kg", days_ago=1)

    history = run(user, "get_tracking_history", type="weight")

    assert [e["value"] for e in history["entries"]] == ["80.50", "82.00"]
    assert history["stats"]["weight"] == {
        "count": 2, "average": "81.25", "min": "80.50", "max": "82.00", "latest": "80.50", "change": "-1.50", "unit": "kg",
    }


def test_a_metric_is_corrected_and_deleted_by_id(user: Any) -> None:
    weight = entry(user, "weight", "80", "kg")

    run(user, "update_metric", metric_id=weight.pk, value=79.5, note="balança nova")
    weight.refresh_from_db()
    assert (weight.value, weight.note) == (Decimal("79.50"), "balança nova")

    run(user, "delete_metric", metric_id=weight.pk)
    assert not MetricEntry.objects.exists()


def test_another_users_metric_can_be_neither_changed_nor_deleted(user: Any, other_user: Any) -> None:
    theirs = entry(other_user, "weight", "80", "kg")

    assert run(user, "update_metric", metric_id=theirs.pk, value=1) == f"No metric with id {theirs.pk} was found."
    assert run(user, "delete_metric", metric_id=theirs.pk) == f"No metric with id {theirs.pk} was found."
    theirs.refresh_from_db()
    assert theirs.value == Decimal("80.00")


@pytest.mark.parametrize(
    ("impossible", "said"),
    [
        ("2024-02-30", "is not a real date;"),
        ("2024-02-30T10:00", "is not a real date and time;"),
        ("2024-02-28T25:00", "is not a real date and time;"),
    ],
)
def test_an_impossible_moment_is_an_error_the_model_can_correct(user: Any, impossible: str, said: str) -> None:
    outcome = REGISTRY.execute(
        "record_metric", {"type": "weight", "value": 70, "recorded_at": impossible}, ToolContext(user, None, None)
    )

    assert not outcome.ok
    assert outcome.error.startswith(f"'{impossible}' {said}")
    assert not MetricEntry.objects.exists()
